"""The paper's claims as a pre-registered family of tests, one verdict per claim and run.

Written down before the five-replicate run of the PGLeaf study finished (issue 20), and applied
unchanged to every run at full size (``claims_by_configuration.csv``):

=====  =======================================================  ================================
claim  statement (replicates pooled)                            test (one-sided, claimed direction)
=====  =======================================================  ================================
1a-c   PGLeaf beats REINFORCE after 1k, 10k, 100k games (MDP)    sign test on the round-robin's
                                                                 decisive games
2      TDLeaf(λ) beats PGLeaf after 1,000 games (MDP)            sign test
3      PGLeaf beats TDLeaf(λ) after 100,000 games (MDP)          sign test
4      TD(λ) beats REINFORCE after 100,000 games (MDP)           sign test
5      PGLeaf is ahead of every other learner against the        two-proportion z-test against the
       reference after 10,000 games (MDP)                        best other learner's win rate
6      PGLeaf is ahead of TDLeaf(λ) against the reference        two-proportion z-test
       after 100,000 games (non-MDP)
7      TDLeaf(λ) is weaker with the non-MDP reward than with     two-proportion z-test
       MDP after 100,000 games (against the reference)
8      PGLeaf is as strong with either reward after 100,000      equivalence: two one-sided
       games (against the reference)                             z-tests, margin ±10 points
=====  =======================================================  ================================

Win rates leave draws out (the paper's convention). ``test`` names the test (:data:`TESTS`);
``statistic`` is the claimed side's win rate (sign tests) or the difference of the two win rates
(z-tests and the equivalence test). The eight claims (ten tests) are
one family: a claim is **reproduced** when its p-value survives Holm's step-down correction at
family-wise level ``alpha`` (0.01 by default), **contradicted** when the p-value of the opposite
direction does (for claim 8: a two-sided difference test), and **undecided** otherwise. Holm
controls the chance of any false verdict in the family at ``alpha`` whatever the dependence
between the tests. A claim whose games were not played (e.g. a run without the non-MDP reward)
is left out.
"""

from __future__ import annotations

import math
from typing import Any, Mapping

from gamelib.experiments.pgleaf.analysis import _records
from gamelib.experiments.pgleaf.config import _nearest
from gamelib.experiments.pgleaf.report import PGLeafReport

__all__ = ["EQUIVALENCE_MARGIN", "TESTS", "CONFIGURATIONS", "holm", "claim_verdicts", "claims_by_configuration"]

#: Claim 8's margin: "as strong" means the win rates differ by less than this.
EQUIVALENCE_MARGIN = 0.10
COLUMNS = ["configuration", "claim", "test", "verdict", "statistic", "p_value", "replicates",
           "games"]
#: The ``test`` column's values; ``statistic`` is a win rate for ``sign`` and a difference of two
#: win rates for the others.
TESTS = ("sign", "two-proportion z", "equivalence")


def _z_greater(w1: int, n1: int, w2: int, n2: int, shift: float = 0.0) -> float:
    """One-sided p-value of ``p1 - p2 > shift`` (unpooled normal approximation)."""
    if n1 == 0 or n2 == 0:
        return math.nan
    p1, p2 = w1 / n1, w2 / n2
    se = math.sqrt(max(p1 * (1 - p1) / n1 + p2 * (1 - p2) / n2, 1e-12))
    return 0.5 * math.erfc((p1 - p2 - shift) / se / math.sqrt(2))


def holm(p_values, alpha: float) -> list[bool]:
    """Holm's step-down procedure: which of ``p_values`` are rejected at family-wise ``alpha``
    (NaN p-values are never rejected and do not count in the family)."""
    valid = [i for i, p in enumerate(p_values) if not math.isnan(p)]
    order = sorted(valid, key=lambda i: p_values[i])
    rejected = [False] * len(p_values)
    for rank, i in enumerate(order):
        if p_values[i] > alpha / (len(order) - rank):
            break
        rejected[i] = True
    return rejected


