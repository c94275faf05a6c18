"""Othello's players as players of the game protocol (:mod:`gamelib.play.games`).

The baselines and the value chapter's players are :class:`~gamelib.play.games.BestMovePlayer`
s -- a move of the best value at a fixed depth, ties drawn at random -- with one of Othello's
evaluations (:mod:`gamelib.games.othello.game`):

* :func:`greedy_player` -- the most discs after the move: depth 1 over the square weights all 1,
  spread over the linear evaluation's edge and line tables
  (:func:`gamelib.games.othello.features.initial_theta`), i.e. the disc difference / 64;
* :func:`positional_player` -- the classic square weights
  (:data:`gamelib.games.othello.features.CLASSIC_WEIGHTS`) the same way,
  at ``depth`` plies;
* :func:`mlp_player` -- the value network (``EVAL_MLP``), in the records' orientation;
* :func:`table_player` -- the value table (``EVAL_TABLE``) where it has the position, else the
  fallback network or an even 0, in the records' orientation; :class:`RunTablePlayer` is the
  table of a finished othello_value run folder, built once in each process that plays it (a
  packed table is hundreds of MB, too much to send to every worker): :func:`run_table` rebuilds
  a run's training table from WTHOR, as the chapter's matches and the GRhino ladder use it;
  :class:`TrainingTablePlayer` is the same for a split given by its numbers (the registered
  study's matches, :mod:`gamelib.experiments.othello_value`, whose run is not finished yet).

A game that ends scores as the search's game end (a win outranks every evaluation), the same
for every won line; the evaluations above never reach it.

**Orientation** (:class:`OrientedPlayer`). The value table and the network are learned from WTHOR
records, every one of which is stored with the first move f5 (:mod:`gamelib.games.othello.symmetry`).
A game that starts with c4, d3 or e6 is the image of an f5 game under one of the start
position's symmetries ``S`` (:func:`gamelib.games.othello.symmetry.symmetry_to_f5`), and the records
know its positions only as ``S(s)``. An oriented player searches ``S(s)`` instead of ``s`` and
plays ``S⁻¹ = S`` of the move it finds there: every leaf is looked up in the data's
orientation, and a game from c4 is played exactly as its mirror image from f5. ``S`` comes from
the game's first move, read from the state's history (:func:`gamelib.games.othello.game.first_move`);
it is the identity before the first move (every symmetry keeps the start position) and in a
state whose history does not reach the start. It is not guessed from the position, because the
position alone does not tell the first move once c4, d3, e6 and f5 are all taken.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from gamelib.games.othello import game as rules
from gamelib.games.othello.features import CLASSIC_WEIGHTS, initial_theta
from gamelib.games.protocol import EVAL_LINEAR
from gamelib.games.othello.mlp import MLP
from gamelib.games.othello.symmetry import IDENTITY, symmetry_to_f5, transform, transform_square
from gamelib.games.othello.value_table import ValueTable
from gamelib.play.games import BestMovePlayer, Player
from gamelib.runtime.atomic import read_json
from gamelib.runtime.checks import check_integer

__all__ = ["OrientedPlayer", "RunTablePlayer", "TrainingTablePlayer", "records_symmetry",
           "greedy_player", "positional_player", "mlp_player", "table_player", "run_parameters",
           "run_table", "run_table_theta", "training_table_theta"]


def records_symmetry(s: np.ndarray) -> int:
    """The symmetry that turns the game of state ``s`` into the records' orientation (its first
    move to f5), the identity when the state does not tell the first move (module doc)."""
    first = rules.first_move(s)
    return IDENTITY if first is None else symmetry_to_f5(first)


@dataclass(frozen=True, eq=False)
class OrientedPlayer(Player):
    """``player`` searching the position in the records' orientation (module doc): the state
    it is given is the current position turned by ``S`` (same side to move and game ply, no
    history), its move is turned back by ``S``."""

    player: Player

    def __post_init__(self):
        if not isinstance(self.player, Player):
            raise ValueError(f"OrientedPlayer needs a gamelib.play.games Player, got "
                             f"{type(self.player).__name__}")

    def choose(self, game, s, rng, max_plies):
        sym = records_symmetry(s)
        if sym == IDENTITY:
            return self.player.choose(game, s, rng, max_plies)
        black, white, black_to_move = rules.position(s)
        turned = rules.new_state(int(transform(sym, np.uint64(black))),
                                 int(transform(sym, np.uint64(white))), black_to_move,
                                 int(rules.game_ply(s)))
        m = int(self.player.choose(game, turned, rng, max_plies))
        return m if m == rules.PASS else transform_square(sym, m)


def _squares(weights) -> np.ndarray:
    return initial_theta(np.asarray(weights, dtype=np.float64))


def greedy_player() -> BestMovePlayer:
    """The move that leaves the most discs (depth 1, ties at random)."""
    return BestMovePlayer(_squares(np.ones(64)), EVAL_LINEAR, depth=1)


def positional_player(depth: int = 2, weights=CLASSIC_WEIGHTS) -> BestMovePlayer:
    """αβ to ``depth`` plies over square weights (the classic ones by default)."""
    return BestMovePlayer(_squares(weights), EVAL_LINEAR, depth=check_integer("depth", depth, 1))


def mlp_player(mlp: MLP, depth: int = 2, orient: bool = True) -> Player:
    """αβ to ``depth`` plies over the value network, in the records' orientation unless
    ``orient=False``."""
    player = BestMovePlayer(rules.pack_mlp(mlp), rules.EVAL_MLP, depth=check_integer("depth", depth, 1))
    return OrientedPlayer(player) if orient else player


def table_player(table: ValueTable, depth: int = 2, fallback: MLP | None = None,
                 orient: bool = True) -> Player:
    """αβ to ``depth`` plies over the value table, ``fallback`` (or an even 0) where it has no
    entry, in the records' orientation unless ``orient=False``."""
    player = BestMovePlayer(rules.pack_table(table, fallback), rules.EVAL_TABLE,
                            depth=check_integer("depth", depth, 1))
    return OrientedPlayer(player) if orient else player


