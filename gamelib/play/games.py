"""Players, games, random openings and tournaments of any game behind the protocol
(:mod:`gamelib.games`), written once: 5×5 shogi's (:mod:`gamelib.play.shogi`) are these with its
notation, and Othello plays the same.

Players
-------
* :class:`RandomPlayer` -- a uniformly random legal move (``rng.integers(n)`` over the moves in
  the game's ``gen_moves`` order).
* :class:`SearchPlayer` -- the move of iterative deepening under a node budget
  (:func:`gamelib.algorithms.deepening.deepen`: fail-soft PVS with quiescence, optional Gaussian
  evaluation noise) with any of the game's evaluation kinds (``EVAL_KINDS``: the linear one,
  5×5 shogi's material, Othello's value network), searching a copy of the state with room (the
  game's ``with_room``) in a per-thread workspace; its seed is drawn from the player's
  generator.
* :class:`SoftmaxPlayer` -- the learners' self-play policy, eq. (6): a move drawn with
  probability :math:`\\pi(a|s) \\propto \\exp(evl(s,a;\\theta)/T)` over the principal-leaf
  values of :mod:`gamelib.algorithms.leaves`.
* :class:`BestMovePlayer` -- a move of the best value at a fixed depth
  (:func:`gamelib.algorithms.leaves.root_best_into`: every root move searched full width, no
  node budget, no noise), the moves within :data:`TIE_TOLERANCE` of the best drawn between
  uniformly, so that a deterministic evaluation still gives varied games (Othello's greedy and
  positional players, and the value chapter's network and table, are such players).

A player's :meth:`~Player.choose` gets the game, the state (with its history; not modified),
its own generator and the game's ply cap.

Games
-----
:func:`play_game` plays from a start state until the rules end the game (:func:`game_result`:
the game's ``outcome`` -- no legal move, the repetition rule where the game has one -- then the
ply cap, a draw). The first ``opening_plies`` moves may be uniformly random
(:func:`play_random_plies`, from ``derive_rng(seed, "opening")``), or the game starts with
given ``opening`` moves. Each side draws from its own generator ``derive_rng(seed, "player", 0
or 1)``, so a game is a function of (players, seed, settings) alone. :func:`random_opening`
draws one opening per pair of games (``derive_rng(seed, "opening", i)``), redrawn while it ends
the game.

Tournaments
-----------
:func:`play_games` schedules the games of pairings with :mod:`gamelib.play.tournament` (colours
alternate; game ``r`` of pairing ``(a, b)`` has the seed ``derive_seed(seed, "game", a, b,
r)``), plays them on the local cores and tallies them with :mod:`gamelib.play.stats`; with
``paired_openings``, games ``2i`` and ``2i + 1`` of a pairing start from opening ``i``, played
with both colours (opening ``i`` is drawn from ``derive_rng(opening_seed, "opening", i)``, the
tournament's seed unless ``opening_seed`` is given, so one set of openings can be shared by the
tournaments of several runs). The results do not depend on the number of workers.
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass
from functools import partial
from typing import Mapping, Sequence

import numpy as np

from gamelib import exactmath as xm
from gamelib.algorithms import alphabeta as ab
from gamelib.algorithms import deepening as dp
from gamelib.algorithms import leaves as lv
from gamelib.games import registry
from gamelib.games.protocol import DRAW, EVAL_LINEAR, ONGOING, WIN, Game, check_kind, eval_weights
from gamelib.play import tournament
from gamelib.play.tournament import GameSpec, TournamentResult
from gamelib.runtime.checks import check_integer
from gamelib.runtime.seeds import derive_rng

__all__ = ["Player", "RandomPlayer", "SearchPlayer", "BestMovePlayer", "TIE_TOLERANCE",
           "SoftmaxPlayer", "softmax_policy",
           "DEFAULT_TT_BITS", "MAX_REDRAWS", "Played", "game_result", "play_random_plies",
           "random_opening", "play_game", "play_games", "player_identity"]

#: The search players' transposition table: 2**16 entries.
DEFAULT_TT_BITS = 16
#: Openings drawn at most by :func:`random_opening` with ``redraw`` before it gives up.
MAX_REDRAWS = 1000


def check_float(name: str, value, positive: bool = False) -> float:
    """``value`` as a float if it is a finite number ``>= 0`` (``> 0`` with ``positive``)."""
    try:
        x = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a number, got {value!r}") from None
    if isinstance(value, bool) or not math.isfinite(x) or x < 0 or (positive and x == 0):
        raise ValueError(f"{name} must be a finite number {'>' if positive else '>='} 0, got {value!r}")
    return x


def _settle(player, **checks) -> None:
    """Check and normalise a frozen player's fields: ``theta`` (a vector of finite numbers; its
    length is checked against the game when the player moves), ``kind`` (an integer >= 0) and
    each ``name=(check, *args)`` given."""
    arr = np.asarray(player.theta)
    if arr.ndim != 1 or not np.all(np.isfinite(arr)):
        raise ValueError("theta must be a vector of finite parameters")
    object.__setattr__(player, "theta", np.ascontiguousarray(arr, dtype=np.float64))
    object.__setattr__(player, "kind", check_integer("kind", player.kind, 0))
    for name, (check, *args) in checks.items():
        object.__setattr__(player, name, check(name, getattr(player, name), *args))


# ----------------------------------------------------------------------------- players
class Player:
    """A way of choosing moves. Subclasses implement :meth:`choose`."""

    def choose(self, game: Game, s: np.ndarray, rng: np.random.Generator, max_plies: int) -> int:
        """A legal move of ``game``'s state ``s`` (with its history; not modified), drawing any
        randomness from ``rng``; ``max_plies`` is the game's length cap (0: none)."""
        raise NotImplementedError


