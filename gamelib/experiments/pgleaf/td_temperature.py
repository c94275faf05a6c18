"""The TD learners' squashing scale and temperature as a studied choice (pre-registered).

With θ′ = βθ, TD(λ) and TDLeaf(λ) at squashing scale β (``tanh(β v)``), step α/β² and
temperature T are the learners at β = 1 with step α and the *effective temperature*
``T_eff = β T`` -- except that their starting weights and the evaluation games' noise scale by
β (and the search's constant game-end scores do not; :mod:`gamelib.learn.td`,
``tests/learn_rl/test_td_scale_equivalence.py``). The antisymmetric layout's five-replicate run
(:mod:`~gamelib.experiments.pgleaf.closest`: β = 12.8, T = 0.03) is thus T_eff = 0.384, 12.8
times the paper's T. This study runs the TD learners at β = 1 and α = 0.001 with T_eff from the
paper's literal 0.03 up to 0.384 (:data:`POINTS`), MDP reward, the antisymmetric layout, 10,000
self-play games × 5 replicates, and measures self-play health and strength. Its grid, tests and
decision rule were committed before any run (``data/results/paper/pgleaf/td_temperature/
PREREGISTRATION.md``, commit :data:`PREREGISTRATION_COMMIT`)::

    python -m gamelib.experiments.pgleaf.td_temperature run teff=0.03 [--workers N]
    python -m gamelib.experiments.pgleaf.td_temperature versus teff=0.03 [--workers N]
    python -m gamelib.experiments.pgleaf.td_temperature table     # the tables, tests, decision
    python -m gamelib.experiments.pgleaf.td_temperature list      # the runner's commands

``run`` is an ordinary ``pgleaf`` run with ``-p`` overrides in
``data/results/paper/pgleaf/td_temperature/<point>/seed-<seed>`` (resumable, deterministic);
``versus`` plays the claims' head-to-head pairings against the antisymmetric-layout run's (β = 12.8) PGLeaf and
REINFORCE of the same replicate (resumable, ``versus.csv``). The point ``closest`` is not rerun:
its runs are the antisymmetric-layout run's (β = 12.8) TD runs (same settings, initial θ and game seeds), read from
``closest/seed-<seed>``.

Measured per run (:func:`run_table`): self-play health at 10,000 games -- sente's share of the
last 1,000 self-play games, their mean length, draws, the mirror rate
(:func:`~gamelib.experiments.pgleaf.analysis.selfplay_health`), and the sharpness of the policy
with θ after 10,000 games held fixed over :data:`HEALTH_GAMES` games
(:func:`gamelib.learn.selfplay.policy_sharpness`: the mean probability of the move played,
``chosen_prob``, and the mean ``H(π)/log n``, ``entropy_fraction``) -- and the win rates (draws
left out) against the reference and in the head-to-heads. :func:`test_table` holds the
pre-registered family of t-tests with the training run as the unit (Holm at 1 %),
:func:`decision` the pre-registered rule.
"""

from __future__ import annotations

import json
import math
import shlex
import sys
from fractions import Fraction
from pathlib import Path

from gamelib.experiments.pgleaf.closest import CLOSEST, closest_folder, closest_sizes
from gamelib.experiments.pgleaf.config import (PROFILES, PGLeafConfig, RunSpec, profile_config,
                                               runs_of, settings_of, train_config)
from gamelib.runtime.paths import results_dir

__all__ = ["POINTS", "PREREGISTRATION_COMMIT", "GAMES", "HEALTH_GAMES", "VERSUS_GAMES",
           "HEALTHY", "point_sizes", "point_folder", "point_argv", "health", "versus",
           "run_table", "test_table", "decision", "write_tables"]

#: The commit that holds ``PREREGISTRATION.md`` (before any run of the study).
PREREGISTRATION_COMMIT = "7b34207d3b5da8960d0245113bc9275410c07028"
#: Self-play games per run.
GAMES = 10_000
#: Games per run of the policy-sharpness replay.
HEALTH_GAMES = 200
#: Games per head-to-head pairing and replicate (half of them as sente).
VERSUS_GAMES = 50
#: The grid, in the order the points are run: name -> (β, T). T_eff = β T; the TD step is
#: 0.001/β² (the paper's α at β = 1). ``closest`` is the antisymmetric-layout run's (β = 12.8) TD runs.
POINTS = {"teff=0.03": (1.0, 0.03), "teff=0.12": (1.0, 0.12), "teff=0.384": (1.0, 0.384),
          "closest": (CLOSEST["beta"], 0.03)}
