"""Read WTHOR game records (``.wtb``) and name files (``.JOU``, ``.TRN``), replaying every game.

WTHOR is the French Othello Federation's database of tournament games. All integers are
little-endian.

* A file starts with a 16-byte header: creation date (century, year, month, day), uint32
  number of records N1, uint16 N2 (number of names in ``.JOU``/``.TRN``, 0 in ``.wtb``),
  uint16 year of the games, board size (8), game type (0 = games), depth of the theoretical
  score, and a reserved byte.
* A ``.wtb`` file then holds N1 records of 68 bytes: uint16 tournament id, uint16 black and
  white player ids, black's final disc count (the real score), the theoretical score, and 60
  moves ``10 * row + col`` (row 1..8 from the top, column 1..8 from a), 0 = no move. Passes
  are not recorded: a side without a legal move passes and the byte is the opponent's move.
  The real score of a game played to its end is black's discs with the empty squares given
  to the winner (:func:`final_score`); in a game stopped early (a resignation, a time loss)
  it is the result the tournament recorded, which the moves cannot check.
* ``WTHOR.JOU`` holds N2 player names of 20 bytes, ``WTHOR.TRN`` N2 tournament names of 26
  bytes, NUL-padded Latin-1.

:func:`load` replays every game with the numba core (legality of every move, implied
passes) and returns one row per game. Where the files are: :func:`find_wthor_dir` looks at
``$GAMELIB_WTHOR_DIR``, then ``data/othello/wthor`` in a folder named ``shared`` beside the checkout, then
``<repo>/data/othello/wthor`` (where ``python -m gamelib.games.othello.download`` puts them).
"""

from __future__ import annotations

import datetime
import hashlib
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
from numba import njit

from ...runtime.paths import repo_root
from .board import SQUARE_NAMES
from .core import START_BLACK, START_WHITE, U0, U1, flips, move_mask, popcount

__all__ = [
    "ENV_VAR",
    "WthorError",
    "WthorHeader",
    "default_dirs",
    "find_wthor_dir",
    "years_sha256",
    "read_header",
    "read_names",
    "read_records",
    "replay",
    "final_score",
    "load",
]

ENV_VAR = "GAMELIB_WTHOR_DIR"
HEADER_SIZE = 16
RECORD_SIZE = 68
NAME_SIZES = {".jou": 20, ".trn": 26}
#: Years accepted in a game file's header (WTHOR starts in 1977; 0 only in name files).
GAME_YEARS = (1970, 2099)
#: Byte offsets of the header's fields and of a record's score bytes and moves.
_OFF_DATE, _OFF_N1, _OFF_N2, _OFF_YEAR, _OFF_SIZE, _OFF_TYPE, _OFF_DEPTH = 0, 4, 8, 10, 12, 13, 14
_OFF_SCORE, _OFF_THEO, _OFF_MOVES = 6, 7, 8

_RECORD_DTYPE = np.dtype(
    [
        ("tournament", "<u2"),
        ("black", "<u2"),
        ("white", "<u2"),
        ("black_score", "u1"),
        ("theoretical_score", "u1"),
        ("moves", "u1", (60,)),
    ]
)
assert _RECORD_DTYPE.itemsize == RECORD_SIZE

# replay status codes (see _STATUS_TEXT)
_OK, _BAD_BYTE, _ILLEGAL, _AFTER_END, _AFTER_ZERO = 0, 1, 2, 3, 4
_STATUS_TEXT = {
    _BAD_BYTE: "move byte {byte} is not a square (10*row + col, row and col 1..8)",
    _ILLEGAL: "illegal move {move} for {side}",
    _AFTER_END: "move {move} after the end of the game (neither side can move)",
    _AFTER_ZERO: "move byte {byte} after the end-of-game marker 0",
}


class WthorError(ValueError):
    """A corrupt, truncated or inconsistent WTHOR file, or an illegal game in it."""


@dataclass(frozen=True)
class WthorHeader:
    """The 16-byte header of a WTHOR file."""

    created: str  # YYYY-MM-DD
    n_records: int  # N1: games in a .wtb file
    n_names: int  # N2: names in a .JOU/.TRN file
    year: int
    board_size: int
    game_type: int
    depth: int


