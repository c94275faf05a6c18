"""Value table of Othello states from game records (the Othello value-network paper, eqs. 1–3 and Table 2).

Every game record is decomposed into the positions reached **after each move** (passes add no
position). For every distinct position ``s`` the table counts its occurrences ``n(s)`` and the
games Black won from it,

.. math::

    \\mathrm{wins}(s) = \\sum_{k=1}^{n(s)} z_k(s),\\qquad
    v_b(s) = \\frac{\\mathrm{wins}(s)}{n(s)}, \\qquad v_w(s) = 1 - v_b(s),

with :math:`z_k(s) = 1` when Black won the ``k``-th game through ``s`` and 0 when White won
(eqs. 1–3). Drawn games are left out, as the paper's text says; ``draws="zero"`` counts them
with :math:`z = 0` instead, which is what the paper's Table 2 numbers match.

A state is keyed by its two bitboards ``(black, white)`` (bit 0 = a1, ..., bit 63 = h8). The
paper's state vector (Fig. 1, Table 2) is the 64-character string of cell codes 0 = empty,
1 = black, 2 = white in the same square order, row 1 first: :func:`state_string` and
:func:`parse_state_string` convert. Counting uses a numba open-addressing hash table on the
bitboard pair; the same index answers look-ups inside the numba search (:func:`table_value`).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
from numba import njit

from . import core, wthor

__all__ = [
    "PAPER_YEARS",
    "PAPER_TABLE2",
    "Decomposition",
    "RecordTables",
    "ValueTable",
    "aggregate",
    "build_tables",
    "load_years",
    "decompose_games",
    "parse_move_strings",
    "state_string",
    "parse_state_string",
    "split_games",
    "table2_comparison",
    "table_value",
]

#: Years of the paper's records (1977–2018).
PAPER_YEARS = (1977, 2018)

#: The paper's Table 2, with the moves (our reading) that lead to each state vector. ``v`` is
#: printed as in the paper: it is wins/n (Black's win rate) rounded to 3 decimals, except in
#: row 1 (55,336/122,250 = 0.4527, printed 0.452) and rows 3-4 (18,941/40,498 = 0.4677,
#: printed 0.478). Rows 3 and 4 share n and wins because every game through f5 f6 e6 goes on
#: with f4 (in our records too).
PAPER_TABLE2 = (
    ("f5", "0000000000000000000000000002100000011100000000000000000000000000", 122250, 55336, 0.452),
    ("f5f6", "0000000000000000000000000002100000012100000002000000000000000000", 41221, 19155, 0.465),
    ("f5f6e6", "0000000000000000000000000002100000011100000012000000000000000000", 40498, 18941, 0.478),
    ("f5f6e6f4", "0000000000000000000000000002220000011200000012000000000000000000", 40498, 18941, 0.478),
    ("f5f4", "0000000000000000000000000002220000011100000000000000000000000000", 1384, 864, 0.624),
    ("f5f4e3", "0000000000000000000010000002120000011100000000000000000000000000", 1241, 803, 0.647),
    ("f5d6c5f6", "0000000000000000000000000002100000112100000202000000000000000000", 335, 257, 0.767),
)

_U1 = np.uint64(1)
_EMPTY = -1


# --- state vectors ---------------------------------------------------------------------------

def state_string(black, white) -> str:
    """The paper's 64-character state vector of a board: ``0`` empty, ``1`` black, ``2`` white.

    Character ``i`` is square ``i`` (0 = a1, 7 = h1, 8 = a2, ..., 63 = h8), i.e. row-major with
    row 1 first, as in the paper's Table 2.
    """
    black, white = int(black), int(white)
    if black & white:
        raise ValueError("bad bitboards: black and white share squares")
    return "".join("1" if black >> i & 1 else "2" if white >> i & 1 else "0" for i in range(64))


def parse_state_string(state: str) -> tuple[int, int]:
    """``(black, white)`` bitboards (Python ints) of a 64-character 0/1/2 state vector."""
    if not isinstance(state, str) or len(state) != 64:
        raise ValueError(f"bad state vector {state!r}: expected 64 characters of 0, 1, 2")
    black = white = 0
    for i, c in enumerate(state):
        if c == "1":
            black |= 1 << i
        elif c == "2":
            white |= 1 << i
        elif c != "0":
            raise ValueError(f"bad state vector {state!r}: character {c!r} at position {i} "
                             "(use 0 empty, 1 black, 2 white)")
    return black, white


# --- move strings ----------------------------------------------------------------------------

def parse_move_strings(moves) -> np.ndarray:
    """Square indices of move strings like ``"f5d6c3..."`` (WTHOR records, no passes).

    Parameters
    ----------
    moves : sequence of str
        One string per game, at most 60 moves of two characters (column a–h, row 1–8; any case).

    Returns
    -------
    ndarray of int8, shape (n_games, 60)
        ``squares[g, k]`` = square of move ``k`` (0 = a1 ... 63 = h8), -1 after the last move.
    """
    moves = [str(m) for m in moves]
    bad = next((i for i, m in enumerate(moves) if len(m) % 2 or len(m) > 120 or not m.isascii()),
               None)
    if bad is not None:
        raise ValueError(f"bad move string {moves[bad]!r} (game {bad}): need up to 60 moves of "
                         "two characters such as 'f5'")
    raw = np.frombuffer("".join(m.lower().ljust(120) for m in moves).encode("ascii"),
                        dtype=np.uint8).reshape(len(moves), 60, 2).astype(np.int16)
    col = raw[:, :, 0] - ord("a")
    row = raw[:, :, 1] - ord("1")
    blank = (raw[:, :, 0] == ord(" ")) & (raw[:, :, 1] == ord(" "))
    valid = (col >= 0) & (col < 8) & (row >= 0) & (row < 8)
    wrong = ~(valid | blank)
    if wrong.any():
        g, k = map(int, np.argwhere(wrong)[0])
        raise ValueError(f"bad move string {moves[g]!r} (game {g}): move {k + 1} "
                         f"{moves[g][2 * k:2 * k + 2]!r} is not a square a1..h8")
    return np.where(blank, -1, 8 * row + col).astype(np.int8)


# --- replay ----------------------------------------------------------------------------------

@njit(cache=True)
def _replay(squares, black_out, white_out, game_out, offsets, final, finished, status):
    """Replay every game; write the position after each move. ``status[g]`` = -1 if legal,
    else the index of the first illegal (or out-of-place) move."""
    for g in range(squares.shape[0]):
        p = core.START_BLACK  # side to move
        o = core.START_WHITE
        black_to_move = True
        pos = offsets[g]
        status[g] = -1
        for k in range(squares.shape[1]):
            sq = squares[g, k]
            if sq < 0:
                break
            bit = _U1 << np.uint64(sq)
            legal = core.move_mask(p, o)
            if legal == 0:  # a pass is implied in WTHOR records
                p, o = o, p
                black_to_move = not black_to_move
                legal = core.move_mask(p, o)
            if (legal & bit) == 0:
                status[g] = k
                break
            p, o = core.make_move(p, o, sq)
            if black_to_move:
                black_out[pos], white_out[pos] = p, o
            else:
                black_out[pos], white_out[pos] = o, p
            game_out[pos] = g
            pos += 1
            p, o = o, p
            black_to_move = not black_to_move
        if black_to_move:
            final[g, 0], final[g, 1] = p, o
        else:
            final[g, 0], final[g, 1] = o, p
        finished[g] = core.is_game_over(p, o)


@dataclass
class Decomposition:
    """Positions after every move of a set of games.

    Attributes
    ----------
    black, white : ndarray of uint64
        The positions, game after game, move after move.
    game : ndarray of int64
        Index (into the games given) of the game of each position.
    result : ndarray of int8
        Per game: 1 Black won, 0 White won, -1 draw.
    final_black, final_white : ndarray of uint64
        Per game: the last position.
    finished : ndarray of bool
        Per game: True when neither side can move in the last position.
    """

    black: np.ndarray
    white: np.ndarray
    game: np.ndarray
    result: np.ndarray
    final_black: np.ndarray
    final_white: np.ndarray
    finished: np.ndarray

    @property
    def n_games(self) -> int:
        return self.result.size

    @property
    def n_draws(self) -> int:
        return int(np.count_nonzero(self.result < 0))

    def black_won(self) -> np.ndarray:
        """Per position: 1 if Black won its game, 0 if White won, -1 if drawn."""
        return self.result[self.game]


def decompose_games(moves, black_score=None) -> Decomposition:
    """Replay game records and list the position after every move.

    Parameters
    ----------
    moves : sequence of str or ndarray of int8
        Move strings (``"f5d6c3..."``) or the array of :func:`parse_move_strings`.
    black_score : array_like of int, optional
        Recorded final black disc count (WTHOR byte 6). It decides the result only for games
        that stop before the board is finished (resignation, time); a finished game's result is
        read from its final position (disc count), which does not depend on how the record
        credits empty squares. Without it, unfinished games raise ``ValueError``.

    Returns
    -------
    Decomposition

    Raises
    ------
    ValueError
        On an illegal move (naming the game and the move) or a malformed record.
    """
    squares = moves if isinstance(moves, np.ndarray) else parse_move_strings(moves)
    squares = np.ascontiguousarray(squares, dtype=np.int8)
    if squares.ndim != 2 or squares.shape[1] != 60:
        raise ValueError(f"move array has shape {squares.shape}, expected (n_games, 60)")
    if np.any((squares < -1) | (squares > 63)):
        raise ValueError("move array holds values outside -1..63")
    played = squares >= 0
    lengths = played.sum(axis=1)
    gap = played[:, 1:] & ~played[:, :-1]
    if gap.any():
        g = int(np.argwhere(gap)[0, 0])
        raise ValueError(f"game {g}: a move follows the end of the record")
    offsets = np.zeros(squares.shape[0] + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    total = int(offsets[-1])
    black = np.empty(total, dtype=np.uint64)
    white = np.empty(total, dtype=np.uint64)
    game = np.empty(total, dtype=np.int64)
    final = np.empty((squares.shape[0], 2), dtype=np.uint64)
    finished = np.empty(squares.shape[0], dtype=np.bool_)
    status = np.empty(squares.shape[0], dtype=np.int64)
    _replay(squares, black, white, game, offsets, final, finished, status)
    if np.any(status >= 0):
        g = int(np.flatnonzero(status >= 0)[0])
        k = int(status[g])
        sq = int(squares[g, k])
        name = f"{'abcdefgh'[sq % 8]}{sq // 8 + 1}"
        raise ValueError(f"game {g}: move {k + 1} ({name}) is illegal")
    fb, fw = final[:, 0], final[:, 1]
    diff = _popcount(fb) - _popcount(fw)
    result = np.sign(diff).astype(np.int8)
    if not finished.all():
        if black_score is None:
            g = int(np.flatnonzero(~finished)[0])
            raise ValueError(f"game {g} stops before the end and no black_score was given to "
                             "decide its result")
        score = np.asarray(black_score, dtype=np.int64)
        if score.shape != (squares.shape[0],):
            raise ValueError(f"black_score has shape {score.shape}, expected ({squares.shape[0]},)")
        result = np.where(finished, result, np.sign(score - 32)).astype(np.int8)
    result = np.where(result == 0, -1, np.where(result > 0, 1, 0)).astype(np.int8)
    return Decomposition(black, white, game, result, fb, fw, finished)


def _popcount(x: np.ndarray) -> np.ndarray:
    return np.bitwise_count(np.asarray(x, dtype=np.uint64)).astype(np.int64)


# --- hash index on (black, white) ----------------------------------------------------------

@njit(cache=True, inline="always")
def _hash(b, w):
    """splitmix64 finaliser of the bitboard pair."""
    x = b ^ (w * np.uint64(0x9E3779B97F4A7C15))
    x ^= x >> np.uint64(30)
    x *= np.uint64(0xBF58476D1CE4E5B9)
    x ^= x >> np.uint64(27)
    x *= np.uint64(0x94D049BB133111EB)
    x ^= x >> np.uint64(31)
    return x


@njit(cache=True)
def _slot(slots, keys_b, keys_w, b, w):
    """Slot of ``(b, w)`` in the open-addressing table: its row's slot, or the empty slot where
    it would go (linear probing; ``slots`` has a power-of-two length)."""
    mask = np.uint64(slots.shape[0] - 1)
    i = _hash(b, w) & mask
    while True:
        row = slots[i]
        if row == _EMPTY or (keys_b[row] == b and keys_w[row] == w):
            return i
        i = (i + _U1) & mask


@njit(cache=True)
def _aggregate(black, white, label, slots, keys_b, keys_w, n, wins):
    """Count occurrences and Black wins per distinct ``(black, white)``; returns distinct rows."""
    count = 0
    for i in range(black.shape[0]):
        s = _slot(slots, keys_b, keys_w, black[i], white[i])
        row = slots[s]
        if row == _EMPTY:
            row = count
            slots[s] = row
            keys_b[row] = black[i]
            keys_w[row] = white[i]
            count += 1
        n[row] += 1
        wins[row] += label[i]
    return count


@njit(cache=True)
def _build_index(keys_b, keys_w, slots):
    for row in range(keys_b.shape[0]):
        s = _slot(slots, keys_b, keys_w, keys_b[row], keys_w[row])
        if slots[s] != _EMPTY:
            return row  # duplicate key
        slots[s] = row
    return -1


@njit(cache=True)
def _lookup(slots, keys_b, keys_w, black, white, out):
    for i in range(black.shape[0]):
        out[i] = slots[_slot(slots, keys_b, keys_w, black[i], white[i])]


@njit(cache=True)
def table_value(slots, keys_b, keys_w, v_b, black, white):
    """Black's win rate :math:`v_b(s)` of one board from inside numba code, or -1.0 if the board
    is not in the table (see :meth:`ValueTable.kernel_args`)."""
    row = slots[_slot(slots, keys_b, keys_w, black, white)]
    if row == _EMPTY:
        return -1.0
    return v_b[row]


def _capacity(n: int) -> int:
    """Power of two with a load factor of at most 1/2."""
    return 1 << max(4, int(2 * max(n, 1) - 1).bit_length())


def aggregate(black, white, black_won) -> pd.DataFrame:
    """The value table of a list of ``(black, white, black_won)`` rows (eqs. 1–2).

    Parameters
    ----------
    black, white : array_like of uint64
        Positions (one row per occurrence).
    black_won : array_like of int or bool
        1 (True) if Black won the game of that row, 0 if White won. Drawn games must be left out
        beforehand.

    Returns
    -------
    DataFrame
        Columns ``black``, ``white`` (uint64), ``n``, ``wins`` (int64), ``v_b`` (float64), one
        row per distinct position, in order of first occurrence.
    """
    black = np.ascontiguousarray(black, dtype=np.uint64).reshape(-1)
    white = np.ascontiguousarray(white, dtype=np.uint64).reshape(-1)
    label = np.asarray(black_won).reshape(-1)
    if not (black.size == white.size == label.size):
        raise ValueError(f"row counts differ: black {black.size}, white {white.size}, "
                         f"black_won {label.size}")
    if label.size and not np.isin(label, (0, 1)).all():
        raise ValueError("black_won must be 0 or 1 (leave drawn games out)")
    if np.any(black & white):
        raise ValueError("a square is both black and white in at least one row")
    label = label.astype(np.int64)
    slots = np.full(_capacity(black.size), _EMPTY, dtype=np.int64)
    keys_b = np.empty(black.size, dtype=np.uint64)
    keys_w = np.empty(black.size, dtype=np.uint64)
    n = np.zeros(black.size, dtype=np.int64)
    wins = np.zeros(black.size, dtype=np.int64)
    rows = _aggregate(black, white, label, slots, keys_b, keys_w, n, wins)
    return pd.DataFrame({"black": keys_b[:rows], "white": keys_w[:rows], "n": n[:rows],
                         "wins": wins[:rows], "v_b": wins[:rows] / n[:rows]})


# --- the table -------------------------------------------------------------------------------

class ValueTable:
    """A value table (pandas DataFrame) with a hash index on the bitboard pair.

    Parameters
    ----------
    frame : DataFrame
        Columns ``black``, ``white`` (uint64), ``n``, ``wins``; ``v_b`` is (re)computed.
    info : dict, optional
        Provenance (years, number of games and draws, ...).
    """

    def __init__(self, frame: pd.DataFrame, info: dict | None = None):
        missing = {"black", "white", "n", "wins"} - set(frame.columns)
        if missing:
            raise ValueError(f"value table lacks columns {sorted(missing)}")
        frame = frame[["black", "white", "n", "wins"]].reset_index(drop=True)
        frame = frame.astype({"black": np.uint64, "white": np.uint64, "n": np.int64,
                              "wins": np.int64})
        if (frame["n"] < 1).any() or (frame["wins"] < 0).any() or (frame["wins"] > frame["n"]).any():
            raise ValueError("value table needs n >= 1 and 0 <= wins <= n in every row")
        frame["v_b"] = frame["wins"] / frame["n"]
        self.frame = frame
        self.info = dict(info or {})
        self._slots = np.full(_capacity(len(frame)), _EMPTY, dtype=np.int64)
        dup = _build_index(self.keys_black, self.keys_white, self._slots)
        if dup >= 0:
            raise ValueError(f"value table has a duplicate state in row {dup}: "
                             f"{state_string(self.keys_black[dup], self.keys_white[dup])}")

    @classmethod
    def from_rows(cls, black, white, black_won, info: dict | None = None) -> "ValueTable":
        """Table of ``(black, white, black_won)`` rows; see :func:`aggregate`."""
        return cls(aggregate(black, white, black_won), info)

    @classmethod
    def from_decomposition(cls, dec: Decomposition, games=None, draws: str = "exclude",
                           info: dict | None = None) -> "ValueTable":
        """Table of the games of ``dec`` (optionally only the game indices ``games``).

        Parameters
        ----------
        dec : Decomposition
        games : array_like of int, optional
            Indices of the games to count (default: all).
        draws : {"exclude", "zero"}
            ``"exclude"`` (the paper's text): drawn games are left out. ``"zero"``: drawn games
            count with :math:`z = 0` (not a Black win), which is what the paper's Table 2
            numbers match (its v(s) agree with ours to 3 decimals only when draws count so).
        """
        if draws not in ("exclude", "zero"):
            raise ValueError(f"draws must be 'exclude' or 'zero', got {draws!r}")
        label = dec.black_won()
        if draws == "zero":
            label = np.maximum(label, 0).astype(np.int8)
        keep = label >= 0
        if games is not None:
            chosen = np.zeros(dec.n_games, dtype=bool)
            chosen[np.asarray(games, dtype=np.int64)] = True
            keep &= chosen[dec.game]
            n_games = int(chosen.sum())
            n_draws = int(np.count_nonzero(chosen & (dec.result < 0)))
        else:
            n_games, n_draws = dec.n_games, dec.n_draws
        info = {"games": n_games, "draws": n_draws, "draw_rule": draws,
                "games_counted": n_games - n_draws if draws == "exclude" else n_games,
                "states": int(keep.sum()), **(info or {})}
        table = cls.from_rows(dec.black[keep], dec.white[keep], label[keep], info)
        table.info["distinct_states"] = len(table)
        return table

    # --- access --------------------------------------------------------------------------
    def __len__(self) -> int:
        return len(self.frame)

    @property
    def keys_black(self) -> np.ndarray:
        return self.frame["black"].to_numpy(np.uint64)

    @property
    def keys_white(self) -> np.ndarray:
        return self.frame["white"].to_numpy(np.uint64)

    @property
    def n_states(self) -> int:
        """:math:`N = \\sum_s n(s)`, the number of state occurrences."""
        return int(self.frame["n"].sum())

    def rows(self, black, white) -> np.ndarray:
        """Row index of every board ``(black[i], white[i])``, -1 where it is not in the table."""
        black = np.ascontiguousarray(black, dtype=np.uint64).reshape(-1)
        white = np.ascontiguousarray(white, dtype=np.uint64).reshape(-1)
        out = np.empty(black.size, dtype=np.int64)
        _lookup(self._slots, self.keys_black, self.keys_white, black, white, out)
        return out

    def lookup(self, black, white) -> pd.DataFrame:
        """``n``, ``wins`` and ``v_b`` of each board (``n = 0``, ``v_b = NaN`` when absent)."""
        rows = self.rows(black, white)
        found = rows >= 0
        n = np.where(found, self.frame["n"].to_numpy()[np.where(found, rows, 0)], 0)
        wins = np.where(found, self.frame["wins"].to_numpy()[np.where(found, rows, 0)], 0)
        with np.errstate(invalid="ignore", divide="ignore"):
            v_b = np.where(found, wins / np.maximum(n, 1), np.nan)
        return pd.DataFrame({"n": n, "wins": wins, "v_b": v_b})

    def value(self, black: int, white: int, side: str = "black") -> float:
        """:math:`v_b(s)` (``side="black"``) or :math:`v_w(s) = 1 - v_b(s)` (eq. 3) of one
        board; ``KeyError`` if the board is not in the table."""
        if side not in ("black", "white"):
            raise ValueError(f"side must be 'black' or 'white', got {side!r}")
        row = int(self.rows([black], [white])[0])
        if row < 0:
            raise KeyError(f"state {state_string(black, white)} is not in the table")
        v = float(self.frame["v_b"].iat[row])
        return v if side == "black" else 1.0 - v

    def kernel_args(self):
        """``(slots, keys_black, keys_white, v_b)``: the arrays :func:`table_value` takes."""
        return (self._slots, self.keys_black, self.keys_white,
                self.frame["v_b"].to_numpy(np.float64))

    def with_state_strings(self, rows=None) -> pd.DataFrame:
        """The table (or some rows of it) with the paper's state vector column ``state``."""
        frame = self.frame if rows is None else self.frame.iloc[rows]
        out = frame.copy()
        out.insert(0, "state", [state_string(b, w) for b, w in zip(out["black"], out["white"])])
        return out


# --- train/validation split by game --------------------------------------------------------

def split_games(game_ids, val_fraction: float, seed: int) -> np.ndarray:
    """True for the games that go to the validation set.

    A game goes to validation when a seeded hash of its identifier falls below
    ``val_fraction``; the decision depends only on ``(seed, game id)``, not on which other
    games are loaded.

    Parameters
    ----------
    game_ids : array_like of int
        Stable game identifiers (e.g. ``year * 100_000 + index within the year's file``).
    val_fraction : float
        Expected share of validation games, in [0, 1).
    seed : int
    """
    if not 0.0 <= val_fraction < 1.0:
        raise ValueError(f"val_fraction must be in [0, 1), got {val_fraction}")
    ids = np.asarray(game_ids, dtype=np.int64).astype(np.uint64)
    h = _hash_array(ids, np.uint64(seed))
    return (h >> np.uint64(11)).astype(np.float64) * 2.0 ** -53 < val_fraction


@njit(cache=True)
def _hash_array(ids, seed):
    out = np.empty(ids.shape[0], dtype=np.uint64)
    for i in range(ids.shape[0]):
        out[i] = _hash(ids[i], seed ^ np.uint64(0x5DEECE66D))
    return out


# --- the paper's Table 2 -----------------------------------------------------------------------

def table2_comparison(table: ValueTable) -> pd.DataFrame:
    """The paper's Table 2 next to this table's counts for the same states.

    Columns: ``moves`` (our reading of the moves that lead to the state), ``state`` (the
    paper's state vector), ``paper_n``, ``paper_wins``, ``paper_v``, ``n``, ``wins``, ``v``
    (``v = wins / n``, Black's win rate, as in the paper; NaN where the state never occurs).
    """
    boards = [parse_state_string(s) for _, s, *_ in PAPER_TABLE2]
    found = table.lookup([b for b, _ in boards], [w for _, w in boards])
    return pd.DataFrame({
        "moves": [m for m, *_ in PAPER_TABLE2],
        "state": [s for _, s, *_ in PAPER_TABLE2],
        "paper_n": [r[2] for r in PAPER_TABLE2],
        "paper_wins": [r[3] for r in PAPER_TABLE2],
        "paper_v": [r[4] for r in PAPER_TABLE2],
        "n": found["n"].to_numpy(),
        "wins": found["wins"].to_numpy(),
        "v": found["v_b"].to_numpy(),
    })


# --- from WTHOR records to tables -------------------------------------------------------------

def load_years(first: int, last: int, path=None) -> pd.DataFrame:
    """WTHOR games of the years ``first..last`` (one ``WTH_<year>.wtb`` file per year).

    Parameters
    ----------
    first, last : int
        Inclusive range of years (the paper used 1977–2018, :data:`PAPER_YEARS`).
    path : str or Path, optional
        Folder of the ``.wtb`` files (default: :func:`gamelib.games.othello.wthor.find_wthor_dir`).

    Returns
    -------
    DataFrame
        The rows of :func:`gamelib.games.othello.wthor.load`, year after year.

    Raises
    ------
    ValueError
        If the range is empty or a year's file is missing (all missing years are named).
    """
    if first > last:
        raise ValueError(f"empty year range {first}..{last}")
    folder = Path(path) if path is not None else wthor.find_wthor_dir()
    files = {year: folder / f"WTH_{year}.wtb" for year in range(first, last + 1)}
    missing = [str(year) for year, f in files.items() if not f.is_file()]
    if missing:
        raise ValueError(f"no WTHOR file for year(s) {', '.join(missing)} in {folder}")
    return pd.concat([wthor.load(f) for f in files.values()], ignore_index=True)


@dataclass
class RecordTables:
    """Value tables of a set of game records, with a train/validation split by game.

    Attributes
    ----------
    full, train, val : ValueTable
        Tables of all games, of the training games and of the validation games (``val`` is
        None without a validation share).
    decomposition : Decomposition
    is_val : ndarray of bool
        Per game: True when it went to validation.
    """

    full: ValueTable
    train: ValueTable
    val: ValueTable | None
    decomposition: Decomposition
    is_val: np.ndarray


def build_tables(records: pd.DataFrame, val_fraction: float = 0.0, seed: int = 0,
                 draws: str = "exclude") -> RecordTables:
    """Decompose game records and count the value tables (eqs. 1–2).

    Parameters
    ----------
    records : DataFrame
        Rows of :func:`gamelib.games.othello.wthor.load` (columns ``year``, ``moves``,
        ``black_score``, and ``game_index`` for the split).
    val_fraction : float
        Share of games held out for validation, decided per game by :func:`split_games` on
        the id ``year * 100_000 + game_index`` (so a state seen in both sets is counted in each
        set's table from its own games only).
    seed : int
        Seed of the split.
    draws : {"exclude", "zero"}
        See :meth:`ValueTable.from_decomposition`.
    """
    missing = {"year", "moves", "black_score", "game_index"} - set(records.columns)
    if missing:
        raise ValueError(f"game records lack columns {sorted(missing)}")
    dec = decompose_games(records["moves"].tolist(), records["black_score"].to_numpy())
    years = records["year"].to_numpy(np.int64)
    info = {"years": [int(years.min()), int(years.max())] if years.size else []}
    ids = years * 100_000 + records["game_index"].to_numpy(np.int64)
    is_val = split_games(ids, val_fraction, seed)
    full = ValueTable.from_decomposition(dec, draws=draws, info=info)
    if val_fraction == 0.0:
        return RecordTables(full, full, None, dec, is_val)
    train = ValueTable.from_decomposition(dec, np.flatnonzero(~is_val), draws, info)
    val = ValueTable.from_decomposition(dec, np.flatnonzero(is_val), draws, info)
    return RecordTables(full, train, val, dec, is_val)
