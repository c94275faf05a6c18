"""The evaluation games: round-robins of the algorithms (Tables 2-4) and a gauntlet of every
run against the reference opponent (Figs 1-2), as one resumable tournament."""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Callable, Mapping

import numpy as np

from gamelib.experiments.pgleaf.config import PGLeafConfig, RunSpec, runs_of
from gamelib.games import registry
from gamelib.games.protocol import EVAL_LINEAR
from gamelib.runtime.seeds import derive_seed


@dataclass(frozen=True)
class MatchSettings:
    """How the evaluation games are played (the paper's section 5.2, with a node budget).

    Attributes
    ----------
    node_budget : int
        Positions searched per move by every player, the reference included (replaces the
        paper's 1 s per move).
    max_depth : int
        Deepest iteration of the iterative deepening.
    qdepth : int
        Quiescence plies of the learners' search (the learning search's 4); the reference
        opponent keeps the game's own where its ``REFERENCE`` names one (5×5 shogi: 8).
    noise_var : float
        Variance of the Gaussian noise on every evaluation (0.001).
    max_plies : int
        Ply cap (a draw).
    opening_plies : int
        Uniformly random plies that start every game, one opening per pair of games played
        with both colours (:func:`gamelib.play.games.play_games` with ``paired_openings``);
        0 (the paper's protocol): every game from the standard position.
    game : str
        The registered game (:mod:`gamelib.games.registry`), one with a reference opponent
        (its ``REFERENCE``, :meth:`reference`).
    """

    node_budget: int
    max_depth: int
    qdepth: int = 4
    noise_var: float = 0.001
    max_plies: int = 300
    opening_plies: int = 0
    game: str = "minishogi"

    @property
    def noise_std(self) -> float:
        return math.sqrt(self.noise_var)

    def player(self, theta):
        """A learner's parameters as a :class:`gamelib.play.games.SearchPlayer`."""
        from gamelib.play.games import SearchPlayer

        return SearchPlayer(theta, EVAL_LINEAR, node_budget=self.node_budget,
                            max_depth=self.max_depth, qdepth=self.qdepth,
                            noise_std=self.noise_std)

    def reference(self):
        """The game's reference opponent (its ``REFERENCE``,
        :class:`gamelib.games.protocol.Reference`) at this node budget and noise: in 5×5 shogi
        the stand-in for the paper's ``ssp`` (:mod:`gamelib.games.minishogi.reference`), in Othello
        the classic square weights searched as the learners search."""
        from gamelib.play.games import SearchPlayer

        ref = registry.get(self.game).reference
        if ref is None:
            raise ValueError(f"the game {self.game!r} has no reference opponent (its REFERENCE, "
                             "gamelib.games.protocol.Reference)")
        return SearchPlayer(ref.theta(), EVAL_LINEAR, node_budget=self.node_budget,
                            max_depth=self.max_depth if ref.max_depth is None else ref.max_depth,
                            qdepth=self.qdepth if ref.qdepth is None else ref.qdepth,
                            noise_std=self.noise_std)


def match_settings(config: PGLeafConfig) -> MatchSettings:
    """The evaluation games' settings of a configuration (the paper's noise variance 0.001
    converted to the game's evaluation unit: times ``eval_unit²``)."""
    return MatchSettings(node_budget=config.node_budget, max_depth=config.max_depth,
                         noise_var=MatchSettings.noise_var * config.eval_unit ** 2, max_plies=config.max_plies,
                         opening_plies=config.match_opening_plies, game=config.game)


def _player_name(run: RunSpec, games: int) -> str:
    """A checkpoint's name in the matches: ``"<run key>@<games>"``; at 0 games the replicate's
    shared initial parameters, ``"initial/<replicate>@0"``."""
    return f"initial/{run.replicate}@0" if games == 0 else f"{run.key}@{games}"


