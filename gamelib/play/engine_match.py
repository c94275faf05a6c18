"""Matches between USI engines and gamelib players, judged by our rules.

``python -m gamelib.play.engine_match FIRST SECOND --games N --nodes N [--openings K] [--out DIR]
[--workers N]`` plays ``N`` games between two players and prints wins-draws-losses, Elo with a
95 % interval and the likelihood of superiority of FIRST. A player is

* a USI engine's command line, e.g. ``/usr/games/fairy-stockfish`` or ``"python -m
  gamelib.play.usi"`` (Fairy-Stockfish is put into 5×5 shogi automatically, see
  :mod:`gamelib.play.usi_client`; other options with ``--option NAME=VALUE`` for FIRST and
  ``--option2 NAME=VALUE`` for SECOND);
* ``gamelib:reference`` (the reference opponent's evaluation), ``gamelib:material`` (the paper's
  Table 1 piece values only), ``gamelib:theta=PATH`` (an evaluation ``.npz`` of
  :func:`gamelib.evaluation.shogi.save_theta`), all played by our search
  (:class:`gamelib.play.shogi.SearchPlayer`, quiescence as the reference player's), or
  ``gamelib:random`` (a uniformly random legal move).

Games
-----
Game ``i`` starts from the opening ``i // 2`` -- ``--openings K`` uniformly random plies from the
start position, drawn from ``derive_rng(seed, "opening", i // 2)`` -- with FIRST as sente in even
games and SECOND as sente in odd ones, so every opening is played once with each colour. Every
move is checked against our rules (:class:`gamelib.minishogi.Position`); a garbled or illegal
move (pawn-drop mates included: Fairy-Stockfish scores them as a loss too), ``bestmove resign``,
an engine that does not start, dies or does not answer within its timeout lose the game, and the
reason is recorded. Otherwise the game ends by our rules: no legal move (checkmate or
stalemate) loses; the fourth repetition loses for sente, or for the side that checked
perpetually (both: a draw); a game of ``max_plies`` plies is a draw. Each game starts its own
engine processes (a fresh hash, so the games are reproducible with node limits) and ends them.

Files and resumption
--------------------
``DIR/games.csv`` has one line per game: ``game, sente, gote, result`` (``sente``, ``gote`` or
``draw``), ``reason``, ``plies`` and ``moves`` (USI, from the start position, the opening
included). Lines are appended (and synced) as games finish; a rerun with the same settings skips
the finished games (``DIR/match.json`` holds the settings and a rerun with others is refused),
and at the end the file is rewritten in game order. The results depend on neither ``--workers``
nor interruptions. With ``--sprt ELO0 ELO1 [ALPHA BETA]`` the match stops when the sequential
test decides, judged on the games in index order (so the stopping game does not depend on the
workers either); the log-likelihood ratio is shown as the games come in. ``--records kifu,csa``
also writes every game to ``DIR/records/`` as KIF and CSA for shogi GUIs
(:mod:`gamelib.minishogi.records_kif`).
"""

from __future__ import annotations

import argparse
import concurrent.futures as cf
import csv
import hashlib
import io
import os
import signal
import sys
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Mapping, Sequence

import numpy as np
from tqdm import tqdm

from gamelib.runtime import cli
from gamelib.runtime.atomic import atomic_write_json, atomic_write_text, read_json
from gamelib.runtime.checks import check_int, check_number, check_seed
from gamelib.runtime.executor import process_context, terminate_pool
from gamelib.runtime.interrupt import SIGNALS
from gamelib.runtime.paths import check_output_folder
from gamelib.runtime.seeds import derive_rng, derive_seed
from gamelib.minishogi import Position
from gamelib.minishogi import rules as R
from gamelib.minishogi.notation import format_usi, parse_usi
from gamelib.minishogi.records_kif import ending_of_position
from gamelib.play.match_stats import Sprt, summary_line
from gamelib.play.openings import random_opening
from gamelib.play.stats import Record
from gamelib.play.usi_client import EngineError, Limits, UsiEngine, split_command

