"""Does the win rate change with elmo's λ? Tests over training runs, as registered in
``data/results/paper/elmo_shogi/PREREGISTRATION.md``.

The unit is the training run: one seed of :mod:`gamelib.experiments.elmo_shogi` (its own
teacher games, split, starting noise and mini-batches; the matches' paired openings are shared by
every seed). From each run ``r`` and opponent ``o`` (the reference evaluation, the initial one),
with :math:`w_{rλ}` the win rate of elmo's loss at λ (decisive games,
:func:`gamelib.experiments.elmo_shogi.match_frame`), the run's least-squares slope on λ

.. math:: b_{ro} = \\frac{\\sum_λ (λ - \\bar λ)(w_{rλ} - \\bar w_r)}{\\sum_λ (λ - \\bar λ)^2}

(exact: the λ of the configuration read as decimals, the win rates as fractions), and the run's
difference :math:`d_r = w_{r,0.5} - w_{r,\\text{Apery}}` against the reference (λ = 0.5, the value
elmo used). The three registered tests, each a two-sided one-sample t-test of H0: mean 0 over the
runs (:func:`gamelib.play.replicate_tests.t_test`, exact p-values), Holm at 1 %:

* ``trend_reference``: the slopes :math:`b_{r,\\text{reference}}`;
* ``trend_initial``: the slopes :math:`b_{r,\\text{initial}}`;
* ``elmo_vs_apery``: the differences :math:`d_r`.

A test decided at 1 % says "rises"/"falls" (trends) or "elmo ahead"/"Apery ahead"; otherwise
"undecided". Beside each verdict: the number of runs, the runs on the positive side, the mean and
standard deviation over runs, the same statistic of the pooled games (all runs' games of a
pairing added), which is descriptive only, and ``runs_needed``: the fewest runs with which the
test, at Holm's strictest threshold (1 %/3, two-sided), would find the observed mean with power
0.8 if the runs scattered as observed (:func:`gamelib.play.replicate_tests.t_power`; empty
beyond 1,000 runs).

``python -m gamelib.experiments.elmo_trend FOLDER... [--out DIR]`` reads the run folders (the
same configuration, distinct seeds), prints the table and writes ``trend_by_run.csv`` and
``trend.csv`` into DIR (default: the folders' common parent). :func:`registered_trend` is the
registered study itself: the paper-profile runs of :data:`REGISTERED_SEEDS`, with no verdict
("interim") until all of them are there.
"""

from __future__ import annotations

import math
from fractions import Fraction
from pathlib import Path
from typing import Sequence

from gamelib.play.replicate_tests import holm, replicates_needed, t_power, t_test

__all__ = ["PREREGISTRATION_COMMIT", "REGISTERED_SEEDS", "ALPHA", "TESTS", "ELMO_LAMBDA", "slope",
           "run_statistics", "trend_tests", "trend_table", "registered_folders", "registered_trend",
           "win_rates", "plot_runs", "heldout_table", "main"]

#: The commit that holds ``data/results/paper/elmo_shogi/PREREGISTRATION.md`` (before the runs).
PREREGISTRATION_COMMIT = "655015d216d7bddf8364ab1af43ff761fb817bbe"
#: The training runs the registration names (seeds of the paper profile with paired openings).
REGISTERED_SEEDS = (0, 1, 2, 3, 4)
#: The family-wise level of the three tests (Holm).
ALPHA = 0.01
#: The registered tests, in order.
TESTS = ("trend_reference", "trend_initial", "elmo_vs_apery")
#: The λ elmo used, compared with Apery's squared error.
ELMO_LAMBDA = "0.5"
_SIDES = {"trend_reference": ("rises", "falls"), "trend_initial": ("rises", "falls"),
          "elmo_vs_apery": ("elmo ahead", "Apery ahead")}


