"""Random openings of 5×5 shogi games: uniformly random legal plies from a start position.

Matches between deterministic (or nearly deterministic) engines replay the same few games from
the start position; a few random plies first make them play different games. The openings are
used two ways:

* **one per game** (:func:`gamelib.play.shogi.play_game` with ``opening_plies``): each game
  draws its own opening from ``derive_rng(game seed, "opening")``; an opening that ends the
  game ends it there;
* **one per pair of games** (:func:`gamelib.play.shogi.play_games` with ``paired_openings``,
  and :mod:`gamelib.play.engine_match`): opening ``i`` is drawn from ``derive_rng(seed,
  "opening", i)`` and played once with each colour, so that neither side profits from a
  lopsided opening. With ``redraw`` an opening that ends the game (a side without legal moves,
  a repetition, the ply cap) is redrawn from the same generator until one leaves the game
  going.

Every draw is ``rng.integers(n)`` over the legal moves in the order of
:func:`gamelib.games.minishogi.core.gen_moves`, so an opening is a function of the generator alone.
The draws are :mod:`gamelib.play.games`' (written once for every game), here with SFEN start
positions and USI moves.
"""

from __future__ import annotations

import numpy as np

from gamelib.games import registry
from gamelib.games.minishogi import core
from gamelib.games.minishogi import rules as R
from gamelib.games.minishogi.notation import format_usi, parse_sfen
from gamelib.play import games
from gamelib.play.games import MAX_REDRAWS

__all__ = ["MAX_REDRAWS", "play_random_plies", "random_opening"]

_GAME = registry.get("minishogi")


def play_random_plies(s: np.ndarray, rng: np.random.Generator, plies: int, max_plies: int,
                      buf: np.ndarray) -> list[int]:
    """Play up to ``plies`` uniformly random legal moves on the state ``s`` (changed in place),
    stopping early when the game ends (:func:`gamelib.games.minishogi.core.game_result` with the cap
    ``max_plies``, 0: none); the moves played, as integer codes. ``buf``: move-generator scratch
    space of :data:`~gamelib.games.minishogi.core.MAX_MOVES` ints (:func:`gamelib.play.games.
    play_random_plies` for 5×5 shogi)."""
    return games.play_random_plies(_GAME, s, rng, plies, max_plies, buf)


def random_opening(rng: np.random.Generator, plies: int, *, start_sfen: str = R.START_SFEN,
                   max_plies: int = 0, redraw: bool = False) -> tuple[str, ...]:
    """``plies`` uniformly random legal moves from ``start_sfen`` in USI notation
    (:func:`gamelib.play.games.random_opening` for 5×5 shogi).

    Parameters
    ----------
    rng : numpy.random.Generator
        Source of every draw.
    plies : int
        Length of the opening.
    start_sfen : str
    max_plies : int
        The game's ply cap (a game that reaches it is over; 0: no cap).
    redraw : bool
        False: an opening that ends the game stops there (it may be shorter than ``plies``).
        True: such an opening is thrown away and another drawn from ``rng``, until one of
        ``plies`` moves leaves the side to move with a legal move and the game going.

    Raises
    ------
    ValueError
        With ``redraw``, when ``plies`` reaches the cap or :data:`MAX_REDRAWS` openings all end
        the game.
    """
    if isinstance(plies, bool) or not isinstance(plies, (int, np.integer)) or plies < 0:
        raise ValueError(f"plies must be a non-negative integer, got {plies!r}")
    board, hands, side, move_number = parse_sfen(start_sfen)
    if redraw and max_plies > 0 and move_number - 1 + plies >= max_plies:
        raise ValueError(f"an opening of {plies} plies from move {move_number} reaches the cap "
                         f"of {max_plies} plies: the game would be over")
    start = core.new_state(board, hands, side, move_number, capacity=plies + 2)
    try:
        moves = games.random_opening(_GAME, rng, plies, start, max_plies=max_plies, redraw=redraw)
    except ValueError as err:
        raise ValueError(f"{err} (from {start_sfen!r})") from None
    return tuple(format_usi(m) for m in moves)