def default_dirs() -> list[Path]:
    """Where the records are looked for, in order (the variable only when it is set)."""
    repo = repo_root()
    dirs = []
    if os.environ.get(ENV_VAR):
        dirs.append(Path(os.environ[ENV_VAR]).expanduser())
    dirs += [repo.parent / "shared" / "data" / "othello" / "wthor", repo / "data" / "othello" / "wthor"]
    return dirs


def find_wthor_dir() -> Path:
    """The first folder of :func:`default_dirs` that holds ``.wtb`` files.

    Raises
    ------
    FileNotFoundError
        Naming the places searched and how to download the records.
    """
    candidates = default_dirs()
    for d in candidates:
        if d.is_dir() and any(p.suffix.lower() == ".wtb" for p in d.iterdir()):
            return d
    if os.environ.get(ENV_VAR) and not candidates[0].is_dir():
        raise FileNotFoundError(f"${ENV_VAR} = {candidates[0]} is not a folder")
    raise FileNotFoundError(
        "no WTHOR .wtb files found in "
        + ", ".join(str(d) for d in candidates)
        + f"; set ${ENV_VAR} or run `python -m gamelib.games.othello.download`"
    )


def years_sha256(folder, first_year: int, last_year: int) -> dict[str, str]:
    """``{"WTH_<year>.wtb": sha256}`` of the game files of the years ``first_year..last_year``
    in ``folder`` (what a run's provenance records of the records it read)."""
    folder = Path(folder)
    return {f"WTH_{y}.wtb": hashlib.sha256((folder / f"WTH_{y}.wtb").read_bytes()).hexdigest()
            for y in range(first_year, last_year + 1)}


def _parse_header(data: bytes, path: Path) -> WthorHeader:
    """The header's fields; WthorError (with the byte offset) if it is short or its date or
    theoretical-score depth is impossible."""
    if len(data) < HEADER_SIZE:
        raise WthorError(
            f"{path}: truncated header ({len(data)} bytes, expected {HEADER_SIZE}) (byte offset {len(data)})"
        )
    century, yy, month, day = data[0], data[1], data[2], data[3]
    try:
        if not 19 <= century <= 20 or yy > 99:
            raise ValueError("century must be 19 or 20 and the year 0..99")
        datetime.date(100 * century + yy, month, day)
    except ValueError as err:
        raise WthorError(
            f"{path}: creation date bytes {century} {yy} {month} {day} are not a date 1900-01-01..2099-12-31: "
            f"{err} (byte offset {_OFF_DATE})"
        ) from None
    if data[_OFF_DEPTH] > 60:
        raise WthorError(
            f"{path}: depth of the theoretical score {data[_OFF_DEPTH]} is not in 0..60 (byte offset {_OFF_DEPTH})"
        )
    n1 = int.from_bytes(data[4:8], "little")
    n2 = int.from_bytes(data[8:10], "little")
    year = int.from_bytes(data[10:12], "little")
    return WthorHeader(
        created=f"{100 * century + yy:04d}-{month:02d}-{day:02d}",
        n_records=n1,
        n_names=n2,
        year=year,
        board_size=data[12],
        game_type=data[13],
        depth=data[14],
    )


def read_header(path) -> WthorHeader:
    """The header of a WTHOR file (``.wtb``, ``.JOU`` or ``.TRN``)."""
    path = Path(path)
    with open(path, "rb") as fh:
        return _parse_header(fh.read(HEADER_SIZE), path)


def read_names(path) -> list[str]:
    """Names of a ``.JOU`` (players, 20 bytes each) or ``.TRN`` (tournaments, 26 bytes) file."""
    path = Path(path)
    size = NAME_SIZES.get(path.suffix.lower())
    if size is None:
        raise WthorError(f"{path}: not a name file (expected a .JOU or .TRN suffix)")
    data = path.read_bytes()
    header = _parse_header(data, path)
    expected = HEADER_SIZE + size * header.n_names
    if len(data) != expected:
        raise WthorError(
            f"{path}: header announces {header.n_names} names ({expected} bytes) "
            f"but the file has {len(data)} bytes (byte offset {_OFF_N2})"
        )
    body = data[HEADER_SIZE:]
    return [
        body[i * size : (i + 1) * size].split(b"\0", 1)[0].decode("latin-1").strip()
        for i in range(header.n_names)
    ]