def slope(xs: Sequence[Fraction], ys: Sequence[Fraction]) -> Fraction:
    """The exact least-squares slope of ``ys`` on ``xs`` (two distinct x at least)."""
    n = len(xs)
    if n != len(ys) or len(set(xs)) < 2:
        raise ValueError(f"a slope needs as many x as y and two distinct x, got {list(xs)}")
    mx, my = sum(xs, Fraction(0)) / n, sum(ys, Fraction(0)) / n
    sxx = sum(((x - mx) ** 2 for x in xs), Fraction(0))
    return sum(((x - mx) * (y - my) for x, y in zip(xs, ys)), Fraction(0)) / sxx


def _rate(idx, player: str, opponent: str) -> Fraction:
    """The exact win rate of ``player`` against ``opponent`` (decisive games)."""
    row = idx.loc[(player, opponent)]
    decisive = int(row.wins) + int(row.losses)
    if decisive == 0:
        raise ValueError(f"{player} against {opponent}: no decisive game")
    return Fraction(int(row.wins), decisive)


def _statistics(matches, lambdas: Sequence[str]) -> dict[str, Fraction]:
    """The three statistics of one run's (or the pooled) match table; ``lambdas`` as the losses
    are named (``"0.33"``)."""
    idx = matches.set_index(["player", "opponent"])
    xs = [Fraction(lam) for lam in lambdas]
    out = {f"trend_{opp}": slope(xs, [_rate(idx, f"elmo_{lam}", opp) for lam in lambdas])
           for opp in ("reference", "initial")}
    out["elmo_vs_apery"] = (_rate(idx, f"elmo_{ELMO_LAMBDA}", "reference")
                            - _rate(idx, "apery", "reference"))
    return out


def _runs(folders):
    """``(lambdas, runs)``: the λ of the runs' configuration as their losses are named
    (``"0.33"``, :func:`gamelib.experiments.elmo_shogi.loss_names`) and the runs' ``(seed,
    matches)`` by seed, checked to share one configuration and to have distinct seeds."""
    from gamelib.experiments.elmo_shogi import load_report, loss_names
    from gamelib.runtime.atomic import read_json

    runs, first = [], None
    for folder in folders:
        report, config = load_report(folder)
        seed = int(read_json(Path(folder) / "provenance.json")["seed"])
        if first is None:
            first = config
        elif config != first:
            raise ValueError(f"{folder}: another configuration than {folders[0]} "
                             f"({dict(config)} vs {dict(first)})")
        runs.append((seed, report.matches))
    seeds = [s for s, _ in runs]
    if len(set(seeds)) != len(seeds):
        raise ValueError(f"the runs must have distinct seeds, got {seeds}")
    lambdas = [name.removeprefix("elmo_") for name, (loss, _) in loss_names(first).items()
               if loss == "elmo"]
    if ELMO_LAMBDA not in lambdas:
        raise ValueError(f"the runs have no elmo λ = {ELMO_LAMBDA} to compare with Apery")
    return lambdas, sorted(runs, key=lambda r: r[0])


def _run_statistics(lambdas: Sequence[str], runs):
    """:func:`run_statistics` of loaded runs (:func:`_runs`)."""
    import pandas as pd

    rows = [{"seed": seed, **{k: float(v) for k, v in _statistics(matches, lambdas).items()}}
            for seed, matches in runs]
    return pd.DataFrame(rows, columns=["seed", *TESTS])


def run_statistics(folders):
    """Per run: ``seed`` and the three statistics as floats (a DataFrame, by seed)."""
    return _run_statistics(*_runs(folders))


def trend_tests(folders, alpha: float = ALPHA):
    """The three registered tests over the runs of ``folders`` (:func:`trend_table`)."""
    lambdas, runs = _runs(folders)
    return trend_table([m for _, m in runs], lambdas, alpha)


