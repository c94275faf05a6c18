"""Engine-independent tournaments: schedules, per-game seeds, parallel and resumable play, tallies.

A tournament is a list of pairings ``(a, b)`` (all pairs of a round robin, or every player
against a reference engine), each played ``games_per_pairing`` times with alternating colours:
in game ``r`` of a pairing, ``a`` moves first when ``r`` is even, ``b`` when it is odd. Game
``r`` of pairing ``(a, b)`` gets the seed ``derive_seed(seed, "game", a, b, r)``, so adding a
player or a pairing never changes the games of the others, and the results do not depend on the
executor or on interruptions.

The game itself is the caller's: ``play_game(spec) -> outcome`` receives a :class:`GameSpec`
and returns +1 if the first mover won, 0 for a draw, -1 if the second mover won. It must be a
deterministic function of the spec (seed any randomness -- e.g. the evaluation noise of the
paper's matches -- from ``spec.seed``) and picklable to run in worker processes (e.g. a
module-level function or a :func:`functools.partial` of one with the players' parameters).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

import numpy as np

from gamelib.runtime.driver import run_batched
from gamelib.runtime.executor import Executor
from gamelib.runtime.seeds import derive_seed
from gamelib.play.stats import Record


@dataclass(frozen=True)
class GameSpec:
    """One scheduled game.

    Attributes
    ----------
    index : int
        Position in the schedule.
    pairing : tuple of str
        ``(a, b)`` as given in the pairings; :func:`tally` reports from ``a``'s side.
    round : int
        Game number within the pairing.
    first, second : str
        Who moves first (sente / black) and second.
    seed : int
        ``derive_seed(seed, "game", a, b, round)``.
    """

    index: int
    pairing: tuple
    round: int
    first: str
    second: str
    seed: int


def round_robin_pairings(players: Sequence[str]) -> list[tuple[str, str]]:
    """Every unordered pair ``(players[i], players[j])``, ``i < j``, in order."""
    players = _check_players(players)
    return [(a, b) for i, a in enumerate(players) for b in players[i + 1:]]


def gauntlet_pairings(players: Sequence[str], reference: str) -> list[tuple[str, str]]:
    """``(player, reference)`` for every player (the paper's matches against ``ssp``)."""
    players = _check_players(players)
    if reference in players:
        raise ValueError(f"reference {reference!r} is also one of the players")
    return [(p, reference) for p in players]


def _check_players(players) -> list[str]:
    players = list(players)
    bad = [p for p in players if not isinstance(p, str) or not p]
    if bad:
        raise ValueError(f"player names must be non-empty strings, got {bad}")
    if len(set(players)) != len(players):
        raise ValueError(f"players {players} contain duplicates")
    return players


def schedule(pairings: Sequence[tuple[str, str]], games_per_pairing: int,
             seed: int) -> list[GameSpec]:
    """All games of a tournament, pairing by pairing, colours alternating.

    Parameters
    ----------
    pairings : sequence of (str, str)
        Distinct pairings of distinct players.
    games_per_pairing : int
        Games per pairing (an even number gives each side the first move equally often).
    seed : int
        Tournament seed.
    """
    if isinstance(games_per_pairing, bool) or not isinstance(games_per_pairing, int) \
            or games_per_pairing < 1:
        raise ValueError(f"games_per_pairing must be a positive integer, got "
                         f"{games_per_pairing!r}")
    seen = set()
    games = []
    for pairing in pairings:
        try:
            a, b = pairing
        except (TypeError, ValueError):
            raise ValueError(f"pairing {pairing!r} is not a (player, opponent) pair") from None
        _check_players([a, b])
        if frozenset((a, b)) in seen:
            raise ValueError(f"pairing {pairing!r} is listed twice")
        seen.add(frozenset((a, b)))
        for r in range(games_per_pairing):
            first, second = (a, b) if r % 2 == 0 else (b, a)
            games.append(GameSpec(len(games), (a, b), r, first, second,
                                  derive_seed(seed, "game", a, b, r)))
    if not games:
        raise ValueError("no pairings to play")
    return games


def _check_outcome(outcome, spec: GameSpec) -> int:
    if isinstance(outcome, (bool, np.bool_)) or outcome not in (1, 0, -1):
        raise ValueError(f"game {spec.index} ({spec.first} vs {spec.second}, round "
                         f"{spec.round}): outcome must be +1 (first mover won), 0 (draw) or "
                         f"-1 (second mover won), got {outcome!r}")
    return int(outcome)


def tally(games: Sequence[GameSpec], outcomes: Sequence[int]) -> dict[tuple[str, str], Record]:
    """Records per pairing, from the side of the pairing's first-named player.

    Parameters
    ----------
    games : sequence of GameSpec
    outcomes : sequence of int
        +1 / 0 / -1 from the first mover's side, one per game.
    """
    if len(games) != len(outcomes):
        raise ValueError(f"{len(outcomes)} outcomes for {len(games)} games")
    counts: dict[tuple[str, str], list[int]] = {}
    for spec, outcome in zip(games, outcomes):
        value = _check_outcome(outcome, spec)
        if spec.first != spec.pairing[0]:
            value = -value
        counts.setdefault(spec.pairing, [0, 0, 0])[1 - value] += 1
    return {pairing: Record(*c) for pairing, c in counts.items()}


@dataclass(frozen=True)
class TournamentResult:
    """Outcome of :func:`play_tournament`.

    Attributes
    ----------
    games : list of GameSpec
    outcomes : numpy.ndarray
        int8, +1 / 0 / -1 from the first mover's side, one per game.
    """

    games: list
    outcomes: np.ndarray

    @property
    def records(self) -> dict[tuple[str, str], Record]:
        """Per-pairing records (input for :func:`gamelib.play.stats.round_robin_table` and
        :func:`gamelib.play.stats.bradley_terry`)."""
        return tally(self.games, self.outcomes)

    @property
    def first_mover(self) -> Record:
        """All games from the first mover's side (the first-move advantage)."""
        return Record.from_outcomes(int(x) for x in self.outcomes)


def _checked_outcomes(values, specs) -> np.ndarray:
    return np.array([_check_outcome(v, s) for v, s in zip(values, specs)], dtype=np.int8)


def play_tournament(play_game: Callable[[GameSpec], int], pairings: Sequence[tuple[str, str]],
                    games_per_pairing: int, seed: int, *, folder=None,
                    identity: Mapping[str, Any] | None = None, batch_size: int = 100,
                    workers: int | None = None, scheduler=None,
                    progress: bool = False) -> TournamentResult:
    """Play every game of a tournament, in parallel, optionally resumable.

    Parameters
    ----------
    play_game : callable
        ``play_game(spec) -> +1 / 0 / -1`` (see the module docstring).
    pairings : sequence of (str, str)
        E.g. :func:`round_robin_pairings` or :func:`gauntlet_pairings`.
    games_per_pairing : int
        The paper plays 400.
    seed : int
        Tournament seed.
    folder : str or Path, optional
        Run folder: outcomes are checkpointed every ``batch_size`` games and a rerun resumes
        (see :func:`gamelib.runtime.driver.run_batched`). None: no checkpoints.
    identity : mapping, optional
        JSON values that identify the players beyond their names (e.g. a SHA-256 of each
        player's parameters and the node budget), stored in the run folder's config so that a
        folder never mixes games of different players.
    batch_size : int
        Games per checkpoint.
    workers, scheduler
        Executor (see :class:`gamelib.runtime.executor.Executor`).
    progress : bool
        Show a progress bar.
    """
    games = schedule(pairings, games_per_pairing, seed)
    if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1:
        raise ValueError(f"batch_size must be a positive integer, got {batch_size!r}")
    if folder is None:
        with Executor(workers, scheduler) as executor:
            values = executor.map(play_game, games, progress=progress, desc="games")
        return TournamentResult(games, _checked_outcomes(values, games))

    def init(config, run_seed):
        return {"outcomes": np.zeros(len(games), dtype=np.int8)}

    def step(state, ctx):
        chunk = games[ctx.index * batch_size:(ctx.index + 1) * batch_size]
        outcomes = state["outcomes"].copy()
        outcomes[chunk[0].index:chunk[-1].index + 1] = _checked_outcomes(
            ctx.map(play_game, chunk), chunk)
        return {"outcomes": outcomes}

    config = {"kind": "tournament", "pairings": [list(p) for p in pairings],
              "games_per_pairing": games_per_pairing, "batch_size": batch_size,
              "identity": dict(identity or {})}
    n_batches = -(-len(games) // batch_size)
    result = run_batched(Path(folder), config=config, seed=seed, n_batches=n_batches, init=init,
                         step=step, workers=workers, scheduler=scheduler, progress=progress,
                         desc="game batches")
    return TournamentResult(games, result.state["outcomes"])