def read_records(path, on_error: str = "raise") -> tuple[WthorHeader, np.ndarray, list[str]]:
    """Header and raw 68-byte records of a ``.wtb`` file (no replay).

    Returns ``(header, records, errors)``; ``records`` is a structured array with fields
    ``tournament``, ``black``, ``white``, ``black_score``, ``theoretical_score`` and
    ``moves`` (60 bytes). With ``on_error="skip"`` a file longer or shorter than its header
    announces yields the complete records the header announces and the file holds, and
    ``errors`` says what was dropped (a header that is itself wrong -- a bad date, year, board
    size, game type or N2 -- raises :class:`WthorError` either way).
    """
    _check_on_error(on_error)
    path = Path(path)
    data = path.read_bytes()
    header = _parse_header(data, path)
    if header.board_size not in (0, 8):
        raise WthorError(f"{path}: board size {header.board_size}; only 8x8 games are supported (byte offset {_OFF_SIZE})")
    if header.game_type != 0:
        raise WthorError(f"{path}: game type {header.game_type} is not a game file (0) (byte offset {_OFF_TYPE})")
    if header.n_names != 0:
        raise WthorError(f"{path}: N2 = {header.n_names} in a game file (a .JOU/.TRN renamed?) (byte offset {_OFF_N2})")
    if not GAME_YEARS[0] <= header.year <= GAME_YEARS[1]:
        raise WthorError(
            f"{path}: year of the games {header.year} is not in {GAME_YEARS[0]}..{GAME_YEARS[1]} (byte offset {_OFF_YEAR})"
        )
    body = len(data) - HEADER_SIZE
    n_complete = body // RECORD_SIZE
    errors = []
    if body != RECORD_SIZE * header.n_records:
        announced = (
            f"{path}: header announces {header.n_records} games "
            f"({HEADER_SIZE + RECORD_SIZE * header.n_records} bytes, byte offset {_OFF_N1}) but the file has "
            f"{len(data)} bytes"
        )
        if n_complete < header.n_records:
            end = HEADER_SIZE + RECORD_SIZE * n_complete
            msg = f"{announced}: truncated: game {n_complete} is " + (
                f"incomplete ({body % RECORD_SIZE} of {RECORD_SIZE} bytes at byte offset {end})"
                if body % RECORD_SIZE
                else f"missing (the file ends at byte offset {end})"
            )
        else:
            end = HEADER_SIZE + RECORD_SIZE * header.n_records
            extra = body - RECORD_SIZE * header.n_records
            msg = (
                f"{announced}: {extra} extra bytes after game {header.n_records - 1} (byte offset {end}"
                + (f"; {_n_records_in(extra)} more records, not loaded" if extra >= RECORD_SIZE else "")
                + ")"
            )
        if on_error == "raise":
            raise WthorError(msg)
        errors.append(msg)
    n = min(n_complete, header.n_records)
    records = np.frombuffer(data, dtype=_RECORD_DTYPE, count=n, offset=HEADER_SIZE)
    return header, records, errors