def trend_table(matches: Sequence, lambdas: Sequence[str], alpha: float = ALPHA):
    """The three tests over runs given by their match tables (``match_frame``'s columns; the λ
    as the losses are named): a DataFrame with ``test, unit, runs, runs_positive, mean, sd,
    pooled, p_two_sided, runs_needed, holm_rejects, verdict``."""
    import pandas as pd

    per_run = [_statistics(m, lambdas) for m in matches]
    cols = ["wins", "draws", "losses"]
    pooled = _statistics(pd.concat(list(matches)).groupby(["player", "opponent"],
                                                          as_index=False)[cols].sum(), lambdas)
    rows = []
    level = alpha / (2 * len(TESTS))         # Holm's strictest threshold, one side of two
    for name in TESTS:
        test = t_test([s[name] for s in per_run])
        p = min(1.0, 2 * min(test.p_greater, test.p_less)) if test.n >= 2 else math.nan
        sd = test.sd if test.n >= 2 else math.nan
        effect = abs(float(test.mean))
        needed = (replicates_needed(lambda n: t_power(effect, sd, n, level))
                  if test.n >= 2 and effect > 0 and sd > 0 else None)
        rows.append({"test": name, "unit": "training run", "runs": test.n,
                     "runs_positive": sum(s[name] > 0 for s in per_run),
                     "mean": float(test.mean), "sd": sd,
                     "pooled": float(pooled[name]), "p_two_sided": p,
                     "runs_needed": math.nan if needed is None else needed})
    rejects = holm([r["p_two_sided"] for r in rows], alpha)
    for r, rejected in zip(rows, rejects):
        up, down = _SIDES[r["test"]]
        r["holm_rejects"] = bool(rejected)
        r["verdict"] = (up if r["mean"] > 0 else down) if rejected else "undecided"
    return pd.DataFrame(rows)


def registered_folders(root=None) -> list[Path]:
    """The finished runs of the registration: ``<root>/seed-<S>`` (default
    ``data/results/paper/elmo_shogi``) for S in :data:`REGISTERED_SEEDS` whose sizes have the
    paired openings (a run made before that size existed, each game with its own opening, is not one of them)."""
    from gamelib.runtime.atomic import read_json
    from gamelib.runtime.paths import repo_root

    root = Path(root) if root is not None else repo_root() / "data/results/paper/elmo_shogi"
    out = []
    for seed in REGISTERED_SEEDS:
        provenance = root / f"seed-{seed}" / "provenance.json"
        if provenance.is_file() and read_json(provenance)["sizes"].get("paired_openings"):
            out.append(provenance.parent)
    return out


def registered_trend(root=None, alpha: float = ALPHA):
    """``(table, folders)``: :func:`trend_tests` over :func:`registered_folders`; while runs are
    missing every verdict reads ``"interim (k of 5 runs): no verdict"``, as registered."""
    folders = registered_folders(root)
    if not folders:
        raise ValueError("no registered elmo run is finished yet")
    table = trend_tests(folders, alpha)
    if len(folders) < len(REGISTERED_SEEDS):
        table["verdict"] = (f"interim ({len(folders)} of {len(REGISTERED_SEEDS)} runs): "
                            f"no verdict")
        table["holm_rejects"] = False
    return table, folders


def win_rates(folders):
    """Per run, loss and opponent: the win rate (decisive games), a DataFrame with ``seed,
    loss, lam, opponent, win_rate`` (``lam`` NaN for Apery)."""
    import pandas as pd

    lambdas, runs = _runs(folders)
    rows = []
    for seed, matches in runs:
        idx = matches.set_index(["player", "opponent"])
        for opp in ("reference", "initial"):
            for lam in lambdas:
                rows.append({"seed": seed, "loss": f"elmo_{lam}", "lam": float(lam),
                             "opponent": opp, "win_rate": float(_rate(idx, f"elmo_{lam}", opp))})
            rows.append({"seed": seed, "loss": "apery", "lam": math.nan, "opponent": opp,
                         "win_rate": float(_rate(idx, "apery", opp))})
    return pd.DataFrame(rows)


