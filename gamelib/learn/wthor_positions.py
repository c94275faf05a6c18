"""Othello's expert positions from WTHOR: the professionals' moves as Bonanza training data.

The WTHOR records (:mod:`gamelib.games.othello.wthor`, one ``WTH_<year>.wtb`` file per year, found by
:func:`gamelib.games.othello.wthor.find_wthor_dir`) are read year by year as the value chapter reads
them (:func:`gamelib.games.othello.value_table.load_years`): every game replayed and checked, a
corrupt or illegal record refused with the file, the game and the byte offset. Each game
becomes a record of :class:`~gamelib.learn.bonanza_positions.ExpertPositions` of the
registered game ``othello`` (protocol states from the start position, move codes = squares
a1 = 0 … h8 = 63), read with ``implied_passes`` (WTHOR leaves forced passes unwritten: the
pass is played and stored with the record's moves) and ``skip_forced`` (a position with a single
legal move, a forced pass among them, compares nothing in eq. (1) of
:mod:`gamelib.learn.bonanza`; a pass is never an expert's choice). Every other position of a
game is a training position p with the professional's move as p_1, the last one included
(games stopped early by resignation or time end where their record ends).

:func:`wthor_split` holds out a seeded share of the games
(:func:`gamelib.learn.bonanza_positions.split_by_game`: their positions that also occur in a
training game are left out of the held-out set).

Bad input gets one error: no WTHOR folder or no file for a requested year (``FileNotFoundError``
or ``ValueError`` naming the folder and the years), an empty year range (``ValueError``), a
corrupt record (:class:`gamelib.games.othello.wthor.WthorError`, a ``ValueError``).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from gamelib.learn.bonanza_positions import ExpertPositions, ExpertSplit, split_by_game
from gamelib.games.othello import value_table, wthor
from gamelib.runtime.checks import check_integer
from gamelib.runtime.seeds import derive_rng

__all__ = ["wthor_records", "record_squares", "expert_positions", "wthor_split"]


def wthor_records(first_year: int, last_year: int, path=None):
    """The WTHOR games of the years ``first_year..last_year`` (a DataFrame of
    :func:`gamelib.games.othello.wthor.load`, year after year), from ``path`` or the folder
    :func:`~gamelib.games.othello.wthor.find_wthor_dir` finds.

    Raises
    ------
    ValueError
        An empty year range, a year without its file, a corrupt record (``WthorError``).
    FileNotFoundError
        No folder of WTHOR records (the places looked at are named).
    """
    first = check_integer("first_year", first_year, 0)
    last = check_integer("last_year", last_year, 0)
    if first > last:
        raise ValueError(f"empty year range {first}..{last}: the first year is after the last")
    folder = Path(path) if path is not None else wthor.find_wthor_dir()
    if not folder.is_dir():
        raise FileNotFoundError(f"{folder}: no such folder of WTHOR records")
    return value_table.load_years(first, last, folder)


def record_squares(moves: str) -> np.ndarray:
    """The squares (a1 = 0 … h8 = 63) of a WTHOR move string such as ``"f5d6c3"``."""
    raw = np.frombuffer(moves.encode("ascii"), dtype=np.uint8)
    if raw.size % 2:
        raise ValueError(f"a move string has two characters a move, got {moves!r}")
    col = raw[0::2].astype(np.int64) - ord("a")
    row = raw[1::2].astype(np.int64) - ord("1")
    if raw.size and (col.min() < 0 or col.max() > 7 or row.min() < 0 or row.max() > 7):
        raise ValueError(f"not a move string of squares a1-h8: {moves!r}")
    return 8 * row + col


def expert_positions(records) -> ExpertPositions:
    """The positions of WTHOR games (rows of :func:`wthor_records`, column ``moves``) with the
    professional's move (module doc)."""
    moves = [record_squares(m) for m in records["moves"]]
    return ExpertPositions("othello", moves, skip_forced=True, implied_passes=True)


def wthor_split(first_year: int, last_year: int, *, held_out_fraction: float = 0.1,
                seed: int = 0, max_games: int | None = None, path=None) -> ExpertSplit:
    """Training and held-out positions of the WTHOR games of ``first_year..last_year``.

    Parameters
    ----------
    first_year, last_year : int
        Inclusive range of years.
    held_out_fraction : float
        The share of games held out (:func:`~gamelib.learn.bonanza_positions.split_by_game`,
        seeded by ``seed``).
    seed : int
    max_games : int, optional
        Keep a seeded sample of this many games (``derive_rng(seed, "games")``, in their order
        in the files) before the split.
    path : str or Path, optional
        The folder of the ``.wtb`` files.

    Returns
    -------
    ExpertSplit
        Its ``positions`` hold the kept games in file order (``positions.game`` indexes them).
    """
    records = wthor_records(first_year, last_year, path)
    if len(records) == 0:
        raise ValueError(f"no WTHOR game in the years {first_year}..{last_year}")
    if max_games is not None:
        k = check_integer("max_games", max_games)
        if k < len(records):
            keep = np.sort(derive_rng(seed, "games").choice(len(records), k, replace=False))
            records = records.iloc[keep].reset_index(drop=True)
    return split_by_game(expert_positions(records), held_out_fraction, seed)
