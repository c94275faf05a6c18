"""The game-neutral machinery of a resumable match between two players, written once for every
game (:mod:`gamelib.play.engine_match` for 5×5 shogi, :mod:`gamelib.play.othello_match` for
Othello): its files, its games in worker processes, its stopping rule.

* :func:`run_match` -- plays (or resumes) the games of a match in ``DIR``: ``match.json`` (the
  settings; a rerun with others is refused) and ``games.csv`` (one line per finished game, a
  column ``game`` with its index). Everything is checked, and the players started once, before
  anything is written; lines are appended and synced as games finish, a last line cut short by
  a kill is dropped when the file is read, and at the end the file is rewritten in game order.
  With a :class:`gamelib.play.match_stats.Sprt`, the match stops when the sequential test
  decides, judged on the games in index order (so the stopping game depends neither on the
  workers nor on interruptions);
* :func:`read_rows`, :func:`append_row`, :func:`rewrite_rows` -- that CSV file;
* :func:`record_of` -- a player's wins, draws and losses over such rows;
* :func:`add_match_arguments`, :func:`main`, :func:`record_formats`, :func:`print_game_ends`
  -- the parts of a match's command line that do not depend on the game;
* the games run in this process or on ``workers`` worker processes, at most twice as many
  queued; a signal or an error terminates the workers, which unwind (and so close the engines
  they started, within :data:`ENGINE_GRACE` seconds) instead of dying on the spot.
"""

from __future__ import annotations

import argparse
import concurrent.futures as cf
import csv
import io
import os
import signal
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

from tqdm import tqdm

from gamelib.play.match_stats import Sprt, summary_line
from gamelib.play.stats import Record
from gamelib.runtime import cli
from gamelib.runtime.atomic import atomic_write_json, atomic_write_text, read_json
from gamelib.runtime.checks import check_number
from gamelib.runtime.executor import process_context, terminate_pool
from gamelib.runtime.interrupt import SIGNALS
from gamelib.runtime.paths import check_output_folder

__all__ = ["MatchResult", "run_match", "read_rows", "append_row", "rewrite_rows", "record_of",
           "add_match_arguments", "main", "record_formats", "print_game_ends", "MAX_TIMEOUT",
           "check_timeouts",
           "ENGINE_GRACE"]

#: The longest timeout accepted (seconds): a day per move or handshake.
MAX_TIMEOUT = 86_400.0
#: Seconds a terminated worker gets to end its engines (each has a second to quit, then is
#: terminated) before it is killed.
ENGINE_GRACE = 5.0


@dataclass
class MatchResult:
    """A finished (or SPRT-stopped) match.

    Attributes
    ----------
    first, second : str
        The players' names.
    rows : list of dict
        The counted games (``games.csv`` lines, in game order).
    record : Record
        FIRST's wins, draws and losses over ``rows``.
    llr : float or None
        The SPRT's log-likelihood ratio after ``rows`` (None without SPRT).
    decision : str or None
        ``"H1"``/``"H0"`` if the SPRT stopped the match.
    """

    first: str
    second: str
    rows: list
    record: Record
    llr: float | None = None
    decision: str | None = None

    def summary(self) -> str:
        text = f"{self.first} vs {self.second}: {summary_line(self.record)}"
        if self.llr is not None:
            text += f", LLR {self.llr:+.2f}" + (f" -> {self.decision}" if self.decision else "")
        return text


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


def check_timeouts(start_timeout, move_timeout) -> None:
    """A match's ``start_timeout`` and ``move_timeout``: seconds in (0, :data:`MAX_TIMEOUT`]
    (``ValueError`` naming the one that is not)."""
    for name, v in (("start_timeout", start_timeout), ("move_timeout", move_timeout)):
        check_number(name, v, 0, MAX_TIMEOUT, low_open=True)


