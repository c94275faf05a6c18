"""The Bonanza method on Othello, end to end: professional games, learners, held-out agreement,
matches against the classic square weights.

``python -m gamelib.experiments bonanza_othello --profile quick|paper [--seed S] [--out DIR]``
runs three resumable stages into the run folder (default
``data/results/<profile>/bonanza_othello/seed-<S>``):

1. **Data**: the WTHOR games of the years ``first_year..last_year`` (quick: 1977–1981, 344
   games; paper: 1977–2020, every year the federation publishes), found by
   :func:`gamelib.games.othello.wthor.find_wthor_dir` (``python -m gamelib.games.othello.download`` fetches
   them), become positions with the professional's move; a seeded ``test_fraction`` of the games
   is held out, and ``n_train_eval`` training positions are drawn to measure the learners on
   (:mod:`~.data`). A missing folder or year, or a ``test_fraction`` that leaves no test or no
   training game, is refused before anything is written.
2. **Training** (``train/<variant>/``): every variant of :data:`VARIANTS` -- the mini-batch
   learner of :mod:`gamelib.learn.bonanza_steps` with the scale constraint of
   :mod:`gamelib.learn.bonanza_othello` (``minibatch``), without it
   (``minibatch_no_constraint``), and with it and an L1 term (``minibatch_l1``) -- learns for
   ``n_epochs`` epochs from the classic square weights, ``batch_size`` positions a step, every
   legal move searched ``search_depth`` plies to its PV leaf at every step; after every epoch
   the weights are checkpointed and measured with a fresh search (:mod:`~.training`).
3. **Matches** (``matches/``): every variant's final evaluation against the classic square
   weights, the PGLeaf study's reference on Othello, ``match_games`` games at ``match_nodes``
   nodes a move from random openings played with both colours (:mod:`~.matches`).

Why these learners: Bonanza's batch learner (every training position each step, its PV leaves
kept for ``refresh_every`` steps) would keep the leaves of millions of positions (about 1.8 kB
a position: some 12 GB for the paper's) for a handful of steps an epoch, so only mini-batches
are compared; the piece-value constraints of 5×5 shogi have no Othello counterpart, and the
scale constraint takes their place. At the start it hardly binds: there the gradient's
component along the classic direction is the derivative of J along the evaluation's scale,
close to 0 at the classic weights with this slope (the cosine between the gradient and the
classic direction is −1e-4 on 5,000 training positions of 1977–1981); without a constraint,
the classic component the history records shows how far the learner moves the scale later.

The report (``history.csv``, ``summary.csv``, ``matches.csv`` with W-D-L, the win rate with
Wilson and Clopper-Pearson intervals and the Elo difference with its interval,
``data_summary.json``, ``curves.png``, ``theta/<variant>.npz`` saved by
:func:`gamelib.games.othello.game.save_theta`, which the GRhino ladder plays as
``gamelib:linear=FILE``: :func:`learned_files`, ``provenance.json``) is written at the top of
the folder. Killed at any moment, the same command resumes every stage and ends with the same
numbers, whatever the number of workers.

Modules: :mod:`~.config` (profiles, variants), :mod:`~.data`, :mod:`~.training`,
:mod:`~.matches`, :mod:`~.report` (the whole run and its files); what they share with the 5×5
shogi experiment is :mod:`gamelib.experiments.bonanza_common`.
"""

from gamelib.experiments.bonanza_othello.config import (PROFILES, VARIANTS, BonanzaOthelloConfig,
                                                        bonanza_othello_config, variant_settings)
from gamelib.experiments.bonanza_othello.data import (OthelloData, check_records, data_summary,
                                                      load_data)
from gamelib.experiments.bonanza_othello.matches import play_matches
from gamelib.experiments.bonanza_othello.report import (BonanzaOthelloReport, learned_files,
                                                        load_report, run_experiment)
from gamelib.experiments.bonanza_othello.training import (HISTORY_COLUMNS, initial_theta,
                                                          train_variant, trained_theta)

__all__ = ["PROFILES", "VARIANTS", "HISTORY_COLUMNS", "BonanzaOthelloConfig",
           "BonanzaOthelloReport", "OthelloData", "bonanza_othello_config", "variant_settings",
           "check_records", "load_data", "data_summary", "initial_theta", "train_variant",
           "trained_theta", "play_matches", "run_experiment", "load_report", "learned_files"]
