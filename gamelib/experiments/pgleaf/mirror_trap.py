"""The mirror-position trap: TD(λ)/TDLeaf(λ) self-play under three evaluation layouts."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from gamelib.games.minishogi import features as ev
from gamelib.experiments.pgleaf.config import PGLeafConfig, RunSpec, profile_config, settings_of
from gamelib.experiments.pgleaf.training import STAT_COLUMNS, game_seeds, initial_theta, stats_row
from gamelib.learn.selfplay import REWARDS
from gamelib.learn.td_selfplay import play_td_games


#: The evaluations of :func:`mirror_trap_study`: (tie_sides, learn_tempo) of
#: :class:`~gamelib.learn.selfplay.SelfPlaySettings` -- the layout versions of
#: :mod:`gamelib.games.minishogi.features` (1: one antisymmetric block; 2: and a tempo; 3: a weight per
#: side and a tempo, the current one).
MIRROR_TRAP_EVALUATIONS = {"antisymmetric": (True, False), "antisymmetric+tempo": (True, True),
                           "two sides+tempo": (False, True)}


def _mirror_trap_job(job):
    algorithm, reward, replicate, evaluation, n_games, chunk, seed, config = job
    tie, tempo = MIRROR_TRAP_EVALUATIONS[evaluation]
    run = RunSpec(algorithm, reward, replicate)
    settings = replace(settings_of(run, config), learn_tempo=tempo, tie_sides=tie)
    theta = initial_theta(seed, replicate)
    rows = []
    for first in range(0, n_games, chunk):
        theta, records = play_td_games(theta, settings, game_seeds(seed, run, first, chunk))
        s = stats_row(records, settings.max_plies)
        half = ev.OPP_OFFSET
        rows.append({"algorithm": algorithm, "reward": reward, "replicate": replicate,
                     "evaluation": evaluation, "games": first + chunk,
                     **{c: int(v) for c, v in zip(STAT_COLUMNS, s)},
                     "tempo_weight": float(theta[ev.TEMPO_INDEX]),
                     "side_difference": float(np.abs(theta[:half] - theta[half:2 * half]).sum())})
    return rows


def mirror_trap_study(n_games: int, seed: int = 0, *, algorithms=("td", "tdleaf"),
                      reward: str = "mdp", replicates=(0,), evaluations=None, chunk: int = 100,
                      workers: int | None = None, config: PGLeafConfig | None = None):
    """TD(λ)/TDLeaf(λ) self-play under the evaluations of :data:`MIRROR_TRAP_EVALUATIONS`.

    Each run is the first ``n_games`` games of the experiment's run of the same algorithm,
    reward and replicate (same initial θ, same game seeds); with the current evaluation
    (``"two sides+tempo"``) exactly what :func:`train` plays. ``config``: the
    experiment's configuration whose learner settings the runs take (default the ``paper``
    profile's).

    Returns
    -------
    pandas.DataFrame
        One row per ``chunk`` games of every run: ``algorithm, reward, replicate, evaluation,
        games`` (after the chunk), the counts of :func:`train`'s statistics (``sente_wins,
        gote_wins, draws, plies, gote_moves, mirror_replies``), ``tempo_weight``,
        ``side_difference`` (Σ|θ_stm − θ_opp|), and the rates ``sente_share`` (of all games)
        and ``mirror_rate`` (gote's moves that copied sente's).
    """
    import pandas as pd

    from gamelib.runtime.executor import map_ordered

    config = profile_config("paper") if config is None else config
    evaluations = list(MIRROR_TRAP_EVALUATIONS) if evaluations is None else list(evaluations)
    for name, v in (("n_games", n_games), ("chunk", chunk)):
        if isinstance(v, bool) or not isinstance(v, int) or v < 1:
            raise ValueError(f"{name} must be a positive integer, got {v!r}")
    if n_games % chunk:
        raise ValueError(f"n_games ({n_games}) must be a multiple of chunk ({chunk})")
    bad = [a for a in algorithms if a not in ("td", "tdleaf")]
    if bad or not algorithms:
        raise ValueError(f"algorithms must be TD learners ('td', 'tdleaf'), got {list(algorithms)!r}")
    if reward not in REWARDS:
        raise ValueError(f"unknown reward setting {reward!r}; valid: {', '.join(REWARDS)}")
    bad = [e for e in evaluations if e not in MIRROR_TRAP_EVALUATIONS]
    if bad or not evaluations:
        raise ValueError(f"evaluations must be among {list(MIRROR_TRAP_EVALUATIONS)}, got {evaluations!r}")
    jobs = [(a, reward, int(r), e, n_games, chunk, seed, config)
            for r in replicates for a in algorithms for e in evaluations]
    rows = [row for part in map_ordered(_mirror_trap_job, jobs, workers=workers, chunksize=1)
            for row in part]
    frame = pd.DataFrame(rows)
    games = frame.sente_wins + frame.gote_wins + frame.draws
    frame["sente_share"] = frame.sente_wins / games
    frame["mirror_rate"] = frame.mirror_replies / frame.gote_moves.clip(lower=1)
    return frame
