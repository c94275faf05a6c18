"""The Bonanza method on 5×5 shogi, end to end: teacher records, learners, held-out agreement,
matches.

``python -m gamelib.experiments bonanza_shogi --profile quick|paper [--seed S] [--out DIR]``
runs four resumable stages into the run folder (default ``data/results/<profile>/bonanza_shogi/seed-<S>``):

1. **Records** (``records/``, then ``records.txt``): ``n_games`` self-play games of the
   reference opponent at ``teacher_nodes`` nodes per move after ``opening_plies`` uniformly
   random plies (:class:`gamelib.play.expert_games.ExpertSettings`), generated in batches of
   :data:`GAMES_PER_BATCH` games on the workers, game i seeded ``derive_seed(seed, "teacher",
   i)``. Written as a ``gamelib-records 1`` file (:mod:`gamelib.games.minishogi.records`) whose header
   states every setting. A ``records.txt`` already in the folder with the same teacher settings,
   seed and game count is the stage's result (:func:`~.data.finished_records`): a committed run
   can be retrained without replaying its teacher games.
2. **Split**: a seeded ``test_fraction`` of the games is held out; their positions that also
   occur in a training game (same board, hands and side to move) are dropped from the test set.
   Positions with a single legal move are left out everywhere.
3. **Training** (``train/<variant>/``): every variant of :data:`VARIANTS` learns from the
   training positions for ``n_epochs`` epochs (an epoch searches as many positions as there are
   training positions), starting from the paper's initial evaluation (Table 1 piece values, the
   other weights ~ N(0, 10⁻⁸), seeded ``derive_seed(seed, "init")``). The piece-value constraint
   of eqs. (8)-(10) is the profile's ``constraint``: ``"hand"`` (the sources': the sum of the hand
   pieces' values stays constant) or ``"material"`` (every material weight, board and hand: the
   material-sum run's, kept as the variant ``minibatch_material``); ``provenance.json`` names each
   variant's constraint. After every epoch the
   weights are checkpointed and measured with a fresh search: J per position and move agreement
   on the held-out positions and on ``n_train_eval`` training positions.
4. **Matches** (``matches/``): every variant's final evaluation plays ``match_games`` games
   against the initial evaluation and against the reference opponent (``match_nodes`` nodes per
   move for every player, iterative deepening, ``match_opening_plies`` random opening plies,
   colours alternating); and the initial evaluation against the reference.

The report (``history.csv``, ``summary.csv``, ``piece_values.csv``, ``matches.csv``,
``records_summary.json``, ``curves.png``, ``piece_values.png``, ``theta/<variant>.npz``,
``provenance.json``) is written at the top of the folder. Killed at any moment, the same command
resumes every stage and ends with the same numbers, whatever the number of workers.

Modules: :mod:`~.config` (profiles, variants, the teacher), :mod:`~.data` (stages 1-2),
:mod:`~.training`, :mod:`~.matches`, :mod:`~.report` (the whole run and its files); what they
share with the Othello experiment (:mod:`gamelib.experiments.bonanza_othello`) is
:mod:`gamelib.experiments.bonanza_common`.
"""


from gamelib.experiments.bonanza_shogi.config import (GAMES_PER_BATCH, PROFILES, VARIANTS,
                                                      teacher_settings, variant_settings)
from gamelib.experiments.bonanza_shogi.data import (Split, finished_records, generate_records,
                                                    initial_theta, split)
from gamelib.experiments.bonanza_shogi.matches import play_matches
from gamelib.experiments.bonanza_common import plot_curves
from gamelib.experiments.bonanza_shogi.report import (BonanzaReport, load_report,
                                                      plot_piece_values, run_experiment)
from gamelib.experiments.bonanza_shogi.training import (HISTORY_COLUMNS, train_variant,
                                                        trained_theta)

__all__ = ["PROFILES", "VARIANTS", "GAMES_PER_BATCH", "HISTORY_COLUMNS", "BonanzaReport", "Split",
           "teacher_settings", "variant_settings", "finished_records", "generate_records", "split",
           "initial_theta",
           "train_variant", "trained_theta", "play_matches", "run_experiment", "load_report",
           "plot_curves", "plot_piece_values"]