def run_match(first, second, games: int, out, *, identity: Mapping, make_task: Callable[[int], Any],
              run: Callable[[Any], dict], columns: Sequence[str], sides: Sequence[str],
              integers: Sequence[str] = ("game",), workers: int = 1, progress: bool = True,
              sprt: Sprt | None = None, start_timeout: float = 60.0) -> MatchResult:
    """Play (or resume) games ``0 .. games - 1`` between ``first`` and ``second``; see the module
    docstring.

    Parameters
    ----------
    first, second
        The players: a ``name`` and ``check_starts(start_timeout)`` (``ValueError`` if the
        player cannot start).
    games : int
        Games of the match (checked by the caller).
    out : str, Path or None
        The match folder; None: nothing is written and nothing can be resumed.
    identity : mapping
        The settings stored in ``match.json`` (JSON values).
    make_task : callable
        ``make_task(i)`` -- game ``i``'s task (``ValueError`` for a game that cannot be played,
        before anything is written).
    run : callable
        ``run(task) -> row`` (a module-level function: it runs in worker processes), the row's
        columns ``columns``.
    sides : sequence of str
        The columns naming the players (e.g. ``("black", "white")``) for :func:`record_of`.
    integers : sequence of str
        The columns read back as integers.
    sprt : Sprt, optional
        Stop when it decides (on the games in index order).
    """
    if first.name == second.name:
        raise ValueError(f"the players need different names, both are {first.name!r}")
    rows: dict[int, dict] = {}
    path = meta = None
    if out is not None:
        out = check_output_folder(out, "match folder")
        path, meta = out / "games.csv", out / "match.json"
        if meta.exists():
            if read_json(meta) != identity:
                raise ValueError(f"{out} holds a match with other settings ({meta}); use another folder")
        elif path.exists():
            raise ValueError(f"{path} exists without {meta.name}; use another folder")
        rows = {r["game"]: r for r in read_rows(path, columns, integers)}
    tasks = [make_task(i) for i in range(games) if i not in rows]
    if tasks:  # a player that cannot start is a setup error, not a forfeit of every game
        first.check_starts(start_timeout)
        second.check_starts(start_timeout)
    if out is not None:  # nothing is written before the checks
        out.mkdir(parents=True, exist_ok=True)
        if not meta.exists():
            atomic_write_json(meta, identity)
        if rows:  # without a cut-off last line before appending
            rewrite_rows(path, columns, rows)

    def decided() -> tuple[int, float | None, str | None]:
        """Games counted (a prefix in game order), the LLR there and the decision."""
        if sprt is None:
            return games, None, None
        rec = Record(0)
        for k in range(games):
            if k not in rows:
                return k, sprt.llr(rec), None
            rec = rec + record_of([rows[k]], first.name, sides)
            if sprt.decision(rec):
                return k + 1, sprt.llr(rec), sprt.decision(rec)
        return games, sprt.llr(rec), None

    def counted(n: int) -> list:
        return [rows[k] for k in sorted(rows) if k < n]

    bar = tqdm(total=games, initial=len([k for k in rows if k < games]), disable=not progress,
               desc=f"{first.name} vs {second.name}", unit="game")

    def done(row: dict) -> bool:
        rows[row["game"]] = row
        if path is not None:
            append_row(path, columns, row)
        n, llr, decision = decided()
        rec = record_of(counted(n), first.name, sides)
        post = {"W-D-L": f"{rec.wins}-{rec.draws}-{rec.losses}"}
        if llr is not None:
            post["LLR"] = f"{llr:+.2f}"
        bar.set_postfix(post, refresh=False)
        bar.update(1)
        return decision is not None

    try:
        if decided()[2] is None and tasks:
            if workers == 1:
                for task in tasks:
                    if done(run(task)):
                        break
            else:
                _run_parallel(run, tasks, workers, done)
    finally:
        bar.close()
    n, llr, decision = decided()
    if path is not None:
        rewrite_rows(path, columns, rows)
    rows_counted = counted(n)
    return MatchResult(first.name, second.name, rows_counted,
                       record_of(rows_counted, first.name, sides), llr, decision)