__all__ = ["PlayerSpec", "parse_player", "GameResult", "play_game", "opening_moves", "MatchResult",
           "run_match", "read_games", "record_of", "export_records", "COLUMNS", "main"]

#: Columns of ``games.csv``.
COLUMNS = ("game", "sente", "gote", "result", "reason", "plies", "moves")
GAMELIB_PREFIX = "gamelib:"
#: The longest timeout accepted (seconds): a day per move or handshake.
MAX_TIMEOUT = 86_400.0
#: Seconds a terminated worker gets to end its engines (each has a second to quit, then is
#: terminated) before it is killed.
ENGINE_GRACE = 5.0
_GAMELIB_KINDS = ("reference", "material", "random")


# ----------------------------------------------------------------------------- players
@dataclass(frozen=True)
class PlayerSpec:
    """A player of a match: what to run and how long it thinks.

    Attributes
    ----------
    spec : str
        The text given: a USI command line or ``gamelib:...``.
    limits : Limits
        Per-move limits (gamelib players use ``nodes`` as their node budget and ``depth`` as
        their deepest iteration; they have no clock).
    options : tuple of (name, value)
        ``setoption`` pairs for a USI engine.
    name : str
        Label in ``games.csv`` (default: ``spec``).
    """

    spec: str
    limits: Limits
    options: tuple = ()
    name: str = ""

    def __post_init__(self):
        if not isinstance(self.spec, str) or not self.spec.strip():
            raise ValueError(f"a player must be a USI command line or gamelib:..., got {self.spec!r}")
        if not isinstance(self.limits, Limits):
            raise ValueError(f"limits must be a usi_client.Limits, got {self.limits!r}")
        for field, high in (("nodes", 2**63 - 1), ("depth", 2**31 - 1), ("byoyomi", 2**31 - 1)):
            if getattr(self.limits, field) is not None:  # what our search and the engines can count
                check_int(field, getattr(self.limits, field), 1, high)
        object.__setattr__(self, "options", tuple((str(k), str(v)) for k, v in dict(self.options).items()))
        if not self.name:
            object.__setattr__(self, "name", self.spec)
        if not self.name.isprintable():
            raise ValueError(f"a player's name must be one line of printable text (it heads games.csv "
                             f"columns and KIF/CSA records), got {self.name!r}")
        if self.is_gamelib:
            self._gamelib_kind()  # validate early
            if self.options:
                raise ValueError(f"{self.spec}: options are for USI engines, not gamelib players")
            if self.limits.byoyomi is not None or self.limits.nodes is None:
                raise ValueError(f"{self.spec}: gamelib players need a node limit and have no clock (byoyomi)")
        else:
            split_command(self.spec)

    @property
    def is_gamelib(self) -> bool:
        return self.spec.startswith(GAMELIB_PREFIX)

    def _gamelib_kind(self) -> tuple[str, str]:
        rest = self.spec[len(GAMELIB_PREFIX):]
        if rest in _GAMELIB_KINDS:
            return rest, ""
        if rest.startswith("theta="):
            path = rest[len("theta="):]
            if not Path(path).is_file():
                raise ValueError(f"{self.spec}: no evaluation file {path!r}")
            return "theta", path
        raise ValueError(f"unknown gamelib player {self.spec!r}: use gamelib:reference, gamelib:material, "
                         f"gamelib:random or gamelib:theta=PATH")

    def identity(self) -> dict:
        """What makes the player's games what they are (for the resumption check)."""
        out = {"spec": self.spec, "name": self.name, "limits": asdict(self.limits), "options": list(self.options)}
        if self.is_gamelib and self._gamelib_kind()[0] == "theta":
            out["sha256"] = hashlib.sha256(Path(self._gamelib_kind()[1]).read_bytes()).hexdigest()
        return out

    def check_starts(self, start_timeout: float) -> None:
        """Start the player once and end it: ``ValueError`` naming the player if a USI engine
        cannot be started, does not finish its handshake or lacks an option, or if a gamelib
        player's evaluation cannot be loaded (a setup error, reported before any game)."""
        try:
            if self.is_gamelib:
                self._search_player()
            else:
                UsiEngine(self.spec, dict(self.options), start_timeout).start().close()
        except EngineError as err:
            raise ValueError(f"player {self.name!r}: the engine {err}") from None
        except (OSError, KeyError) as err:
            raise ValueError(f"player {self.name!r}: {err}") from None

    def make_side(self, start_timeout: float, move_timeout: float) -> _Side:
        if self.is_gamelib:
            return _GamelibSide(self._search_player())
        return _UsiSide(UsiEngine(self.spec, dict(self.options), start_timeout, move_timeout), self.limits)

    def _search_player(self):
        from gamelib.evaluation import shogi as E
        from gamelib.evaluation.reference import REFERENCE_QDEPTH
        from gamelib.play.shogi import RandomPlayer, SearchPlayer, material_player, reference_player

        kind, path = self._gamelib_kind()
        nodes = self.limits.nodes
        depth = {"max_depth": self.limits.depth} if self.limits.depth is not None else {}
        if kind == "random":
            return RandomPlayer()
        if kind == "reference":
            player = reference_player(nodes)
        elif kind == "material":
            player = material_player(nodes)
        else:
            player = SearchPlayer(E.load_theta(path), E.EVAL_LINEAR, node_budget=nodes, qdepth=REFERENCE_QDEPTH)
        return SearchPlayer(player.theta, player.kind, node_budget=nodes, qdepth=player.qdepth, **depth)


