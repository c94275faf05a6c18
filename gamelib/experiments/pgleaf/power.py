"""How many replicates (training runs) each of the paper's claims needs to be decided: a power
calculation from the observed between-replicate spread, and the command that writes the two
tables of :mod:`~gamelib.experiments.pgleaf.verdicts`::

    python -m gamelib.experiments.pgleaf.power table [--root DIR]

writes ``claims_by_configuration.csv`` (the verdicts), ``replicates_needed.csv`` (this
module's table) and, once its run is there, ``claims_confirmatory.csv`` (the pre-registered
confirmatory set judged alone, :func:`~gamelib.experiments.pgleaf.verdicts.confirmatory_verdicts`)
into ``data/results/paper/pgleaf``.

Taking a claim's observed per-replicate mean (``effect``: the mean win rate minus 1/2, or the
mean difference of win rates) and standard deviation (``sd``) as the truth, the power of its
t-test with n replicates is that of :func:`gamelib.play.replicate_tests.t_power` (the
noncentral t); for claim 8, when the mean difference lies within the ±10-point margin, the bound
of :func:`~gamelib.play.replicate_tests.tost_power`. Holm's correction in a family of m tests at
α rejects the first claim at α/m and the last at α: the number of replicates a claim needs lies
between those the two levels give.
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

from gamelib.experiments.pgleaf.verdicts import (CONFIGURATIONS, claim_tests,
                                                 claims_by_configuration, configuration_folders,
                                                 configuration_label, confirmatory_verdicts,
                                                 pooled_report)
from gamelib.play.replicate_tests import replicates_needed, t_power, t_test, tost_power

__all__ = ["POWER", "MOST_REPLICATES", "claim_power", "replicates_needed_table", "main"]

#: The power planned for.
POWER = 0.8
#: More replicates than this are reported as "more" (empty).
MOST_REPLICATES = 1000


def claim_power(test: dict, family: int, alpha: float) -> dict:
    """How many replicates the claim's test needs to decide in the direction its replicates
    point, at Holm's first threshold ``alpha / family`` and at its last, ``alpha``."""
    values = test["values"]
    spread = t_test(values, test["null"])
    n, sd = spread.n, spread.sd
    if test["test"] == "paired t equivalence":
        margin = float(test["null"])
        d = float(spread.mean)
        if abs(d) < margin:
            direction = "reproduce"

            def power(k, level):
                return tost_power(d, margin, sd, k, level)
        else:
            direction = "contradict"

            def power(k, level):     # the two-sided test of no difference
                return t_power(abs(d), sd, k, level / 2)
        effect = d
    else:
        effect = float(spread.mean - spread.mu0)
        direction = "reproduce" if effect > 0 else "contradict"

        def power(k, level):
            return t_power(abs(effect), sd, k, level)
    row = {"claim": test["claim"], "test": test["test"], "direction": direction,
           "replicates": n, "effect": effect, "sd": sd, "family": family}
    usable = n >= 2 and sd > 0 and effect != 0
    for column, level in (("replicates_needed", alpha / family),
                          ("replicates_needed_if_last", alpha)):
        row[column] = (replicates_needed(lambda k: power(k, level), POWER, MOST_REPLICATES)
                       if usable else None)
    row["power_now"] = round(power(n, alpha / family), 3) if usable else math.nan
    return row


def replicates_needed_table(root=None, alpha: float = 0.01):
    """The power calculation from the observed between-replicate spread, per configuration and
    claim (the table of ``replicates_needed.csv``): taking the replicates' mean ``effect`` (the
    mean win rate minus 1/2, or the mean difference) and standard deviation ``sd`` as the truth,
    how many replicates its test needs to reach :data:`POWER` in the ``direction`` the
    replicates point (reproduce or contradict; for claim 8, equivalence when the mean
    difference is within the margin, a power bound from :func:`tost_power`):
    ``replicates_needed`` at Holm's first threshold ``alpha / family`` (enough whatever the
    other claims do), ``replicates_needed_if_last`` at ``alpha`` (enough only when every other
    claim of the family is decided first); empty when more than :data:`MOST_REPLICATES` or no
    effect. ``power_now``: the power with the replicates there are, at ``alpha / family``.
    With 3-5 replicates the spread itself is uncertain (the 95 % interval of the true standard
    deviation runs from 0.52 to 6.3 times ``sd`` with 3 replicates, from 0.60 to 2.9 times with
    5): these are orders of magnitude, not promises."""
    import pandas as pd

    rows = []
    for pattern, folders in configuration_folders(root).items():
        report, config = pooled_report(folders)
        tests = claim_tests(report)
        family = sum(not math.isnan(t["p_for"]) for t in tests)
        for t in tests:
            rows.append({"configuration": configuration_label(config),
                         **claim_power(t, max(family, 1), alpha)})
    table = pd.DataFrame(rows)
    for column in ("replicates_needed", "replicates_needed_if_last"):
        table[column] = table[column].astype("Int64")
    return table


def main(argv: list[str] | None = None) -> int:
    """``python -m gamelib.experiments.pgleaf.power table``: write
    ``claims_by_configuration.csv``, ``replicates_needed.csv`` and (once its run is there)
    ``claims_confirmatory.csv`` into ``data/results/paper/pgleaf`` (or ``--root``)."""
    from gamelib.runtime import cli

    from gamelib.runtime.paths import results_dir
    from gamelib.runtime.report import write_csv

    parser = cli.ArgumentParser(prog="python -m gamelib.experiments.pgleaf.power",
                                description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p_table = sub.add_parser("table", help="write claims_by_configuration.csv, "
                                           "replicates_needed.csv and claims_confirmatory.csv")
    p_table.add_argument("--root", type=Path, default=None)
    args = parser.parse_args(argv)
    root = Path(results_dir("paper", "pgleaf") if args.root is None else args.root)
    if not configuration_folders(root):
        print(f"error: no run folder of {', '.join(CONFIGURATIONS)} under {root}",
              file=sys.stderr)
        return 2
    try:
        verdicts, power = claims_by_configuration(root), replicates_needed_table(root)
        confirmatory = confirmatory_verdicts(root)
    except (ValueError, FileNotFoundError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    tables = [("claims_by_configuration.csv", verdicts), ("replicates_needed.csv", power)]
    if not confirmatory.empty:
        tables.append(("claims_confirmatory.csv", confirmatory))
    for name, frame in tables:
        print(write_csv(root, name, frame))
    return 0


if __name__ == "__main__":
    sys.exit(main())
