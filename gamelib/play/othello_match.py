"""Othello matches between GTP engines and gamelib players, judged by our rules.

``python -m gamelib.play.othello_match FIRST SECOND --games N [--level L] [--depth D]
[--nodes N] [--openings K] [--out DIR] [--workers N] [--records transcript,ggf]`` plays ``N`` games between
two players and prints wins-draws-losses, Elo with a 95 % interval and the likelihood of
superiority of FIRST (:mod:`gamelib.play.match_stats`). A player is

* a GTP engine's command line (:mod:`gamelib.play.gtp_client`), e.g. ``gtp-rhino`` (GRhino,
  found in ``/usr/games`` when it is not on the ``PATH``); ``--level``, ``--mid``, ``--end``,
  ``--book`` and ``--rand`` are added to the command line of every GRhino player;
* ``gamelib:random`` (a uniformly random legal move), ``gamelib:greedy`` (the most discs after
  the move) or ``gamelib:positional`` (αβ to ``--depth`` plies over the classic square
  weights), the players of :mod:`gamelib.play.othello_players` (ties drawn at random);
* ``gamelib:linear`` or ``gamelib:linear=FILE``: Othello's linear evaluation (the pattern
  weights of :mod:`gamelib.games.othello.features`; without a file the classic square weights,
  with one the parameters saved by :func:`gamelib.games.othello.game.save_theta`, e.g. a learner's)
  searched by the game-neutral search of :class:`gamelib.play.games.SearchPlayer` under
  ``--nodes`` nodes a move (default 5,000) -- the search every learned evaluation of the book
  plays with;
* ``gamelib:mlp=FILE``: the Othello value-network paper's network saved by
  :meth:`gamelib.games.othello.mlp.MLP.save` (e.g. ``data/results/paper/othello_value/mlp.npz``),
  Othello's evaluation kind :data:`gamelib.games.othello.game.EVAL_MLP` (:math:`2 v - 1` for the
  side to move, :math:`v` its win probability by the network) searched by the same
  :class:`~gamelib.play.games.SearchPlayer` under ``--nodes``. It plays in the f5 orientation,
  as the network was trained: every WTHOR record it learned from is stored with the first move
  f5 (:mod:`gamelib.games.othello.symmetry`), so in a game that began with c4, d3 or e6 the player
  searches the position turned by the start position's symmetry that takes the first move to f5
  (:func:`~gamelib.games.othello.symmetry.symmetry_to_f5`) and plays the image of the move it finds
  there under the same symmetry (its own inverse) -- it plays a game from d3 exactly as the
  mirror-image game from f5 (:class:`gamelib.play.othello_players.OrientedPlayer`). Before the
  first move (the start position is kept by all four of those symmetries) and in a game that
  did not start from the standard position it searches the position as it stands. The linear
  players are not turned: their pattern weights are symmetric by construction;
* ``gamelib:table=FOLDER``: the same paper's value table, Othello's evaluation kind
  :data:`gamelib.games.othello.game.EVAL_TABLE` (Black's win rate in the records where the table has
  the position, else the network), for the finished run FOLDER of the value chapter (e.g.
  ``data/results/paper/othello_value``): the table of its training games rebuilt from the WTHOR
  records with the years, held-out share and seed it records, and its network ``mlp.npz`` as
  the fallback (:func:`gamelib.play.othello_players.run_table`; the records are looked
  for by :func:`gamelib.games.othello.wthor.find_wthor_dir`, ``$GAMELIB_WTHOR_DIR`` first). It is
  searched and oriented as ``gamelib:mlp``.

A parameter file is read once per player. The table is built once per process (about 15 s and
1.4 GB at its peak for the value chapter's 4.5 million positions, 315 MB packed) and is not
sent to the match's worker processes: each builds it again.

Games
-----
Game ``i`` starts from the opening ``i // 2`` -- ``--openings K`` uniformly random moves from the
start position, drawn from ``derive_rng(seed, "opening", i // 2)`` -- with FIRST as black in
even games and SECOND as black in odd ones, so every opening is played once with each colour.
Every move is checked against our rules (:class:`gamelib.games.othello.Board`). A side with no legal
move must pass: a GTP engine is asked (``genmove``) and must answer ``pass``; a gamelib player
passes. The game ends when neither side can move, and the side with more discs wins (the
score, black minus white with the empty squares to the winner, is recorded). A garbled or
illegal move, a pass with a legal move, a move when the side must pass, ``resign``, an engine
that does not start, refuses one of our moves, dies or does not answer within its timeout lose
the game, and the reason is recorded. Each game starts its own engine processes and ends them.

Files and resumption
--------------------
``DIR/games.csv`` has one line per game: ``game, black, white, result`` (``black``, ``white``
or ``draw``), ``reason``, ``score`` (empty for a forfeit) and ``moves`` (the transcript
``f5d6c3...`` from the start position, the opening included, passes left out). A rerun with
the same settings skips the finished games (``DIR/match.json`` holds the settings; a rerun with
others is refused); the results depend on neither ``--workers`` nor interruptions, as far as
the engines play the same moves in the same positions: GRhino does with ``--book 0`` (and its
default ``--rand 0``) after an opening of one move or more, whereas from the start position it
picks its first move among the four symmetric ones at random, and with its opening book
(``--book 1..5``, default 2) among the book's moves. ``--records transcript,ggf`` also
writes every game to ``DIR/records/`` (:mod:`gamelib.games.othello.records`).
"""

