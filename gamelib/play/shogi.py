"""Games, matches and round robins of 5×5 shogi players: :mod:`gamelib.play.games` (players,
games, openings and tournaments written once over the game protocol) with 5×5 shogi's SFEN
start positions, USI moves, reasons of a game's end and its players' checks.

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
  (:mod:`gamelib.games.minishogi.reference`), and :func:`material_player`, the search with the
  material-only evaluation and the paper's Table 1 values.

Games
-----
:func:`play_game` plays from a start position (default: the standard one) until the rules end
the game (:func:`gamelib.games.minishogi.core.game_result`: no legal move loses, the repetition rule)
or the game reaches ``max_plies`` plies (a draw; default
:data:`gamelib.games.minishogi.rules.DEFAULT_MAX_PLIES`). Optionally the first ``opening_plies``
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

import math
from dataclasses import dataclass, field
from typing import Mapping, Sequence

import numpy as np

from gamelib.games.minishogi import features as E
from gamelib.games.minishogi.reference import REFERENCE_NODE_BUDGET, REFERENCE_QDEPTH, reference_theta
from gamelib.games import registry
from gamelib.games.minishogi import core
from gamelib.games.minishogi import rules as R
from gamelib.games.minishogi.notation import format_usi, parse_sfen, usi_to_move
from gamelib.play import games, stats, tournament
from gamelib.play.games import Player, RandomPlayer, softmax_policy
from gamelib.play.stats import Record
from gamelib.play.tournament import TournamentResult
from gamelib.runtime.checks import check_integer
from gamelib.runtime.seeds import derive_rng

__all__ = [
    "PAPER_NOISE_STD",
    "GAME",
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
#: The game these players play.
GAME = registry.get("minishogi")


def _check_kind(kind) -> int:
    if isinstance(kind, bool) or kind not in (E.EVAL_MATERIAL, E.EVAL_LINEAR):
        raise ValueError(f"kind must be EVAL_MATERIAL ({E.EVAL_MATERIAL}) or EVAL_LINEAR ({E.EVAL_LINEAR}), got {kind!r}")
    return int(kind)


# ----------------------------------------------------------------------------- players
class SearchPlayer(games.SearchPlayer):
    """:class:`gamelib.play.games.SearchPlayer` with θ checked against 5×5 shogi's evaluation
    when it is made (``kind``: ``EVAL_LINEAR``, the full features, or ``EVAL_MATERIAL``, the
    material block only); the move is that of :func:`gamelib.search.search`."""

    def __post_init__(self):
        object.__setattr__(self, "theta", E.check_theta(self.theta))
        object.__setattr__(self, "kind", _check_kind(self.kind))
        super().__post_init__()


class SoftmaxPlayer(games.SoftmaxPlayer):
    """:class:`gamelib.play.games.SoftmaxPlayer` with θ checked against 5×5 shogi's evaluation
    when it is made: the learners' policy (eq. 6) over :func:`gamelib.search.root_leaves`'
    values. (The learners themselves play their self-play games in compiled code,
    :mod:`gamelib.learn.selfplay`.)"""

    def __post_init__(self):
        object.__setattr__(self, "theta", E.check_theta(self.theta))
        object.__setattr__(self, "kind", _check_kind(self.kind))
        super().__post_init__()


def reference_player(node_budget: int = REFERENCE_NODE_BUDGET, noise_std: float = 0.0) -> SearchPlayer:
    """The reference opponent (:mod:`gamelib.games.minishogi.reference`) at a node budget."""
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
    return player.choose(GAME, state, derive_rng(seed, "move"), check_integer("max_plies", max_plies, 0))


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


def _start_state(start_sfen: str, max_plies: int):
    """The state of ``start_sfen`` (with room for a game to the cap) and its side to move."""
    board, hands, side, move_number = parse_sfen(start_sfen)
    if move_number - 1 >= max_plies:
        raise ValueError(f"start position at move {move_number} is already beyond max_plies={max_plies}")
    return core.new_state(board, hands, side, move_number, capacity=max_plies - move_number + 2), side


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
    max_plies = check_integer("max_plies", max_plies, 1)
    if isinstance(opening, str):
        raise ValueError(f"opening must be a sequence of USI moves, got the string {opening!r}")
    if opening and opening_plies:
        raise ValueError("give either opening moves or opening_plies random ones, not both")
    s, side = _start_state(start_sfen, max_plies)
    buf = np.empty(core.MAX_MOVES, dtype=np.int32)
    walk, codes = s.copy(), []
    for k, usi in enumerate(opening):
        if core.game_result(walk, buf, 0, max_plies) != core.RESULT_NONE:
            raise ValueError(f"opening {list(opening)} ends the game after {k} moves")
        m = usi_to_move(walk, usi, buf)
        core.make_move(walk, m)
        codes.append(m)
    played = games.play_game(GAME, first, second, seed, start=s, max_plies=max_plies,
                             opening_plies=opening_plies, opening=codes)
    winner = None if played.outcome == 0 else R.SIDE_NAMES[side if played.outcome == 1 else 1 - side]
    return GameRecord(played.outcome, winner, _reason(played.final, buf),
                      tuple(format_usi(m) for m in played.moves), start_sfen)


def play_games(players: Mapping[str, Player], pairings: Sequence[tuple[str, str]], games_per_pairing: int,
               seed: int, *, start_sfen: str = R.START_SFEN, max_plies: int = R.DEFAULT_MAX_PLIES,
               opening_plies: int = 0, paired_openings: bool = False,
               opening_seed: int | None = None, workers: int | None = None,
               scheduler=None, folder=None, progress: bool = False) -> TournamentResult:
    """Play ``games_per_pairing`` games of every pairing (colours alternating) in parallel
    (:func:`gamelib.play.games.play_games` from ``start_sfen``; ``opening_seed`` shares the
    paired openings between tournaments).

    ``opening_plies`` random plies start every game: each game's own (``paired_openings``
    False), or with ``paired_openings`` one opening per pair of games, played once with each
    colour (see the module docstring; ``games_per_pairing`` must then be even). ``folder`` makes
    the run resumable (see :func:`gamelib.play.tournament.play_tournament`); the players'
    parameters and settings are then part of the run's identity.
    """
    if isinstance(players, Mapping):
        for name, p in players.items():
            if not isinstance(p, Player):
                raise ValueError(f"player {name!r} is not a gamelib.play.shogi Player ({type(p).__name__})")
    max_plies = check_integer("max_plies", max_plies, 1)
    start, _ = _start_state(start_sfen, max_plies)
    return games.play_games(GAME, players, pairings, games_per_pairing, seed, start=start,
                            start_identity=("start_sfen", start_sfen), max_plies=max_plies,
                            opening_plies=opening_plies, paired_openings=paired_openings,
                            opening_seed=opening_seed, workers=workers, scheduler=scheduler, folder=folder, progress=progress)


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
