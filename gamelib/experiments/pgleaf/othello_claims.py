"""The PGLeaf paper's claims on Othello, judged as registered, beside their verdicts on 5×5 shogi.

The study and its tests were fixed before its runs in ``data/results/paper/pgleaf/othello/
PREREGISTRATION.md`` (commit :data:`~gamelib.experiments.pgleaf.othello_unit.PREREGISTRATION_COMMIT`):

* **The tests** are those of :mod:`gamelib.experiments.pgleaf.verdicts` (the training run as the
  unit, one-sided in the paper's direction), for the claims that exist without the non-MDP
  reward: 1a-c, 2, 3, 4 and 5, seven tests in one family under Holm's step-down at family-wise
  1 %. Claims 6, 7 and 8 need the non-MDP reward, whose bonus counts pieces around a king: they
  are "not applicable" on Othello.
* **The unit of evaluation** ``c`` was calibrated by a rule (:mod:`~gamelib.experiments.pgleaf.
  othello_unit`); because that is our choice, the runs at c/4 and 4c (10,000 games) judge claims
  1b and 5 again, and a claim whose verdict changes across the three units "depends on the unit".
* **Across games**, each claim's Othello verdict (unit c) stands beside its verdict under the
  book's lead 5×5 shogi configuration (``closest/seed-*``, every seed pooled), read as one of
  "holds on both", "holds on 5×5 shogi only", "holds on Othello only", "contradicted on …",
  "undecided on both" (:func:`reading`).
* **Self-play health** (reported, not tested): after 10,000 and 100,000 games, black's share of
  the decisive games and the mean length of the 1,000 self-play games up to the point
  (``training.csv``), and the sharpness of each run's policy at its saved parameters
  (:func:`gamelib.learn.selfplay.policy_sharpness` over the calibration's 200 seeds: the mean
  probability of the move played and the policy's entropy as a fraction of the uniform's).

``python -m gamelib.experiments.pgleaf.othello_claims [--root DIR]`` writes ``claims.csv``
(every unit's verdicts, columns of :data:`~gamelib.experiments.pgleaf.verdicts.COLUMNS` and
``evaluation_unit``), ``across_games.csv`` and ``health.csv`` into ``othello/`` (atomically).
"""

from __future__ import annotations

from pathlib import Path

from gamelib.experiments.pgleaf import othello_unit
from gamelib.experiments.pgleaf.verdicts import (COLUMNS, claim_verdicts, configuration_folders,
                                                 configuration_label, pooled_report)

__all__ = ["UNITS", "REGISTERED", "LEAD", "NOT_APPLICABLE", "SENSITIVE", "HEALTH_POINTS",
           "othello_verdicts", "reading", "across_games", "health", "main"]

#: The registered runs: the unit's label -> :func:`othello_unit.run_folder`'s ``unit``.
UNITS = {"c": "c", "c/4": "c-over-4", "4c": "4c"}
#: The ``registered`` column of every Othello verdict.
REGISTERED = "claims and replicate unit before the data"
#: The 5×5 shogi configuration the Othello verdicts stand beside (the book's lead one).
LEAD = "closest/seed-*"
#: Why claims 6-8 are not tested on Othello.
NOT_APPLICABLE = "not applicable (no non-MDP reward on Othello)"
#: The claims judged again at the alternative units (the claims at 10,000 games).
SENSITIVE = ("1b", "5")
#: The self-play games after which the health is reported.
HEALTH_POINTS = (10_000, 100_000)
_GAMES = {"minishogi": "5×5 shogi", "othello": "Othello"}


def _root(root) -> Path:
    from gamelib.runtime.paths import results_dir

    return Path(results_dir("paper", "pgleaf") if root is None else root)


def _folders(root) -> dict[str, Path]:
    """``{unit label: run folder}`` of the registered runs that are finished."""
    out = {}
    for label, unit in UNITS.items():
        folder = othello_unit.run_folder(unit, 0, root)
        if (folder / "provenance.json").is_file():
            out[label] = folder
    return out