@njit(cache=True)
def _replay_kernel(moves):
    """Replay games (rows of 60 WTHOR move bytes) from the start position.

    Returns per game: status, index of the offending ply (-1), number of moves, number of
    passes, final black and white disc counts, whether the game is over, whether black is
    to move (at the end, or at the offending ply) and the move squares (-1 padded).
    """
    n = moves.shape[0]
    status = np.zeros(n, dtype=np.int8)
    bad_ply = np.full(n, -1, dtype=np.int16)
    n_moves = np.zeros(n, dtype=np.int16)
    n_passes = np.zeros(n, dtype=np.int16)
    black_discs = np.zeros(n, dtype=np.int16)
    white_discs = np.zeros(n, dtype=np.int16)
    finished = np.zeros(n, dtype=np.bool_)
    black_to_move_out = np.zeros(n, dtype=np.bool_)
    squares = np.full((n, 60), -1, dtype=np.int8)
    for g in range(n):
        p = START_BLACK
        o = START_WHITE
        black_to_move = True
        ended = False
        for ply in range(60):
            byte = np.int64(moves[g, ply])
            if byte == 0:
                ended = True
                continue
            if ended:
                status[g] = _AFTER_ZERO
                bad_ply[g] = ply
                break
            row = byte // 10
            col = byte % 10
            if row < 1 or row > 8 or col < 1 or col > 8:
                status[g] = _BAD_BYTE
                bad_ply[g] = ply
                break
            sq = np.uint64(8 * (row - 1) + col - 1)
            legal = move_mask(p, o)
            if legal == U0:
                if move_mask(o, p) == U0:
                    status[g] = _AFTER_END
                    bad_ply[g] = ply
                    break
                p, o = o, p  # implied pass
                black_to_move = not black_to_move
                n_passes[g] += 1
                legal = move_mask(p, o)
            if not (legal >> sq) & U1:
                status[g] = _ILLEGAL
                bad_ply[g] = ply
                break
            f = flips(p, o, sq)
            p, o = o & ~f, p | f | (U1 << sq)
            black_to_move = not black_to_move
            squares[g, ply] = np.int8(sq)
            n_moves[g] += 1
        black_to_move_out[g] = black_to_move
        if status[g] != _OK:
            continue
        if move_mask(p, o) == U0 and move_mask(o, p) == U0:
            finished[g] = True
        if black_to_move:
            black_discs[g] = popcount(p)
            white_discs[g] = popcount(o)
        else:
            black_discs[g] = popcount(o)
            white_discs[g] = popcount(p)
    return status, bad_ply, n_moves, n_passes, black_discs, white_discs, finished, black_to_move_out, squares


def replay(moves: np.ndarray) -> dict[str, np.ndarray]:
    """Replay WTHOR move bytes (shape ``(n, 60)``); see :func:`load` for the checks.

    Returns a dict of arrays: ``status`` (0 = legal game), ``bad_ply``, ``n_moves``,
    ``n_passes``, ``black_discs``, ``white_discs``, ``finished`` (neither side can move at
    the end), ``black_to_move`` (at the end, or at the offending ply) and ``squares``
    (square indices of the moves, -1 padded).
    """
    moves = np.ascontiguousarray(moves, dtype=np.uint8).reshape(-1, 60)
    keys = (
        "status", "bad_ply", "n_moves", "n_passes", "black_discs", "white_discs",
        "finished", "black_to_move", "squares",
    )
    return dict(zip(keys, _replay_kernel(moves)))