def parse_player(spec: str, limits: Limits, options: Sequence[str] = (), name: str = "") -> PlayerSpec:
    """A :class:`PlayerSpec` from the command line's text and ``NAME=VALUE`` options."""
    pairs = {}
    for text in options:
        key, sep, value = str(text).partition("=")
        if not sep or not key.strip():
            raise ValueError(f"bad --option {text!r}: expected NAME=VALUE")
        pairs[key.strip()] = value
    return PlayerSpec(spec, limits, tuple(pairs.items()), name)


class _Side:
    """A player during one game."""

    def start(self) -> None: ...

    def move(self, start_sfen: str, pos: Position, rng: np.random.Generator, max_plies: int) -> str:
        raise NotImplementedError

    def game_over(self, result: str) -> None: ...

    def close(self) -> None: ...


class _UsiSide(_Side):
    def __init__(self, engine: UsiEngine, limits: Limits):
        self.engine, self.limits = engine, limits

    def start(self):
        self.engine.start()
        self.engine.new_game()

    def move(self, start_sfen, pos, rng, max_plies):
        return self.engine.bestmove(start_sfen, pos.move_stack, self.limits)

    def game_over(self, result):
        self.engine.game_over(result)

    def close(self):
        self.engine.close()


class _GamelibSide(_Side):
    def __init__(self, player):
        self.player = player

    def move(self, start_sfen, pos, rng, max_plies):
        from gamelib.play.shogi import GAME

        return format_usi(self.player.choose(GAME, pos.state, rng, max_plies))


# ----------------------------------------------------------------------------- one game
@dataclass(frozen=True)
class GameResult:
    """``result`` (``"sente"``, ``"gote"`` or ``"draw"``), ``reason`` and the USI ``moves``."""

    result: str
    reason: str
    moves: tuple


def opening_moves(seed: int, opening: int, plies: int, start_sfen: str = R.START_SFEN) -> tuple:
    """``plies`` uniformly random legal moves (fewer if the game ends) from ``start_sfen``,
    drawn from ``derive_rng(seed, "opening", opening)``
    (:func:`gamelib.play.openings.random_opening`)."""
    return random_opening(derive_rng(seed, "opening", opening), plies, start_sfen=start_sfen)


