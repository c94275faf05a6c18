"""Games, matches and round robins of 5×5 shogi players.

Players
-------
* :class:`RandomPlayer` -- a uniformly random legal move.
* :class:`SearchPlayer` -- the move of :func:`gamelib.search.search` (iterative deepening under a
  node budget, optional Gaussian evaluation noise: the paper's matches use variance 0.001,
  ``noise_std = sqrt(0.001)``, :data:`PAPER_NOISE_STD`).
* :class:`SoftmaxPlayer` -- the learners' self-play policy: a move drawn from the Boltzmann
  distribution :math:`\\pi(a|s) \\propto \\exp(evl(s,a;\\theta)/T)` (the paper's eq. 6) over the
  principal-leaf values of :func:`gamelib.search.root_leaves` ("1 ply full width + 4 plies of
  quiescence" by default).
* :func:`reference_player` -- the fixed reference opponent standing in for the paper's ``ssp``
  (:mod:`gamelib.evaluation.reference`), and :func:`material_player`, the search with the
  material-only evaluation and the paper's Table 1 values.

Games
-----
:func:`play_game` plays from a start position (default: the standard one) until the rules end
the game (:func:`gamelib.minishogi.core.game_result`: no legal move loses, the repetition rule)
or the game reaches ``max_plies`` plies (a draw; default
:data:`gamelib.minishogi.rules.DEFAULT_MAX_PLIES`). Optionally the first ``opening_plies``
moves are uniformly random, so that noiseless engines play different games, or the game starts
with given ``opening`` moves (:mod:`gamelib.play.openings`). Every random choice of a game comes
from its ``seed``: each side draws from its own generator ``derive_rng(seed, "player", 0 or
1)`` and the random opening from ``derive_rng(seed, "opening")``, so a game is a function of
(players, seed, settings) alone.

Matches and tournaments
-----------------------
:func:`play_match`, :func:`round_robin` and :func:`gauntlet` schedule games with
:mod:`gamelib.play.tournament` (colours alternate; game ``r`` of pairing ``(a, b)`` has the seed
``derive_seed(seed, "game", a, b, r)``), play them on the local cores (or a Dask cluster), and
tally them with :mod:`gamelib.play.stats` (win rates with intervals, binomial tests, the paper's
cross tables). The results do not depend on the number of workers. With ``paired_openings``,
games ``2i`` and ``2i + 1`` of every pairing (the same two players, colours swapped) start from
the same random opening ``i`` of ``opening_plies`` plies, drawn from ``derive_rng(seed,
"opening", i)`` (:func:`gamelib.play.openings.random_opening`, redrawn while it ends the game):
one suite of openings for the whole tournament, each opening played with both colours.
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass, field
from functools import partial
from typing import Mapping, Sequence

import numpy as np

from gamelib import exactmath as xm
from gamelib.evaluation import shogi as E
from gamelib.evaluation.reference import REFERENCE_NODE_BUDGET, REFERENCE_QDEPTH, reference_theta
from gamelib.runtime.checks import check_integer
from gamelib.runtime.seeds import derive_rng
from gamelib.minishogi import core
from gamelib.minishogi import rules as R
from gamelib.minishogi.notation import format_usi, parse_sfen, usi_to_move
from gamelib.play import stats, tournament
from gamelib.play.openings import play_random_plies, random_opening
from gamelib.play.stats import Record
from gamelib.play.tournament import GameSpec, TournamentResult
from gamelib.search import root_leaves, search

__all__ = [
    "PAPER_NOISE_STD",
    "Player",
    "RandomPlayer",
    "SearchPlayer",
    "SoftmaxPlayer",
    "reference_player",
    "material_player",
    "softmax_policy",
    "choose_move",
    "GameRecord",
    "play_game",
    "play_match",
    "play_games",
    "round_robin",
    "gauntlet",
]

#: The paper's evaluation noise in matches: Gaussian, mean 0, variance 0.001.
PAPER_NOISE_STD = math.sqrt(0.001)


def _check_float(name: str, value, positive: bool = False) -> float:
    try:
        x = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a number, got {value!r}") from None
    if isinstance(value, bool) or not math.isfinite(x) or x < 0 or (positive and x == 0):
        raise ValueError(f"{name} must be a finite number {'>' if positive else '>='} 0, got {value!r}")
    return x


def _check_kind(kind) -> int:
    if isinstance(kind, bool) or kind not in (E.EVAL_MATERIAL, E.EVAL_LINEAR):
        raise ValueError(f"kind must be EVAL_MATERIAL ({E.EVAL_MATERIAL}) or EVAL_LINEAR ({E.EVAL_LINEAR}), got {kind!r}")
    return int(kind)


# ----------------------------------------------------------------------------- players
class Player:
    """A way of choosing moves. Subclasses implement :meth:`choose`."""

    def choose(self, s: np.ndarray, rng: np.random.Generator, max_plies: int) -> int:
        """A legal move of the state ``s`` (with its game history; not modified), drawing any
        randomness from ``rng``; ``max_plies`` is the game's length cap (0: none)."""
        raise NotImplementedError