@dataclass(frozen=True, eq=False)
class RandomPlayer(Player):
    """A uniformly random legal move."""

    def choose(self, game, s, rng, max_plies):
        buf = np.empty(game.MAX_MOVES, dtype=np.int32)
        n = int(game.gen_moves(s, buf, 0))
        if n == 0:
            raise ValueError("no legal move to choose from: the game is over")
        return int(buf[rng.integers(n)])


@dataclass(frozen=True, eq=False)
class SearchPlayer(Player):
    """The move of iterative deepening under a node budget with these settings.

    Parameters
    ----------
    theta : array of floats
        Evaluation parameters, checked against the game's kind when the player moves (the
        linear kind: the game's ``N_FEATURES`` floats; Othello's ``EVAL_MLP``: a network packed
        by :func:`gamelib.games.othello.game.pack_mlp`).
    kind : int
        The evaluation kind, one of the game's ``EVAL_KINDS`` (``EVAL_LINEAR``; 5×5 shogi also
        has ``EVAL_MATERIAL``, Othello ``EVAL_MLP``); ``ValueError`` when the player moves in a
        game without it.
    node_budget : int
        Positions per move (quiescence included): a machine-independent time limit.
    max_depth : int
        Deepest iteration.
    qdepth : int
        Quiescence plies.
    noise_std : float
        Standard deviation of the evaluation noise (the PGLeaf paper's matches: ``sqrt(0.001)``).
    """

    theta: np.ndarray
    kind: int = EVAL_LINEAR
    node_budget: int = 10_000
    max_depth: int = 64
    qdepth: int = 8
    noise_std: float = 0.0

    def __post_init__(self):
        _settle(self, node_budget=(check_integer, 1), max_depth=(check_integer, 1),
                qdepth=(check_integer, 0), noise_std=(check_float,))

    def search(self, game: Game, s: np.ndarray, seed: int, max_plies: int) -> dp.SearchResult:
        """The search's result at ``s`` with the noise seed ``seed``."""
        settings = dp.check_settings(self.max_depth, self.node_budget, self.qdepth, max_plies,
                                     DEFAULT_TT_BITS, seed, self.noise_std)
        max_depth, node_budget, qdepth, max_plies, tt_bits, seed64, noise_std = settings
        # the linear evaluation reads θ with the game's derived weights (the same values),
        # another kind the parameters its check returns
        theta = eval_weights(game, self.theta, self.kind)
        st = game.with_room(s, ab.MAX_PLY + 2)
        return dp.deepen(game, st, theta, self.kind, max_depth, node_budget, qdepth, noise_std,
                         seed64, max_plies, True, True, True, ab.thread_workspace(game, tt_bits))

    def choose(self, game, s, rng, max_plies):
        result = self.search(game, s, int(rng.integers(0, 2**63 - 1)), max_plies)
        if result.move < 0:
            raise ValueError("no legal move to choose from: the game is over")
        return int(result.move)