def _illegal(text: str) -> str:
    try:
        parse_usi(text)
    except ValueError:
        return f"garbled move {text[:40]!r}"
    return f"illegal move {text!r}"


def play_game(sente: PlayerSpec, gote: PlayerSpec, *, seed: int, opening: Sequence[str] = (),
              start_sfen: str = R.START_SFEN, max_plies: int = R.DEFAULT_MAX_PLIES, start_timeout: float = 60.0,
              move_timeout: float = 60.0) -> GameResult:
    """Play one game from ``start_sfen`` after the ``opening`` moves; never raises for a
    misbehaving engine (it loses, with the reason), and ends every process it started."""
    pos = Position(start_sfen, max_plies=max_plies)
    for m in opening:
        pos.push_usi(m)
    sides: list[_Side] = []
    names = R.SIDE_NAMES
    rngs = (derive_rng(seed, "player", 0), derive_rng(seed, "player", 1))
    try:
        for c, spec in enumerate((sente, gote)):
            side = spec.make_side(start_timeout, move_timeout)
            sides.append(side)
            try:
                side.start()
            except EngineError as err:
                return _finish(sides, names[1 - c], f"{names[c]} engine {err}", pos)
        while True:
            outcome = pos.outcome()
            if outcome is not None:
                return _finish(sides, outcome, ending_of_position(pos), pos)
            c = R.SIDE_NAMES.index(pos.turn)
            try:
                text = sides[c].move(start_sfen, pos, rngs[c], max_plies)
            except EngineError as err:
                return _finish(sides, names[1 - c], f"{names[c]} engine {err}", pos)
            if text == "resign":
                return _finish(sides, names[1 - c], f"{names[c]} resigned", pos)
            try:
                pos.push_usi(text)
            except ValueError:
                return _finish(sides, names[1 - c], f"{names[c]} {_illegal(text)}", pos)
    finally:
        for side in sides:
            side.close()


def _finish(sides: list[_Side], result: str, reason: str, pos: Position) -> GameResult:
    for c, side in enumerate(sides):
        side.game_over("draw" if result == "draw" else ("win" if result == R.SIDE_NAMES[c] else "lose"))
    return GameResult(result, " ".join(reason.split()), tuple(pos.move_stack))


# ----------------------------------------------------------------------------- a match
@dataclass(frozen=True)
class _Task:
    index: int
    sente: PlayerSpec
    gote: PlayerSpec
    seed: int
    opening: tuple
    max_plies: int
    start_timeout: float
    move_timeout: float


def _run_task(task: _Task) -> dict:
    g = play_game(task.sente, task.gote, seed=task.seed, opening=task.opening, max_plies=task.max_plies,
                  start_timeout=task.start_timeout, move_timeout=task.move_timeout)
    return {"game": task.index, "sente": task.sente.name, "gote": task.gote.name, "result": g.result,
            "reason": g.reason, "plies": len(g.moves), "moves": " ".join(g.moves)}


def _worker_init() -> None:
    # a terminated worker (or one whose terminal hangs up) unwinds, and so closes its engines,
    # instead of dying on the spot
    for sig in SIGNALS:
        signal.signal(sig, lambda *_: sys.exit(1))
    signal.signal(signal.SIGINT, signal.SIG_IGN)


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


def record_of(rows: Sequence[Mapping], player: str) -> Record:
    """``player``'s wins, draws and losses over ``games.csv`` rows."""
    w = d = l = 0
    for row in rows:
        if row["result"] == "draw":
            d += 1
        elif row[row["result"]] == player:
            w += 1
        elif player in (row["sente"], row["gote"]):
            l += 1
    return Record(w, d, l)