#: The head-to-head pairings the claims name: (claim, learner, its games, opponent, its games).
PAIRINGS = (("2", "tdleaf", 1000, "pgleaf", 1000), ("3", "tdleaf", GAMES, "pgleaf", GAMES),
            ("4", "td", GAMES, "reinforce", GAMES))
#: The pre-registered health thresholds of one replicate.
HEALTHY = {"sente_share": (0.35, 0.65), "mirror_rate": (0.0, 0.05), "draw_share": (0.0, 0.01),
           "entropy_fraction": (0.0, 0.80), "chosen_prob": (0.25, 1.0)}
#: Family-wise level of the tests (Holm).
ALPHA = 0.01
_TD = ["tdleaf", "td"]


def _check_point(point: str) -> None:
    if point not in POINTS:
        raise ValueError(f"unknown point {point!r}; valid: {', '.join(POINTS)}")


def point_sizes(point: str) -> PGLeafConfig:
    """The ``paper`` configuration of a grid point (for ``closest``: the antisymmetric-layout
    run's (β = 12.8))."""
    _check_point(point)
    if point == "closest":
        return closest_sizes()
    beta, temperature = POINTS[point]
    paper = PROFILES["paper"]
    return profile_config("paper", tie_sides=True, temperature=temperature, algorithms=_TD,
                          rewards=["mdp"], replicates=5, n_games=GAMES,
                          keep_points=[p for p in paper["keep_points"] if p <= GAMES],
                          table_points=[GAMES], curve_points=[GAMES], gauntlet_games=100,
                          round_robin_games=2, **({"beta": beta, "td_alpha": 0.001 / beta ** 2}
                                                  if beta != 1.0 else {}))


def _root(root) -> Path:
    return results_dir("paper", "pgleaf") if root is None else Path(root)


def point_folder(point: str, seed: int = 0, root=None) -> Path:
    """``.../pgleaf/td_temperature/<point>/seed-<seed>``; for ``closest`` the antisymmetric-layout run's (β = 12.8)
    folder (``root``: instead of ``data/results/paper/pgleaf``)."""
    _check_point(point)
    if point == "closest":
        return closest_folder(seed, root)
    return _root(root) / "td_temperature" / point / f"seed-{seed}"


def point_argv(point: str, seed: int = 0) -> list[str]:
    """The arguments of ``python -m gamelib.experiments`` that run (or resume) a β = 1 point."""
    if point == "closest":
        raise ValueError("the point 'closest' is the antisymmetric-layout run's (β = 12.8) TD runs, not rerun")
    paper = PROFILES["paper"]
    argv = ["pgleaf", "--profile", "paper", "--seed", str(seed),
            "--out", str(point_folder(point, seed))]
    for key, value in point_sizes(point).items():
        if paper.get(key, object()) != value:
            argv += ["-p", key, json.dumps(value)]
    return argv


def _td_runs(config: PGLeafConfig) -> list[RunSpec]:
    return [run for run in runs_of(config) if run.algorithm in _TD and run.reward == "mdp"]


def _trained(point: str, seed: int, root, games: int = GAMES):
    """``(configuration, training frame up to games, {run key: θ after games})`` of a point: from its
    report files when it is finished, else from its training stage's kept checkpoint (the
    training done, the matches not yet)."""
    from gamelib.experiments.pgleaf.report import load_report, training_frame
    from gamelib.experiments.pgleaf.training import saved_theta, trained_theta
    from gamelib.runtime.checkpoint import CheckpointStore

    folder = point_folder(point, seed, root)
    if (folder / "provenance.json").is_file():
        report, config = load_report(folder)
        try:
            return config, report.training, saved_theta(folder / "theta", config, seed, games)
        except FileNotFoundError:    # a point the report does not save (1,000 games)
            return config, report.training, trained_theta(folder / "train", config, seed, games)
    if not (folder / "train" / "manifest.json").is_file():
        raise FileNotFoundError(f"{folder} holds no training of the point {point!r}")
    config = point_sizes(point)
    with CheckpointStore(folder / "train", {"config": train_config(config), "seed": seed}) as st:
        arrays = st.load(tag=f"batch-{games // config.M}").arrays
    return config, training_frame(arrays, config), trained_theta(folder / "train", config, seed,
                                                                 games)