@dataclass(frozen=True, eq=False)
class RandomPlayer(Player):
    """A uniformly random legal move."""

    def choose(self, s, rng, max_plies):
        buf = np.empty(core.MAX_MOVES, dtype=np.int32)
        n = core.gen_moves(s, buf, 0, False)
        if n == 0:
            raise ValueError("no legal move to choose from: the game is over")
        return int(buf[rng.integers(n)])


@dataclass(frozen=True, eq=False)
class SearchPlayer(Player):
    """The move of :func:`gamelib.search.search` with these settings.

    Parameters
    ----------
    theta : array of ``N_FEATURES`` floats
        Evaluation parameters.
    kind : int
        ``EVAL_LINEAR`` (the full features) or ``EVAL_MATERIAL`` (only the material block).
    node_budget : int
        Positions per move (quiescence included); the paper's 1 s/move, machine-independent.
    max_depth : int
        Deepest iteration.
    qdepth : int
        Quiescence plies.
    noise_std : float
        Standard deviation of the evaluation noise (the paper's matches: :data:`PAPER_NOISE_STD`).
    """

    theta: np.ndarray
    kind: int = E.EVAL_LINEAR
    node_budget: int = 10_000
    max_depth: int = 64
    qdepth: int = 8
    noise_std: float = 0.0

    def __post_init__(self):
        object.__setattr__(self, "theta", E.check_theta(self.theta))
        object.__setattr__(self, "kind", _check_kind(self.kind))
        object.__setattr__(self, "node_budget", check_integer("node_budget", self.node_budget, 1))
        object.__setattr__(self, "max_depth", check_integer("max_depth", self.max_depth, 1))
        object.__setattr__(self, "qdepth", check_integer("qdepth", self.qdepth, 0))
        object.__setattr__(self, "noise_std", _check_float("noise_std", self.noise_std))

    def choose(self, s, rng, max_plies):
        seed = int(rng.integers(0, 2**63 - 1))
        result = search(s, self.theta, self.kind, self.max_depth, self.node_budget, self.qdepth, self.noise_std, seed,
                        max_plies=max_plies)
        if result.move < 0:
            raise ValueError("no legal move to choose from: the game is over")
        return int(result.move)


def softmax_policy(scores, temperature: float) -> np.ndarray:
    """Boltzmann probabilities :math:`\\pi_k \\propto \\exp(scores_k / T)` (the paper's eq. 6),
    computed stably (shifted by the maximum)."""
    temperature = _check_float("temperature", temperature, positive=True)
    z = np.asarray(scores, dtype=np.float64) / temperature
    if z.ndim != 1 or z.size == 0:
        raise ValueError(f"scores must be a non-empty vector, got shape {z.shape}")
    if not np.all(np.isfinite(z)):
        raise ValueError("scores must be finite")
    p = xm.exp_array(z - z.max())
    return p / p.sum()