def softmax_policy(scores, temperature: float) -> np.ndarray:
    """The Boltzmann policy of the PGLeaf paper's eq. (6) over the moves' values ``evl(s, a)``:
    :math:`\\pi_k \\propto \\exp(scores_k / T)` for every move (sums to 1), by
    :func:`gamelib.exactmath.softmax_into`, the learners' own kernel (the largest score
    subtracted first, so that game-end scores neither overflow nor turn into NaN).

    ``scores``: one value per legal move (the side to move's view); ``temperature``: ``T > 0``
    (the paper: 0.05 for PGLeaf and REINFORCE, 0.03 for TDLeaf and TD)."""
    temperature = check_float("temperature", temperature, positive=True)
    s = np.ascontiguousarray(scores, dtype=np.float64)
    if s.ndim != 1 or s.size == 0:
        raise ValueError(f"scores must be a non-empty vector (one per legal move), got shape {s.shape}")
    if not np.all(np.isfinite(s)):
        raise ValueError("scores must be finite")
    out = np.empty_like(s)
    xm.softmax_into(s, s.size, temperature, out)
    return out


#: Root values closer than this to the best are ties (:class:`BestMovePlayer`): a sum of a
#: linear evaluation's weights can differ in its last bits between positions of equal worth.
TIE_TOLERANCE = 1e-9


def _root_buffers(game: Game, s: np.ndarray, theta, kind: int, plies: int):
    """``(state with room for plies, checked θ, output buffers, workspace)`` of a root search."""
    st = game.with_room(s, plies + 2)
    theta = game.eval_kinds[check_kind(game, kind)].check(theta)
    return st, theta, lv.new_leaves_buffers(game), ab.thread_workspace(game, 0)


@dataclass(frozen=True, eq=False)
class BestMovePlayer(Player):
    """A move of the best value ``depth`` plies deep, ties drawn at random.

    Every root move is searched full width to ``depth`` plies (the move is ply 1), then
    ``qdepth`` plies of quiescence, with the evaluation ``kind`` and no noise
    (:func:`gamelib.algorithms.leaves.root_best_into`); the moves whose values are within
    :data:`TIE_TOLERANCE` of the best are the candidates, in the game's ``gen_moves`` order, and
    one of them is drawn uniformly from the player's generator (one draw per move chosen).

    Parameters
    ----------
    theta : array of floats
        Evaluation parameters of the game's kind ``kind`` (as :class:`SearchPlayer`'s).
    kind : int
        One of the game's ``EVAL_KINDS``.
    depth, qdepth : int
        Full-width plies (``depth >= 1``) and quiescence plies.
    """

    theta: np.ndarray
    kind: int = EVAL_LINEAR
    depth: int = 1
    qdepth: int = 0

    def __post_init__(self):
        _settle(self, depth=(check_integer, 1), qdepth=(check_integer, 0))
        if self.depth + self.qdepth >= ab.MAX_PLY:
            raise ValueError(f"depth + qdepth must be < {ab.MAX_PLY}, got {self.depth} + {self.qdepth}")

    def candidates(self, game: Game, s: np.ndarray, max_plies: int) -> np.ndarray:
        """The moves of the best value at ``s`` (within :data:`TIE_TOLERANCE`), in
        ``gen_moves`` order."""
        st, theta, out, ws = _root_buffers(game, s, self.theta, self.kind, self.depth + self.qdepth)
        n = int(lv.kernels(game).root_best_into(st, theta, self.kind, self.depth, self.qdepth,
                                                max_plies, ws, out, TIE_TOLERANCE))
        moves, scores = out.moves[:n], out.scores[:n]
        if n == 0:
            return moves.copy()
        return moves[scores > scores.max() - TIE_TOLERANCE].copy()

    def choose(self, game, s, rng, max_plies):
        best = self.candidates(game, s, max_plies)
        if len(best) == 0:
            raise ValueError("no legal move to choose from: the game is over")
        return int(best[rng.integers(len(best))])