def _worker_init() -> None:
    # a terminated worker (or one whose terminal hangs up) unwinds, and so closes its engines,
    # instead of dying on the spot; Ctrl-C is the main process's to handle
    for sig in SIGNALS:
        signal.signal(sig, lambda *_: sys.exit(1))
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _run_parallel(run: Callable, tasks: list, workers: int, done) -> None:
    """``run`` the ``tasks`` on ``workers`` processes, at most ``2 * workers`` queued, until
    ``done(row)`` says stop (the games already running are finished and counted)."""
    pool = cf.ProcessPoolExecutor(workers, mp_context=process_context(),
                                  initializer=_worker_init)
    pending: set = set()
    todo = iter(tasks)
    try:
        stop = False
        while True:
            while not stop and len(pending) < 2 * workers:
                task = next(todo, None)
                if task is None:
                    break
                pending.add(pool.submit(run, task))
            if not pending:
                break
            finished, pending = cf.wait(pending, return_when=cf.FIRST_COMPLETED)
            for fut in sorted(finished, key=lambda f: f.result()["game"]):
                stop = done(fut.result()) or stop
            if stop:
                for fut in pending:
                    fut.cancel()
                for fut in cf.as_completed(pending):
                    if not fut.cancelled():
                        done(fut.result())
                break
    except BaseException:  # a signal, Ctrl-C or a failure: the workers unwind and end their engines
        terminate_pool(pool, grace=ENGINE_GRACE)
        raise
    pool.shutdown(wait=True)


# ----------------------------------------------------------------------------- command line
def add_match_arguments(p: argparse.ArgumentParser, *, first_side: str, opening_unit: str,
                        formats: Sequence[str], handshake: str) -> None:
    """Add the arguments every match's command line has: ``--games``, ``--name1/2``,
    ``--openings``, ``--seed``, ``--out``, ``--workers``, ``--timeout``, ``--start-timeout``,
    ``--records`` (one of ``formats``) and ``--no-progress``."""
    p.add_argument("--games", type=int, required=True,
                   help=f"number of games (FIRST is {first_side} in even games)")
    p.add_argument("--name1", default="", help="FIRST's name in games.csv (default: its command line)")
    p.add_argument("--name2", default="", help="SECOND's name in games.csv")
    p.add_argument("--openings", type=int, default=4, metavar="K",
                   help=f"random {opening_unit} of each opening (each is played with both colours; "
                        "default 4)")
    p.add_argument("--seed", type=int, default=0, help="run seed of the openings and the players' randomness")
    p.add_argument("--out", help="folder for games.csv (resumable)")
    p.add_argument("--workers", type=int, default=1, help="games played at once (processes)")
    p.add_argument("--timeout", type=float, default=60.0, help="seconds an engine may take per move")
    p.add_argument("--start-timeout", type=float, default=60.0, help=f"seconds for {handshake}")
    p.add_argument("--records", default="", metavar="FORMATS",
                   help=f"also write every game to DIR/records/ (comma-separated: {', '.join(formats)})")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")


def main(parser: argparse.ArgumentParser, run: Callable[[argparse.Namespace], int],
         argv: Sequence[str] | None = None) -> int:
    """A match's command line: ``run(arguments)``; returns the exit code: 2 (one ``error:``
    line) for bad arguments or a player that cannot start, found before any game is played or
    any file written; 128 + the signal number when Ctrl-C, SIGTERM or SIGHUP stops it (the same
    command resumes)."""
    a = parser.parse_args(argv)
    resume = ("rerun the same command to resume (the finished games are kept)" if a.out
              else "nothing was kept (use --out to resume)")
    return cli.run_guarded(lambda: run(a), resume=resume)


def record_formats(a: argparse.Namespace, formats: Sequence[str]) -> list[str]:
    """The record formats of ``--records``, with ``--timeout``, ``--start-timeout`` and the
    folders of ``--out`` checked (``ValueError`` naming the problem)."""
    wanted = [f for f in a.records.split(",") if f]
    if wanted and a.out is None:
        raise ValueError("--records needs --out")
    if sorted(set(wanted) - set(formats)):
        raise ValueError(f"--records: use {', '.join(formats)}, got {a.records!r}")
    for name in ("timeout", "start_timeout"):
        check_number(f"--{name.replace('_', '-')}", getattr(a, name), 0, MAX_TIMEOUT, low_open=True)
    if a.out is not None:
        check_output_folder(a.out, "--out")
        if wanted:
            check_output_folder(Path(a.out) / "records", "--out's records folder")
    return wanted


def print_game_ends(rows: Sequence[Mapping], kind_of: Callable[[str], str]) -> None:
    """Print how many games ended each way (``kind_of(reason)``), the most frequent first."""
    reasons: dict[str, int] = {}
    for row in rows:
        key = kind_of(row["reason"])
        reasons[key] = reasons.get(key, 0) + 1
    print("game ends: " + ", ".join(f"{k} {v}" for k, v in sorted(reasons.items(), key=lambda kv: -kv[1])))