@dataclass(frozen=True, eq=False)
class SoftmaxPlayer(Player):
    """A player that draws its move with probability eq. (6) over the principal-leaf values
    ``evl(s, a; θ)`` of :func:`gamelib.search.root_leaves`: the learners' policy as a
    :class:`Player`, for matches and for showing it at work. (The learners themselves play
    their self-play games in compiled code, :mod:`gamelib.learn.selfplay`.)

    Parameters
    ----------
    theta : array of ``N_FEATURES`` floats
    kind : int
    temperature : float
        ``T`` (the paper: 0.05 for PGLeaf and REINFORCE, 0.03 for TDLeaf and TD).
    depth, qdepth : int
        Full-width plies (the move is ply 1) and quiescence plies (the paper: 1 and 4).
    """

    theta: np.ndarray
    kind: int = E.EVAL_LINEAR
    temperature: float = 0.05
    depth: int = 1
    qdepth: int = 4

    def __post_init__(self):
        object.__setattr__(self, "theta", E.check_theta(self.theta))
        object.__setattr__(self, "kind", _check_kind(self.kind))
        object.__setattr__(self, "temperature", _check_float("temperature", self.temperature, positive=True))
        object.__setattr__(self, "depth", check_integer("depth", self.depth, 1))
        object.__setattr__(self, "qdepth", check_integer("qdepth", self.qdepth, 0))

    def choose(self, s, rng, max_plies):
        leaves = root_leaves(s, self.theta, self.kind, self.depth, self.qdepth, max_plies=max_plies)
        if len(leaves) == 0:
            raise ValueError("no legal move to choose from: the game is over")
        p = softmax_policy(leaves.scores, self.temperature)
        return int(leaves.moves[int(rng.choice(len(p), p=p))])


def reference_player(node_budget: int = REFERENCE_NODE_BUDGET, noise_std: float = 0.0) -> SearchPlayer:
    """The reference opponent (:mod:`gamelib.evaluation.reference`) at a node budget."""
    return SearchPlayer(reference_theta(), E.EVAL_LINEAR, node_budget=node_budget, qdepth=REFERENCE_QDEPTH,
                        noise_std=noise_std)


def material_player(node_budget: int = REFERENCE_NODE_BUDGET, noise_std: float = 0.0) -> SearchPlayer:
    """The same search with the material-only evaluation and the paper's Table 1 values."""
    return SearchPlayer(E.table1_theta(), E.EVAL_MATERIAL, node_budget=node_budget, qdepth=REFERENCE_QDEPTH,
                        noise_std=noise_std)


def choose_move(s, player: Player, seed: int, max_plies: int = R.DEFAULT_MAX_PLIES) -> int:
    """``player``'s move in state (or Position) ``s`` with randomness from ``seed``."""
    state = getattr(s, "state", s)
    if not isinstance(player, Player):
        raise ValueError(f"player must be a gamelib.play.shogi Player, got {type(player).__name__}")
    return player.choose(state, derive_rng(seed, "move"), check_integer("max_plies", max_plies, 0))


# ----------------------------------------------------------------------------- games
@dataclass(frozen=True)
class GameRecord:
    """One finished game.

    Attributes
    ----------
    outcome : int
        +1 the first mover won, 0 draw, -1 the second mover won.
    winner : str or None
        ``"sente"``, ``"gote"`` or None (draw).
    reason : str
        ``"checkmate"``, ``"no legal move"`` (stalemate, a loss), ``"repetition"`` (the
        fourth occurrence: sente loses, or the side that checked perpetually, or a draw if both
        did) or ``"max plies"`` (a draw).
    moves : tuple of str
        The moves in USI notation.
    start_sfen : str
    """

    outcome: int
    winner: str | None
    reason: str
    moves: tuple = field(repr=False)
    start_sfen: str = R.START_SFEN

    @property
    def plies(self) -> int:
        return len(self.moves)


def _reason(s, buf) -> str:
    if core.gen_moves(s, buf, 0, False) == 0:
        return "checkmate" if core.in_check(s) else "no legal move"
    if core.repetition_result(s) != core.RESULT_NONE:
        return "repetition"
    return "max plies"