@dataclass(frozen=True, eq=False)
class SoftmaxPlayer(Player):
    """A move drawn with probability eq. (6) over the principal-leaf values ``evl(s, a; θ)`` of
    every root move (:func:`gamelib.algorithms.leaves.root_scores_into`): the learners' policy as
    a :class:`Player`.

    Parameters
    ----------
    theta : array of floats
        Evaluation parameters of the game's kind ``kind`` (as :class:`SearchPlayer`'s).
    kind : int
        One of the game's ``EVAL_KINDS``: the scores are that evaluation's (the learners use
        the linear kind).
    temperature : float
        ``T`` (the PGLeaf paper: 0.05 for PGLeaf and REINFORCE, 0.03 for TDLeaf and TD).
    depth, qdepth : int
        Full-width plies (the move is ply 1) and quiescence plies (the paper: 1 and 4).
    """

    theta: np.ndarray
    kind: int = EVAL_LINEAR
    temperature: float = 0.05
    depth: int = 1
    qdepth: int = 4

    def __post_init__(self):
        _settle(self, temperature=(check_float, True), depth=(check_integer, 1),
                qdepth=(check_integer, 0))
        if self.depth + self.qdepth >= ab.MAX_PLY:
            raise ValueError(f"depth + qdepth must be < {ab.MAX_PLY}, got {self.depth} + {self.qdepth}")

    def scores(self, game: Game, s: np.ndarray, max_plies: int):
        """``(moves, scores)`` of every root move at ``s``."""
        st, theta, out, ws = _root_buffers(game, s, self.theta, self.kind, self.depth + self.qdepth)
        n = int(lv.kernels(game).root_scores_into(st, theta, self.kind, self.depth, self.qdepth,
                                                  max_plies, ws, out))
        return out.moves[:n].copy(), out.scores[:n].copy()

    def choose(self, game, s, rng, max_plies):
        moves, scores = self.scores(game, s, max_plies)
        if len(moves) == 0:
            raise ValueError("no legal move to choose from: the game is over")
        p = softmax_policy(scores, self.temperature)
        return int(moves[int(rng.choice(len(p), p=p))])


# ----------------------------------------------------------------------------- games
def game_result(game: Game, s: np.ndarray, buf: np.ndarray, max_plies: int) -> int:
    """``ONGOING``, or the result of the game at ``s`` for the side to move (``WIN``, ``DRAW``,
    ``LOSS``): the rules' ``outcome`` (a side without a legal move, the repetition rule), then
    the ply cap ``max_plies`` (0: none), a draw."""
    r = int(game.outcome(s, buf, 0))
    if r == ONGOING and max_plies > 0 and int(game.game_ply(s)) >= max_plies:
        return DRAW
    return r


def play_random_plies(game: Game, s: np.ndarray, rng: np.random.Generator, plies: int,
                      max_plies: int, buf: np.ndarray) -> list[int]:
    """Play up to ``plies`` uniformly random legal moves on ``s`` (in place), stopping early
    when the game ends (:func:`game_result` with the cap ``max_plies``); the moves played.
    ``buf``: move-generator scratch of the game's ``MAX_MOVES`` ints."""
    moves = []
    for _ in range(plies):
        if game_result(game, s, buf, max_plies) != ONGOING:
            break
        n = int(game.gen_moves(s, buf, 0))
        m = int(buf[rng.integers(n)])
        game.make_move(s, m)
        moves.append(m)
    return moves


def random_opening(game: Game, rng: np.random.Generator, plies: int, start: np.ndarray, *,
                   max_plies: int = 0, redraw: bool = False) -> tuple[int, ...]:
    """``plies`` uniformly random legal moves from the state ``start`` (not modified).

    ``redraw`` False: an opening that ends the game stops there (it may be shorter). True: such
    an opening is thrown away and another drawn from ``rng``, until one of ``plies`` moves
    leaves the game going; ``ValueError`` when ``plies`` reaches the cap or :data:`MAX_REDRAWS`
    openings all end the game.
    """
    if isinstance(plies, bool) or not isinstance(plies, (int, np.integer)) or plies < 0:
        raise ValueError(f"plies must be a non-negative integer, got {plies!r}")
    if redraw and max_plies > 0 and int(game.game_ply(start)) + plies >= max_plies:
        raise ValueError(f"an opening of {plies} plies from ply {int(game.game_ply(start))} "
                         f"reaches the cap of {max_plies} plies: the game would be over")
    buf = np.empty(game.MAX_MOVES, dtype=np.int32)
    for _ in range(MAX_REDRAWS if redraw else 1):
        s = game.with_room(start, plies + 1)
        moves = play_random_plies(game, s, rng, plies, max_plies, buf)
        if not redraw or (len(moves) == plies and game_result(game, s, buf, max_plies) == ONGOING):
            return tuple(moves)
    raise ValueError(f"{MAX_REDRAWS} random openings of {plies} plies all end the game")


