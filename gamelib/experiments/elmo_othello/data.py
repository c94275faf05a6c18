"""Stage 1: the WTHOR games of the profile's years, their results, the split by game and the
sample of positions the teacher labels.

The games and their positions are those of :mod:`gamelib.experiments.bonanza_othello`'s data
(:func:`gamelib.experiments.wthor_data.read_split`): every game of the years
``first_year..last_year`` replayed and checked, its positions (forced moves and passes left
out, as they compare nothing for Bonanza and are hardly positions to evaluate), and the same
seeded split by game (a ``test_fraction`` of the games held out, their positions that also
occur in a training game dropped), so that a run of either experiment with the same seed and
years holds out the same games.

A game's result is its WTHOR score (:func:`game_results`): black's discs at the end with the
empty squares to the winner, or the result the tournament recorded for a game stopped early;
above 32 black won, below 32 white won, 32 is a draw. The positions of drawn games are left out
(as the 5×5 shogi experiment drops drawn positions: a draw is no win/loss label); from the
others, ``n_train`` positions of the training games and ``n_test`` of the held-out games are
drawn without replacement (``derive_rng(seed, "elmo sample", "train" | "test")``; all of them
when there are fewer), sorted by position id. The stage is not checkpointed: it is a function
of the records, the sizes and the seed, and its identity (:attr:`ElmoData.sha256`: the
positions, the results and the samples) is part of the teacher stage's, so a run resumed on
other records is refused.

:func:`check_records` is the run's first act
(:func:`gamelib.experiments.wthor_data.check_records`): a missing folder or year, or a
``test_fraction`` that leaves no test or no training game, is refused before anything is
written.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

import numpy as np

from gamelib.experiments import wthor_data
from gamelib.experiments.elmo_othello.config import elmo_othello_config
from gamelib.experiments.wthor_data import WthorFiles
from gamelib.learn.bonanza_positions import ExpertPositions, ExpertSplit
from gamelib.runtime.seeds import derive_rng

__all__ = ["DRAW_SCORE", "check_records", "game_results", "ElmoData", "load_data",
           "data_summary"]

#: Black's WTHOR score of a drawn game (half the 64 squares).
DRAW_SCORE = 32


def check_records(sizes, path=None) -> WthorFiles:
    """The WTHOR files of ``sizes``' years (in ``path`` or the folder
    :func:`~gamelib.games.othello.wthor.find_wthor_dir` finds), checked before a run writes anything
    by :func:`gamelib.experiments.wthor_data.check_records` (a missing folder or year, naming
    how to get them; a ``test_fraction`` that leaves no test or no training game)."""
    sizes = elmo_othello_config(sizes)
    return wthor_data.check_records(sizes["first_year"], sizes["last_year"],
                                    sizes["test_fraction"], path)


def game_results(black_scores) -> np.ndarray:
    """Each game's result from the first mover's (black's) view: +1 a win (score above
    :data:`DRAW_SCORE`), 0 a draw, −1 a loss."""
    return np.sign(np.asarray(black_scores, dtype=np.int64) - DRAW_SCORE)


@dataclass(frozen=True)
class ElmoData:
    """The positions of the run, their split, the games' results and the samples.

    Attributes
    ----------
    split : ExpertSplit
        Positions, training and held-out ids, held-out games, dropped held-out positions.
    results : int64 array
        Per game (record), the result from black's view (:func:`game_results`).
    train, test : int64 arrays
        The sampled position ids (increasing) of the training and of the held-out games.
    train_pool, test_pool : int
        The positions they were drawn from (those of games that were not drawn).
    records : WthorFiles
    file_sha256 : dict
        ``{file name: sha256}`` of the records read.
    sha256 : str
        Of the positions, the results and the samples: the data's identity in the teacher's
        checkpoints.
    """

    split: ExpertSplit
    results: np.ndarray
    train: np.ndarray
    test: np.ndarray
    train_pool: int
    test_pool: int
    records: WthorFiles
    file_sha256: dict
    sha256: str

    @property
    def positions(self) -> ExpertPositions:
        return self.split.positions

    @property
    def ids(self) -> np.ndarray:
        """Every sampled position (training and held out), increasing: what the teacher
        searches."""
        return np.union1d(self.train, self.test)


def _sample(pool: np.ndarray, n: int, seed: int, which: str) -> np.ndarray:
    k = min(n, pool.size)
    return np.sort(derive_rng(seed, "elmo sample", which).choice(pool, k, replace=False))


def _identity(split: ExpertSplit, results, train, test) -> str:
    h = hashlib.sha256()
    p = split.positions
    for a in (p.codes, p.code_ptr, p.game, p.ply, results, train, test):
        h.update(np.ascontiguousarray(a).tobytes())
    return h.hexdigest()


def load_data(sizes, seed: int, records: WthorFiles | None = None) -> ElmoData:
    """The positions of the WTHOR games of ``sizes``' years, their split and the samples
    (module doc); ``records``: the files :func:`check_records` found (default: it is
    called)."""
    sizes = elmo_othello_config(sizes)
    records = check_records(sizes) if records is None else records
    read = wthor_data.read_split(sizes["first_year"], sizes["last_year"], sizes["test_fraction"],
                                 seed, records)
    split = read.split
    results = game_results(read.games["black_score"].to_numpy())
    decided = results[split.positions.game] != 0
    train_pool = split.train[decided[split.train]]
    test_pool = split.held_out[decided[split.held_out]]
    if train_pool.size == 0 or test_pool.size == 0:
        side = "training" if train_pool.size == 0 else "held-out"
        raise ValueError(f"the games of {sizes['first_year']}-{sizes['last_year']} leave no "
                         f"position of a decided {side} game to sample")
    train = _sample(train_pool, sizes["n_train"], seed, "train")
    test = _sample(test_pool, sizes["n_test"], seed, "test")
    return ElmoData(split, results, train, test, int(train_pool.size), int(test_pool.size),
                    records, read.file_sha256, _identity(split, results, train, test))


def data_summary(data: ElmoData, sizes, seed: int) -> dict:
    """Games (per year, drawn), the split, the positions available and sampled, the files'
    sha256."""
    sizes = elmo_othello_config(sizes)
    n_games = data.positions.n_games
    n_test = int(data.split.held_out_games.size)
    return {"years": [sizes["first_year"], sizes["last_year"]], "games": n_games,
            "games_by_year": {str(y): int(n) for y, n in data.records.games.items()},
            "drawn_games": int(np.count_nonzero(data.results == 0)),
            "black_win_share": float(np.mean(data.results > 0)),
            "train_games": n_games - n_test, "test_games": n_test,
            "positions": len(data.positions),
            "train_positions_available": data.train_pool,
            "test_positions_available": data.test_pool,
            "test_positions_dropped_seen_in_training": int(data.split.dropped_seen),
            "train_positions": int(data.train.size), "test_positions": int(data.test.size),
            "positions_sha256": data.sha256, "files_sha256": data.file_sha256, "seed": seed}