def play_game(first: Player, second: Player, seed: int, *, start_sfen: str = R.START_SFEN,
              max_plies: int = R.DEFAULT_MAX_PLIES, opening_plies: int = 0,
              opening: Sequence[str] = ()) -> GameRecord:
    """Play one game; ``first`` moves first (the side to move of ``start_sfen``).

    Parameters
    ----------
    first, second : Player
    seed : int
        Seed of every random choice of the game (see the module docstring).
    start_sfen : str
        Start position.
    max_plies : int
        A game that has lasted this many plies (counted from move 1 through the SFEN move
        number) is a draw.
    opening_plies : int
        Number of uniformly random moves at the start (randomised openings).
    opening : sequence of str
        USI moves played first (instead of ``opening_plies`` random ones), e.g. an opening of
        :func:`gamelib.play.openings.random_opening`; they count as the game's first moves
        (``first`` plays the move after them when their number is even). ``ValueError`` if
        one is illegal or they end the game.
    """
    for name, p in (("first", first), ("second", second)):
        if not isinstance(p, Player):
            raise ValueError(f"{name} must be a gamelib.play.shogi Player, got {type(p).__name__}")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise ValueError(f"seed must be an integer, got {seed!r}")
    max_plies = check_integer("max_plies", max_plies, 1)
    opening_plies = check_integer("opening_plies", opening_plies, 0)
    if isinstance(opening, str):
        raise ValueError(f"opening must be a sequence of USI moves, got the string {opening!r}")
    if opening and opening_plies:
        raise ValueError("give either opening moves or opening_plies random ones, not both")
    board, hands, side, move_number = parse_sfen(start_sfen)
    if move_number - 1 >= max_plies:
        raise ValueError(f"start position at move {move_number} is already beyond max_plies={max_plies}")
    s = core.new_state(board, hands, side, move_number, capacity=max_plies - move_number + 2)
    players = (first, second)
    rngs = (derive_rng(seed, "player", 0), derive_rng(seed, "player", 1))
    buf = np.empty(core.MAX_MOVES, dtype=np.int32)
    moves = []
    for k, usi in enumerate(opening):
        if core.game_result(s, buf, 0, max_plies) != core.RESULT_NONE:
            raise ValueError(f"opening {list(opening)} ends the game after {k} moves")
        m = usi_to_move(s, usi, buf)
        core.make_move(s, m)
        moves.append(format_usi(m))
    moves += [format_usi(m) for m in play_random_plies(s, derive_rng(seed, "opening"),
                                                       opening_plies, max_plies, buf)]
    while True:
        result = core.game_result(s, buf, 0, max_plies)
        if result != core.RESULT_NONE:
            break
        ply = len(moves)
        n = core.gen_moves(s, buf, 0, False)
        m = players[ply % 2].choose(s, rngs[ply % 2], max_plies)
        if m not in buf[:n]:
            raise RuntimeError(f"player {players[ply % 2]!r} chose the illegal move {m} at ply {ply}")
        core.make_move(s, m)
        moves.append(format_usi(m))
    winner = {core.RESULT_SENTE_WINS: "sente", core.RESULT_GOTE_WINS: "gote"}.get(int(result))
    if winner is None:
        outcome = 0
    else:
        outcome = 1 if R.SIDE_NAMES.index(winner) == side else -1
    return GameRecord(outcome, winner, _reason(s, buf), tuple(moves), start_sfen)