def read_games(path) -> list[dict]:
    """The rows of a ``games.csv`` (a last line cut short by a kill is dropped), by game."""
    path = Path(path)
    if not path.exists():
        return []
    text = path.read_text(encoding="utf-8")
    if text and not text.endswith("\n"):
        text = text[: text.rfind("\n") + 1]
    reader = csv.DictReader(io.StringIO(text))
    if text and tuple(reader.fieldnames or ()) != COLUMNS:
        raise ValueError(f"{path}: expected the columns {', '.join(COLUMNS)}, got {reader.fieldnames}")
    rows = {}
    for row in reader:
        row["game"], row["plies"] = int(row["game"]), int(row["plies"])
        rows[row["game"]] = row
    return [rows[k] for k in sorted(rows)]


def export_records(rows: Sequence[Mapping], folder, formats: Sequence[str] = ("kifu", "csa")) -> list[Path]:
    """Write each game of ``rows`` as ``folder/game-NNNNN.<format>`` (KIF as ``kifu`` UTF-8 or
    ``kif`` Shift-JIS, ``csa``; :mod:`gamelib.minishogi.records_kif`) for shogi GUIs."""
    from gamelib.minishogi.records_kif import game_text, save_record

    bad = sorted(set(formats) - {"kifu", "kif", "csa"})
    if bad:
        raise ValueError(f"unknown record format(s) {bad}: use kifu, kif or csa")
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for row in rows:
        game = game_text(row["moves"].split(), row["reason"], row["result"], row["sente"], row["gote"])
        paths += [save_record(folder / f"game-{int(row['game']):05d}.{fmt}", game) for fmt in formats]
    return paths


def _csv_text(rows: Sequence[Mapping], header: bool) -> str:
    buf = io.StringIO()
    writer = csv.DictWriter(buf, COLUMNS, lineterminator="\n")
    if header:
        writer.writeheader()
    writer.writerows(rows)
    return buf.getvalue()


def _rewrite(path: Path, rows: Mapping[int, Mapping]) -> None:
    """Make ``path`` hold ``rows`` in game order (untouched if it does already)."""
    text = _csv_text([rows[k] for k in sorted(rows)], header=True)
    if not path.exists() or path.read_text(encoding="utf-8") != text:
        atomic_write_text(path, text)


def _append(path: Path, row: Mapping) -> None:
    with open(path, "a", encoding="utf-8") as f:
        f.write(_csv_text([row], header=f.tell() == 0))
        f.flush()
        os.fsync(f.fileno())


