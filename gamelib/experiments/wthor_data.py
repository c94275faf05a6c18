"""The WTHOR records an Othello experiment learns from (:mod:`~gamelib.experiments.bonanza_othello`,
:mod:`~gamelib.experiments.elmo_othello`): found and checked before a run writes anything, read,
and split by game -- the same games held out by both experiments for the same seed and years.

:func:`check_records` is a run's first act: it finds the folder
(:func:`gamelib.games.othello.wthor.find_wthor_dir`), the file of every year and the number of games
(from the files' headers), and refuses a missing folder or year (naming
``python -m gamelib.games.othello.download``) and a ``test_fraction`` that leaves no test or no
training game. :func:`read_split` reads the games (:func:`gamelib.learn.wthor_positions.wthor_records`:
every game replayed and checked), makes them positions
(:func:`gamelib.learn.wthor_positions.expert_positions`: forced moves and passes left out) and
holds out a seeded ``test_fraction`` of the games
(:func:`gamelib.learn.bonanza_positions.split_by_game`: their positions that also occur in a
training game are dropped from the held-out set).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

from gamelib.learn.bonanza_positions import ExpertSplit, split_by_game
from gamelib.learn.wthor_positions import expert_positions, wthor_records
from gamelib.games.othello import wthor

__all__ = ["DOWNLOAD", "WthorFiles", "check_records", "WthorSplit", "read_split"]

#: The command that fetches the WTHOR records.
DOWNLOAD = "python -m gamelib.games.othello.download"


@dataclass(frozen=True)
class WthorFiles:
    """The records a run reads: their folder, and per year the file and its number of games."""

    folder: Path
    files: dict
    games: dict

    @property
    def n_games(self) -> int:
        return sum(self.games.values())


def check_records(first_year: int, last_year: int, test_fraction: float, path=None) -> WthorFiles:
    """The WTHOR files of the years ``first_year..last_year`` (in ``path`` or the folder
    :func:`~gamelib.games.othello.wthor.find_wthor_dir` finds), checked before a run writes anything.

    Raises
    ------
    FileNotFoundError
        No folder of WTHOR records (how to get them is named).
    ValueError
        A year without its file (how to get it is named), or a ``test_fraction`` that leaves no
        test or no training game.
    """
    if path is None:
        folder = wthor.find_wthor_dir()
    else:
        folder = Path(path)
        if not folder.is_dir():
            raise FileNotFoundError(f"{folder}: no such folder of WTHOR records; get them with "
                                    f"`{DOWNLOAD}`")
    files = {y: folder / f"WTH_{y}.wtb" for y in range(first_year, last_year + 1)}
    missing = [y for y, f in files.items() if not f.is_file()]
    if missing:
        raise ValueError(f"no WTHOR file for year(s) {', '.join(map(str, missing))} in {folder}; "
                         f"get them with `{DOWNLOAD} --years {missing[0]}-{missing[-1]}` or "
                         f"choose other first_year/last_year")
    games = {y: wthor.read_header(f).n_records for y, f in files.items()}
    n = sum(games.values())
    n_test = round(test_fraction * n)
    if n_test < 1 or n_test >= n:
        raise ValueError(f"test_fraction {test_fraction} of the {n} games of "
                         f"{first_year}-{last_year} leaves no test or no training game")
    return WthorFiles(folder, files, games)


@dataclass(frozen=True)
class WthorSplit:
    """The games of the records, their positions split by game, and the files read.

    Attributes
    ----------
    games : pandas.DataFrame
        The games (:func:`gamelib.learn.wthor_positions.wthor_records`), in file order.
    split : ExpertSplit
        Positions, training and held-out ids, held-out games, dropped held-out positions.
    records : WthorFiles
    file_sha256 : dict
        ``{file name: sha256}`` of the records read.
    """

    games: object
    split: ExpertSplit
    records: WthorFiles
    file_sha256: dict


def read_split(first_year: int, last_year: int, test_fraction: float, seed: int,
               records: WthorFiles) -> WthorSplit:
    """The games of the years ``first_year..last_year`` in the files ``records`` (found by
    :func:`check_records`), their positions and the split by game of ``seed`` (module doc)."""
    games = wthor_records(first_year, last_year, records.folder)
    split = split_by_game(expert_positions(games), test_fraction, seed)
    file_sha = {f.name: hashlib.sha256(f.read_bytes()).hexdigest()
                for f in records.files.values()}
    return WthorSplit(games, split, records, file_sha)
