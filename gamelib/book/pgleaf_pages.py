"""The PGLeaf part of the book: the committed full-size configurations, read once, and the
sentences and tables its pages compute from them, so that no number is typed into the prose.

A *configuration* is one pattern of :data:`gamelib.experiments.pgleaf.verdicts.CONFIGURATIONS`
(the runs of all its seeds pooled into one set of replicates by ``verdicts.pooled_report``), named by what
it is (``verdicts.configuration_label``: layout, TD scale β, effective temperature β·T, random
opening plies). The book leads with :data:`LEAD`, the antisymmetric layout with KnightCap's
scale, whose claims were written down before its runs; :data:`STANDARD` is the per-side layout
with β = 1.

The verdict of a claim is read from ``claims_by_configuration.csv`` (columns of
``verdicts.COLUMNS``); :func:`verdict_text` says it with its test, unit, replicate count,
"k of n" and the pooled rate; :func:`dependence` says which of the varied choices change it.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

from gamelib.book.tables import format_pvalue

__all__ = ["LEAD", "STANDARD", "Configuration", "configurations", "checkpoint_label", "claim_parts",
           "percent", "percent_range", "signed_points", "statistic_text", "verdict_text", "dependence",
           "pairings_beside_paper", "replicate_values", "verdict_rows"]

#: The configuration the book leads with (a pattern of ``verdicts.CONFIGURATIONS``).
LEAD = "closest/seed-*"
#: The per-side layout with the TD learners at β = 1, from the standard position.
STANDARD = "seed-*"

_REWARDS = {"mdp": "MDP", "non_mdp": "non-MDP"}


@dataclass(frozen=True)
class Configuration:
    """One full-size configuration: its ``pattern``, ``label``, pooled ``report`` and ``sizes``."""

    pattern: str
    label: str
    report: Any
    sizes: Mapping[str, Any]

    @property
    def opening_plies(self) -> int:
        """Random opening plies of its evaluation games (0: the standard position)."""
        return int(self.sizes.get("match_opening_plies") or 0)

    @property
    def training(self) -> str:
        """The label without the openings: the trained parameters it plays (layout and scale)."""
        return re.sub(r", \d+-ply random openings$", "", self.label)


@functools.lru_cache(maxsize=2)
def _configurations(root: str | None) -> tuple[Configuration, ...]:
    from gamelib.experiments.pgleaf import verdicts

    out = []
    for pattern, folders in verdicts.configuration_folders(root).items():
        report, sizes = verdicts.pooled_report(folders)
        out.append(Configuration(pattern, verdicts.configuration_label(sizes), report, sizes))
    return tuple(out)


def configurations(root=None) -> dict[str, Configuration]:
    """``{pattern: Configuration}`` of every committed configuration (read once per process)."""
    return {c.pattern: c for c in _configurations(None if root is None else str(Path(root)))}


def checkpoint_label(name: str) -> str:
    """A player of the Elo table in words: ``"tdleaf/mdp/0@100000"`` ->
    ``"TDLeaf(λ), MDP, replicate 0, after 100,000 games"``; ``"initial/2@0"`` -> ``"initial
    parameters, replicate 2"``; ``"reference"`` stays."""
    from gamelib.experiments.pgleaf.config import ALGORITHM_LABELS

    m = re.fullmatch(r"initial/(\d+)@0", name)
    if m:
        return f"initial parameters, replicate {m.group(1)}"
    m = re.fullmatch(r"(\w+)/(\w+)/(\d+)@(\d+)", name)
    if not m:
        if name == "reference":
            return name
        raise ValueError(f"checkpoint_label: {name!r} is not 'algorithm/reward/replicate@games'")
    algorithm, reward, replicate, games = m.groups()
    if algorithm not in ALGORITHM_LABELS or reward not in _REWARDS:
        raise ValueError(f"checkpoint_label: unknown learner or reward in {name!r}")
    return (f"{ALGORITHM_LABELS[algorithm]}, {_REWARDS[reward]}, replicate {replicate}, "
            f"after {int(games):,} games")


def claim_parts(claim: str) -> tuple[str, str]:
    """A claim of the verdict table split into its number and its words:
    ``"3 PGLeaf beats TDLeaf(λ) after 100,000 games"`` -> ``("3", "PGLeaf beats ...")``."""
    m = re.fullmatch(r"(\d+[a-z]?) (.+)", claim)
    if not m:
        raise ValueError(f"claim_parts: {claim!r} does not start with a claim number")
    return m.group(1), m.group(2)


def percent(x: float, digits: int = 1) -> str:
    """``0.7355`` -> ``"73.6 %"`` (a rate in [0, 1] as a percentage)."""
    return f"{100 * float(x):.{digits}f} %"


def percent_range(low: float, high: float, digits: int = 1) -> str:
    """``(0.46, 0.522)`` -> ``"46.0–52.2 %"``; one percentage when the two round alike."""
    a, b = f"{100 * float(low):.{digits}f}", f"{100 * float(high):.{digits}f}"
    return f"{a} %" if a == b else f"{a}–{b} %"


def signed_points(x: float) -> str:
    """``-0.126`` -> ``"−12.6 points"`` (a difference of two rates)."""
    return f"{100 * float(x):+.1f} points".replace("-", "−")