def run_parameters(folder: Path) -> dict:
    """The parameters in the ``provenance.json`` of the finished othello_value run ``folder``:
    a run of the registered experiment (:mod:`gamelib.experiments.othello_value`: its sizes and
    seed) or the chapter's committed run, made before it (its ``parameters``); ``ValueError``
    for a folder that is not one."""
    folder = Path(folder)
    prov = folder / "provenance.json"
    net = folder / "mlp.npz"
    for path in (prov, net):
        if not path.is_file():
            raise ValueError(f"{folder} is not a finished othello_value run: no {path.name}")
    stored = read_json(prov)
    params = stored.get("parameters") or {**stored.get("sizes", {}), "seed": stored.get("seed")}
    need = {"first_year", "last_year", "val_fraction", "seed", "depth", "n_pairs",
            "opening_plies"}
    if need - set(params):
        raise ValueError(f"{prov} lacks the parameters {sorted(need - set(params))}")
    return params


def run_table(folder) -> tuple:
    """``(table, mlp)`` of the finished othello_value run ``folder``: the value table of its
    training games (:func:`gamelib.games.othello.value_table.build_tables` of the WTHOR years, held-out
    share and seed in its ``provenance.json``, its ``train`` table, draws left out), the table of
    the chapter's matches, and the trained network ``mlp.npz``. The WTHOR records are looked for
    by :func:`gamelib.games.othello.wthor.find_wthor_dir` (``FileNotFoundError`` naming where) and must
    be the files the run read, where its provenance records their sha256; ``ValueError`` for a
    folder that is not a finished run or other records."""
    from gamelib.games.othello import wthor
    from gamelib.games.othello.value_table import build_tables, load_years

    folder = Path(folder)
    params = run_parameters(folder)
    mlp = MLP.load(folder / "mlp.npz")
    records_dir = wthor.find_wthor_dir()
    records = load_years(params["first_year"], params["last_year"], records_dir)
    recorded = read_json(folder / "provenance.json").get("wthor_sha256") or {}
    found = wthor.years_sha256(records_dir, params["first_year"], params["last_year"])
    for name, sha in found.items():
        if recorded.get(name, sha) != sha:
            raise ValueError(f"{records_dir / name} is not the WTHOR file the run {folder} read (its "
                             "sha256 differs from the one in its provenance.json)")
    return build_tables(records, params["val_fraction"], params["seed"]).train, mlp