def _n_records_in(n_bytes: int) -> int:
    """Records (complete or not) that ``n_bytes`` of record data hold."""
    return -(-n_bytes // RECORD_SIZE)


def _record_offset(game: int) -> int:
    return HEADER_SIZE + RECORD_SIZE * game


def _game_errors(path, rec, res) -> tuple[np.ndarray, list[str]]:
    """Games that failed the replay or whose score bytes are not disc counts 0..64, and a
    message for each (naming the game, the move and the byte offset), in file order."""
    found = []  # (byte offset, message)
    for g in np.flatnonzero(res["status"] != _OK):
        status, ply = int(res["status"][g]), int(res["bad_ply"][g])
        byte = int(rec["moves"][g][ply])
        move = f"{'abcdefgh'[byte % 10 - 1]}{byte // 10}" if status in (_ILLEGAL, _AFTER_END) else ""
        side = "black" if res["black_to_move"][g] else "white"
        what = _STATUS_TEXT[status].format(byte=byte, move=move, side=side)
        off = _record_offset(g) + _OFF_MOVES + ply
        found.append((off, f"{path}: game {g}, move {ply + 1}: {what} (byte offset {off})"))
    bad_score = (rec["black_score"] > 64) | (rec["theoretical_score"] > 64)
    for g in np.flatnonzero(bad_score & (res["status"] == _OK)):
        field, off = ("black_score", _OFF_SCORE) if rec["black_score"][g] > 64 else ("theoretical_score", _OFF_THEO)
        off += _record_offset(g)
        found.append((off, f"{path}: game {g}: {field} byte {int(rec[field][g])} is not a disc count 0..64 (byte offset {off})"))
    expected = final_score(res["black_discs"], res["white_discs"])
    wrong_score = (res["status"] == _OK) & ~bad_score & res["finished"] & (rec["black_score"] != expected)
    for g in np.flatnonzero(wrong_score):
        off = _record_offset(g) + _OFF_SCORE
        b, w = int(res["black_discs"][g]), int(res["white_discs"][g])
        found.append((off, f"{path}: game {g}: black_score byte {int(rec['black_score'][g])} is not the replayed "
                           f"final position's score {int(expected[g])} ({b} black, {w} white discs, the "
                           f"{64 - b - w} empty squares to the winner) (byte offset {off})"))
    found.sort()
    return (res["status"] != _OK) | bad_score | wrong_score, [m for _, m in found]


def final_score(black_discs, white_discs):
    """Black's score at the end of a game as WTHOR stores it (byte 6): black's discs, plus the
    empty squares ``e = 64 - b - w`` when black won (``b > w``), plus ``e / 2`` in a draw
    (the empties go to the winner, shared in a draw). Arrays or integers."""
    b, w = np.asarray(black_discs, dtype=np.int64), np.asarray(white_discs, dtype=np.int64)
    empties = 64 - b - w
    return b + np.where(b > w, empties, np.where(b == w, empties // 2, 0))


def _check_on_error(on_error: str) -> None:
    if on_error not in ("raise", "skip"):
        raise ValueError(f"bad on_error {on_error!r}: expected 'raise' or 'skip'")


def _find_name_file(folder: Path, suffix: str) -> Path | None:
    for p in sorted(folder.iterdir()):
        if p.suffix.lower() == suffix and p.stem.upper() == "WTHOR":
            return p
    for p in sorted(folder.iterdir()):
        if p.suffix.lower() == suffix:
            return p
    return None


def _moves_strings(squares: np.ndarray) -> list[str]:
    """Move strings such as ``"f5d6c3"`` from rows of square indices (-1 padded)."""
    codes = np.array([n.encode() for n in SQUARE_NAMES] + [b""], dtype="S2")
    chars = codes[np.where(squares < 0, 64, squares)]  # (n, 60) of S2
    flat = chars.astype("S2").view("S1").reshape(len(squares), 120)
    return [row.tobytes().decode("ascii").replace("\0", "") for row in flat]


def load(
    path=None,
    *,
    on_error: str = "raise",
    players=None,
    tournaments=None,
) -> pd.DataFrame:
    """Load WTHOR games into a DataFrame, replaying every game with legality checks.

    Parameters
    ----------
    path : str or Path, optional
        One ``.wtb`` file or a folder of them (all ``*.wtb``, sorted by name). Default:
        :func:`find_wthor_dir`.
    on_error : {"raise", "skip"}
        ``"raise"`` (default): a bad header (short, impossible date, year outside
        :data:`GAME_YEARS`, wrong board size, game type or N2), a truncated or oversized
        file, a score byte above 64, a bad move byte, an illegal move, a move after the end or,
        in a game played to its end, a score byte that is not the replayed final position's
        (:func:`final_score`) raises :class:`WthorError` naming the file, the game index (0-based within the file),
        the move and the byte offset. ``"skip"``: such games are left out, a file with a bad
        header (an empty or short file too) is left out whole, and an unreadable name file
        gives missing names; ``df.attrs["n_skipped"]`` counts the game records present in the
        files (complete or not) that were not loaded -- games a header announces but the file
        does not hold are not counted -- and ``df.attrs["errors"]`` has the messages.
    players, tournaments : str or Path, optional
        ``.JOU`` and ``.TRN`` files; default: ``WTHOR.JOU``/``WTHOR.TRN`` beside the games.
        Ids beyond the end of a name file give a missing name (the id columns keep the ids).

    Returns
    -------
    pandas.DataFrame
        One row per game: ``year``, ``tournament``, ``black``, ``white`` (names),
        ``black_score`` (byte 6: black's discs at the end, as recorded), ``theoretical_score``,
        ``moves`` (e.g. ``"f5d6c3..."``, passes not written), ``n_moves``, ``n_passes``,
        ``black_discs`` and ``white_discs`` (counted on the replayed final position),
        ``finished`` (neither side can move there), ``tournament_id``, ``black_id``,
        ``white_id``, ``file`` and ``game_index`` (index within the file).
    """
    _check_on_error(on_error)
    path = Path(path) if path is not None else find_wthor_dir()
    if path.is_dir():
        files = sorted(p for p in path.iterdir() if p.suffix.lower() == ".wtb")
        if not files:
            raise FileNotFoundError(f"{path}: no .wtb files")
        folder = path
    elif path.is_file():
        files = [path]
        folder = path.parent
    else:
        raise FileNotFoundError(f"{path}: no such file or folder")
    players = Path(players) if players is not None else _find_name_file(folder, ".jou")
    tournaments = Path(tournaments) if tournaments is not None else _find_name_file(folder, ".trn")
    errors: list[str] = []
    player_names = _read_names_or_skip(players, on_error, errors)
    tournament_names = _read_names_or_skip(tournaments, on_error, errors)

    frames = []
    n_skipped = 0
    for f in files:
        n_present = _n_records_in(max(f.stat().st_size - HEADER_SIZE, 0))
        try:
            header, rec, file_errors = read_records(f, on_error)
            year = header.year
        except WthorError as err:
            if on_error == "raise":
                raise
            file_errors = [f"{err} -- file skipped"]
            rec, year = np.empty(0, dtype=_RECORD_DTYPE), 0
        errors += file_errors
        res = replay(rec["moves"])
        bad, msgs = _game_errors(f, rec, res)
        if msgs:
            if on_error == "raise":
                raise WthorError(msgs[0] + (f" (and {len(msgs) - 1} more bad games)" if len(msgs) > 1 else ""))
            errors += msgs
        n_skipped += n_present - len(rec) + len(msgs)
        keep = ~bad
        idx = np.flatnonzero(keep)
        r = rec[keep]
        frames.append(
            pd.DataFrame(
                {
                    "year": np.full(len(r), year, dtype=np.int64),
                    "tournament_id": r["tournament"].astype(np.int64),
                    "black_id": r["black"].astype(np.int64),
                    "white_id": r["white"].astype(np.int64),
                    "black_score": r["black_score"].astype(np.int64),
                    "theoretical_score": r["theoretical_score"].astype(np.int64),
                    "moves": _moves_strings(res["squares"][keep]),
                    "n_moves": res["n_moves"][keep].astype(np.int64),
                    "n_passes": res["n_passes"][keep].astype(np.int64),
                    "black_discs": res["black_discs"][keep].astype(np.int64),
                    "white_discs": res["white_discs"][keep].astype(np.int64),
                    "finished": res["finished"][keep],
                    "file": f.name,
                    "game_index": idx.astype(np.int64),
                }
            )
        )
    df = pd.concat([fr for fr in frames if len(fr)] or frames[:1], ignore_index=True)
    df.insert(1, "tournament", _lookup(df["tournament_id"], tournament_names))
    df.insert(2, "black", _lookup(df["black_id"], player_names))
    df.insert(3, "white", _lookup(df["white_id"], player_names))
    df.attrs["n_skipped"] = n_skipped
    df.attrs["errors"] = errors
    return df


def _read_names_or_skip(path: Path | None, on_error: str, errors: list[str]) -> list[str]:
    """The names of a name file; with ``on_error="skip"`` a bad one gives none and a message."""
    if path is None:
        return []
    try:
        return read_names(path)
    except WthorError as err:
        if on_error == "raise":
            raise
        errors.append(f"{err} -- names left missing")
        return []


def _lookup(ids: pd.Series, names: list[str]) -> pd.Series:
    table = pd.Series(names, dtype=object)
    out = ids.map(table)  # ids beyond the list give NaN
    return out.where(out.notna(), None)
