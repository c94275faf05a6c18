"""The PGLeaf experiment (Morioka & Igarashi, section 5): learn, then measure.

``python -m gamelib.experiments pgleaf --profile quick|paper [--seed S] [--out DIR]`` runs
three resumable stages into the run folder (default ``data/results/<profile>/pgleaf/seed-<S>``):

1. **Training** (``train/``): every run -- algorithm (PGLeaf, REINFORCE, TDLeaf(λ), TD(λ)) ×
   reward (MDP, non-MDP) × replicate -- learns by self-play with the paper's settings
   (:mod:`gamelib.learn.learners`). All runs advance together in batches of
   M games each (one :func:`gamelib.runtime.run_batched` run): a policy-gradient run plays its
   M games with θ fixed, spread over the workers, and updates once; a TD run plays its M games in
   turn inside one job, updating after every game. The parameters are checkpointed after every
   batch and kept for good at ``keep_points`` (a log grid that contains 1,000, 10,000 and 100,000
   games). Replicate ``r`` of every algorithm starts from the same initial θ (Table 1 piece
   values, the rest ~N(0, 1e-4²), seeded by ``(seed, "init", r)``), so the algorithms are compared
   from one starting point; game ``i`` of a run has the seed
   ``derive_seed(seed, "game", algorithm, reward, r, i)``.
2. **Matches** (``matches/``): round-robins of the four algorithms after ``table_points`` games
   (the paper's Tables 2-4; ``round_robin_games`` per pairing) and a gauntlet of every run's
   parameters after ``curve_points`` games against the reference opponent (Figs 1-2;
   ``gauntlet_games`` per point), with iterative deepening under a node budget and the paper's
   evaluation noise (variance 0.001). Every game starts from the standard position, unless
   ``match_opening_plies`` k > 0: then the games of a pairing come in pairs that share an
   opening of k random plies, played once with each colour.
3. **PGLeafReport**: CSV tables, the figures, the parameters at the table points as ``.npz`` and a
   provenance JSON (git commit, seed, profile, sizes, wall time per stage, machine).

Killed at any moment, the same command resumes every stage from its last checkpoint and ends with
the same numbers as an uninterrupted run, whatever the number of workers.

The configuration of a run is one typed, frozen :class:`PGLeafConfig`, made and validated as
a whole by :func:`pgleaf_config` (every size, and every relation between sizes: e.g. the last
of ``keep_points`` is ``n_games``) -- on the command line before anything runs or is written --
and passed down as it is; its mapping view is the ``sizes`` a run's provenance stores.

Modules: :mod:`~.config` (profiles, the configuration, runs, settings), :mod:`~.training`, :mod:`~.matches`,
:mod:`~.paper` (the published tables), :mod:`~.analysis` (tables, curves, Elo), :mod:`~.claims`,
:mod:`~.report` (the whole run and its files), :mod:`~.mirror_trap` (the layout study),
:mod:`~.verdicts` (the paper's claims tested with the training run as the unit, Holm-corrected,
one row per claim and configuration), :mod:`~.power` (the replicates each claim needs),
:mod:`~.ablations` (one factor changed at a time, and each ablation against the committed run),
:mod:`~.openings` (a finished run's evaluation games replayed from random openings).
"""

from __future__ import annotations

from gamelib.experiments.pgleaf.analysis import (curves, elo, plot_curves, round_robin_markdown,
                                                 round_robin_table, selfplay_health)
from gamelib.experiments.pgleaf.claims import claims
from gamelib.experiments.pgleaf.config import (ALGORITHM_ABBREVIATIONS, ALGORITHM_LABELS, ALGORITHMS,
                                               PROFILES, PGLeafConfig, RunSpec, pgleaf_config,
                                               profile_config, runs_of, settings_of, train_config)
from gamelib.experiments.pgleaf.matches import MatchSettings, match_settings, play_matches
from gamelib.experiments.pgleaf.mirror_trap import MIRROR_TRAP_EVALUATIONS, mirror_trap_study
from gamelib.experiments.pgleaf.paper import PAPER_TABLES, paper_table, paper_table_markdown
from gamelib.experiments.pgleaf.report import PGLeafReport, load_report, run_experiment, training_frame
from gamelib.experiments.pgleaf.training import initial_theta, train, trained_theta
from gamelib.experiments.pgleaf.verdicts import claim_verdicts, claims_by_configuration
from gamelib.learn.selfplay import REWARDS

__all__ = ["PROFILES", "ALGORITHMS", "REWARDS", "ALGORITHM_LABELS", "ALGORITHM_ABBREVIATIONS",
           "PAPER_TABLES", "PGLeafConfig", "pgleaf_config", "profile_config", "RunSpec",
           "MatchSettings", "PGLeafReport", "train_config", "runs_of",
           "settings_of", "train", "trained_theta", "initial_theta", "match_settings",
           "play_matches", "training_frame", "round_robin_table", "curves", "plot_curves", "elo",
           "selfplay_health",
           "paper_table", "paper_table_markdown", "round_robin_markdown", "claims",
           "run_experiment", "load_report", "MIRROR_TRAP_EVALUATIONS", "mirror_trap_study",
           "claim_verdicts", "claims_by_configuration"]