@dataclass(frozen=True)
class Played:
    """One finished game of :func:`play_game`.

    Attributes
    ----------
    outcome : int
        +1 the first mover won, 0 a draw, -1 the second mover won.
    result : int
        The rules' result for the side to move at the end (``WIN``, ``DRAW``, ``LOSS``).
    moves : tuple of int
        The moves, the opening's included.
    final : numpy.ndarray
        The final state (with the game's history).
    """

    outcome: int
    result: int
    moves: tuple
    final: np.ndarray


def play_game(game: Game, first: Player, second: Player, seed: int, *, start: np.ndarray | None = None,
              max_plies: int = 300, opening_plies: int = 0, opening: Sequence[int] = ()) -> Played:
    """Play one game of ``game``; ``first`` moves first (the side to move of ``start``, by
    default the game's start position).

    ``max_plies``: a game that has lasted that many plies (the game's ``game_ply``) is a draw.
    ``opening_plies``: uniformly random moves at the start; or ``opening``: moves played first
    (``ValueError`` if they end the game or one is illegal). The module doc says which
    generator each random choice draws from.
    """
    for name, p in (("first", first), ("second", second)):
        if not isinstance(p, Player):
            raise ValueError(f"{name} must be a gamelib.play.games Player, got {type(p).__name__}")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise ValueError(f"seed must be an integer, got {seed!r}")
    max_plies = check_integer("max_plies", max_plies, 1)
    opening_plies = check_integer("opening_plies", opening_plies, 0)
    if opening and opening_plies:
        raise ValueError("give either opening moves or opening_plies random ones, not both")
    s = game.start(max_plies) if start is None else start
    if int(game.game_ply(s)) >= max_plies:
        raise ValueError(f"the start position at ply {int(game.game_ply(s))} is already beyond "
                         f"max_plies={max_plies}")
    s = game.with_room(s, max_plies - int(game.game_ply(s)) + 1)
    players = (first, second)
    rngs = (derive_rng(seed, "player", 0), derive_rng(seed, "player", 1))
    buf = np.empty(game.MAX_MOVES, dtype=np.int32)
    moves = []
    for k, m in enumerate(opening):
        if game_result(game, s, buf, max_plies) != ONGOING:
            raise ValueError(f"the opening {[game.move_text(x) for x in opening]} ends the game "
                             f"after {k} moves")
        n = int(game.gen_moves(s, buf, 0))
        if int(m) not in buf[:n].tolist():
            raise ValueError(f"opening move {k + 1} ({m}) is not legal")
        game.make_move(s, int(m))
        moves.append(int(m))
    moves += play_random_plies(game, s, derive_rng(seed, "opening"), opening_plies, max_plies, buf)
    while True:
        result = game_result(game, s, buf, max_plies)
        if result != ONGOING:
            break
        ply = len(moves)
        n = int(game.gen_moves(s, buf, 0))
        m = players[ply % 2].choose(game, s, rngs[ply % 2], max_plies)
        if m not in buf[:n]:
            raise RuntimeError(f"player {players[ply % 2]!r} chose the illegal move {m} at ply {ply}")
        game.make_move(s, m)
        moves.append(m)
    # the side to move at the end is the first mover's after an even number of moves
    if result == DRAW:
        outcome = 0
    else:
        mover_wins = result == WIN
        outcome = 1 if mover_wins == (len(moves) % 2 == 0) else -1
    return Played(outcome, result, tuple(moves), s)