def health(point: str, seed: int = 0, games: int = HEALTH_GAMES, root=None):
    """Self-play health of every TD run of a finished point after :data:`GAMES` games: the
    training's statistics over the last 1,000 games and the policy's sharpness over ``games``
    games with θ held fixed (game i of run k: seed ``derive_seed(seed, "td-temperature",
    "health", k, i, bits=32)``). One row per run."""
    import pandas as pd

    from gamelib.experiments.pgleaf.analysis import selfplay_health
    from gamelib.learn.selfplay import policy_sharpness
    from gamelib.runtime.seeds import derive_seed

    config, training, thetas = _trained(point, seed, root)
    h = selfplay_health(training, GAMES).set_index(["algorithm", "reward", "replicate"])
    last = training[(training.games > GAMES - 1000) & (training.games <= GAMES)]
    draws = last.groupby(["algorithm", "reward", "replicate"])[["sente_wins", "gote_wins",
                                                               "draws"]].sum()
    rows = []
    for run in _td_runs(config):
        key = (run.algorithm, run.reward, run.replicate)
        seeds = [derive_seed(seed, "td-temperature", "health", run.key, i, bits=32)
                 for i in range(games)]
        sharp = policy_sharpness(thetas[run.key], settings_of(run, config), seeds)
        d = draws.loc[key]
        rows.append({"point": point, "algorithm": run.algorithm, "replicate": run.replicate,
                     "sente_share": h.loc[key, "sente_share"],
                     "mean_plies": h.loc[key, "mean_plies"],
                     "mirror_rate": h.loc[key, "mirror_rate"],
                     "draw_share": d.draws / max(d.sente_wins + d.gote_wins + d.draws, 1),
                     "chosen_prob": sharp["chosen_prob"],
                     "entropy_fraction": sharp["entropy_fraction"]})
    return pd.DataFrame(rows)