from __future__ import annotations

import argparse
import functools
import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping, Sequence

import numpy as np

from gamelib.games import registry
from gamelib.games.othello import game as othello_rules
from gamelib.games.othello.features import initial_theta as classic_theta
from gamelib.games.protocol import EVAL_LINEAR
from gamelib.games.othello import Board
from gamelib.games.othello.board import MAX_GAME_PLIES
from gamelib.games.othello.mlp import MLP
from gamelib.games.othello.records import GgfGame, format_ggf, format_transcript, ggf_result, parse_transcript
from gamelib.play.engine_process import EngineError, split_command
from gamelib.play.games import RandomPlayer, SearchPlayer, random_opening
from gamelib.play.gtp_client import COLOURS, GRHINO, GtpEngine, grhino_path
from gamelib.play import match_runner
from gamelib.play.match_runner import MatchResult, read_rows
from gamelib.play.othello_players import OrientedPlayer, greedy_player, positional_player, run_table_theta
from gamelib.runtime import cli
from gamelib.runtime.atomic import atomic_write_text
from gamelib.runtime.checks import check_int, check_seed
from gamelib.runtime.seeds import derive_rng, derive_seed

__all__ = ["OthelloPlayerSpec", "grhino_options", "OthelloGameResult", "play_game", "opening_moves", "run_match",
           "read_games", "export_records", "COLUMNS", "RECORD_FORMATS", "main"]

#: Columns of ``games.csv``.
COLUMNS = ("game", "black", "white", "result", "reason", "score", "moves")
#: ``--records`` formats and their file suffixes.
RECORD_FORMATS = {"transcript": "txt", "ggf": "ggf"}
GAMELIB_PREFIX = "gamelib:"
_GAMELIB_KINDS = ("random", "greedy", "positional", "linear", "mlp", "table")
#: The players searched by :class:`gamelib.play.games.SearchPlayer`, by their evaluation kinds.
_SEARCHED = {"linear": EVAL_LINEAR, "mlp": othello_rules.EVAL_MLP, "table": othello_rules.EVAL_TABLE}
#: The searched players that play in the WTHOR records' orientation (module doc).
_ORIENTED = (othello_rules.EVAL_MLP, othello_rules.EVAL_TABLE)
#: What ``gamelib:KIND=`` names, for the messages.
_SOURCES = {"linear": "FILE", "mlp": "FILE", "table": "FOLDER"}
#: The node budget of the searched players (``gamelib:linear``, ``mlp``, ``table``) unless given.
DEFAULT_NODES = 5000
#: GRhino's command-line options: allowed values.
GRHINO_OPTIONS = {"level": (1, 5), "mid": (1, 20), "end": (1, 20), "book": (0, 5), "rand": (0, 10)}
#: The columns that name the players.
SIDES = ("black", "white")