def _play_spec(spec: GameSpec, players: Mapping[str, Player], start_sfen: str, max_plies: int,
               opening_plies: int, opening_seed: int | None = None) -> int:
    """The game ``spec``: its own random opening, or with ``opening_seed`` the opening
    ``spec.round // 2`` shared with the other game of its pair."""
    first, second = players[spec.first], players[spec.second]
    if opening_seed is None:
        return play_game(first, second, spec.seed, start_sfen=start_sfen, max_plies=max_plies,
                         opening_plies=opening_plies).outcome
    opening = random_opening(derive_rng(opening_seed, "opening", spec.round // 2), opening_plies,
                             start_sfen=start_sfen, max_plies=max_plies, redraw=True)
    return play_game(first, second, spec.seed, start_sfen=start_sfen, max_plies=max_plies,
                     opening=opening).outcome


def play_games(players: Mapping[str, Player], pairings: Sequence[tuple[str, str]], games_per_pairing: int,
               seed: int, *, start_sfen: str = R.START_SFEN, max_plies: int = R.DEFAULT_MAX_PLIES,
               opening_plies: int = 0, paired_openings: bool = False, workers: int | None = None,
               scheduler=None, folder=None, progress: bool = False) -> TournamentResult:
    """Play ``games_per_pairing`` games of every pairing (colours alternating) in parallel.

    ``opening_plies`` random plies start every game: each game's own (``paired_openings``
    False), or with ``paired_openings`` one opening per pair of games, played once with each
    colour (see the module docstring; ``games_per_pairing`` must then be even). ``folder`` makes
    the run resumable (see :func:`gamelib.play.tournament.play_tournament`); the players'
    parameters and settings are then part of the run's identity.
    """
    if not isinstance(players, Mapping) or not players:
        raise ValueError("players must be a non-empty mapping {name: Player}")
    for name, p in players.items():
        if not isinstance(p, Player):
            raise ValueError(f"player {name!r} is not a gamelib.play.shogi Player ({type(p).__name__})")
    missing = sorted({x for pair in pairings for x in pair} - set(players))
    if missing:
        raise ValueError(f"pairings name players {missing} that are not in players {sorted(players)}")
    max_plies = check_integer("max_plies", max_plies, 1)
    opening_plies = check_integer("opening_plies", opening_plies, 0)
    if not isinstance(paired_openings, bool):
        raise ValueError(f"paired_openings must be True or False, got {paired_openings!r}")
    paired = paired_openings and opening_plies > 0
    if paired and (isinstance(games_per_pairing, bool) or not isinstance(games_per_pairing, int)
                   or games_per_pairing % 2):
        raise ValueError(f"games_per_pairing must be even with paired openings (each opening is "
                         f"played with both colours), got {games_per_pairing!r}")
    _, _, _, move_number = parse_sfen(start_sfen)
    if paired and move_number - 1 + opening_plies >= max_plies:
        raise ValueError(f"opening_plies ({opening_plies}) must end before the cap of {max_plies} "
                         f"plies")
    play = partial(_play_spec, players=dict(players), start_sfen=start_sfen, max_plies=max_plies,
                   opening_plies=opening_plies, opening_seed=seed if paired else None)
    identity = None
    if folder is not None:
        identity = {"players": {name: _identity(p) for name, p in players.items()}, "start_sfen": start_sfen,
                    "max_plies": max_plies, "opening_plies": opening_plies}
        if paired:      # (absent otherwise: the folders of earlier runs keep their identity)
            identity["paired_openings"] = True
    return tournament.play_tournament(play, pairings, games_per_pairing, seed, folder=folder, identity=identity,
                                      workers=workers, scheduler=scheduler, progress=progress)


def _identity(player: Player) -> dict:
    out = {"class": type(player).__name__}
    for key, value in vars(player).items():
        if isinstance(value, np.ndarray):
            out[key] = hashlib.sha256(np.ascontiguousarray(value).tobytes()).hexdigest()
        else:
            out[key] = value
    return out


def play_match(a: Player, b: Player, n_games: int, seed: int, *, names: tuple[str, str] = ("a", "b"),
               **kwargs) -> Record:
    """``n_games`` games between ``a`` and ``b`` (``a`` first in even games); ``a``'s record.

    Keyword arguments go to :func:`play_games` (``max_plies``, ``opening_plies``, ``workers``,
    ...). Summarise the record with :func:`gamelib.play.stats.summarize` (win rate, 95 %
    intervals, binomial tests).
    """
    na, nb = names
    result = play_games({na: a, nb: b}, [(na, nb)], n_games, seed, **kwargs)
    return result.records[(na, nb)]


def round_robin(players: Mapping[str, Player], games_per_pairing: int, seed: int, *, alpha: float = 0.01,
                **kwargs) -> stats.RoundRobinTable:
    """Every pair of ``players`` plays ``games_per_pairing`` games: a cross table like the
    paper's Tables 2-4 (row's win % against column, bold where significant at ``alpha``)."""
    names = list(players)
    result = play_games(players, tournament.round_robin_pairings(names), games_per_pairing, seed, **kwargs)
    return stats.round_robin_table(result.records, names, alpha=alpha)


def gauntlet(players: Mapping[str, Player], reference: str, games_per_pairing: int, seed: int,
             **kwargs) -> dict[str, Record]:
    """Every player against ``players[reference]`` (the paper's matches against ``ssp``);
    ``{player: record against the reference}``."""
    if reference not in players:
        raise ValueError(f"reference {reference!r} is not one of the players {list(players)}")
    others = [p for p in players if p != reference]
    result = play_games(players, tournament.gauntlet_pairings(others, reference), games_per_pairing, seed, **kwargs)
    return {p: result.records[(p, reference)] for p in others}