def claim_verdicts(report: PGLeafReport, sizes: Mapping[str, Any], configuration: str,
                   alpha: float = 0.01):
    """The table of the module docstring for one run: a row per claim with the columns
    ``configuration, claim, verdict, statistic, p_value, replicates, games``."""
    import pandas as pd

    from gamelib.play.stats import binomial_test

    tests = []      # (claim, test, statistic, p_for, p_against, games)
    rr = report.round_robin
    if not rr.empty:
        points = sorted(set(int(g) for g in rr.games))

        def sign(claim, point, a, b):
            rec = _records(rr, games=point).get((a, b))
            if rec is None or rec.decisive == 0:
                return
            tests.append((claim, "sign", rec.wins / rec.decisive,
                          binomial_test(rec.wins, rec.decisive, 0.5, "greater"),
                          binomial_test(rec.wins, rec.decisive, 0.5, "less"), point))

        for point, label in ((1000, "1a"), (10_000, "1b"), (100_000, "1c")):
            sign(f"{label} PGLeaf beats REINFORCE after {point:,} games",
                 _nearest(points, point), "pgleaf", "reinforce")
        sign("2 TDLeaf(λ) beats PGLeaf after 1,000 games", _nearest(points, 1000), "tdleaf",
             "pgleaf")
        sign("3 PGLeaf beats TDLeaf(λ) after 100,000 games", _nearest(points, 100_000),
             "pgleaf", "tdleaf")
        sign("4 TD(λ) beats REINFORCE after 100,000 games", _nearest(points, 100_000), "td",
             "reinforce")
    c = report.curves[report.curves.replicate == -1]
    later = sorted(set(int(g) for g in c.games if g > 0))

    def rate(point, algorithm, reward):
        row = c[(c.games == point) & (c.algorithm == algorithm) & (c.reward == reward)]
        return None if row.empty else (int(row.wins.iloc[0]),
                                       int(row.wins.iloc[0] + row.losses.iloc[0]))

    def ahead(claim, point, one, other):
        if one is None or other is None:
            return
        (w1, n1), (w2, n2) = one, other
        tests.append((claim, "two-proportion z", w1 / max(n1, 1) - w2 / max(n2, 1),
                      _z_greater(w1, n1, w2, n2), _z_greater(w2, n2, w1, n1), point))

    if later:
        point = _nearest(later, 10_000)
        others = [a for a in ("reinforce", "tdleaf", "td") if rate(point, a, "mdp")]
        if others and rate(point, "pgleaf", "mdp"):
            best = max(others, key=lambda a: rate(point, a, "mdp")[0] / max(rate(point, a,
                                                                                 "mdp")[1], 1))
            ahead("5 PGLeaf ahead against the reference after 10,000 games (MDP)", point,
                  rate(point, "pgleaf", "mdp"), rate(point, best, "mdp"))
        last = _nearest(later, 100_000)
        ahead("6 PGLeaf ahead of TDLeaf(λ) after 100,000 games (non-MDP)", last,
              rate(last, "pgleaf", "non_mdp"), rate(last, "tdleaf", "non_mdp"))
        ahead("7 TDLeaf(λ) weaker with the non-MDP reward", last, rate(last, "tdleaf", "mdp"),
              rate(last, "tdleaf", "non_mdp"))
        m, n = rate(last, "pgleaf", "mdp"), rate(last, "pgleaf", "non_mdp")
        if m and n:
            (w1, n1), (w2, n2) = m, n
            tost = max(_z_greater(w1, n1, w2, n2, -EQUIVALENCE_MARGIN),
                       _z_greater(w2, n2, w1, n1, -EQUIVALENCE_MARGIN))
            differ = min(1.0, 2 * min(_z_greater(w1, n1, w2, n2), _z_greater(w2, n2, w1, n1)))
            tests.append(("8 PGLeaf as strong with either reward", "equivalence",
                          w1 / max(n1, 1) - w2 / max(n2, 1), tost, differ, last))
    reproduced = holm([t[3] for t in tests], alpha)
    contradicted = holm([t[4] for t in tests], alpha)
    rows = []
    for (claim, test, statistic, p_for, _, games), yes, no in zip(tests, reproduced, contradicted):
        verdict = "reproduced" if yes else "contradicted" if no else "undecided"
        rows.append({"configuration": configuration, "claim": claim, "test": test,
                     "verdict": verdict,
                     "statistic": statistic, "p_value": p_for,
                     "replicates": int(sizes["replicates"]), "games": games})
    return pd.DataFrame(rows, columns=COLUMNS)


#: The full-size runs under ``data/results/paper/pgleaf/`` and their configuration names.
CONFIGURATIONS = {"first run (3 replicates)": "seed-0",
                  "first run, 4-ply random openings": "openings/plies=4/seed-0",
                  "closest to the paper (5 replicates)": "closest/seed-0",
                  "closest to the paper, 4-ply random openings": "closest/openings/plies=4/seed-0"}


def claims_by_configuration(root=None, alpha: float = 0.01):
    """:func:`claim_verdicts` of every committed full-size run of :data:`CONFIGURATIONS`
    (``root``: the folder holding them, default ``data/results/paper/pgleaf``), stacked:
    the table of ``claims_by_configuration.csv``."""
    import pandas as pd

    from gamelib.experiments.pgleaf.report import load_report
    from gamelib.runtime.paths import results_dir

    root = results_dir("paper", "pgleaf") if root is None else root
    frames = []
    for name, folder in CONFIGURATIONS.items():
        report, sizes = load_report(root / folder)
        frames.append(claim_verdicts(report, sizes, name, alpha))
    return pd.concat(frames, ignore_index=True)