def _othello_label(config, unit: str) -> str:
    """E.g. "Othello, evaluation unit c, TD β=47.4 (T_eff 0.384)" (Othello's evaluation has no
    sides to tie: the layout of :func:`configuration_label` does not apply)."""
    return f"Othello, evaluation unit {unit}, " + configuration_label(config).split(", ", 1)[1]


def othello_verdicts(root=None, alpha: float = 0.01):
    """Every finished registered run's seven verdicts (its own family, Holm at ``alpha``), with
    an ``evaluation_unit`` column (``c``, ``c/4``, ``4c``), the unit c's first; ``FileNotFoundError`` when the unit c's run is not
    finished."""
    import pandas as pd

    root = _root(root)
    folders = _folders(root)
    if "c" not in folders:
        raise FileNotFoundError(f"no finished Othello run at the unit c in "
                                f"{othello_unit.run_folder('c', 0, root)}")
    frames = []
    for label, folder in folders.items():
        report, config = pooled_report([folder])
        frame = claim_verdicts(report, config, _othello_label(config, label), alpha, REGISTERED)
        frame.insert(0, "evaluation_unit", label)
        frames.append(frame)
    return pd.concat(frames, ignore_index=True)[["evaluation_unit", *COLUMNS]]


def _lead_verdicts(root, alpha):
    folders = configuration_folders(root).get(LEAD)
    if not folders:
        raise FileNotFoundError(f"no finished run of the lead 5×5 shogi configuration "
                                f"{root / LEAD}")
    report, config = pooled_report(folders)
    return claim_verdicts(report, config, configuration_label(config), alpha, "")


def reading(shogi: str, othello: str) -> str:
    """One claim's two verdicts (``reproduced``/``contradicted``/``undecided``, or
    :data:`NOT_APPLICABLE` on Othello) read across the games."""
    if othello == NOT_APPLICABLE:
        return "5×5 shogi only: " + ("holds there" if shogi == "reproduced" else shogi + " there")
    verdicts = {"5×5 shogi": shogi, "Othello": othello}
    against = [g for g, v in verdicts.items() if v == "contradicted"]
    holds = [g for g, v in verdicts.items() if v == "reproduced"]
    if len(against) == 2:
        return "contradicted on both"
    if against:
        other = "Othello" if against[0] == "5×5 shogi" else "5×5 shogi"
        return f"contradicted on {against[0]}, " + (
            f"holds on {other}" if holds else f"undecided on {other}")
    if len(holds) == 2:
        return "holds on both"
    if holds:
        other = "Othello" if holds[0] == "5×5 shogi" else "5×5 shogi"
        return f"holds on {holds[0]} only (undecided on {other})"
    return "undecided on both"


def _label(claim: str) -> str:
    return claim.split(" ", 1)[0]


def across_games(root=None, alpha: float = 0.01, othello=None):
    """A row per claim of the lead 5×5 shogi configuration: its verdict and Othello's (unit c),
    their p-values and runs on the claimed side, :func:`reading`, and for the claims of
    :data:`SENSITIVE` the verdicts at c/4 and 4c with ``depends_on_unit``. ``othello``: the
    table of :func:`othello_verdicts` if already computed."""
    import pandas as pd

    root = _root(root)
    shogi = _lead_verdicts(root, alpha)
    othello = othello_verdicts(root, alpha) if othello is None else othello
    by_unit = {u: {_label(r.claim): r for r in f.itertuples()} for u, f in othello.groupby("evaluation_unit")}
    rows = []
    for s in shogi.itertuples():
        label = _label(s.claim)
        o = by_unit["c"].get(label)
        row = {"claim": s.claim, "shogi_verdict": s.verdict, "shogi_p": s.p_value,
               "shogi_runs_for": f"{s.replicates_for}/{s.replicates}",
               "othello_verdict": o.verdict if o else NOT_APPLICABLE,
               "othello_p": o.p_value if o else None,
               "othello_runs_for": f"{o.replicates_for}/{o.replicates}" if o else "",
               "othello_statistic": o.statistic if o else None}
        row["reading"] = reading(s.verdict, row["othello_verdict"])
        if label in SENSITIVE:
            units = {u: by_unit[u][label].verdict for u in UNITS if u in by_unit
                     and label in by_unit[u]}
            row["verdict_c_over_4"] = units.get("c/4", "")
            row["verdict_4c"] = units.get("4c", "")
            row["depends_on_unit"] = (len(set(units.values())) > 1) if len(units) == len(UNITS) \
                else None
        rows.append(row)
    return pd.DataFrame(rows)


