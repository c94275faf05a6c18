"""The game protocol: the numba kernels and constants through which algorithms see a game.

A game is a module that defines the names below (:data:`KERNELS`, :data:`CONSTANTS` and
:func:`start`); :func:`game_from_module` checks that it does and makes the :class:`Game` the
registry (:mod:`gamelib.games.registry`) keeps. An algorithm is written once, in a module of
plain Python functions marked :func:`gamelib.games.specialize.generic` that call these names
(imported from this module, where they are stubs), and
:func:`gamelib.games.specialize.specialize` compiles it for one game: every call is then a
direct call of the game's own compiled kernel, as if the algorithm had been written for it.

The state
---------
A state is one ``int64`` array holding a position *and its history* (its capacity is fixed
when the state is made): ``make_move`` plays a move in place and records what ``unmake_move``
needs, so that a search works on one array with make/unmake and no other undo buffer. Only the
first ``live_length(s)`` entries describe the state; the rest is room for deeper plies. A move
is a non-negative integer, stored as ``int32`` in move buffers; a game whose rules force a pass
generates the pass as an ordinary move (its code is the constant ``PASS``).

Results are from the view of the side to move: :data:`WIN` = 1, :data:`DRAW` = 0,
:data:`LOSS` = -1, and :data:`ONGOING` = 2 while the game goes on. :data:`EVAL_LINEAR` = 1 is
the kind of ``evaluate_kind`` that is the linear evaluation.

Kernels (all ``@njit``; ``buf`` an ``int32`` buffer, ``start`` the index where a kernel may
write, ``MAX_MOVES`` entries from it):

===================================  =========================================================
``gen_moves(s, buf, start) -> n``    the legal moves into ``buf[start:start + n]``, no move
                                     twice; the pass when the rules force one; 0 when the side
                                     to move has no legal move and no pass
``count_moves(s, buf, start) -> n``  the ``n`` of ``gen_moves`` (bulk counting; ``buf`` is
                                     scratch)
``gen_noisy(s, buf, start) -> n``    the legal moves quiescence searches (captures in shogi; a
                                     game without such moves returns 0)
``make_move(s, m)``                  play legal move ``m`` (as generated for ``s``) in place;
                                     the other side moves next (negamax relies on it)
``unmake_move(s)``                   take back the last move: ``s[:live_length(s)]`` and the
                                     hash exactly as before it
``outcome(s, buf, start) -> r``      :data:`ONGOING`, or the result by the rules (:data:`WIN`,
                                     :data:`DRAW`, :data:`LOSS` for the side to move)
``in_check(s) -> bool``              the side to move may not stand pat in quiescence (in check;
                                     False in a game without checks)
``side_to_move(s) -> int``           0 for the side that moved first in the game, 1 the other
``game_ply(s) -> int``               plies played in the game (a ply cap is the algorithms'
                                     convention, not the rules')
``hash_key(s) -> int``               the position's 64-bit key (board, side to move, ...;
                                     incrementally updated where the game keeps one)
``hash_from_scratch(s) -> int``      the same key computed from the position alone
``live_length(s) -> int``            the number of leading entries of ``s`` that describe it
``evaluate(s, theta) -> float``      the linear evaluation θ·φ(s) from the side to move's view
``features(s, idx, val) -> n``       the sparse φ(s): ``n`` distinct indices into ``idx``
                                     (int32), their non-zero values into ``val`` (float64), in
                                     the game's order; ``evaluate(s, θ) = Σ θ[idx]·val`` up to
                                     rounding
===================================  =========================================================

Kernels for searches (:mod:`gamelib.algorithms.alphabeta`):

======================================  =====================================================
``has_moves(s, buf, start) -> bool``    ``gen_moves`` would return ``n > 0`` (may stop at the
                                        first move found; ``buf[start:]`` is scratch)
``order_key(s, m) -> int``              the move-ordering key of a noisy move (captures by
                                        MVV-LVA, promotions) in ``[2**35, 2**40)`` (above a
                                        search's killer and history keys, below its table
                                        move's), 0 for a quiet move
``is_quiet(m) -> bool``                 a move the killer and history heuristics may learn
                                        (no capture, no promotion; every move of Othello)
``move_code(m) -> int``                 ``m`` among the moves of its position, in
                                        ``[0, 2**16)`` (a transposition table stores it; a
                                        search only matches it against the moves it
                                        generates, so a key collision cannot play an
                                        illegal move)
``move_index(m) -> int``                ``m``'s row of the history table, in
                                        ``[0, MOVE_INDEX_SIZE)`` (moves may share a row)
``plies_made(s) -> int``                the plies made since the state was made (the length
                                        of its history)
``history_key(s, p) -> int``            ``hash_key`` of the position after ``p`` of those
                                        plies (``0 <= p <= plies_made(s)``)
``repetition(s, root_ply) -> r``        :data:`ONGOING`, or the result (side to move's view)
                                        by which a repetition ends the game here; a cycle
                                        whose earlier position was reached at or after ply
                                        ``root_ply`` of the history (inside a search) counts
                                        as the repetition completed; always ONGOING in a
                                        game without repetition rules
``evaluate_kind(s, theta, kind) -> v``  the game's evaluation of kind ``kind``: ``EVAL_LINEAR``
                                        (1) is ``evaluate``; a game may define other kinds
                                        (5×5 shogi: 0, material only; Othello: 2, its value
                                        network) and declares them in ``EVAL_KINDS``
``pack_position(s, gen) -> (a, b, c)``  three ``int64`` words, equal for two states exactly
                                        when their positions (what the evaluation reads) and
                                        the integer ``gen`` (< 2**37) are equal: the key of
                                        an evaluation cache
======================================  =====================================================

Kernels for learners (:mod:`gamelib.algorithms.leaves`: a root move's principal leaf and its
features):

* ``room(s) -> int``: the plies ``make_move`` can still record in ``s`` (its capacity left);
* ``leaf_features(s, idx, val, scratch) -> n``: the entries of ``features`` in any order (each
  index once; the learners' sums over a leaf do not depend on the order); ``scratch`` is an
  ``int32`` array of ``N_FEATURES`` zeros, left so;
* ``evaluate_and_features(s, theta, idx, val, scratch) -> (n, v)``: ``leaf_features`` and
  ``evaluate`` from one scan, ``v`` bit for bit ``evaluate``'s;
* ``prepare_weights(w)``: fill ``w[N_FEATURES:N_WEIGHTS]`` from the parameters
  ``θ = w[:N_FEATURES]``, weights that ``evaluate`` reads faster and to the same value (5×5
  shogi: the pair table; nothing where ``N_WEIGHTS == N_FEATURES``);
* ``bonus_counts(s, out)``: ``out[side]`` = the side's units of the game's shaping bonus at the
  end of the game held in ``s`` (the PGLeaf paper's non-MDP reward: in 5×5 shogi the enclosing
  golds and silvers; 0 for both sides in a game without one).

Constants: ``MAX_MOVES`` (a bound on ``n`` above: the buffer's stride per ply),
``MOVE_INDEX_SIZE`` (the rows of the history table, at most 1,024), ``HAS_REPETITION`` (1 if
the rules end a game by repetition: searches then keep a count of the keys on their path),
``N_FEATURES`` (the length of θ), ``MAX_ACTIVE`` (a bound on the ``n`` of ``features``),
``PASS`` (the pass move's code, -1 in a game without passes) and ``PERFT_END_LEAF`` (what a
position without moves counts at any remaining depth in the game's published perft: 1 in
Othello, where a finished game is a leaf, 0 in shogi, where only move sequences count); for
learners ``N_WEIGHTS`` (the length of the prepared weights), ``HAS_BONUS`` (1 if
``bonus_counts`` can be non-zero), ``TEMPO_INDEX`` (the side-to-move feature, 1 in every
position, or -1) and ``SIDE_HALF`` (``h > 0`` if θ's first ``h`` weights are the side to move's
and the next ``h`` the other side's, the same features, so that tying them gives the
antisymmetric evaluation; 0 otherwise).

Python (:data:`PYTHON`): ``start(capacity) -> s``, the start position with room for ``capacity``
plies; ``with_room(s, plies) -> s2``, a copy of the state (position and history) with room for
``plies`` more; ``move_text(m) -> str``, a move in the game's notation (5×5 shogi: USI; Othello:
the square, ``pass``); ``parse_move(s, text) -> m``, the legal move of ``s`` written ``text``
(``ValueError`` naming a malformed or illegal one); for learners ``initial_theta(seed, scale)``,
the learners' starting parameters (the game's known weights, the others ~ N(0, scale²) from
``seed``), ``check_theta(theta, name="theta")``, ``theta`` as a contiguous ``float64`` vector
of ``N_FEATURES`` finite parameters (``ValueError`` naming what is wrong), and
``save_theta(path, theta)`` / ``load_theta(path)``, parameter files that name the feature layout
(:mod:`gamelib.runtime.parameters`). :func:`prepared_weights` is θ followed by the game's
derived weights, what the searches read.

Evaluation kinds (optional): ``EVAL_KINDS``, a dict ``{kind: EvalKind(name, check)}`` of the
kinds ``evaluate_kind`` has, ``check(theta, name="theta")`` returning the parameter vector that
kind reads (contiguous ``float64``; ``ValueError`` naming what is wrong). It holds
:data:`EVAL_LINEAR` with the game's ``check_theta``; a game without it has the linear kind only
(5×5 shogi: 0 material and 1 linear; Othello: 1 linear and 2 its value network). Every kind is a
value from the side to move's view (negamax); the learners' leaf features are the linear
kind's. :func:`check_kind` refuses a kind the game lacks and :func:`eval_weights` is what a
search of a kind reads (:func:`prepared_weights` for the linear kind).

Reference opponent (optional): ``REFERENCE``, a :class:`Reference` -- the fixed player the
learning studies measure every learner against (5×5 shogi: the stand-in for the PGLeaf paper's
``ssp``, its own weights and 8 quiescence plies; Othello: the classic square weights searched
as the learners search).
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType, SimpleNamespace
from typing import Callable, Mapping

import numpy as np
from numba.core.registry import CPUDispatcher

__all__ = [
    "WIN",
    "DRAW",
    "LOSS",
    "ONGOING",
    "EVAL_LINEAR",
    "EvalKind",
    "Reference",
    "KERNELS",
    "CONSTANTS",
    "ProtocolError",
    "Game",
    "game_from_module",
    "prepared_weights",
    "check_kind",
    "eval_weights",
    "gen_moves",
    "count_moves",
    "gen_noisy",
    "make_move",
    "unmake_move",
    "outcome",
    "in_check",
    "side_to_move",
    "game_ply",
    "hash_key",
    "hash_from_scratch",
    "live_length",
    "evaluate",
    "features",
    "has_moves",
    "order_key",
    "is_quiet",
    "move_code",
    "move_index",
    "plies_made",
    "history_key",
    "repetition",
    "evaluate_kind",
    "pack_position",
    "room",
    "leaf_features",
    "evaluate_and_features",
    "prepare_weights",
    "bonus_counts",
    "MAX_MOVES",
    "N_FEATURES",
    "MAX_ACTIVE",
    "PASS",
    "PERFT_END_LEAF",
    "MOVE_INDEX_SIZE",
    "HAS_REPETITION",
    "PYTHON",
    "N_WEIGHTS",
    "HAS_BONUS",
    "TEMPO_INDEX",
    "SIDE_HALF",
]

WIN = 1
DRAW = 0
LOSS = -1
ONGOING = 2
EVAL_LINEAR = 1

_PACKAGE = Path(__file__).resolve().parent.parent


class ProtocolError(ValueError):
    """A game module that does not follow the protocol (the message names what is wrong)."""


class _Unbound:
    """A protocol constant outside a specialisation (an algorithm reads the game's)."""

    def __init__(self, name: str):
        self.name = name

    def __repr__(self) -> str:
        return f"<protocol constant {self.name}: specialise the algorithm for a game>"


def _stub(name: str, signature: str, contract: str) -> Callable:
    def kernel(*args):
        raise TypeError(f"protocol kernel {name} called outside a specialisation: compile the "
                        "algorithm for a game with gamelib.games.specialize.specialize")

    kernel.__name__ = kernel.__qualname__ = name
    kernel.__doc__ = f"``{signature}``: {contract}"
    return kernel


gen_moves = _stub("gen_moves", "gen_moves(s, buf, start) -> n",
                  "the legal moves of ``s`` into ``buf[start:start + n]``, each once; the pass "
                  "when the rules force one; 0 when the side to move has neither.")
count_moves = _stub("count_moves", "count_moves(s, buf, start) -> n",
                    "the ``n`` of :func:`gen_moves` (``buf[start:]`` is scratch).")
gen_noisy = _stub("gen_noisy", "gen_noisy(s, buf, start) -> n",
                  "the legal moves a quiescence search plays (captures); 0 in a game without.")
make_move = _stub("make_move", "make_move(s, m)",
                  "play legal move ``m`` in place, recording what :func:`unmake_move` needs; "
                  "the other side moves next.")
unmake_move = _stub("unmake_move", "unmake_move(s)",
                    "take back the last move: ``s[:live_length(s)]`` and the hash as before.")
outcome = _stub("outcome", "outcome(s, buf, start) -> r",
                "ONGOING (2), or the rules' result WIN (1), DRAW (0), LOSS (-1) for the side to "
                "move (``buf[start:]`` is scratch).")
in_check = _stub("in_check", "in_check(s) -> bool",
                 "the side to move may not stand pat in quiescence (False without checks).")
side_to_move = _stub("side_to_move", "side_to_move(s) -> int",
                     "0 for the side that moved first in the game, 1 for the other.")
game_ply = _stub("game_ply", "game_ply(s) -> int", "plies played in the game so far.")
hash_key = _stub("hash_key", "hash_key(s) -> int",
                 "the position's 64-bit key (incremental where the game keeps one).")
hash_from_scratch = _stub("hash_from_scratch", "hash_from_scratch(s) -> int",
                          "the key of :func:`hash_key` computed from the position alone.")
live_length = _stub("live_length", "live_length(s) -> int",
                    "the number of leading entries of ``s`` that describe the state.")
evaluate = _stub("evaluate", "evaluate(s, theta) -> float",
                 "the linear evaluation θ·φ(s), side to move's view.")
features = _stub("features", "features(s, idx, val) -> n",
                 "the sparse φ(s): distinct indices into ``idx``, non-zero values into ``val``.")

has_moves = _stub("has_moves", "has_moves(s, buf, start) -> bool",
                  "the side to move has a legal move (``buf[start:]`` is scratch).")
order_key = _stub("order_key", "order_key(s, m) -> int",
                  "ordering key of a noisy move in [2**35, 2**40) (MVV-LVA), 0 for a quiet one.")
is_quiet = _stub("is_quiet", "is_quiet(m) -> bool",
                 "a move the killer and history heuristics may learn (no capture or promotion).")
move_code = _stub("move_code", "move_code(m) -> int",
                  "``m`` among the moves of its position, in [0, 2**16) (a table's move).")
move_index = _stub("move_index", "move_index(m) -> int",
                   "``m``'s row of the history table, in [0, MOVE_INDEX_SIZE).")
plies_made = _stub("plies_made", "plies_made(s) -> int",
                   "the plies made since the state was made.")
history_key = _stub("history_key", "history_key(s, p) -> int",
                    "``hash_key`` of the position after ``p`` of the plies made.")
repetition = _stub("repetition", "repetition(s, root_ply) -> r",
                   "ONGOING, or the result by which a repetition ends the game (cycles inside "
                   "the search, from ply ``root_ply`` on, count as completed).")
evaluate_kind = _stub("evaluate_kind", "evaluate_kind(s, theta, kind) -> float",
                      "the evaluation of kind ``kind`` (EVAL_LINEAR = 1: ``evaluate``).")
pack_position = _stub("pack_position", "pack_position(s, gen) -> (a, b, c)",
                      "three int64 words equal exactly for equal positions and ``gen``.")

room = _stub("room", "room(s) -> int", "the plies make_move can still record in ``s``.")
leaf_features = _stub("leaf_features", "leaf_features(s, idx, val, scratch) -> n",
                      "the entries of :func:`features` in any order (``scratch``: int32 zeros "
                      "of length N_FEATURES, left so).")
evaluate_and_features = _stub("evaluate_and_features",
                              "evaluate_and_features(s, theta, idx, val, scratch) -> (n, v)",
                              ":func:`leaf_features` and :func:`evaluate` (bit for bit) from one "
                              "scan.")
prepare_weights = _stub("prepare_weights", "prepare_weights(w)",
                        "fill ``w[N_FEATURES:N_WEIGHTS]`` from θ = ``w[:N_FEATURES]``.")
bonus_counts = _stub("bonus_counts", "bonus_counts(s, out)",
                     "``out[side]`` = the side's units of the game's shaping bonus at the end.")

#: The kernels a game defines (numba dispatchers), in the order of the module doc's tables.
KERNELS = ("gen_moves", "count_moves", "gen_noisy", "make_move", "unmake_move", "outcome",
           "in_check", "side_to_move", "game_ply", "hash_key", "hash_from_scratch",
           "live_length", "evaluate", "features", "has_moves", "order_key", "is_quiet",
           "move_code", "move_index", "plies_made", "history_key", "repetition", "evaluate_kind",
           "pack_position", "room", "leaf_features", "evaluate_and_features", "prepare_weights",
           "bonus_counts")

MAX_MOVES = _Unbound("MAX_MOVES")
N_FEATURES = _Unbound("N_FEATURES")
MAX_ACTIVE = _Unbound("MAX_ACTIVE")
PASS = _Unbound("PASS")
PERFT_END_LEAF = _Unbound("PERFT_END_LEAF")
MOVE_INDEX_SIZE = _Unbound("MOVE_INDEX_SIZE")
HAS_REPETITION = _Unbound("HAS_REPETITION")
N_WEIGHTS = _Unbound("N_WEIGHTS")
HAS_BONUS = _Unbound("HAS_BONUS")
TEMPO_INDEX = _Unbound("TEMPO_INDEX")
SIDE_HALF = _Unbound("SIDE_HALF")

#: The Python functions a game defines (module doc).
PYTHON = ("start", "with_room", "move_text", "parse_move", "initial_theta", "check_theta",
          "save_theta", "load_theta")

#: The constants a game defines: name -> (smallest value, largest value).
CONSTANTS = {"MAX_MOVES": (1, 2**16), "N_FEATURES": (1, 2**31 - 1), "MAX_ACTIVE": (1, 2**31 - 1),
             "PASS": (-1, 2**31 - 1), "PERFT_END_LEAF": (0, 1), "MOVE_INDEX_SIZE": (1, 1024),
             "HAS_REPETITION": (0, 1), "N_WEIGHTS": (1, 2**31 - 1), "HAS_BONUS": (0, 1),
             "TEMPO_INDEX": (-1, 2**31 - 1), "SIDE_HALF": (0, 2**30)}


@dataclass(frozen=True)
class EvalKind:
    """One kind of a game's ``evaluate_kind``: its ``name`` and ``check(theta, name="theta")``,
    the parameter vector the kind reads (contiguous ``float64``), or ``ValueError`` naming what
    is wrong with ``theta``."""

    name: str
    check: Callable


@dataclass(frozen=True)
class Reference:
    """A game's reference opponent for the learning studies (the optional ``REFERENCE``, module
    doc): the linear evaluation with the parameters ``theta()``, searched with ``qdepth``
    quiescence plies and iterations up to ``max_depth``, each of them, where None, the learners'
    own (the PGLeaf study's matches, :mod:`gamelib.experiments.pgleaf.matches`)."""

    theta: Callable
    qdepth: int | None = None
    max_depth: int | None = None

    def __post_init__(self):
        if not callable(self.theta):
            raise ProtocolError(f"Reference.theta must be a function returning θ, got {self.theta!r}")
        for name in ("qdepth", "max_depth"):
            v = getattr(self, name)
            if v is not None and (isinstance(v, bool) or not isinstance(v, int) or v < (name == "max_depth")):
                raise ProtocolError(f"Reference.{name} must be None or an integer >= "
                                    f"{int(name == 'max_depth')}, got {v!r}")


@dataclass(frozen=True, eq=False)
class Game:
    """One game behind the protocol: its name, its kernels, constants and Python functions.

    Made by :func:`game_from_module`; the fields are the protocol's names. ``in_package`` tells
    whether every kernel is defined inside ``gamelib`` (then algorithms specialised for it are
    cached on disk: the cache folder is keyed by a hash of the package's sources);
    ``eval_kinds`` is the game's ``EVAL_KINDS`` and ``reference`` its ``REFERENCE`` or None
    (module doc).
    """

    name: str
    kernels: SimpleNamespace
    constants: SimpleNamespace
    start: Callable
    with_room: Callable
    move_text: Callable
    parse_move: Callable
    initial_theta: Callable
    check_theta: Callable
    save_theta: Callable
    load_theta: Callable
    in_package: bool
    eval_kinds: Mapping[int, "EvalKind"]
    reference: Reference | None = None

    def __getattr__(self, name):
        for group in ("kernels", "constants"):
            space = object.__getattribute__(self, group)
            if hasattr(space, name):
                return getattr(space, name)
        raise AttributeError(f"game {self.name!r} has no protocol entry {name!r}")

    def bindings(self) -> dict:
        """Protocol name -> the game's kernel or constant (what a specialisation binds)."""
        return {**vars(self.kernels), **vars(self.constants)}

    def __repr__(self) -> str:
        return f"Game({self.name!r})"


def _defined_in_package(dispatcher) -> bool:
    try:
        path = Path(inspect.getfile(dispatcher.py_func)).resolve()
    except (TypeError, OSError):
        return False
    return path.is_relative_to(_PACKAGE)


def game_from_module(name: str, module: ModuleType | SimpleNamespace) -> Game:
    """The :class:`Game` of a module (or namespace) that defines the protocol's names.

    Raises
    ------
    ProtocolError
        Listing, in one message, every protocol name the module lacks and every one it defines
        wrongly (a kernel that is not a numba ``@njit`` function, a constant that is not an
        integer in its range, a Python function that is not callable, an ``EVAL_KINDS`` that is
        not a dict of :class:`EvalKind` holding :data:`EVAL_LINEAR`).
    """
    if not isinstance(name, str) or not name.isidentifier():
        raise ProtocolError(f"a game's name must be an identifier, got {name!r}")
    where = getattr(module, "__name__", type(module).__name__)
    missing = [k for k in (*KERNELS, *CONSTANTS, *PYTHON) if not hasattr(module, k)]
    wrong = []
    for k in KERNELS:
        if hasattr(module, k) and not isinstance(getattr(module, k), CPUDispatcher):
            wrong.append(f"{k} is not a numba @njit function")
    for k, (lo, hi) in CONSTANTS.items():
        v = getattr(module, k, None)
        if hasattr(module, k) and (isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi):
            wrong.append(f"{k} must be an integer in [{lo}, {hi}], got {v!r}")
    for k in PYTHON:
        if hasattr(module, k) and not callable(getattr(module, k)):
            wrong.append(f"{k} is not callable")
    kinds = getattr(module, "EVAL_KINDS", None)   # optional: the linear kind alone
    if kinds is not None:
        wrong += _wrong_kinds(kinds)
    reference = getattr(module, "REFERENCE", None)   # optional: no learning study's matches
    if reference is not None and not isinstance(reference, Reference):
        wrong.append(f"REFERENCE must be a gamelib.games.protocol.Reference, got {reference!r}")
    if not missing and not wrong:
        n = module.N_FEATURES
        if module.N_WEIGHTS < n:
            wrong.append(f"N_WEIGHTS ({module.N_WEIGHTS}) is below N_FEATURES ({n})")
        if module.TEMPO_INDEX >= n:
            wrong.append(f"TEMPO_INDEX ({module.TEMPO_INDEX}) is not a feature (N_FEATURES {n})")
        if 2 * module.SIDE_HALF > n:
            wrong.append(f"two SIDE_HALF blocks ({module.SIDE_HALF}) exceed N_FEATURES ({n})")
    if missing or wrong:
        parts = [f"lacks {', '.join(missing)}"] if missing else []
        raise ProtocolError(f"game {name!r} ({where}) does not follow gamelib.games.protocol: "
                            + "; ".join(parts + wrong))
    kernels = SimpleNamespace(**{k: getattr(module, k) for k in KERNELS})
    constants = SimpleNamespace(**{k: getattr(module, k) for k in CONSTANTS})
    in_package = all(_defined_in_package(d) for d in vars(kernels).values())
    if kinds is None:
        kinds = {EVAL_LINEAR: EvalKind("linear", module.check_theta)}
    return Game(name, kernels, constants, *(getattr(module, k) for k in PYTHON), in_package,
                dict(kinds), reference)


def _wrong_kinds(kinds) -> list[str]:
    """What is wrong with a game's ``EVAL_KINDS`` (module doc), one phrase each."""
    if not isinstance(kinds, Mapping) or EVAL_LINEAR not in kinds:
        return [f"EVAL_KINDS must be a dict {{kind: EvalKind}} holding EVAL_LINEAR ({EVAL_LINEAR})"]
    return [f"EVAL_KINDS[{k!r}] must be a kind >= 0 with an EvalKind(name, check)"
            for k, v in kinds.items()
            if isinstance(k, bool) or not isinstance(k, int) or k < 0 or not isinstance(v, EvalKind)
            or not callable(v.check)]


def check_kind(game: Game, kind) -> int:
    """``kind`` as an ``int`` if ``game``'s ``evaluate_kind`` has it (its ``EVAL_KINDS``), else
    ``ValueError`` naming the game's kinds."""
    if isinstance(kind, (int, np.integer)) and not isinstance(kind, bool) and int(kind) in game.eval_kinds:
        return int(kind)
    known = ", ".join(f"{k} ({v.name})" for k, v in sorted(game.eval_kinds.items()))
    raise ValueError(f"game {game.name!r} has no evaluation kind {kind!r}: its kinds are {known}")


def eval_weights(game: Game, theta, kind) -> np.ndarray:
    """What a search of evaluation kind ``kind`` reads: :func:`prepared_weights` for
    :data:`EVAL_LINEAR`, the kind's checked parameters (its ``EvalKind.check``) otherwise
    (``ValueError`` naming a kind the game lacks or what is wrong with ``theta``)."""
    kind = check_kind(game, kind)
    if kind == EVAL_LINEAR:
        return prepared_weights(game, theta)
    return game.eval_kinds[kind].check(theta)


def prepared_weights(game: Game, theta) -> np.ndarray:
    """θ (checked by the game's ``check_theta``) followed by its derived weights
    (``prepare_weights``): the ``N_WEIGHTS`` weights a linear evaluation's search reads."""
    w = np.empty(game.N_WEIGHTS)
    w[:game.N_FEATURES] = game.check_theta(theta)
    game.prepare_weights(w)
    return w