@functools.lru_cache(maxsize=2)
def run_table_theta(folder: str, fallback: bool) -> np.ndarray:
    """The value table of the othello_value run ``folder``
    (:func:`run_table`), with its network as the fallback if
    ``fallback``, packed by :func:`gamelib.games.othello.game.pack_table`: built once per process
    (``ValueError`` for a folder that is not a finished run, :func:`run_parameters`)."""
    table, mlp = run_table(folder)
    return rules.pack_table(table, mlp if fallback else None)


@functools.lru_cache(maxsize=4)
def _run_table_player(folder: str, fallback: bool, depth: int) -> BestMovePlayer:
    return BestMovePlayer(run_table_theta(folder, fallback), rules.EVAL_TABLE, depth=depth)


@dataclass(frozen=True, eq=False)
class RunTablePlayer(Player):
    """:func:`table_player` of the value table of the finished othello_value run ``folder``
    (with its network as the fallback if ``fallback``), oriented; the table is built in each
    process the first time it moves there, so the player travels to a worker as its folder."""

    folder: str
    depth: int = 2
    fallback: bool = False

    def __post_init__(self):
        object.__setattr__(self, "folder", str(Path(self.folder).resolve()))
        object.__setattr__(self, "depth", check_integer("depth", self.depth, 1))
        if not isinstance(self.fallback, bool):
            raise ValueError(f"fallback must be True or False, got {self.fallback!r}")

    def choose(self, game, s, rng, max_plies):
        inner = _run_table_player(self.folder, self.fallback, self.depth)
        return OrientedPlayer(inner).choose(game, s, rng, max_plies)


@functools.lru_cache(maxsize=2)
def training_table_theta(first_year: int, last_year: int, val_fraction: float, seed: int,
                         records_dir: str) -> np.ndarray:
    """The value table of the training games of the WTHOR years ``first_year .. last_year`` in
    ``records_dir``, split by game with the held-out share ``val_fraction`` and ``seed``
    (:func:`gamelib.games.othello.value_table.build_tables`, draws left out), packed without a
    fallback (:func:`gamelib.games.othello.game.pack_table`): built once per process."""
    from gamelib.games.othello.value_table import build_tables, load_years

    records = load_years(first_year, last_year, records_dir)
    return rules.pack_table(build_tables(records, val_fraction, seed).train, None)


@functools.lru_cache(maxsize=4)
def _training_table_player(spec: tuple, depth: int) -> BestMovePlayer:
    return BestMovePlayer(training_table_theta(*spec), rules.EVAL_TABLE, depth=depth)


@dataclass(frozen=True, eq=False)
class TrainingTablePlayer(Player):
    """:func:`table_player` (no fallback, oriented) of the training table of the split
    (``first_year``, ``last_year``, ``val_fraction``, ``seed``) of the WTHOR files in
    ``records_dir`` (default: :func:`gamelib.games.othello.wthor.find_wthor_dir`'s): the table
    is built in each process the first time it moves there, so the player travels to a worker
    as these numbers (:func:`training_table_theta`)."""

    first_year: int
    last_year: int
    val_fraction: float
    seed: int
    depth: int = 2
    records_dir: str | None = None

    def __post_init__(self):
        from gamelib.games.othello import wthor

        for name in ("first_year", "last_year", "depth"):
            object.__setattr__(self, name, check_integer(name, getattr(self, name), 1))
        object.__setattr__(self, "seed", check_integer("seed", self.seed, 0))
        folder = wthor.find_wthor_dir() if self.records_dir is None else Path(self.records_dir)
        object.__setattr__(self, "records_dir", str(Path(folder).resolve()))

    def choose(self, game, s, rng, max_plies):
        spec = (self.first_year, self.last_year, float(self.val_fraction), self.seed,
                self.records_dir)
        return OrientedPlayer(_training_table_player(spec, self.depth)).choose(game, s, rng,
                                                                              max_plies)