# ----------------------------------------------------------------------------- players
def grhino_options(spec: str, **options: int | None) -> str:
    """``spec`` with ``--level N`` etc. appended for the options given (not None), if ``spec``
    runs GRhino (``ValueError`` for a value out of GRhino's range)."""
    given = {k: v for k, v in options.items() if v is not None}
    for key, value in given.items():
        if key not in GRHINO_OPTIONS:
            raise ValueError(f"unknown GRhino option {key!r}: use {', '.join(GRHINO_OPTIONS)}")
        check_int(f"--{key}", value, *GRHINO_OPTIONS[key])
    if not given or spec.startswith(GAMELIB_PREFIX) or Path(split_command(spec)[0]).name != GRHINO:
        return spec
    return " ".join([spec] + [f"--{k} {v}" for k, v in given.items()])


@dataclass(frozen=True)
class OthelloPlayerSpec:
    """A player of an Othello match (the interface of :class:`gamelib.play.engine_match.PlayerSpec`).

    Attributes
    ----------
    spec : str
        A GTP command line, ``gamelib:random|greedy|positional``, ``gamelib:linear[=FILE]``,
        ``gamelib:mlp=FILE`` or ``gamelib:table=FOLDER`` (module doc).
    depth : int
        Search depth (plies) of ``gamelib:positional``.
    name : str
        Label in ``games.csv`` (default: ``spec``).
    nodes : int
        Node budget a move of the searched players (``gamelib:linear``, ``mlp``, ``table``).
    """

    spec: str
    depth: int = 2
    name: str = ""
    nodes: int = DEFAULT_NODES

    def __post_init__(self):
        if not isinstance(self.spec, str) or not self.spec.strip():
            raise ValueError(f"a player must be a GTP command line or gamelib:..., got {self.spec!r}")
        check_int("depth", self.depth, 1, 60)
        check_int("nodes", self.nodes, 1, 10**9)
        if not self.name:
            object.__setattr__(self, "name", self.spec)
        if not self.name.isprintable():
            raise ValueError(f"a player's name must be one line of printable text, got {self.name!r}")
        if self.is_gamelib:
            kind, sep, path = self.spec[len(GAMELIB_PREFIX):].partition("=")
            if kind == "mlp" and not path:
                raise ValueError(f"player {self.spec!r}: gamelib:mlp needs the network's file, "
                                 f"{GAMELIB_PREFIX}mlp=FILE")
            if kind == "table" and not path:
                raise ValueError(f"player {self.spec!r}: gamelib:table needs a finished "
                                 f"othello_value run folder, {GAMELIB_PREFIX}table=FOLDER")
            if kind not in _GAMELIB_KINDS or (sep and (kind not in _SEARCHED or not path)):
                raise ValueError(f"unknown gamelib player {self.spec!r}: use "
                                 + ", ".join(GAMELIB_PREFIX + k for k in _GAMELIB_KINDS[:4])
                                 + ", " + ", ".join(f"{GAMELIB_PREFIX}{k}={v}" for k, v in _SOURCES.items()))
            if kind in _SEARCHED:
                self.theta()                   # a missing or malformed file: refused now
        else:
            split_command(self.spec)

    @property
    def is_gamelib(self) -> bool:
        return self.spec.startswith(GAMELIB_PREFIX)

    @property
    def searched(self) -> int | None:
        """The evaluation kind of a player searched by :class:`~gamelib.play.games.SearchPlayer`
        (``EVAL_LINEAR`` for ``gamelib:linear``, ``EVAL_MLP`` for ``gamelib:mlp``, ``EVAL_TABLE``
        for ``gamelib:table``), else None."""
        if not self.is_gamelib:
            return None
        return _SEARCHED.get(self.spec[len(GAMELIB_PREFIX):].partition("=")[0])

    @property
    def is_linear(self) -> bool:
        return self.searched == EVAL_LINEAR

    def theta(self):
        """The parameters of ``gamelib:linear[=FILE]`` (θ), ``gamelib:mlp=FILE`` (the network
        packed by :func:`gamelib.games.othello.game.pack_mlp`) or ``gamelib:table=FOLDER`` (the table
        and its network packed by :func:`gamelib.games.othello.game.pack_table`), read from the file
        once per spec, the table built once per process (``ValueError`` naming a missing or bad
        file or folder, or one of another player's kind)."""
        return self._parameters

    @functools.cached_property
    def _parameters(self):
        path = self.spec[len(GAMELIB_PREFIX):].partition("=")[2]
        if self.searched == EVAL_LINEAR and not path:
            return classic_theta()
        try:
            return _load_parameters(self.searched, path)
        except FileNotFoundError as err:
            if self.searched == othello_rules.EVAL_TABLE:   # the WTHOR records
                raise ValueError(f"player {self.name!r}: {err}") from None
            raise ValueError(f"player {self.name!r}: no parameter file {path}") from None
        except OSError as err:
            raise ValueError(f"player {self.name!r}: cannot read {path}: {err.strerror or err}") from None
        except ValueError as err:
            raise ValueError(f"player {self.name!r}: {err}{_other_kind_hint(self.searched, path)}") from None

    def command(self) -> list[str]:
        """The engine's argument list (``gtp-rhino`` resolved by :func:`grhino_path`)."""
        args = split_command(self.spec)
        if args[0] == GRHINO:
            args[0] = grhino_path() or GRHINO
        return args

    def identity(self) -> dict:
        """What makes the player's games what they are (for the resumption check): for the
        searched players also the node budget and the sha256 of the parameters (θ, the packed
        network, or the packed table and network)."""
        out = {"spec": self.spec, "name": self.name, "depth": int(self.depth)}
        if self.searched is not None:
            out["nodes"] = int(self.nodes)
            out["theta_sha256"] = hashlib.sha256(self.theta().tobytes()).hexdigest()
        return out

    def check_starts(self, start_timeout: float) -> None:
        """Start a GTP engine once and end it: ``ValueError`` naming the player if it cannot be
        started or does not finish its handshake (a setup error, reported before any game)."""
        if self.is_gamelib:
            return
        try:
            GtpEngine(self.command(), start_timeout).start().close()
        except EngineError as err:
            raise ValueError(f"player {self.name!r}: the engine {err}") from None

    def make_side(self, start_timeout: float, move_timeout: float):
        if self.searched is not None:
            return _ProtocolSide(SearchPlayer(self.theta(), self.searched, node_budget=self.nodes, qdepth=0),
                                 orient=self.searched in _ORIENTED)
        if self.is_gamelib:
            kind = self.spec[len(GAMELIB_PREFIX):]
            player = {"random": RandomPlayer, "greedy": greedy_player,
                      "positional": lambda: positional_player(self.depth)}[kind]()
            return _ProtocolSide(player)
        return _GtpSide(GtpEngine(self.command(), start_timeout, move_timeout))

    def __getstate__(self):
        """The spec to send to a worker process: without the packed table (hundreds of MB),
        which the worker builds once for itself (:func:`gamelib.play.othello_players.run_table_theta`)."""
        state = dict(self.__dict__)
        if self.searched == othello_rules.EVAL_TABLE:
            state.pop("_parameters", None)
        return state


