"""elmo's loss on Othello, end to end: WTHOR results and a deeper search's win rate, a λ sweep
against Apery's squared error, matches against the classic square weights.

``python -m gamelib.experiments elmo_othello --profile quick|paper [--seed S] [--out DIR]``
runs four stages into the run folder (default ``data/results/<profile>/elmo_othello/seed-<S>``):

1. **Data** (:mod:`~gamelib.experiments.elmo_othello.data`): the WTHOR games of the years
   ``first_year..last_year`` (quick: 1977–1981, 344 games; paper: 1977–2020), their positions
   and the seeded split by game of :mod:`gamelib.experiments.bonanza_othello` (a
   ``test_fraction`` of the games held out; the same games for the same seed); each game's
   result from its WTHOR score; drawn games left out; ``n_train`` positions drawn from the
   training games and ``n_test`` from the held-out ones. A missing folder or year, or a
   ``test_fraction`` that leaves no test or no training game, is refused before anything is
   written.
2. **Teacher** (:mod:`~gamelib.experiments.elmo_othello.teacher`, ``teacher/``, resumable):
   every sampled position searched by the book's iterative deepening of the classic square
   weights under ``node_budget`` nodes (:func:`gamelib.learn.elmo_positions.deep_scores`): the
   deep score y of elmo's loss.
3. **Learning** (:mod:`~gamelib.experiments.elmo_othello.training`): the shallow side is the
   position's own features (Othello has no quiescence moves, so elmo's quiescence leaf is the
   position itself), the result t the game's from the side to move's view; K is fitted to the
   training positions' deep scores and results; from the classic weights, mini-batch AdaGrad
   on elmo's loss for every λ of ``lambdas`` and on Apery's squared error, the same
   mini-batches for all, with held-out cross-entropy curves.
4. **Matches** (``matches/``, resumable): every loss's evaluation against the classic weights,
   ``match_games`` games at ``match_nodes`` nodes a move from random openings played with both
   colours (:func:`gamelib.experiments.bonanza_othello.matches.play_matches`, the Bonanza
   experiment's players and openings).

The losses, the K fit, AdaGrad and the curves are those of the 5×5 shogi experiment
(:mod:`gamelib.experiments.elmo_shogi`, :mod:`gamelib.learn.elmo`,
:mod:`gamelib.learn.elmo_train`); what differs is the data: professional games' positions and
results instead of self-play, and a teacher that is a deeper search of the learners' start
rather than of a stronger reference.

The report at the top of the folder: ``teacher_summary.json`` (games, split, positions, the
teacher's depth and nodes, K), ``curves.csv``, ``final.csv`` (per loss: final and best
held-out cross-entropy of the results, the held-out cross-entropy and squared error against
the teacher), ``matches.csv`` (W-D-L, win rate with Wilson and Clopper-Pearson intervals, Elo
difference with its interval), ``curves.png``, ``theta/<loss>.npz`` saved by
:func:`gamelib.games.othello.game.save_theta` (the GRhino ladder plays them as
``gamelib:linear=FILE``: :func:`learned_files`), ``teacher.npz`` (the labels; not committed)
and ``provenance.json``. Killed at any moment, the same command resumes and ends with the same
numbers, whatever the number of workers.
"""

from gamelib.experiments.elmo_othello.config import (PROFILES, ElmoOthelloConfig, deep_settings,
                                                     elmo_othello_config)
from gamelib.experiments.elmo_othello.data import (ElmoData, check_records, data_summary,
                                                   game_results, load_data)
from gamelib.experiments.elmo_othello.report import (ElmoOthelloReport, ladder_name,
                                                     learned_files, load_report, run_experiment)
from gamelib.experiments.elmo_othello.teacher import run_teacher, teacher_theta
from gamelib.experiments.elmo_othello.training import (fit_teacher_scale, teacher_batch,
                                                       train_losses)

__all__ = ["PROFILES", "ElmoOthelloConfig", "ElmoOthelloReport", "ElmoData",
           "elmo_othello_config", "deep_settings", "check_records", "game_results", "load_data",
           "data_summary", "run_teacher", "teacher_theta", "teacher_batch", "fit_teacher_scale",
           "train_losses", "run_experiment", "load_report", "learned_files", "ladder_name"]