def run_match(first: PlayerSpec, second: PlayerSpec, games: int, out=None, *, seed: int = 0,
              openings: int = 4, max_plies: int = R.DEFAULT_MAX_PLIES, workers: int = 1,
              sprt: Sprt | None = None, progress: bool = True, start_timeout: float = 60.0,
              move_timeout: float = 60.0) -> MatchResult:
    """Play (or resume) a match of ``games`` games; see the module docstring.

    ``out`` (a folder) keeps ``games.csv`` and ``match.json``; without it nothing is written
    and nothing can be resumed.
    """
    for name, v, low in (("games", games, 1), ("openings", openings, 0), ("max_plies", max_plies, 1),
                         ("workers", workers, 1)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < low:
            raise ValueError(f"{name} must be an integer >= {low}, got {v!r}")
    seed = check_seed(seed)
    for name, v in (("start_timeout", start_timeout), ("move_timeout", move_timeout)):
        check_number(name, v, 0, MAX_TIMEOUT, low_open=True)
    for player in (first, second):
        if player.limits.byoyomi is not None and player.limits.byoyomi >= 1000 * move_timeout:
            raise ValueError(f"{player.name}: byoyomi {player.limits.byoyomi} ms leaves no time within the "
                             f"move timeout of {move_timeout:g} s")
    if openings >= max_plies:
        raise ValueError(f"openings of {openings} random plies reach the cap of {max_plies} plies: "
                         f"no game would be played")
    if first.name == second.name:
        raise ValueError(f"the players need different names, both are {first.name!r}")
    identity = {"first": first.identity(), "second": second.identity(), "seed": int(seed), "openings": int(openings),
                "max_plies": int(max_plies), "start_sfen": R.START_SFEN}
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
        rows = {r["game"]: r for r in read_games(path)}
    tasks = []
    for i in range(games):
        if i in rows:
            continue
        sente, gote = (first, second) if i % 2 == 0 else (second, first)
        tasks.append(_Task(i, sente, gote, derive_seed(seed, "game", i), opening_moves(seed, i // 2, openings),
                           max_plies, start_timeout, move_timeout))
    _check_openings(tasks, openings, max_plies)
    if tasks:  # a player that cannot start is a setup error, not a forfeit of every game
        first.check_starts(start_timeout)
        second.check_starts(start_timeout)
    if out is not None:  # nothing is written before the checks
        out.mkdir(parents=True, exist_ok=True)
        if not meta.exists():
            atomic_write_json(meta, identity)
        if rows:  # without a cut-off last line before appending
            _rewrite(path, rows)

    def decided() -> tuple[int, float | None, str | None]:
        """Games counted (a prefix in game order), the LLR there and the decision."""
        if sprt is None:
            return games, None, None
        rec = Record(0)
        for k in range(games):
            if k not in rows:
                return k, sprt.llr(rec), None
            rec = rec + record_of([rows[k]], first.name)
            if sprt.decision(rec):
                return k + 1, sprt.llr(rec), sprt.decision(rec)
        return games, sprt.llr(rec), None

    bar = tqdm(total=games, initial=len([k for k in rows if k < games]), disable=not progress,
               desc=f"{first.name} vs {second.name}", unit="game")

    def done(row: dict) -> bool:
        rows[row["game"]] = row
        if path is not None:
            _append(path, row)
        n, llr, decision = decided()
        counted = [rows[k] for k in sorted(rows) if k < n]
        rec = record_of(counted, first.name)
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
                    if done(_run_task(task)):
                        break
            else:
                _run_parallel(tasks, workers, done)
    finally:
        bar.close()
    n, llr, decision = decided()
    counted = [rows[k] for k in sorted(rows) if k < n]
    if path is not None:
        _rewrite(path, rows)
    return MatchResult(first.name, second.name, counted, record_of(counted, first.name), llr, decision)


def _check_openings(tasks: Sequence[_Task], plies: int, max_plies: int) -> None:
    """``ValueError`` naming the first game whose random opening ends the game before either
    player moves (fewer than ``plies`` moves drawn, or a position the rules end)."""
    for task in tasks:
        pos = Position(max_plies=max_plies)
        for m in task.opening:
            pos.push_usi(m)
        if len(task.opening) < plies or pos.outcome() is not None:
            raise ValueError(f"the random opening of game {task.index} ends the game after {pos.ply} plies "
                             f"({ending_of_position(pos)}) before either player moves: use fewer opening plies "
                             f"(--openings {plies}) or another seed")


def _run_parallel(tasks: list, workers: int, done) -> None:
    """Run ``tasks`` on ``workers`` processes, at most ``2 * workers`` at a time, until
    ``done(row)`` says stop."""
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
                pending.add(pool.submit(_run_task, task))
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
def _parser() -> argparse.ArgumentParser:
    p = cli.ArgumentParser(prog="python -m gamelib.play.engine_match",
                           description="Play a match between two USI engines or gamelib players.")
    p.add_argument("first", help="USI command line, gamelib:reference, gamelib:material, gamelib:random or "
                                 "gamelib:theta=PATH")
    p.add_argument("second", help="the opponent, as FIRST")
    p.add_argument("--games", type=int, required=True, help="number of games (FIRST is sente in even games)")
    p.add_argument("--nodes", type=int, help="nodes per move for both players")
    p.add_argument("--depth", type=int, help="deepest iteration (plies) per move for both players")
    p.add_argument("--byoyomi", type=int, help="milliseconds per move (USI engines only)")
    p.add_argument("--nodes1", type=int, help="nodes per move of FIRST (overrides --nodes)")
    p.add_argument("--nodes2", type=int, help="nodes per move of SECOND (overrides --nodes)")
    p.add_argument("--option", action="append", default=[], metavar="NAME=VALUE", help="setoption for FIRST")
    p.add_argument("--option2", action="append", default=[], metavar="NAME=VALUE", help="setoption for SECOND")
    p.add_argument("--name1", default="", help="FIRST's name in games.csv (default: its spec)")
    p.add_argument("--name2", default="", help="SECOND's name in games.csv")
    p.add_argument("--openings", type=int, default=4, metavar="K",
                   help="random plies of each opening (each is played with both colours; default 4)")
    p.add_argument("--seed", type=int, default=0, help="run seed of the openings and the players' randomness")
    p.add_argument("--max-plies", type=int, default=R.DEFAULT_MAX_PLIES, help="a game this long is a draw")
    p.add_argument("--out", help="folder for games.csv (resumable)")
    p.add_argument("--workers", type=int, default=1, help="games played at once (processes)")
    p.add_argument("--timeout", type=float, default=60.0, help="seconds an engine may take per move")
    p.add_argument("--start-timeout", type=float, default=60.0, help="seconds for usiok / readyok")
    p.add_argument("--sprt", nargs="+", type=float, metavar="X",
                   help="ELO0 ELO1 [ALPHA BETA]: stop when the SPRT decides (default alpha = beta = 0.05)")
    p.add_argument("--records", default="", metavar="FORMATS",
                   help="also write every game to DIR/records/ in these formats (comma-separated: kifu, kif, csa)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    """The command line; returns the exit code: 2 (one ``error:`` line) for bad arguments or a
    player that cannot start, found before any game is played or any file written; 128 + the
    signal number when Ctrl-C, SIGTERM or SIGHUP stops it (the same command resumes)."""
    a = _parser().parse_args(argv)
    resume = ("rerun the same command to resume (the finished games are kept)" if a.out
              else "nothing was kept (use --out to resume)")
    return cli.run_guarded(lambda: _main(a), resume=resume)


def _main(a: argparse.Namespace) -> int:
    def limits(nodes):
        return Limits(nodes=nodes if nodes is not None else a.nodes, depth=a.depth, byoyomi=a.byoyomi)

    first = parse_player(a.first, limits(a.nodes1), a.option, a.name1)
    second = parse_player(a.second, limits(a.nodes2), a.option2, a.name2)
    sprt = None
    if a.sprt is not None:
        if len(a.sprt) not in (2, 4):
            raise ValueError("--sprt takes ELO0 ELO1 or ELO0 ELO1 ALPHA BETA")
        sprt = Sprt(*a.sprt)
    formats = [f for f in a.records.split(",") if f]
    if formats and a.out is None:
        raise ValueError("--records needs --out")
    if sorted(set(formats) - {"kifu", "kif", "csa"}):
        raise ValueError(f"--records: use kifu, kif or csa, got {a.records!r}")
    for name in ("timeout", "start_timeout"):
        check_number(f"--{name.replace('_', '-')}", getattr(a, name), 0, MAX_TIMEOUT, low_open=True)
    if a.out is not None:
        check_output_folder(a.out, "--out")
        if formats:
            check_output_folder(Path(a.out) / "records", "--out's records folder")
    result = run_match(first, second, a.games, a.out, seed=a.seed, openings=a.openings, max_plies=a.max_plies,
                       workers=a.workers, sprt=sprt, progress=not a.no_progress, start_timeout=a.start_timeout,
                       move_timeout=a.timeout)
    print(result.summary())
    if formats:
        export_records(result.rows, Path(a.out) / "records", formats)
    reasons: dict[str, int] = {}
    for row in result.rows:
        key = row["reason"].split("'")[0].strip()
        reasons[key] = reasons.get(key, 0) + 1
    print("game ends: " + ", ".join(f"{k} {v}" for k, v in sorted(reasons.items(), key=lambda kv: -kv[1])))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