def _load_parameters(kind: int, path):
    """The parameters of evaluation kind ``kind`` in the file or folder ``path``: θ
    (:func:`gamelib.games.othello.game.load_theta`), the packed network
    (:meth:`gamelib.games.othello.mlp.MLP.load`, :func:`gamelib.games.othello.game.pack_mlp`) or the packed
    table of a value run (:func:`gamelib.play.othello_players.run_table_theta`)."""
    if kind == othello_rules.EVAL_TABLE:
        if not Path(path).is_dir():
            raise ValueError(f"{path} is not a folder: gamelib:table needs a finished "
                             "othello_value run folder")
        return run_table_theta(str(Path(path).resolve()), True)
    if Path(path).is_dir():
        raise ValueError(f"{path} is a folder, not a parameter file")
    if kind == EVAL_LINEAR:
        return othello_rules.load_theta(path)
    return othello_rules.pack_mlp(MLP.load(path))


def _other_kind_hint(kind: int, path) -> str:
    """``"; it ..."`` if ``path`` holds another searched player's parameters: a file of the other
    parameter file's kind, or a run folder (the table's)."""
    if kind != othello_rules.EVAL_TABLE and Path(path).is_dir():
        return (f"; a finished othello_value run folder is played as "
                f"{GAMELIB_PREFIX}table={path}" if (Path(path) / "mlp.npz").is_file() else "")
    for other in ("linear", "mlp"):
        if _SEARCHED[other] == kind:
            continue
        try:
            _load_parameters(_SEARCHED[other], path)
        except (OSError, ValueError):
            continue
        what = "a value network" if other == "mlp" else "a linear evaluation's parameters"
        return f"; it holds {what}: use {GAMELIB_PREFIX}{other}={path}"
    return ""