def versus(point: str, seed: int = 0, games: int = VERSUS_GAMES, *, root=None,
           workers: int | None = None, scheduler=None, progress: bool = False):
    """Play (or resume) the head-to-head pairings of :data:`PAIRINGS` of a finished β = 1 point
    against the antisymmetric-layout run's (β = 12.8) PGLeaf and REINFORCE of the same replicate (MDP), ``games`` games
    each with colours alternating and the ``paper`` profile's evaluation protocol; game g of
    pairing (a, b) has the seed ``derive_seed(derive_seed(seed, "td-temperature", point,
    "versus"), "game", a, b, g)``. Writes ``versus.csv`` (one row per game: ``claim, algorithm,
    replicate, game, first`` (1 if the TD learner moved first), ``score`` (+1 it won, 0 a draw,
    -1 it lost)) into the point's folder, and the parameters it plays that the report did not
    save into its ``theta/``, and returns it."""
    import pandas as pd

    from gamelib.games.minishogi import features as ev
    from gamelib.experiments.pgleaf.matches import match_settings
    from gamelib.experiments.pgleaf.training import saved_theta, theta_file
    from gamelib.play.shogi import play_games
    from gamelib.runtime.report import write_csv
    from gamelib.runtime.seeds import derive_seed

    if point == "closest":
        raise ValueError("the point 'closest' has its head-to-heads in the antisymmetric-layout run's (β = 12.8) "
                         "round-robin")
    folder = point_folder(point, seed, root)
    match = match_settings(profile_config("paper"))
    mine = {g: _trained(point, seed, root, g)[2] for g in (1000, GAMES)}
    config = point_sizes(point)
    (folder / "theta").mkdir(parents=True, exist_ok=True)
    for g, thetas in mine.items():      # the parameters played, beside the report's
        for run in _td_runs(config):
            if not (folder / "theta" / theta_file(run, g)).is_file():
                ev.save_theta(folder / "theta" / theta_file(run, g), thetas[run.key])
    theirs = {g: saved_theta(closest_folder(seed, root) / "theta", closest_sizes(), seed, g)
              for g in (1000, GAMES)}
    players, pairings = {}, []
    for claim, learner, g_mine, opponent, g_theirs in PAIRINGS:
        for rep in range(config.replicates):
            a = f"{point}:{learner}/mdp/{rep}@{g_mine}"
            b = f"closest:{opponent}/mdp/{rep}@{g_theirs}"
            players[a] = match.player(mine[g_mine][f"{learner}/mdp/{rep}"])
            players[b] = match.player(theirs[g_theirs][f"{opponent}/mdp/{rep}"])
            pairings.append((a, b))
    claim_of = {learner: {} for _, learner, _, _, _ in PAIRINGS}
    for claim, learner, g_mine, opponent, _ in PAIRINGS:
        claim_of[learner][(g_mine, opponent)] = claim
    result = play_games(players, pairings, games, derive_seed(seed, "td-temperature", point,
                                                              "versus"),
                        max_plies=match.max_plies, opening_plies=match.opening_plies,
                        paired_openings=True, folder=folder / "versus", workers=workers,
                        scheduler=scheduler, progress=progress)
    rows = []
    for spec, outcome in zip(result.games, result.outcomes):
        mine_name, their_name = spec.pairing
        learner, _, rep_games = mine_name.split(":")[1].split("/")
        rep, g_mine = (int(x) for x in rep_games.split("@"))
        opponent = their_name.split(":")[1].split("/")[0]
        first = spec.first == mine_name
        rows.append({"claim": claim_of[learner][(g_mine, opponent)], "algorithm": learner,
                     "replicate": rep, "game": spec.round, "first": int(first),
                     "score": int(outcome) if first else -int(outcome)})
    frame = pd.DataFrame(rows, columns=["claim", "algorithm", "replicate", "game", "first",
                                        "score"])
    write_csv(folder, "versus.csv", frame)
    return frame


def _rate(wins: int, losses: int) -> Fraction | None:
    return Fraction(wins, wins + losses) if wins + losses else None


def _strength(point: str, seed: int, root) -> dict:
    """``{(algorithm, replicate): {measure: (wins, losses)}}``: against the reference after
    :data:`GAMES` games (the gauntlet) and in the claims' head-to-heads (``claim2`` ..)."""
    import pandas as pd

    from gamelib.experiments.pgleaf.report import load_report

    folder = point_folder(point, seed, root)
    out = {(run.algorithm, run.replicate): {} for run in _td_runs(point_sizes(point))}
    if not (folder / "provenance.json").is_file():    # matches not finished: none yet
        return out
    report, _ = load_report(folder)
    g = report.gauntlet
    for row in g[(g.games == GAMES) & (g.reward == "mdp")].itertuples(index=False):
        if (row.algorithm, row.replicate) in out:
            out[(row.algorithm, row.replicate)]["reference"] = (int(row.wins), int(row.losses))
    if point == "closest":
        rr = report.round_robin
        for claim, learner, g_mine, opponent, _ in PAIRINGS:
            sel = rr[(rr.games == g_mine) & (rr.player == learner) & (rr.opponent == opponent)]
            for row in sel.itertuples(index=False):
                out[(learner, int(row.replicate))][f"claim{claim}"] = (int(row.wins),
                                                                       int(row.losses))
    elif (folder / "versus.csv").is_file():
        v = pd.read_csv(folder / "versus.csv", dtype={"claim": str})
        for (claim, learner, rep), games in v.groupby(["claim", "algorithm", "replicate"]):
            out[(learner, int(rep))][f"claim{claim}"] = (int((games.score == 1).sum()),
                                                        int((games.score == -1).sum()))
    return out