def health(root=None, points=HEALTH_POINTS, games: int = othello_unit.GAMES):
    """Each run's self-play health after each point of ``points`` it reached (module
    docstring): ``evaluation_unit, algorithm, replicate, games``, black's share of the games and their
    mean plies (:func:`~gamelib.experiments.pgleaf.analysis.selfplay_health`), and
    ``chosen_prob, entropy_fraction`` of the policy at the saved parameters
    (:func:`~gamelib.learn.selfplay.policy_sharpness` over ``games`` calibration seeds)."""
    import pandas as pd

    from gamelib.experiments.pgleaf.analysis import selfplay_health
    from gamelib.experiments.pgleaf.config import RunSpec, settings_of
    from gamelib.experiments.pgleaf.report import load_report
    from gamelib.experiments.pgleaf.training import saved_theta
    from gamelib.games import registry
    from gamelib.learn.selfplay import policy_sharpness

    seeds = othello_unit.calibration_seeds(games)
    frames = []
    for label, folder in _folders(_root(root)).items():
        report, config = load_report(folder)
        game = registry.get(config.game)
        for point in (p for p in points if p in config.keep_points):
            thetas = saved_theta(folder / "theta", config, 0, point)
            frame = selfplay_health(report.training, point)
            runs = [RunSpec(r.algorithm, r.reward, int(r.replicate)) for r in frame.itertuples()]
            sharp = [policy_sharpness(thetas[run.key], settings_of(run, config), seeds, game)
                     for run in runs]
            frame = frame.rename(columns={"sente_share": "black_share"}).drop(
                columns=["mirror_rate", "reward"])
            frame.insert(0, "evaluation_unit", label)
            frame.insert(3, "games", point)
            frame["chosen_prob"] = [s["chosen_prob"] for s in sharp]
            frame["entropy_fraction"] = [s["entropy_fraction"] for s in sharp]
            frames.append(frame)
    columns = ["evaluation_unit", "algorithm", "replicate", "games", "black_share", "mean_plies",
               "chosen_prob", "entropy_fraction"]
    return pd.concat(frames, ignore_index=True)[columns] if frames else pd.DataFrame(
        columns=columns)


def main(argv: list[str] | None = None) -> int:
    """``python -m gamelib.experiments.pgleaf.othello_claims [--root DIR] [--alpha A]``."""
    from gamelib.runtime import cli
    from gamelib.runtime.report import write_csv

    parser = cli.ArgumentParser(prog="python -m gamelib.experiments.pgleaf.othello_claims",
                                description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", type=Path, default=None,
                        help="the PGLeaf results folder (default data/results/paper/pgleaf)")
    parser.add_argument("--alpha", type=float, default=0.01)
    args = parser.parse_args(argv)

    def run() -> int:
        root = _root(args.root)
        verdicts = othello_verdicts(root, args.alpha)
        across = across_games(root, args.alpha, verdicts)
        fit = health(root)
        out = root / "othello"
        write_csv(out, "claims.csv", verdicts)
        write_csv(out, "across_games.csv", across)
        write_csv(out, "health.csv", fit)
        print(across[["claim", "shogi_verdict", "othello_verdict", "reading"]]
              .to_string(index=False))
        return 0

    return cli.run_guarded(run)


if __name__ == "__main__":
    raise SystemExit(main())
