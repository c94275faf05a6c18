"""The Bonanza method's expert records on 5×5 shogi: the reference opponent playing itself.

The Bonanza method (:mod:`gamelib.learn.bonanza`, :mod:`gamelib.learn.bonanza_shogi`) learns
from the moves of expert game records, the positions P of its objective J(P, v) (eq. 1 of the
chapter *The Bonanza method*). There is no public database of 5×5 shogi games, so the book's
expert is the reference opponent (:mod:`gamelib.games.minishogi.reference`) in self-play at a deep
node budget: :class:`ExpertSettings` states every setting (node budget, quiescence plies,
deepest iteration, evaluation noise, random opening plies, game-length cap) and
:meth:`ExpertSettings.describe` says them in one line, which the records file's header carries.

Games
-----
:func:`expert_game` plays one game with :func:`gamelib.play.shogi.play_game` (the same
:class:`~gamelib.play.shogi.SearchPlayer` on both sides) after ``opening_plies`` uniformly random
plies. The record (a :class:`~gamelib.games.minishogi.records.RecordedGame`, format ``gamelib-records
1``) starts *after* the random plies (its SFEN is the position they reached), so every recorded
move is the expert's. :func:`expert_games` plays games ``first .. first + n - 1`` of a run
seeded ``seed``, game i seeded ``derive_seed(seed, "teacher", i)`` (the label the committed
records were made with), on any ``map`` (e.g.
:meth:`gamelib.runtime.Executor.map`): a game is a function of (settings, seed) alone, whatever
the number of workers.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Callable

from gamelib.games.minishogi import features as E
from gamelib.games.minishogi.reference import REFERENCE_QDEPTH, reference_theta
from gamelib.games.minishogi import rules as R
from gamelib.games.minishogi.notation import format_sfen
from gamelib.games.minishogi.records import RecordedGame, replay
from gamelib.play.games import check_float
from gamelib.play.shogi import SearchPlayer, play_game
from gamelib.runtime.checks import check_integer
from gamelib.runtime.seeds import derive_seed

__all__ = ["ExpertSettings", "expert_game", "expert_games"]


@dataclass(frozen=True)
class ExpertSettings:
    """How the expert records are made: the reference opponent playing itself.

    Attributes
    ----------
    node_budget : int
        Nodes per move of the expert's search (the reference opponent plays at 20,000).
    qdepth : int
        Quiescence plies (the reference opponent's).
    max_depth : int
        Deepest iteration.
    opening_plies : int
        Uniformly random plies at the start of every game (left out of the record).
    noise_std : float
        Evaluation noise of the expert's search (0: none).
    max_plies : int
        Game-length cap (a draw), counted from the standard start.
    """

    node_budget: int = 50_000
    qdepth: int = REFERENCE_QDEPTH
    max_depth: int = 64
    opening_plies: int = 4
    noise_std: float = 0.0
    max_plies: int = R.DEFAULT_MAX_PLIES

    def __post_init__(self):
        for name, low in (("node_budget", 1), ("qdepth", 0), ("max_depth", 1),
                          ("opening_plies", 0), ("max_plies", 1)):
            object.__setattr__(self, name, check_integer(name, getattr(self, name), low))
        object.__setattr__(self, "noise_std", check_float("noise_std", self.noise_std))

    def as_dict(self) -> dict:
        return asdict(self)

    def describe(self) -> str:
        """One line stating every setting (written into the records file; the reference
        opponent's module is named as it was when the committed records were made, now
        :mod:`gamelib.games.minishogi.reference`: the line is part of the records' identity)."""
        return (f"teacher: reference opponent (gamelib.evaluation.reference) in self-play, "
                f"node budget {self.node_budget}, qdepth {self.qdepth}, max depth "
                f"{self.max_depth}, evaluation noise std {self.noise_std}, "
                f"{self.opening_plies} uniformly random opening plies (not recorded), "
                f"length cap {self.max_plies} plies (draw)")


def expert_game(settings: ExpertSettings, seed: int) -> RecordedGame:
    """One expert game with randomness from ``seed`` (see :func:`gamelib.play.shogi.play_game`);
    the record starts after the random opening plies."""
    player = SearchPlayer(reference_theta(), E.EVAL_LINEAR, node_budget=settings.node_budget,
                          max_depth=settings.max_depth, qdepth=settings.qdepth,
                          noise_std=settings.noise_std)
    game = play_game(player, player, seed, max_plies=settings.max_plies,
                     opening_plies=settings.opening_plies)
    k = min(settings.opening_plies, game.plies)
    state, _ = replay(game.start_sfen, game.moves[:k], check_end=False)
    return RecordedGame(format_sfen(state), tuple(game.moves[k:]), game.winner or "draw",
                        game.reason)


def _expert_job(job):
    settings, seed = job
    return expert_game(settings, seed)


def expert_games(n_games: int, seed: int, settings: ExpertSettings, *, first: int = 0,
                  map_fn: Callable | None = None) -> list[RecordedGame]:
    """Teacher games ``first .. first + n_games - 1`` of the run seeded ``seed`` (game i has the
    seed ``derive_seed(seed, "teacher", i)``), computed with ``map_fn`` (default: serially)."""
    jobs = [(settings, derive_seed(seed, "teacher", i)) for i in range(first, first + n_games)]
    return list((map_fn or (lambda f, xs: [f(x) for x in xs]))(_expert_job, jobs))