def run_table(seed: int = 0, root=None, points=None):
    """One row per TD run of every point whose training is done: the health columns of
    :func:`health`, ``healthy`` (every threshold of :data:`HEALTHY` met), and per strength
    measure (``reference``, ``claim2``, ``claim3``, ``claim4``) its wins, losses and win rate
    (NaN until the point's matches are played)."""
    import pandas as pd

    frames = []
    for point in points or _trained_points(seed, root):
        h = health(point, seed, root=root)
        strength = _strength(point, seed, root)
        for measure in ("reference", "claim2", "claim3", "claim4"):
            wl = [strength[(a, r)].get(measure) for a, r in zip(h.algorithm, h.replicate)]
            h[f"wins_{measure}"] = [x[0] if x else math.nan for x in wl]
            h[f"losses_{measure}"] = [x[1] if x else math.nan for x in wl]
            h[f"rate_{measure}"] = [float(_rate(*x)) if x and _rate(*x) is not None
                                    else math.nan for x in wl]
        h["healthy"] = [all(lo <= row[k] <= hi for k, (lo, hi) in HEALTHY.items())
                        for _, row in h.iterrows()]
        beta, temperature = POINTS[point]
        h.insert(1, "beta", beta)
        h.insert(2, "temperature", temperature)
        h.insert(3, "t_eff", round(beta * temperature, 12))
        frames.append(h)
    return pd.concat(frames, ignore_index=True)


def _trained_points(seed: int, root) -> list[str]:
    """The points whose training is done (finished runs, or the last checkpoint kept)."""
    done = []
    for point in POINTS:
        try:
            _trained(point, seed, root)
        except (FileNotFoundError, ValueError):
            continue
        done.append(point)
    return done


def _values(table, point, algorithm, measure) -> list[Fraction]:
    sel = table[(table.point == point) & (table.algorithm == algorithm)].sort_values("replicate")
    return [Fraction(int(w), int(w) + int(l)) for w, l in zip(sel[f"wins_{measure}"],
                                                              sel[f"losses_{measure}"])
            if not (math.isnan(w) or math.isnan(l)) and w + l > 0]


def test_table(table, alpha: float = ALPHA):
    """The pre-registered family: per learner and β = 1 point, the paired t-test of the win rate
    against the reference minus closest's (by replicate); per point, the one-sample t-test of
    each claim's head-to-head win rate against 1/2; two-sided p-values, Holm at ``alpha`` over
    the whole family. Columns: ``test, point, algorithm, measure, n, mean, sd, min, max,
    pooled_rate, p_value, decided, direction``."""
    import pandas as pd

    from gamelib.play.replicate_tests import holm, t_test

    points = list(dict.fromkeys(table.point))
    rows = []

    def add(test, point, algorithm, measure, values, mu0, pooled):
        t = t_test(values, mu0)
        p = min(1.0, 2 * min(t.p_greater, t.p_less)) if t.n >= 2 else math.nan
        rows.append({"test": test, "point": point, "algorithm": algorithm, "measure": measure,
                     "n": t.n, "mean": float(t.mean), "sd": t.sd if t.n >= 2 else math.nan,
                     "min": float(min(values)) if values else math.nan,
                     "max": float(max(values)) if values else math.nan,
                     "pooled_rate": pooled, "p_value": p})

    def pooled(point, algorithm, measure):
        sel = table[(table.point == point) & (table.algorithm == algorithm)]
        w, l = sel[f"wins_{measure}"].sum(), sel[f"losses_{measure}"].sum()
        return w / (w + l) if w + l else math.nan

    if "closest" in points:
        for point in [p for p in points if p != "closest"]:
            for algorithm in _TD:
                a = _values(table, point, algorithm, "reference")
                b = _values(table, "closest", algorithm, "reference")
                if len(a) == len(b):
                    add("paired t vs closest", point, algorithm, "reference",
                        [x - y for x, y in zip(a, b)], 0,
                        pooled(point, algorithm, "reference") - pooled("closest", algorithm,
                                                                        "reference"))
    for point in points:
        for claim, learner, _, _, _ in PAIRINGS:
            values = _values(table, point, learner, f"claim{claim}")
            if values:
                add("one-sample t vs 1/2", point, learner, f"claim{claim}", values,
                    Fraction(1, 2), pooled(point, learner, f"claim{claim}"))
    frame = pd.DataFrame(rows)
    frame["decided"] = holm(list(frame.p_value), alpha)
    centre = [0.0 if test.startswith("paired") else 0.5 for test in frame.test]
    frame["direction"] = ["" if not d else ("higher" if m > c else "lower")
                          for d, m, c in zip(frame.decided, frame["mean"], centre)]
    return frame