class _GtpSide:
    """A GTP engine during one game: the moves it has not seen are sent before each genmove."""

    def __init__(self, engine: GtpEngine):
        self.engine, self.known = engine, 0

    def start(self) -> None:
        self.engine.start()
        self.engine.new_game()

    def move(self, board: Board, rng) -> str:
        moves = board.move_stack  # from the start position, passes included: colours alternate
        for i in range(self.known, len(moves)):
            self.engine.play(SIDES[i % 2], moves[i])
        self.known = len(moves) + 1  # the engine plays its own move on its board
        return self.engine.genmove(COLOURS[board.turn])

    def close(self) -> None:
        self.engine.close()


class _ProtocolSide:
    """A player of :mod:`gamelib.play.games` during one game: the board becomes the game
    protocol's Othello state, its moves replayed from the board's root
    (:func:`protocol_state`), the player's move its square's name; it passes when it must.
    With ``orient`` (the value network and the value table) the player searches in the WTHOR
    records' orientation (:class:`gamelib.play.othello_players.OrientedPlayer`: the game turned
    so that its first move is f5, the move found turned back)."""

    def __init__(self, player, orient: bool = False):
        self.player = OrientedPlayer(player) if orient else player
        self.game = registry.get("othello")

    def start(self) -> None:
        pass

    def move(self, board: Board, rng) -> str:
        if board.must_pass():
            return "pass"
        return othello_rules.move_text(self.player.choose(self.game, protocol_state(board), rng,
                                                          MAX_GAME_PLIES))

    def close(self) -> None:
        pass


def protocol_state(board: Board) -> np.ndarray:
    """The game protocol's Othello state of ``board``: its root position, then every move of its
    move stack (passes included), so that the state's history holds the game
    (:func:`gamelib.games.othello.game.first_move` reads its first move from it)."""
    root = board.copy()
    while root.move_stack:
        root.pop()
    s = othello_rules.new_state(root.black, root.white, root.turn == "X", 0)
    for text in board.move_stack:
        othello_rules.make_move(s, othello_rules.parse_move(s, text))
    return s


# ----------------------------------------------------------------------------- one game
@dataclass(frozen=True)
class OthelloGameResult:
    """``result`` (``"black"``, ``"white"`` or ``"draw"``), ``reason``, the ``moves`` played
    (squares and ``"pass"``) and the ``score`` (black minus white, empty squares to the
    winner) when the rules ended the game (None for a forfeit)."""

    result: str
    reason: str
    moves: tuple
    score: int | None


def opening_moves(seed: int, opening: int, plies: int) -> tuple:
    """``plies`` uniformly random legal moves (square names) from the start position, drawn from
    ``derive_rng(seed, "opening", opening)`` (:func:`gamelib.play.games.random_opening`: each
    move ``rng.integers(n)`` of the ``n`` legal squares in increasing order; shorter if the game
    ends)."""
    game = registry.get("othello")
    moves = random_opening(game, derive_rng(seed, "opening", opening), plies, game.start())
    return tuple(othello_rules.move_text(m) for m in moves)


def _fault(board: Board, text: str) -> str | None:
    """Why ``text`` is not a legal answer of the side to move (None if it is)."""
    if text == "resign":
        return "resigned"
    if text == "pass":
        return None if board.must_pass() else f"passed with legal moves ({', '.join(board.legal_moves)})"
    if len(text) != 2 or text[0] not in "abcdefgh" or text[1] not in "12345678":
        return f"garbled move {text[:40]!r}"
    if board.must_pass():
        return f"played {text!r} but must pass"
    return None if board.is_legal(text) else f"illegal move {text!r}"


