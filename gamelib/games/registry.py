"""The registered games: one line per game, its name and its module.

:func:`register` checks the module against the protocol (:func:`gamelib.games.protocol.
game_from_module`: one error naming every missing or wrong entry) and keeps its
:class:`~gamelib.games.protocol.Game`; :func:`get` and :func:`names` are what the algorithms
and the conformance suite (``tests/games``) read.
"""

from __future__ import annotations

from types import ModuleType, SimpleNamespace

from .minishogi import game as minishogi
from .othello import game as othello
from .protocol import Game, ProtocolError, game_from_module

__all__ = ["register", "get", "names"]

_GAMES: dict[str, Game] = {}


def register(name: str, module: ModuleType | SimpleNamespace) -> Game:
    """Make the game ``module`` known as ``name``; returns its :class:`Game`.

    Raises
    ------
    ProtocolError
        If the module does not follow the protocol or the name is taken.
    """
    if name in _GAMES:
        raise ProtocolError(f"a game named {name!r} is registered already")
    game = game_from_module(name, module)
    _GAMES[name] = game
    return game


def get(name: str) -> Game:
    """The registered game ``name``."""
    if name not in _GAMES:
        raise ProtocolError(f"unknown game {name!r}; registered: {', '.join(_GAMES)}")
    return _GAMES[name]


def names() -> list[str]:
    """The registered games' names, in the order they were registered."""
    return list(_GAMES)


register("minishogi", minishogi)
register("othello", othello)