def decision(table) -> dict:
    """The pre-registered rule: which point is run to 100,000 games. A (point, learner) is
    healthy when at least 4 of its 5 replicates meet every threshold of :data:`HEALTHY`; the
    pick is the β = 1 point of smallest T_eff healthy for both learners, else ``closest`` if it
    is, else the point with the most healthy (learner, replicate) pairs (ties: smaller T_eff),
    labelled ``"no healthy setting"``."""
    healthy = {}
    for (point, algorithm), g in table.groupby(["point", "algorithm"], sort=False):
        healthy[(point, algorithm)] = int(g.healthy.sum())
    points = list(dict.fromkeys(table.point))
    both = [p for p in points if all(healthy.get((p, a), 0) >= 4 for a in _TD)]
    beta_one = sorted((p for p in both if POINTS[p][0] == 1.0), key=lambda p: POINTS[p][1])
    if beta_one:
        pick, why = beta_one[0], "smallest T_eff at beta 1 healthy for both learners"
    elif "closest" in both:
        pick, why = "closest", "no beta 1 point healthy for both learners; closest is"
    else:
        def score(p):
            return (-sum(healthy.get((p, a), 0) for a in _TD), math.prod(POINTS[p]))

        pick, why = min(points, key=score), "no healthy setting"
    return {"pick": pick, "why": why,
            "healthy_replicates": {f"{p}/{a}": n for (p, a), n in healthy.items()}}


def write_tables(seed: int = 0, root=None) -> list[Path]:
    """``runs.csv``, ``tests.csv`` and ``decision.json`` in ``.../pgleaf/td_temperature``."""
    from gamelib.runtime.atomic import atomic_write_text
    from gamelib.runtime.report import write_csv

    out = _root(root) / "td_temperature"
    table = run_table(seed, root)
    tests = test_table(table)
    paths = [write_csv(out, "runs.csv", table), write_csv(out, "tests.csv", tests)]
    atomic_write_text(out / "decision.json", json.dumps(decision(table), indent=2) + "\n")
    return paths + [out / "decision.json"]


def main(argv: list[str] | None = None) -> int:
    from gamelib.runtime import cli

    parser = cli.ArgumentParser(prog="python -m gamelib.experiments.pgleaf.td_temperature",
                                description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    beta_one = [p for p in POINTS if p != "closest"]
    p_run = sub.add_parser("run", help="run (or resume) one beta 1 point")
    p_vs = sub.add_parser("versus", help="play (or resume) a finished point's head-to-heads")
    for p in (p_run, p_vs):
        p.add_argument("point", choices=beta_one)
        p.add_argument("--seed", type=int, default=0)
        p.add_argument("--workers", type=int, default=None)
    p_vs.add_argument("--no-progress", action="store_true")
    sub.add_parser("list", help="print the runner's command of every beta 1 point")
    p_table = sub.add_parser("table", help="write runs.csv, tests.csv and decision.json")
    p_table.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    if args.command == "list":
        for point in beta_one:
            print("python -m gamelib.experiments " + shlex.join(point_argv(point)))
        return 0
    if args.command == "table":
        for path in write_tables(args.seed):
            print(f"wrote {path}")
        return 0
    if args.command == "versus":
        from gamelib.experiments.cli import run_guarded

        def command() -> int:
            frame = versus(args.point, args.seed, workers=args.workers,
                           progress=not args.no_progress)
            print(f"{len(frame)} games in {point_folder(args.point, args.seed) / 'versus.csv'}")
            return 0

        return run_guarded(command)
    from gamelib.experiments.cli import main as cli_main

    argv = point_argv(args.point, args.seed)
    if args.workers is not None:
        argv += ["--workers", str(args.workers)]
    return cli_main(argv)


if __name__ == "__main__":
    sys.exit(main())