def play_game(black: OthelloPlayerSpec, white: OthelloPlayerSpec, *, seed: int, opening: Sequence[str] = (),
              start_timeout: float = 60.0, move_timeout: float = 60.0) -> OthelloGameResult:
    """Play one game from the start position after the ``opening`` moves (passes implied);
    never raises for a misbehaving engine (it loses, with the reason), and ends every process
    it started."""
    board = Board()
    board.play(list(opening))
    sides = []
    rngs = (derive_rng(seed, "player", 0), derive_rng(seed, "player", 1))

    def forfeit(c: int, reason: str) -> OthelloGameResult:
        return OthelloGameResult(SIDES[1 - c], " ".join(f"{SIDES[c]} {reason}".split()),
                                 tuple(board.move_stack), None)

    try:
        for c, spec in enumerate((black, white)):
            sides.append(spec.make_side(start_timeout, move_timeout))
            try:
                sides[c].start()
            except EngineError as err:
                return forfeit(c, f"engine {err}")
        while not board.is_game_over():
            c = 0 if board.turn == "X" else 1
            try:
                text = sides[c].move(board, rngs[c])
            except EngineError as err:
                return forfeit(c, f"engine {err}")
            fault = _fault(board, text)
            if fault is not None:
                return forfeit(c, fault)
            board.push(text)
        score = board.score()
        discs = "-".join(map(str, board.count()))
        return OthelloGameResult("black" if score > 0 else "white" if score < 0 else "draw", f"game over {discs}",
                                 tuple(board.move_stack), score)
    finally:
        for side in sides:
            side.close()


# ----------------------------------------------------------------------------- a match
@dataclass(frozen=True)
class _Task:
    index: int
    black: OthelloPlayerSpec
    white: OthelloPlayerSpec
    seed: int
    opening: tuple
    start_timeout: float
    move_timeout: float


def _run_task(task: _Task) -> dict:
    g = play_game(task.black, task.white, seed=task.seed, opening=task.opening, start_timeout=task.start_timeout,
                  move_timeout=task.move_timeout)
    return {"game": task.index, "black": task.black.name, "white": task.white.name, "result": g.result,
            "reason": g.reason, "score": "" if g.score is None else g.score, "moves": format_transcript(g.moves)}


def read_games(path) -> list[dict]:
    """The rows of an Othello ``games.csv`` (a last line cut short by a kill is dropped), by game."""
    return read_rows(path, COLUMNS)