def play_matches(out, thetas: Callable[[int], Mapping[str, np.ndarray]],
                 config: PGLeafConfig, seed: int, *, workers: int | None = None,
                 scheduler=None, progress: bool = False):
    """Every evaluation game of the experiment, as one resumable tournament in ``out``.

    ``thetas(games)`` gives ``{run key: θ}`` after ``games`` games (e.g. a
    :func:`functools.partial` of :func:`~gamelib.experiments.pgleaf.training.trained_theta` or
    :func:`~gamelib.experiments.pgleaf.training.saved_theta`).

    * Round-robins of the algorithms (MDP reward) after each of ``table_points`` games, one per
      replicate (the paper's Tables 2-4), ``round_robin_games`` per pairing;
    * every run's parameters after each of ``curve_points`` games against the reference
      opponent (the paper's Figs 1-2), ``gauntlet_games`` per point; at 0 games the replicate's
      initial parameters (shared by its runs) play once.

    Game ``r`` of pairing ``(a, b)`` of the round-robins has the seed
    ``derive_seed(derive_seed(seed, "matches", "round-robin"), "game", a, b, r)`` (the
    gauntlet's likewise; :func:`gamelib.play.tournament.schedule`), so the games do not depend
    on which other pairings are played. With ``match_opening_plies`` k > 0, games ``2i`` and
    ``2i + 1`` of every pairing start from opening ``i``: k random plies drawn from
    ``derive_rng(derive_seed(seed, "matches", "round-robin"), "opening", i)`` (the gauntlet's
    likewise), the same suite of openings for every pairing, each played with both colours.

    Returns
    -------
    (pandas.DataFrame, pandas.DataFrame)
        Round-robin rows ``games, replicate, player, opponent, wins, draws, losses`` (both
        directions) and gauntlet rows ``games, run, algorithm, reward, replicate, wins, draws,
        losses`` (against the reference).
    """
    import pandas as pd

    from gamelib.play import games, shogi

    match = match_settings(config)
    if config.game == "minishogi":     # (SFEN start positions: the identity of earlier runs)
        play_games = shogi.play_games
    else:
        play_games = partial(games.play_games, registry.get(config.game))
    runs = runs_of(config)
    players, rr_pairs, g_pairs = {}, [], []
    points = sorted(set(config.curve_points) | set(config.table_points))
    for point in points:
        at_point = thetas(point)
        for run in runs:
            name = _player_name(run, point)
            if name not in players:
                players[name] = match.player(at_point[run.key])
    players["reference"] = match.reference()
    if "mdp" in config.rewards:
        algos = config.algorithms
        for point in config.table_points:
            for rep in range(config.replicates):
                for i, a in enumerate(algos):
                    for b in algos[i + 1:]:
                        rr_pairs.append((_player_name(RunSpec(a, "mdp", rep), point),
                                         _player_name(RunSpec(b, "mdp", rep), point)))
    for point in config.curve_points:
        for name in dict.fromkeys(_player_name(run, point) for run in runs):
            g_pairs.append((name, "reference"))
    records = {}
    for pairs, games, what in ((rr_pairs, config.round_robin_games, "round-robin"),
                               (g_pairs, config.gauntlet_games, "gauntlet")):
        if not pairs:
            continue
        used = {x for pair in pairs for x in pair}
        result = play_games({k: v for k, v in players.items() if k in used}, pairs, games,
                            derive_seed(seed, "matches", what), max_plies=match.max_plies,
                            opening_plies=match.opening_plies, paired_openings=True,
                            folder=Path(out) / what, workers=workers, scheduler=scheduler,
                            progress=progress)
        records.update(result.records)
    rr_rows = []
    for a, b in rr_pairs:
        rec = records[(a, b)]
        (pa, point), (pb, _) = a.split("@"), b.split("@")
        rep = int(pa.split("/")[2])
        for p, q, r in ((pa, pb, rec), (pb, pa, rec.reversed())):
            rr_rows.append({"games": int(point), "replicate": rep, "player": p.split("/")[0],
                            "opponent": q.split("/")[0], "wins": r.wins, "draws": r.draws,
                            "losses": r.losses})
    g_rows = []
    for point in config.curve_points:
        for run in runs:
            rec = records[(_player_name(run, point), "reference")]
            g_rows.append({"games": point, "run": run.key, "algorithm": run.algorithm,
                           "reward": run.reward, "replicate": run.replicate, "wins": rec.wins,
                           "draws": rec.draws, "losses": rec.losses})
    rr_cols = ["games", "replicate", "player", "opponent", "wins", "draws", "losses"]
    g_cols = ["games", "run", "algorithm", "reward", "replicate", "wins", "draws", "losses"]
    return pd.DataFrame(rr_rows, columns=rr_cols), pd.DataFrame(g_rows, columns=g_cols)