def statistic_text(test: str, value: float) -> str:
    """A claim's statistic as its test defines it: a win rate or a difference of win rates."""
    from gamelib.experiments.pgleaf.verdicts import RATE_TESTS

    return percent(value) if test in RATE_TESTS else signed_points(value)


def verdict_text(row) -> str:
    """One row of the verdict table in words: the verdict, the mean over training runs, how
    many runs fell on the claimed side, the pooled games' rate, the test and its p-value."""
    stat = statistic_text(row.test, row.statistic)
    pooled = statistic_text(row.test, row.pooled_rate)
    return (f"**{row.verdict}**: {stat} (mean over {int(row.replicates)} training runs, "
            f"{int(row.replicates_for)} of {int(row.replicates)} on the claimed side; all games "
            f"pooled {pooled}); {row.test} test, p = {format_pvalue(row.p_value)} before Holm")


def verdict_rows(rows):
    """Rows of a verdict table (``claims_by_configuration.csv``, ``claims_confirmatory.csv``)
    as the book shows them: the claim, its test and verdict, the mean over training runs, the
    runs on the claimed side, the rate of all games pooled and the p-value before Holm."""
    out = rows.copy()
    out["claim"] = out.claim.map(lambda c: " ".join(claim_parts(c)))
    out["mean over runs"] = [statistic_text(t, s) for t, s in zip(out.test, out.statistic)]
    out["all games pooled"] = [statistic_text(t, s) for t, s in zip(out.test, out.pooled_rate)]
    out["runs on the claimed side"] = [f"{k} of {n}" for k, n in
                                       zip(out.replicates_for, out.replicates)]
    return out[["claim", "test", "verdict", "mean over runs", "runs on the claimed side",
                "all games pooled", "p_value"]]


def dependence(table, configs: Mapping[str, Configuration]):
    """Per claim, its verdict under each configuration and which varied choice changes it.

    ``table`` is the verdict table; ``configs`` :func:`configurations` (its labels must be the
    table's). The column ``depends_on`` says "nothing we varied" when every configuration gives
    the same verdict, else which of "the layout and TD scale" (the trained parameters: per-side
    with β = 1 against antisymmetric with β = 12.8, varied together) and "the openings" (the
    standard position against random opening plies) change it at a fixed value of the other.
    """
    import pandas as pd

    by_label = {c.label: c for c in configs.values()}
    unknown = sorted(set(table.configuration) - set(by_label))
    if unknown:
        raise ValueError(f"dependence: configurations not among the committed runs: {unknown}")
    rows = []
    for claim, group in table.groupby("claim", sort=False):
        verdicts = {(by_label[r.configuration].training, by_label[r.configuration].opening_plies):
                    r.verdict for r in group.itertuples()}
        causes = []
        for axis, name in ((0, "the layout and TD scale"), (1, "the openings")):
            other = 1 - axis
            changed = any(verdicts[a] != verdicts[b] for a in verdicts for b in verdicts
                          if a[other] == b[other] and a[axis] != b[axis])
            if changed:
                causes.append(name)
        if len(set(verdicts.values())) > 1 and not causes:
            causes.append("the layout and TD scale together with the openings")
        rows.append({"claim": claim, **dict(zip(group.configuration, group.verdict)),
                     "depends_on": ", and ".join(causes) if causes else "nothing we varied"})
    return pd.DataFrame(rows)


def pairings_beside_paper(round_robin, points=None):
    """Tables 2-4 as one table: for each point and pairing of the paper, the row player's win
    rate with the replicates' games pooled, the lowest and highest replicate, how many
    replicates it won, and the paper's number (draws left out, as the paper counts)."""
    import pandas as pd

    from gamelib.experiments.pgleaf.config import ALGORITHM_LABELS
    from gamelib.experiments.pgleaf.paper import PAPER_TABLES

    rows = []
    for point in sorted(PAPER_TABLES if points is None else points):
        for (a, b), paper in PAPER_TABLES[point].items():
            sel = round_robin[(round_robin.games == point) & (round_robin.player == a)
                              & (round_robin.opponent == b)]
            if sel.empty:
                continue
            per = sel.groupby("replicate")[["wins", "losses"]].sum()
            rates = per.wins / (per.wins + per.losses)
            rows.append({"after_games": point,
                         "pairing": f"{ALGORITHM_LABELS[a]} vs {ALGORITHM_LABELS[b]}",
                         "ours_pooled": per.wins.sum() / (per.wins.sum() + per.losses.sum()),
                         "lowest_replicate": rates.min(), "highest_replicate": rates.max(),
                         "replicates_won": f"{int((rates > 0.5).sum())} of {len(rates)}",
                         "paper": paper / 100})
    return pd.DataFrame(rows)


def replicate_values(configs: Mapping[str, Configuration]):
    """Every claim's per-replicate value (a win rate, or a difference of two) under every
    configuration: a row per configuration, claim, test and replicate (``value``)."""
    import pandas as pd

    from gamelib.experiments.pgleaf.verdicts import claim_tests

    rows = []
    for c in configs.values():
        for t in claim_tests(c.report):
            for k, v in enumerate(t["values"]):
                rows.append({"configuration": c.label, "claim": t["claim"], "test": t["test"],
                             "replicate": k, "value": float(v)})
    return pd.DataFrame(rows)
