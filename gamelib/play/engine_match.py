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
  :func:`gamelib.games.minishogi.features.save_theta`), all played by our search
  (:class:`gamelib.play.shogi.SearchPlayer`, quiescence as the reference player's), or
  ``gamelib:random`` (a uniformly random legal move).

Games
-----
Game ``i`` starts from the opening ``i // 2`` -- ``--openings K`` uniformly random plies from the
start position, drawn from ``derive_rng(seed, "opening", i // 2)`` -- with FIRST as sente in even
games and SECOND as sente in odd ones, so every opening is played once with each colour. Every
move is checked against our rules (:class:`gamelib.games.minishogi.Position`); a garbled or illegal
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
(:mod:`gamelib.games.minishogi.records_kif`).
"""

from __future__ import annotations

import argparse
import hashlib
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Mapping, Sequence

import numpy as np

from gamelib.runtime import cli
from gamelib.runtime.checks import check_int, check_seed
from gamelib.runtime.seeds import derive_rng, derive_seed
from gamelib.games.minishogi import Position
from gamelib.games.minishogi import rules as R
from gamelib.games.minishogi.notation import format_usi, parse_usi
from gamelib.games.minishogi.records_kif import ending_of_position
from gamelib.play import match_runner
from gamelib.play.match_runner import MatchResult, read_rows
from gamelib.play.match_stats import Sprt
from gamelib.play.openings import random_opening
from gamelib.play.stats import Record
from gamelib.play.usi_client import EngineError, Limits, UsiEngine, split_command

__all__ = ["PlayerSpec", "parse_player", "GameResult", "play_game", "opening_moves", "MatchResult",
           "run_match", "read_games", "record_of", "export_records", "COLUMNS", "main"]

#: Columns of ``games.csv``.
COLUMNS = ("game", "sente", "gote", "result", "reason", "plies", "moves")
#: The columns that name the players.
SIDES = ("sente", "gote")
#: ``--records`` formats (:mod:`gamelib.games.minishogi.records_kif`).
RECORD_FORMATS = ("kifu", "kif", "csa")
GAMELIB_PREFIX = "gamelib:"
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
        from gamelib.games.minishogi import features as E
        from gamelib.games.minishogi.reference import REFERENCE_QDEPTH
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


def record_of(rows: Sequence[Mapping], player: str) -> Record:
    """``player``'s wins, draws and losses over ``games.csv`` rows."""
    return match_runner.record_of(rows, player, SIDES)


def read_games(path) -> list[dict]:
    """The rows of a ``games.csv`` (a last line cut short by a kill is dropped), by game."""
    return read_rows(path, COLUMNS, ("game", "plies"))


def export_records(rows: Sequence[Mapping], folder, formats: Sequence[str] = ("kifu", "csa")) -> list[Path]:
    """Write each game of ``rows`` as ``folder/game-NNNNN.<format>`` (KIF as ``kifu`` UTF-8 or
    ``kif`` Shift-JIS, ``csa``; :mod:`gamelib.games.minishogi.records_kif`) for shogi GUIs."""
    from gamelib.games.minishogi.records_kif import game_text, save_record

    bad = sorted(set(formats) - set(RECORD_FORMATS))
    if bad:
        raise ValueError(f"unknown record format(s) {bad}: use kifu, kif or csa")
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for row in rows:
        game = game_text(row["moves"].split(), row["reason"], row["result"], row["sente"], row["gote"])
        paths += [save_record(folder / f"game-{int(row['game']):05d}.{fmt}", game) for fmt in formats]
    return paths


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
    match_runner.check_timeouts(start_timeout, move_timeout)
    for player in (first, second):
        if player.limits.byoyomi is not None and player.limits.byoyomi >= 1000 * move_timeout:
            raise ValueError(f"{player.name}: byoyomi {player.limits.byoyomi} ms leaves no time within the "
                             f"move timeout of {move_timeout:g} s")
    if openings >= max_plies:
        raise ValueError(f"openings of {openings} random plies reach the cap of {max_plies} plies: "
                         f"no game would be played")
    identity = {"first": first.identity(), "second": second.identity(), "seed": int(seed), "openings": int(openings),
                "max_plies": int(max_plies), "start_sfen": R.START_SFEN}

    def make_task(i: int) -> _Task:
        sente, gote = (first, second) if i % 2 == 0 else (second, first)
        task = _Task(i, sente, gote, derive_seed(seed, "game", i), opening_moves(seed, i // 2, openings),
                     max_plies, start_timeout, move_timeout)
        _check_opening(task, openings, max_plies)
        return task

    return match_runner.run_match(first, second, games, out, identity=identity, make_task=make_task,
                                  run=_run_task, columns=COLUMNS, sides=SIDES, integers=("game", "plies"),
                                  workers=workers, progress=progress, sprt=sprt, start_timeout=start_timeout)


def _check_opening(task: _Task, plies: int, max_plies: int) -> None:
    """``ValueError`` if the random opening of ``task`` ends the game before either player moves
    (fewer than ``plies`` moves drawn, or a position the rules end)."""
    pos = Position(max_plies=max_plies)
    for m in task.opening:
        pos.push_usi(m)
    if len(task.opening) < plies or pos.outcome() is not None:
        raise ValueError(f"the random opening of game {task.index} ends the game after {pos.ply} plies "
                         f"({ending_of_position(pos)}) before either player moves: use fewer opening plies "
                         f"(--openings {plies}) or another seed")


# ----------------------------------------------------------------------------- command line
def _parser() -> argparse.ArgumentParser:
    p = cli.ArgumentParser(prog="python -m gamelib.play.engine_match",
                           description="Play a match between two USI engines or gamelib players.")
    p.add_argument("first", help="USI command line, gamelib:reference, gamelib:material, gamelib:random or "
                                 "gamelib:theta=PATH")
    p.add_argument("second", help="the opponent, as FIRST")
    p.add_argument("--nodes", type=int, help="nodes per move for both players")
    p.add_argument("--depth", type=int, help="deepest iteration (plies) per move for both players")
    p.add_argument("--byoyomi", type=int, help="milliseconds per move (USI engines only)")
    p.add_argument("--nodes1", type=int, help="nodes per move of FIRST (overrides --nodes)")
    p.add_argument("--nodes2", type=int, help="nodes per move of SECOND (overrides --nodes)")
    p.add_argument("--option", action="append", default=[], metavar="NAME=VALUE", help="setoption for FIRST")
    p.add_argument("--option2", action="append", default=[], metavar="NAME=VALUE", help="setoption for SECOND")
    p.add_argument("--max-plies", type=int, default=R.DEFAULT_MAX_PLIES, help="a game this long is a draw")
    p.add_argument("--sprt", nargs="+", type=float, metavar="X",
                   help="ELO0 ELO1 [ALPHA BETA]: stop when the SPRT decides (default alpha = beta = 0.05)")
    match_runner.add_match_arguments(p, first_side="sente", opening_unit="plies", formats=RECORD_FORMATS,
                                     handshake="usiok / readyok")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    """The command line; returns the exit code: 2 (one ``error:`` line) for bad arguments or a
    player that cannot start, found before any game is played or any file written; 128 + the
    signal number when Ctrl-C, SIGTERM or SIGHUP stops it (the same command resumes)."""
    return match_runner.main(_parser(), _main, argv)


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
    formats = match_runner.record_formats(a, RECORD_FORMATS)
    result = run_match(first, second, a.games, a.out, seed=a.seed, openings=a.openings, max_plies=a.max_plies,
                       workers=a.workers, sprt=sprt, progress=not a.no_progress, start_timeout=a.start_timeout,
                       move_timeout=a.timeout)
    print(result.summary())
    if formats:
        export_records(result.rows, Path(a.out) / "records", formats)
    match_runner.print_game_ends(result.rows, lambda reason: reason.split("'")[0].strip())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