# ----------------------------------------------------------------------------- tournaments
def _play_spec(spec: GameSpec, game_name: str, players: Mapping[str, Player], start: np.ndarray,
               max_plies: int, opening_plies: int, opening_seed: int | None = None) -> int:
    """The game ``spec``: its own random opening, or with ``opening_seed`` the opening
    ``spec.round // 2`` shared with the other game of its pair."""
    game = registry.get(game_name)
    first, second = players[spec.first], players[spec.second]
    if opening_seed is None:
        return play_game(game, first, second, spec.seed, start=start, max_plies=max_plies,
                         opening_plies=opening_plies).outcome
    opening = random_opening(game, derive_rng(opening_seed, "opening", spec.round // 2), opening_plies,
                             start, max_plies=max_plies, redraw=True)
    return play_game(game, first, second, spec.seed, start=start, max_plies=max_plies,
                     opening=opening).outcome


def player_identity(player: Player) -> dict:
    """A player's class and settings, its arrays by their sha256 and the players it wraps by
    their identities: what makes a resumable tournament's players its own."""
    out = {"class": type(player).__name__}
    for key, value in vars(player).items():
        if isinstance(value, Player):
            out[key] = player_identity(value)
        elif isinstance(value, np.ndarray):
            out[key] = hashlib.sha256(np.ascontiguousarray(value).tobytes()).hexdigest()
        else:
            out[key] = value
    return out


def play_games(game: Game, players: Mapping[str, Player], pairings: Sequence[tuple[str, str]],
               games_per_pairing: int, seed: int, *, start: np.ndarray | None = None,
               start_identity: tuple[str, str] | None = None, max_plies: int = 300,
               opening_plies: int = 0, paired_openings: bool = False,
               opening_seed: int | None = None, workers: int | None = None,
               scheduler=None, folder=None, progress: bool = False) -> TournamentResult:
    """Play ``games_per_pairing`` games of every pairing (colours alternating) in parallel.

    ``opening_plies`` random plies start every game: each game's own, or with
    ``paired_openings`` one opening per pair of games played with both colours
    (``games_per_pairing`` must then be even), drawn from ``opening_seed`` (by default
    ``seed``: give the same ``opening_seed`` to share the openings between tournaments). ``folder`` makes the run resumable
    (:func:`gamelib.play.tournament.play_tournament`); the players' identities, the start
    position (``start_identity``: its key and text, by default ``("start", "<game> start")``)
    and the sizes are then the run's identity.
    """
    if not isinstance(game, Game):
        raise ValueError(f"game must be a registered gamelib.games Game, got {game!r}")
    if not isinstance(players, Mapping) or not players:
        raise ValueError("players must be a non-empty mapping {name: Player}")
    for name, p in players.items():
        if not isinstance(p, Player):
            raise ValueError(f"player {name!r} is not a gamelib.play.games Player ({type(p).__name__})")
    missing = sorted({x for pair in pairings for x in pair} - set(players))
    if missing:
        raise ValueError(f"pairings name players {missing} that are not in players {sorted(players)}")
    max_plies = check_integer("max_plies", max_plies, 1)
    opening_plies = check_integer("opening_plies", opening_plies, 0)
    if not isinstance(paired_openings, bool):
        raise ValueError(f"paired_openings must be True or False, got {paired_openings!r}")
    paired = paired_openings and opening_plies > 0
    if opening_seed is not None:
        if not paired:
            raise ValueError("opening_seed is the seed of the paired openings: give it with "
                             "paired_openings=True and opening_plies > 0")
        opening_seed = check_integer("opening_seed", opening_seed, 0)
    if paired and (isinstance(games_per_pairing, bool) or not isinstance(games_per_pairing, int)
                   or games_per_pairing % 2):
        raise ValueError(f"games_per_pairing must be even with paired openings (each opening is "
                         f"played with both colours), got {games_per_pairing!r}")
    start = game.start(max_plies) if start is None else start
    if paired and int(game.game_ply(start)) + opening_plies >= max_plies:
        raise ValueError(f"opening_plies ({opening_plies}) must end before the cap of {max_plies} "
                         f"plies")
    play = partial(_play_spec, game_name=game.name, players=dict(players), start=start,
                   max_plies=max_plies, opening_plies=opening_plies,
                   opening_seed=(seed if opening_seed is None else opening_seed) if paired else None)
    identity = None
    if folder is not None:
        key, text = start_identity or ("start", f"{game.name} start")
        identity = {"players": {name: player_identity(p) for name, p in players.items()}, key: text,
                    "max_plies": max_plies, "opening_plies": opening_plies}
        if game.name != "minishogi":   # (absent for 5×5 shogi: the folders of earlier runs)
            identity["game"] = game.name
        if paired:      # (absent otherwise: the folders of earlier runs keep their identity)
            identity["paired_openings"] = True
        if opening_seed is not None:
            identity["opening_seed"] = opening_seed
    return tournament.play_tournament(play, pairings, games_per_pairing, seed, folder=folder, identity=identity,
                                      workers=workers, scheduler=scheduler, progress=progress)
