"""Stage 1: the WTHOR games of the profile's years, their expert positions, the split by game.

The games are read by :func:`gamelib.learn.wthor_positions.wthor_records` (every game replayed
and checked) from the folder :func:`gamelib.othello.wthor.find_wthor_dir` finds, and become
positions with the professional's move (:func:`gamelib.learn.wthor_positions.expert_positions`:
forced moves and passes left out). A seeded ``test_fraction`` of the games is held out
(:func:`gamelib.learn.bonanza_positions.split_by_game`: their positions that also occur in a
training game are dropped from the held-out set), and a fixed sample of ``n_train_eval``
training positions is drawn to measure the learners on
(:func:`gamelib.experiments.bonanza_common.train_eval_sample`). The stage is not checkpointed:
it is a function of the records, the sizes and the seed, and its identity (the sha256 of the
positions and of the split, :attr:`OthelloData.sha256`) is part of every learner's, so a run
resumed on other records is refused.

:func:`check_records` is the run's first act: it finds the folder, the file of every year and
the number of games (from the files' headers) and refuses, before anything is written, a
missing folder or year (naming ``python -m gamelib.othello.download``) and a ``test_fraction``
that leaves no test or no training game.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from gamelib.experiments.bonanza_common import train_eval_sample
from gamelib.experiments.bonanza_othello.config import bonanza_othello_config
from gamelib.learn.bonanza_positions import ExpertPositions, ExpertSplit, split_by_game
from gamelib.learn.wthor_positions import expert_positions, wthor_records
from gamelib.othello import wthor

__all__ = ["DOWNLOAD", "WthorFiles", "check_records", "OthelloData", "load_data",
           "data_summary"]

#: The command that fetches the WTHOR records.
DOWNLOAD = "python -m gamelib.othello.download"


@dataclass(frozen=True)
class WthorFiles:
    """The records a run reads: their folder, and per year the file and its number of games."""

    folder: Path
    files: dict
    games: dict

    @property
    def n_games(self) -> int:
        return sum(self.games.values())


def check_records(sizes, path=None) -> WthorFiles:
    """The WTHOR files of ``sizes``' years (in ``path`` or the folder
    :func:`~gamelib.othello.wthor.find_wthor_dir` finds), checked before a run writes anything.

    Raises
    ------
    FileNotFoundError
        No folder of WTHOR records (how to get them is named).
    ValueError
        A year without its file (how to get it is named), or a ``test_fraction`` that leaves no
        test or no training game.
    """
    sizes = bonanza_othello_config(sizes)
    first, last = sizes["first_year"], sizes["last_year"]
    if path is None:
        folder = wthor.find_wthor_dir()
    else:
        folder = Path(path)
        if not folder.is_dir():
            raise FileNotFoundError(f"{folder}: no such folder of WTHOR records; get them with "
                                    f"`{DOWNLOAD}`")
    files = {y: folder / f"WTH_{y}.wtb" for y in range(first, last + 1)}
    missing = [y for y, f in files.items() if not f.is_file()]
    if missing:
        raise ValueError(f"no WTHOR file for year(s) {', '.join(map(str, missing))} in {folder}; "
                         f"get them with `{DOWNLOAD} --years {missing[0]}-{missing[-1]}` or "
                         f"choose other first_year/last_year")
    games = {y: wthor.read_header(f).n_records for y, f in files.items()}
    n = sum(games.values())
    n_test = round(sizes["test_fraction"] * n)
    if n_test < 1 or n_test >= n:
        raise ValueError(f"test_fraction {sizes['test_fraction']} of the {n} games of "
                         f"{first}-{last} leaves no test or no training game")
    return WthorFiles(folder, files, games)


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
    games = wthor_records(sizes["first_year"], sizes["last_year"], records.folder)
    split = split_by_game(expert_positions(games), sizes["test_fraction"], seed)
    file_sha = {f.name: hashlib.sha256(f.read_bytes()).hexdigest()
                for f in records.files.values()}
    return OthelloData(split, train_eval_sample(split.train, sizes["n_train_eval"], seed),
                       records, file_sha, _identity(split))


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
