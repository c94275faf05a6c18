"""The paper's qualitative claims checked on a run's results."""

from __future__ import annotations

import math

from gamelib.experiments.pgleaf.analysis import pair_records
from gamelib.experiments.pgleaf.config import ALGORITHM_LABELS, PGLeafConfig, nearest_point
from gamelib.experiments.pgleaf.paper import PAPER_TABLES
from gamelib.experiments.pgleaf.report import PGLeafReport
from gamelib.learn.selfplay import REWARDS


def _verdict(p_for: float, p_against: float, alpha: float) -> str:
    if p_for < alpha:
        return "reproduced"
    if p_against < alpha:
        return "contradicted"
    return "not significant"


def _two_proportions(w1: int, n1: int, w2: int, n2: int) -> float:
    """One-sided p-value of 'proportion 1 > proportion 2' (pooled normal approximation)."""
    if n1 == 0 or n2 == 0:
        return math.nan
    p = (w1 + w2) / (n1 + n2)
    se = math.sqrt(p * (1 - p) * (1 / n1 + 1 / n2))
    if se == 0:
        return 0.5
    z = (w1 / n1 - w2 / n2) / se
    return 0.5 * math.erfc(z / math.sqrt(2))


def claims(report: PGLeafReport, config: PGLeafConfig, alpha: float = 0.01):
    """The paper's qualitative claims checked on a run's results, replicates pooled.

    Round-robin claims use the sign test of :mod:`gamelib.play.stats` on the decisive games;
    claims on the curves compare win rates against the reference (draws left out) with a
    one-sided two-proportion test. ``p_value`` is the one-sided p-value of the claimed
    direction (for "as strong", of a loss of strength); ``verdict`` is "reproduced" or
    "contradicted" at ``alpha``, else "not significant" ("consistent" or "contradicted" for the
    claim of no change).
    """
    import pandas as pd
    from gamelib.play.stats import binomial_test

    rows = []
    rr = report.round_robin
    points = config.table_points

    def pair(point, a, b):
        recs = pair_records(rr, games=point)
        return recs.get((a, b))

    def rr_claim(text, paper, point, a, b):
        rec = pair(point, a, b)
        if rec is None or rec.decisive == 0:
            return
        p_for = binomial_test(rec.wins, rec.decisive, 0.5, "greater")
        p_against = binomial_test(rec.wins, rec.decisive, 0.5, "less")
        rows.append({"claim": text, "paper": paper,
                     "ours": f"{100 * rec.win_rate:.1f} % after {point} games "
                             f"({rec.wins}-{rec.draws}-{rec.losses})",
                     "p_value": p_for, "verdict": _verdict(p_for, p_against, alpha)})

    if not rr.empty:
        for point in points:
            paper = PAPER_TABLES.get(point, {}).get(("pgleaf", "reinforce"))
            rr_claim("PGLeaf beats REINFORCE", "77.0 / 88.3 / 76.2 % (1k / 10k / 100k games)"
                     if paper is None else f"{paper} % after {point} games", point,
                     "pgleaf", "reinforce")
        rr_claim("TDLeaf(λ) beats PGLeaf early", "75.7 % after 1,000 games", points[0],
                 "tdleaf", "pgleaf")
        rr_claim("PGLeaf beats TDLeaf(λ) at the end", "56.2 % after 100,000 games",
                 points[-1], "pgleaf", "tdleaf")
    c = report.curves[report.curves.replicate == -1]
    later = [p for p in config.curve_points if p > 0]
    if later and "mdp" in config.rewards:
        # the paper: PGLeaf is "far ahead after 10,000 games" -- checked at the nearest point
        point = nearest_point(later, 10_000)
        first = c[(c.reward == "mdp") & (c.games == point)].set_index("algorithm")
        others = [a for a in first.index if a != "pgleaf"]
        if "pgleaf" in first.index and others:
            best = max(others, key=lambda a: first.loc[a, "win_rate"])
            pl, ot = first.loc["pgleaf"], first.loc[best]
            p_for = _two_proportions(pl.wins, pl.wins + pl.losses, ot.wins, ot.wins + ot.losses)
            p_against = _two_proportions(ot.wins, ot.wins + ot.losses, pl.wins,
                                         pl.wins + pl.losses)
            rows.append({"claim": "PGLeaf rises fastest against the reference (MDP)",
                         "paper": "far ahead after 10,000 games (Fig. 1)",
                         "ours": f"after {point} games PGLeaf {100 * pl.win_rate:.1f} %, "
                                 f"best other ({ALGORITHM_LABELS[best]}) "
                                 f"{100 * ot.win_rate:.1f} %",
                         "p_value": p_for, "verdict": _verdict(p_for, p_against, alpha)})
    if later and set(config.rewards) == set(REWARDS):
        last = c[c.games == later[-1]].set_index(["algorithm", "reward"])
        for algo, text, direction in (("tdleaf", "TDLeaf(λ) is weaker with non-MDP rewards", 1),
                                      ("pgleaf", "PGLeaf is as strong with non-MDP rewards", 0)):
            if (algo, "mdp") not in last.index:
                continue
            m, n = last.loc[(algo, "mdp")], last.loc[(algo, "non_mdp")]
            p_weaker = _two_proportions(m.wins, m.wins + m.losses, n.wins, n.wins + n.losses)
            p_stronger = _two_proportions(n.wins, n.wins + n.losses, m.wins, m.wins + m.losses)
            if direction:
                verdict = _verdict(p_weaker, p_stronger, alpha)
            else:   # "no change": contradicted only by a significant loss of strength
                verdict = "contradicted" if p_weaker < alpha else "consistent"
            rows.append({"claim": text, "paper": "Fig. 1 vs Fig. 2",
                         "ours": f"after {later[-1]} games: MDP {100 * m.win_rate:.1f} %, "
                                 f"non-MDP {100 * n.win_rate:.1f} %",
                         "p_value": p_weaker, "verdict": verdict})
    return pd.DataFrame(rows, columns=["claim", "paper", "ours", "p_value", "verdict"])