def run_match(first: OthelloPlayerSpec, second: OthelloPlayerSpec, games: int, out=None, *, seed: int = 0,
              openings: int = 4, workers: int = 1, progress: bool = True, start_timeout: float = 60.0,
              move_timeout: float = 60.0) -> MatchResult:
    """Play (or resume) a match of ``games`` games; see the module docstring.

    ``out`` (a folder) keeps ``games.csv`` and ``match.json``; without it nothing is written
    and nothing can be resumed.
    """
    games = check_int("games", games, 1, 10**9)
    openings = check_int("openings", openings, 0, 59)
    workers = check_int("workers", workers, 1, 1024)
    seed = check_seed(seed)
    match_runner.check_timeouts(start_timeout, move_timeout)
    identity = {"game": "othello", "first": first.identity(), "second": second.identity(), "seed": int(seed),
                "openings": int(openings)}

    def make_task(i: int) -> _Task:
        black, white = (first, second) if i % 2 == 0 else (second, first)
        opening = opening_moves(seed, i // 2, openings)
        if len(opening) < openings:
            raise ValueError(f"the random opening of game {i} ends the game after {len(opening)} moves: "
                             f"use fewer opening moves (--openings {openings})")
        return _Task(i, black, white, derive_seed(seed, "game", i), opening, start_timeout, move_timeout)

    return match_runner.run_match(first, second, games, out, identity=identity, make_task=make_task,
                                  run=_run_task, columns=COLUMNS, sides=SIDES, workers=workers,
                                  progress=progress, start_timeout=start_timeout)


def export_records(rows: Sequence[Mapping], folder, formats: Sequence[str] = tuple(RECORD_FORMATS)) -> list[Path]:
    """Write each game of ``rows`` as ``folder/game-NNNNN.txt`` (the transcript) and/or
    ``.ggf`` (:mod:`gamelib.games.othello.records`; a forfeit is ``RE[+-64.000:t]`` for a time-out,
    ``:r`` otherwise)."""
    bad = sorted(set(formats) - set(RECORD_FORMATS))
    if bad:
        raise ValueError(f"unknown record format(s) {bad}: use {', '.join(RECORD_FORMATS)}")
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for row in rows:
        moves = parse_transcript(row["moves"])
        if row["score"] != "":
            result = ggf_result(int(row["score"]))
        else:
            sign = {"black": 64, "white": -64}[row["result"]]
            result = ggf_result(sign, "t" if "timeout" in row["reason"] else "r")
        texts = {"transcript": format_transcript(moves) + "\n",
                 "ggf": format_ggf(GgfGame(row["black"], row["white"], tuple(moves), result, place="gamelib")) + "\n"}
        for fmt in formats:
            target = folder / f"game-{int(row['game']):05d}.{RECORD_FORMATS[fmt]}"
            atomic_write_text(target, texts[fmt])
            paths.append(target)
    return paths


# ----------------------------------------------------------------------------- command line
def _parser() -> argparse.ArgumentParser:
    p = cli.ArgumentParser(prog="python -m gamelib.play.othello_match",
                           description="Play an Othello match between two GTP engines or gamelib players.")
    p.add_argument("first", help="GTP command line (e.g. gtp-rhino), gamelib:random, gamelib:greedy, "
                                 "gamelib:positional, gamelib:linear[=FILE] (the linear evaluation: "
                                 "classic weights or a saved theta) or gamelib:mlp=FILE (a value "
                                 "network saved by gamelib.games.othello.mlp.MLP, played in the f5 "
                                 "orientation as it was trained: a game that began with c4, d3 "
                                 "or e6 is searched turned so that its first move is f5) or "
                                 "gamelib:table=FOLDER (the value table of a finished othello_value "
                                 "run, rebuilt from WTHOR, with its network where it has no entry; "
                                 "played as gamelib:mlp)")
    p.add_argument("second", help="the opponent, as FIRST")
    for key, (low, high) in GRHINO_OPTIONS.items():
        p.add_argument(f"--{key}", type=int, help=f"GRhino's --{key} ({low}..{high}) for every GRhino player")
    p.add_argument("--depth", type=int, default=2, help="search depth of gamelib:positional (plies; default 2)")
    p.add_argument("--nodes", type=int, default=DEFAULT_NODES,
                   help=f"node budget a move of gamelib:linear, gamelib:mlp and gamelib:table "
                        f"(default {DEFAULT_NODES})")
    match_runner.add_match_arguments(p, first_side="black", opening_unit="moves", formats=tuple(RECORD_FORMATS),
                                     handshake="the engine's handshake")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    """The command line; returns the exit code: 2 (one ``error:`` line) for bad arguments or a
    player that cannot start, found before any game is played or any file written; 128 + the
    signal number when Ctrl-C, SIGTERM or SIGHUP stops it (the same command resumes)."""
    return match_runner.main(_parser(), _main, argv)


def _main(a: argparse.Namespace) -> int:
    options = {key: getattr(a, key) for key in GRHINO_OPTIONS}
    specs = [grhino_options(spec, **options) for spec in (a.first, a.second)]
    if any(v is not None for v in options.values()) and specs == [a.first, a.second]:
        raise ValueError("--level, --mid, --end, --book and --rand are GRhino's options, but neither player "
                         "runs gtp-rhino")
    first = OthelloPlayerSpec(specs[0], a.depth, a.name1, a.nodes)
    second = OthelloPlayerSpec(specs[1], a.depth, a.name2, a.nodes)
    formats = match_runner.record_formats(a, tuple(RECORD_FORMATS))
    result = run_match(first, second, a.games, a.out, seed=a.seed, openings=a.openings, workers=a.workers,
                       progress=not a.no_progress, start_timeout=a.start_timeout, move_timeout=a.timeout)
    print(result.summary())
    if formats:
        export_records(result.rows, Path(a.out) / "records", formats)
    match_runner.print_game_ends(result.rows, _game_end)
    return 0


def _game_end(reason: str) -> str:
    """How a game ended, from its ``reason`` (for the summary line)."""
    key = reason.split("'")[0].split("(")[0].strip()
    return "game over" if key.startswith("game over") else key


if __name__ == "__main__":
    raise SystemExit(main())