def plot_runs(rates, opponent: str, ax=None):
    """Each run's win rate against ``opponent`` on λ (a line per run, its least-squares line
    dashed), Apery's squared error as an open marker at the right; ``rates`` from
    :func:`win_rates`."""
    import matplotlib.pyplot as plt

    if ax is None:
        ax = plt.subplots()[1]
    sel = rates[rates.opponent == opponent]
    lams = sorted(sel.lam.dropna().unique())
    x_apery = max(lams) + 0.25
    for k, (seed, run) in enumerate(sel.groupby("seed")):
        elmo = run.dropna(subset=["lam"]).sort_values("lam")
        colour = f"C{k}"
        ax.plot(elmo.lam, 100 * elmo.win_rate, "o-", color=colour, ms=4, label=f"seed {seed}")
        xs, ys = [Fraction(v) for v in elmo.lam], [100 * Fraction(v) for v in elmo.win_rate]
        b = slope(xs, ys)
        a = float(sum(ys, Fraction(0)) / len(ys) - b * sum(xs, Fraction(0)) / len(xs))
        b = float(b)
        ax.plot([lams[0], lams[-1]], [a + b * lams[0], a + b * lams[-1]], "--", color=colour, lw=0.8)
        ax.plot([x_apery], [100 * run[run.loss == "apery"].win_rate.iloc[0]], "o", mfc="none",
                color=colour)
    ax.set_xticks([*lams, x_apery], [f"{v:g}" for v in lams] + ["Apery"])
    ax.set_xlabel("elmo's λ (and Apery's squared error)")
    ax.set_ylabel(f"win rate against the {opponent} (%)")
    ax.axhline(50, color="grey", lw=0.8, ls=":")
    ax.legend(fontsize=7)
    return ax


def heldout_table(folders):
    """Per loss (rows) and run (columns ``seed S``): the held-out cross-entropy of the results
    with its game-bootstrap 95 % interval, ``"0.4416 [0.4371, 0.4462]"``, from each run's
    ``heldout_intervals.csv`` (:mod:`gamelib.experiments.elmo_heldout`); a run without it shows
    its ``final.csv`` number alone."""
    import pandas as pd

    from gamelib.experiments.elmo_shogi import label
    from gamelib.runtime.atomic import read_json

    runs = sorted(((read_json(Path(f) / "provenance.json")["seed"], Path(f)) for f in folders),
                  key=lambda r: r[0])
    columns = {}
    for seed, folder in runs:
        path = folder / "heldout_intervals.csv"
        if path.is_file():
            iv = pd.read_csv(path).set_index("evaluation")
            col = {n: f"{r.estimate:.4f} [{r.low:.4f}, {r.high:.4f}]" for n, r in iv.iterrows()}
        else:
            final = pd.read_csv(folder / "final.csv").set_index("loss")
            col = {n: f"{v:.4f}" for n, v in final.test_result_xent.items()}
        columns[f"seed {seed}"] = col
    table = pd.DataFrame(columns)
    table.index = [label(n) for n in table.index]
    table.index.name = "loss"
    return table


def main(argv=None) -> int:
    """The command line of the module docstring."""
    from gamelib.runtime import cli
    from gamelib.runtime.report import write_csv

    p = cli.ArgumentParser(prog="python -m gamelib.experiments.elmo_trend",
                           description="elmo's λ: tests over training runs (registered)")
    p.add_argument("folders", nargs="+", type=Path, help="finished elmo_shogi run folders")
    p.add_argument("--out", type=Path, default=None, help="where the CSVs go")
    a = p.parse_args(argv)

    def run() -> int:
        missing = [str(f) for f in a.folders if not (f / "provenance.json").is_file()]
        if missing:
            raise ValueError(f"not a finished elmo_shogi run folder: {', '.join(missing)}")
        lambdas, runs = _runs(a.folders)             # loaded once for both tables
        by_run = _run_statistics(lambdas, runs)
        table = trend_table([m for _, m in runs], lambdas)
        out = a.out or Path(a.folders[0]).resolve().parent
        write_csv(out, "trend_by_run.csv", by_run)
        write_csv(out, "trend.csv", table)
        print(table.to_string(index=False))
        return 0

    return cli.run_guarded(run)


if __name__ == "__main__":
    raise SystemExit(main())
