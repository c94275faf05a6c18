"""The game-neutral machinery of a resumable engine match: its ``games.csv`` and the games
played in worker processes.

* :func:`read_rows`, :func:`append_row`, :func:`rewrite_rows` -- a CSV file of one line per
  finished game (a column ``game`` with its index): lines are appended and synced as games
  finish, a last line cut short by a kill is dropped when the file is read, and at the end the
  file is rewritten in game order;
* :func:`record_of` -- a player's wins, draws and losses over such rows;
* :func:`play_games` -- runs the games (``run(task) -> row``) in this process or, ``workers`` at
  a time, in worker processes (:class:`gamelib.runtime.executor.Executor`), handing each finished
  row to ``done`` at once (in this process) or after its batch of ``workers`` games; a signal or
  an error terminates the workers, and :func:`unwind_on_signals`, called by ``run`` in a
  worker, makes a terminated worker unwind (and so close the engines it started) instead of
  dying on the spot.
"""

from __future__ import annotations

import csv
import io
import multiprocessing
import os
import signal
import sys
from pathlib import Path
from typing import Callable, Mapping, Sequence

from gamelib.play.stats import Record
from gamelib.runtime.atomic import atomic_write_text
from gamelib.runtime.executor import Executor
from gamelib.runtime.interrupt import SIGNALS

__all__ = ["read_rows", "append_row", "rewrite_rows", "record_of", "play_games", "unwind_on_signals"]


def _csv_text(rows: Sequence[Mapping], columns: Sequence[str], header: bool) -> str:
    buf = io.StringIO()
    writer = csv.DictWriter(buf, columns, lineterminator="\n")
    if header:
        writer.writeheader()
    writer.writerows(rows)
    return buf.getvalue()


def read_rows(path, columns: Sequence[str], integers: Sequence[str] = ("game",)) -> list[dict]:
    """The rows of a games file by game (a last line cut short by a kill is dropped; the columns
    ``integers`` as ints; ``[]`` if there is no file)."""
    path = Path(path)
    if not path.exists():
        return []
    text = path.read_text(encoding="utf-8")
    if text and not text.endswith("\n"):
        text = text[: text.rfind("\n") + 1]
    reader = csv.DictReader(io.StringIO(text))
    if text and tuple(reader.fieldnames or ()) != tuple(columns):
        raise ValueError(f"{path}: expected the columns {', '.join(columns)}, got {reader.fieldnames}")
    rows = {}
    for row in reader:
        for key in integers:
            row[key] = int(row[key])
        rows[row["game"]] = row
    return [rows[k] for k in sorted(rows)]


def append_row(path, columns: Sequence[str], row: Mapping) -> None:
    """Append one row (with the header if the file is new) and sync it to disk."""
    with open(path, "a", encoding="utf-8") as f:
        f.write(_csv_text([row], columns, header=f.tell() == 0))
        f.flush()
        os.fsync(f.fileno())


def rewrite_rows(path, columns: Sequence[str], rows: Mapping[int, Mapping]) -> None:
    """Make ``path`` hold ``rows`` in game order (untouched if it does already)."""
    path = Path(path)
    text = _csv_text([rows[k] for k in sorted(rows)], columns, header=True)
    if not path.exists() or path.read_text(encoding="utf-8") != text:
        atomic_write_text(path, text)


def record_of(rows: Sequence[Mapping], player: str, sides: Sequence[str]) -> Record:
    """``player``'s wins, draws and losses over rows whose columns ``sides`` (e.g. ``black``,
    ``white``) name the players and whose ``result`` is the winning side's column or ``draw``."""
    w = d = l = 0
    for row in rows:
        if player not in (row[side] for side in sides):
            continue
        if row["result"] == "draw":
            d += 1
        elif row[row["result"]] == player:
            w += 1
        else:
            l += 1
    return Record(w, d, l)


def unwind_on_signals() -> None:
    """In a worker process, SIGTERM and SIGHUP raise ``SystemExit`` (so ``finally`` blocks close
    the engines); nothing in the main process, whose signals the command line handles."""
    if multiprocessing.parent_process() is not None:
        for sig in SIGNALS:
            signal.signal(sig, lambda *_: sys.exit(1))


def play_games(run: Callable, tasks: Sequence, workers: int, done: Callable[[dict], None]) -> None:
    """``done(run(task))`` for every task: in this process (``workers == 1``) or in batches of
    ``workers`` games on as many worker processes (``run`` a module-level function)."""
    if workers == 1:
        for task in tasks:
            done(run(task))
        return
    with Executor(workers) as executor:
        for start in range(0, len(tasks), workers):
            for row in executor.map(run, tasks[start:start + workers], chunksize=1):
                done(row)
