"""Stage 1: the WTHOR games of the profile's years, their expert positions, the split by game.

The games are read, become positions with the professional's move (forced moves and passes
left out) and are split by game as :func:`gamelib.experiments.wthor_data.read_split` does (a
seeded ``test_fraction`` of the games held out, their positions that also occur in a training
game dropped from the held-out set), and a fixed sample of ``n_train_eval``
training positions is drawn to measure the learners on
(:func:`gamelib.experiments.bonanza_common.train_eval_sample`). The stage is not checkpointed:
it is a function of the records, the sizes and the seed, and its identity (the sha256 of the
positions and of the split, :attr:`OthelloData.sha256`) is part of every learner's, so a run
resumed on other records is refused.

:func:`check_records` is the run's first act
(:func:`gamelib.experiments.wthor_data.check_records`): a missing folder or year (naming
``python -m gamelib.games.othello.download``) or a ``test_fraction`` that leaves no test or no
training game is refused before anything is written.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

import numpy as np

from gamelib.experiments.bonanza_common import train_eval_sample
from gamelib.experiments.bonanza_othello.config import bonanza_othello_config
from gamelib.experiments import wthor_data
from gamelib.experiments.wthor_data import WthorFiles
from gamelib.learn.bonanza_positions import ExpertPositions, ExpertSplit

__all__ = ["check_records", "OthelloData", "load_data", "data_summary"]


def check_records(sizes, path=None) -> WthorFiles:
    """The WTHOR files of ``sizes``' years (in ``path`` or the folder
    :func:`~gamelib.games.othello.wthor.find_wthor_dir` finds), checked before a run writes anything
    (:func:`gamelib.experiments.wthor_data.check_records`: ``FileNotFoundError`` without a
    folder of records, ``ValueError`` for a year without its file or a ``test_fraction`` that
    leaves no test or no training game; how to get the records is named)."""
    sizes = bonanza_othello_config(sizes)
    return wthor_data.check_records(sizes["first_year"], sizes["last_year"],
                                    sizes["test_fraction"], path)


@dataclass(frozen=True)
class OthelloData:
    """The positions of the run and their split.

    Attributes
    ----------
    split : ExpertSplit
        Positions, training and held-out ids, held-out games, dropped held-out positions.
    train_eval : int64 array
        The fixed sample of training positions the learners are measured on.
    records : WthorFiles
    file_sha256 : dict
        ``{file name: sha256}`` of the records read.
    sha256 : str
        Of the positions (moves of every game, positions' games and plies) and the split: the
        data's identity in the learners' checkpoints.
    """

    split: ExpertSplit
    train_eval: np.ndarray
    records: WthorFiles
    file_sha256: dict
    sha256: str

    @property
    def positions(self) -> ExpertPositions:
        return self.split.positions

    @property
    def train(self) -> np.ndarray:
        return self.split.train

    @property
    def test(self) -> np.ndarray:
        return self.split.held_out


def _identity(split: ExpertSplit) -> str:
    h = hashlib.sha256()
    p = split.positions
    for a in (p.codes, p.code_ptr, p.game, p.ply, split.train, split.held_out):
        h.update(np.ascontiguousarray(a).tobytes())
    return h.hexdigest()


def load_data(sizes, seed: int, records: WthorFiles | None = None) -> OthelloData:
    """The positions of the WTHOR games of ``sizes``' years and their split (module doc);
    ``records``: the files :func:`check_records` found (default: it is called)."""
    sizes = bonanza_othello_config(sizes)
    records = check_records(sizes) if records is None else records
    read = wthor_data.read_split(sizes["first_year"], sizes["last_year"], sizes["test_fraction"],
                                 seed, records)
    return OthelloData(read.split, train_eval_sample(read.split.train, sizes["n_train_eval"], seed),
                       records, read.file_sha256, _identity(read.split))


def data_summary(data: OthelloData, sizes, seed: int) -> dict:
    """Games (per year), positions (training, held out, dropped), the files' sha256."""
    sizes = bonanza_othello_config(sizes)
    n_games = data.positions.n_games
    n_test = int(data.split.held_out_games.size)
    return {"years": [sizes["first_year"], sizes["last_year"]],
            "games": n_games, "games_by_year": {str(y): int(n)
                                                for y, n in data.records.games.items()},
            "train_games": n_games - n_test, "test_games": n_test,
            "positions": len(data.positions), "train_positions": int(data.train.size),
            "test_positions": int(data.test.size),
            "test_positions_dropped_seen_in_training": int(data.split.dropped_seen),
            "train_eval_positions": int(data.train_eval.size),
            "positions_per_game": len(data.positions) / n_games,
            "positions_sha256": data.sha256, "files_sha256": data.file_sha256, "seed": seed}
