"""The paper's claims as one family of tests with the training run as the unit, one verdict per
claim and configuration.

=====  =======================================================  ================================
claim  statement                                                test on per-replicate values
                                                                (one-sided, claimed direction)
=====  =======================================================  ================================
1a-c   PGLeaf beats REINFORCE after 1k, 10k, 100k games (MDP)    one-sample t: round-robin win
                                                                 rate against 1/2
2      TDLeaf(λ) beats PGLeaf after 1,000 games (MDP)            one-sample t
3      PGLeaf beats TDLeaf(λ) after 100,000 games (MDP)          one-sample t
4      TD(λ) beats REINFORCE after 100,000 games (MDP)           one-sample t
5      PGLeaf is ahead of every other learner against the        paired t: PGLeaf's win rate
       reference after 10,000 games (MDP)                        against the reference minus the
                                                                 best other learner's (by pooled
                                                                 rate), replicate by replicate
6      PGLeaf is ahead of TDLeaf(λ) against the reference        paired t
       after 100,000 games (non-MDP)
7      TDLeaf(λ) is weaker with the non-MDP reward than with     paired t
       MDP after 100,000 games (against the reference)
8      PGLeaf is as strong with either reward after 100,000      paired t equivalence: two
       games (against the reference)                             one-sided t-tests, margin ±10
                                                                 points
=====  =======================================================  ================================

*The unit.* A replicate is one training run per learner and reward, all started from the same
initial θ (so a round-robin game of replicate k pits the learners of replicate k, and the
gauntlet's rates pair up by replicate). Its games are not independent draws of "PGLeaf against
REINFORCE": they are 400 games of one learned θ against another, and replicates of one
configuration differ by up to 59 points where the games' binomial noise is 2-3 points. The
question of the paper is about the learning methods, so the training run is the unit: each
replicate gives one number (a win rate with draws left out, the paper's convention, or a
difference of two), and the test is Student's t on those numbers
(:mod:`gamelib.play.replicate_tests`, exact arithmetic), one-sample against 1/2 for the
round-robin claims, paired by replicate for the claims against the reference.

*Why a t-test.* An exact test over replicates (sign test, or the sign-flip permutation test of
the mean) needs no distribution, but its smallest p-value is :math:`2^{-n}`: 0.125 with 3
replicates, 0.031 with 5, 0.00098 with 10. Holm's first threshold in a family of ten at 1 % is
0.001, so with fewer than 10 replicates an exact test leaves every claim undecided whatever the
data, and even with 10 it decides only when all 10 fall on one side. The t-test uses the size of
the effect against the replicates' spread, at the price of an assumption: that per-replicate
values scatter roughly normally. With 3-5 replicates that cannot be checked; a skewed spread
(one replicate far out, as in the per-side layout's claim 3) makes it less reliable, which is why
``replicates_for`` ("k of n replicates on the claimed side") stands beside each verdict. A mixed
model (games within replicates) would add nothing here: every replicate plays the same number of
games, so its replicate-level estimate is this t-test.

*The family.* The eight claims (ten tests) of one configuration are one family: a claim is
**reproduced** when its p-value survives Holm's step-down correction at family-wise level
``alpha`` (0.01 by default; :func:`gamelib.play.replicate_tests.holm`), **contradicted** when the
p-value of the opposite direction does (for claim 8: the two-sided t-test of no difference), and
**undecided** otherwise. Holm controls the chance of any false verdict in the family at
``alpha`` whatever the dependence between the tests. A claim whose games were not played is left
out; one with fewer than two replicates has no p-value and is undecided.

*The columns* (:data:`COLUMNS`): ``test`` (:data:`TESTS`), ``unit`` (always "training run"),
``statistic`` (the mean over replicates of the win rate, or of the difference of win rates),
``pooled_rate`` (the same from all games pooled -- the statistic before the unit was the
replicate), ``p_value`` (of the claimed direction, before Holm), ``replicates`` (n, the
replicates tested), ``replicates_for`` (k of them on the claimed side: win rate above 1/2,
difference above 0, for claim 8 a difference within the margin), ``games`` (the self-play games
of the point tested), ``registered`` (:data:`REGISTERED`).

*When the tests were written* (the ``registered`` column). The claims as a family -- their
directions, the points (claim 5 at 10,000 games), Holm at 1 %, claim 8's ±10-point margin -- were
committed on 2026-11-24 04:21 UTC (commit 7eb74b2), with the replicates pooled as the unit. The
per-side layout's three-replicate run (``seed-0``) had been committed, and written up, on
2026-11-23 17:58: its verdicts are **post hoc**, and so are those of its replay from random
openings, which plays the same trained parameters (the same training runs, the unit) again. The
antisymmetric layout's configuration was fixed on 2026-11-24 10:05 (after the ablations' head-to-
head results at 10,000 games it draws on had been seen) and its runs made after that: its claims
were registered before its data. The replicate as the unit (this module's t-tests, commit
069a91b) came on 2026-11-26, after every one of these runs had been seen: for all of them it is
post hoc. A further seed's replicates committed after that day are judged by tests written
before them, but pooled with seed 0's (:func:`pooled_report`) the set is still labelled as
above, since half of it had been seen.

*The confirmatory set* (:data:`CONFIRMATORY`, :func:`confirmatory_verdicts`). Seed 1 of the
antisymmetric layout (replicates 5-9) is also judged alone, as its own family of the same ten
tests with Holm at 1 %: this was registered (``data/results/paper/pgleaf/closest/
CONFIRMATORY.md``, commit 60c71c2) while its self-play ran and before any of its evaluation
games, so its verdicts are the book's only ones whose claims and unit were both fixed before
the data.
"""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction
from pathlib import Path
from typing import Any, Mapping

from gamelib.experiments.pgleaf.config import PGLeafConfig, RunSpec, nearest_point, settings_of
from gamelib.experiments.pgleaf.report import PGLeafReport
from gamelib.play.replicate_tests import holm, t_test

__all__ = ["EQUIVALENCE_MARGIN", "TESTS", "RATE_TESTS", "UNIT", "CONFIGURATIONS", "REGISTERED",
           "claim_tests", "claim_verdicts", "configuration_label", "configuration_folders",
           "pooled_report", "claims_by_configuration", "CONFIRMATORY", "confirmatory_verdicts"]

#: Claim 8's margin: "as strong" means the win rates differ by less than this.
EQUIVALENCE_MARGIN = 0.10
COLUMNS = ["configuration", "claim", "test", "verdict", "statistic", "p_value", "replicates",
           "games", "unit", "replicates_for", "pooled_rate", "registered"]
#: The ``test`` column's values; ``statistic`` is a win rate for :data:`RATE_TESTS` and a
#: difference of two win rates for the others.
TESTS = ("one-sample t", "paired t", "paired t equivalence")
RATE_TESTS = ("one-sample t",)
#: The ``unit`` column: what one observation of the test is.
UNIT = "training run"
#: The full-size configurations under ``data/results/paper/pgleaf/``: the folders of each, as a
#: glob (every seed's run of one configuration is pooled into one set of replicates).
CONFIGURATIONS = ("seed-*", "openings/plies=4/seed-*", "closest/seed-*",
                  "closest/openings/plies=4/seed-*")
#: When each configuration's tests were written relative to its data (module docstring).
REGISTERED = {"seed-*": "post hoc",
              "openings/plies=4/seed-*": "post hoc",
              "closest/seed-*": "claims before the data, replicate unit post hoc",
              "closest/openings/plies=4/seed-*": "claims before the data, replicate unit post hoc"}
#: The confirmatory set: one seed's runs judged alone, registered (claims, unit, family) before
#: its evaluation games were played (``closest/CONFIRMATORY.md``, commit 60c71c2): pattern ->
#: (the label's suffix, the registration label).
CONFIRMATORY = {"closest/seed-1": (", seed 1 alone (confirmatory)",
                                   "claims and replicate unit before the data")}


def _by_replicate(rows) -> dict[int, tuple[int, int]]:
    """``{replicate: (wins, losses)}`` summed over ``rows`` (draws left out)."""
    out: dict[int, tuple[int, int]] = {}
    for row in rows.itertuples(index=False):
        w, l = out.get(int(row.replicate), (0, 0))
        out[int(row.replicate)] = (w + int(row.wins), l + int(row.losses))
    return out


def _rates(records: Mapping[int, tuple[int, int]]) -> dict[int, Fraction]:
    return {r: Fraction(w, w + l) for r, (w, l) in records.items() if w + l}


def _pooled(records: Mapping[int, tuple[int, int]], replicates) -> Fraction:
    wins = sum(records[r][0] for r in replicates)
    return Fraction(wins, max(1, wins + sum(records[r][1] for r in replicates)))


def claim_tests(report: PGLeafReport) -> list[dict]:
    """Each claim's test of the module docstring on one (possibly pooled) run, before Holm: a
    dict per claim with ``claim, test, games``, the per-replicate ``values`` (fractions), the
    :class:`~gamelib.play.replicate_tests.TTest` ``for_`` (claimed direction) with ``p_for`` and
    ``p_against``, ``statistic, pooled_rate, replicates, replicates_for``."""
    tests = []
    rr = report.round_robin

    def add(claim, test, point, values, pooled, null, on_side, p_for, p_against):
        tests.append({"claim": claim, "test": test, "games": point, "values": values,
                      "null": null, "statistic": float(sum(values, Fraction(0))
                                                       / max(1, len(values))),
                      "pooled_rate": float(pooled), "replicates": len(values),
                      "replicates_for": sum(on_side(v) for v in values),
                      "p_for": p_for, "p_against": p_against})

    if not rr.empty:
        points = sorted(set(int(g) for g in rr.games))

        def one_sample(claim, point, a, b):
            records = _by_replicate(rr[(rr.games == point) & (rr.player == a)
                                       & (rr.opponent == b)])
            rates = _rates(records)
            if not rates:
                return
            values = [rates[r] for r in sorted(rates)]
            t = t_test(values, Fraction(1, 2))
            add(claim, "one-sample t", point, values, _pooled(records, sorted(rates)),
                Fraction(1, 2), lambda v: v > Fraction(1, 2), t.p_greater, t.p_less)

        for point, label in ((1000, "1a"), (10_000, "1b"), (100_000, "1c")):
            one_sample(f"{label} PGLeaf beats REINFORCE after {point:,} games",
                       nearest_point(points, point), "pgleaf", "reinforce")
        one_sample("2 TDLeaf(λ) beats PGLeaf after 1,000 games", nearest_point(points, 1000),
                   "tdleaf", "pgleaf")
        one_sample("3 PGLeaf beats TDLeaf(λ) after 100,000 games", nearest_point(points, 100_000),
                   "pgleaf", "tdleaf")
        one_sample("4 TD(λ) beats REINFORCE after 100,000 games", nearest_point(points, 100_000),
                   "td", "reinforce")
    g = report.gauntlet
    later = sorted(set(int(x) for x in g.games if x > 0))

    def records(point, algorithm, reward):
        return _by_replicate(g[(g.games == point) & (g.algorithm == algorithm)
                               & (g.reward == reward)])

    def paired(point, one, other):
        """Per-replicate differences of two records' win rates and of their pooled rates."""
        a, b = _rates(one), _rates(other)
        both = sorted(set(a) & set(b))
        return [a[r] - b[r] for r in both], _pooled(one, both) - _pooled(other, both)

    def ahead(claim, point, one, other):
        values, pooled = paired(point, one, other)
        if values:
            t = t_test(values, 0)
            add(claim, "paired t", point, values, pooled, Fraction(0), lambda v: v > 0,
                t.p_greater, t.p_less)

    if later:
        point = nearest_point(later, 10_000)
        others = {a: records(point, a, "mdp") for a in ("reinforce", "tdleaf", "td")}
        others = {a: rec for a, rec in others.items() if _rates(rec)}
        if others and _rates(records(point, "pgleaf", "mdp")):
            best = max(others, key=lambda a: _pooled(others[a], list(others[a])))
            ahead("5 PGLeaf ahead against the reference after 10,000 games (MDP)", point,
                  records(point, "pgleaf", "mdp"), others[best])
        last = nearest_point(later, 100_000)
        ahead("6 PGLeaf ahead of TDLeaf(λ) after 100,000 games (non-MDP)", last,
              records(last, "pgleaf", "non_mdp"), records(last, "tdleaf", "non_mdp"))
        ahead("7 TDLeaf(λ) weaker with the non-MDP reward", last,
              records(last, "tdleaf", "mdp"), records(last, "tdleaf", "non_mdp"))
        values, pooled = paired(last, records(last, "pgleaf", "mdp"),
                                records(last, "pgleaf", "non_mdp"))
        if values:
            margin = Fraction(str(EQUIVALENCE_MARGIN))
            above, below, zero = t_test(values, -margin), t_test(values, margin), t_test(values)
            add("8 PGLeaf as strong with either reward", "paired t equivalence", last, values,
                pooled, margin, lambda v: abs(v) < margin,
                max(above.p_greater, below.p_less),
                min(1.0, 2 * min(zero.p_greater, zero.p_less)))
    return tests


def claim_verdicts(report: PGLeafReport, sizes: Mapping[str, Any], configuration: str,
                   alpha: float = 0.01, registered: str = ""):
    """The table of the module docstring for one (possibly pooled, :func:`pooled_report`) run:
    a row per claim with the columns :data:`COLUMNS`."""
    import pandas as pd

    tests = claim_tests(report)
    reproduced = holm([t["p_for"] for t in tests], alpha)
    contradicted = holm([t["p_against"] for t in tests], alpha)
    rows = []
    for t, yes, no in zip(tests, reproduced, contradicted):
        rows.append({"configuration": configuration, "claim": t["claim"], "test": t["test"],
                     "verdict": "reproduced" if yes else "contradicted" if no else "undecided",
                     "statistic": t["statistic"], "p_value": t["p_for"],
                     "replicates": t["replicates"], "games": t["games"], "unit": UNIT,
                     "replicates_for": t["replicates_for"], "pooled_rate": t["pooled_rate"],
                     "registered": registered})
    return pd.DataFrame(rows, columns=COLUMNS)


def configuration_label(config: PGLeafConfig) -> str:
    """A configuration named by what it is: the evaluation's layout, the TD learners' squashing
    scale β and their effective temperature β·T (for θ' = βθ the TD learners' dynamics are those
    of β = 1 with the temperature β·T), and the evaluation games' random opening plies if any --
    e.g. "antisymmetric layout, TD β=12.8 (T_eff 0.384)"."""
    layout = "antisymmetric" if config.tie_sides else "per-side"
    td = settings_of(RunSpec("td", "mdp", 0), config)
    label = f"{layout} layout, TD β={td.beta:g} (T_eff {td.beta * td.temperature:.3g})"
    plies = config.match_opening_plies
    return label + (f", {plies}-ply random openings" if plies else "")


def configuration_folders(root=None) -> dict[str, list[Path]]:
    """``{pattern: [folders]}`` of :data:`CONFIGURATIONS` under ``root`` (default
    ``data/results/paper/pgleaf``), the ``seed-<n>`` folders in seed order; patterns without a
    folder are left out."""
    from gamelib.runtime.paths import results_dir

    root = Path(results_dir("paper", "pgleaf") if root is None else root)

    def seed(folder: Path) -> int:
        try:
            return int(folder.name.split("-", 1)[1])
        except (IndexError, ValueError):
            raise ValueError(f"{folder}: a run folder is named seed-<integer>") from None

    found = {p: sorted((f for f in root.glob(p) if f.is_dir()), key=seed)
             for p in CONFIGURATIONS}
    return {p: folders for p, folders in found.items() if folders}


def pooled_report(folders) -> tuple[PGLeafReport, PGLeafConfig]:
    """The finished runs in ``folders`` -- one configuration, one seed each -- as one set of
    replicates: replicate r of the i-th folder becomes replicate ``r + `` the replicates of
    the folders before it (the ``run`` keys likewise), ``curves`` is recomputed from the pooled
    gauntlet and ``timings`` summed; ``elo`` is None (each seed's ratings are fitted on their
    own). The returned configuration is the runs' with ``replicates`` the total.

    Raises
    ------
    ValueError
        When ``folders`` is empty or the runs were made with different sizes (names them).
    FileNotFoundError
        When a folder is not a finished run.
    """
    import pandas as pd

    from gamelib.experiments.pgleaf.analysis import curves
    from gamelib.experiments.pgleaf.report import load_report

    folders = [Path(f) for f in folders]
    if not folders:
        raise ValueError("pooled_report: no run folders given")
    loaded = [load_report(f) for f in folders]
    first = loaded[0][1]
    for folder, (_, config) in zip(folders[1:], loaded[1:]):
        differ = [k for k in first if k != "replicates" and first[k] != config[k]]
        if differ:
            raise ValueError(f"{folder} is another configuration than {folders[0]}: "
                             + ", ".join(f"{k} {config[k]!r} vs {first[k]!r}" for k in differ))
    frames = {"training": [], "round_robin": [], "gauntlet": []}
    offset, timings = 0, {}
    for report, config in loaded:
        for name in frames:
            frame = getattr(report, name).copy()
            frame["replicate"] = frame["replicate"] + offset
            if name == "gauntlet":
                frame["run"] = [f"{a}/{r}/{k}" for a, r, k in
                                zip(frame.algorithm, frame.reward, frame.replicate)]
            frames[name].append(frame)
        offset += config.replicates
        for stage, seconds in report.timings.items():
            timings[stage] = timings.get(stage, 0.0) + seconds
    pooled = {k: pd.concat(v, ignore_index=True) for k, v in frames.items()}
    return (PGLeafReport(pooled["training"], pooled["round_robin"], pooled["gauntlet"],
                         curves(pooled["gauntlet"]), None, timings),
            replace(first, replicates=offset))


def claims_by_configuration(root=None, alpha: float = 0.01):
    """:func:`claim_verdicts` of every configuration of :data:`CONFIGURATIONS` (the runs
    of its random seeds pooled, :func:`pooled_report`), stacked: the table of ``claims_by_configuration.csv``."""
    import pandas as pd

    frames = []
    for pattern, folders in configuration_folders(root).items():
        report, config = pooled_report(folders)
        frames.append(claim_verdicts(report, config, configuration_label(config), alpha,
                                     REGISTERED[pattern]))
    return pd.concat(frames, ignore_index=True)


def confirmatory_verdicts(root=None, alpha: float = 0.01):
    """:func:`claim_verdicts` of each finished run of :data:`CONFIRMATORY` judged alone (its
    own family of tests, Holm at ``alpha``), the configuration labelled with the suffix: the
    table of ``claims_confirmatory.csv``; an empty table (the columns only) while no such run
    is there."""
    import pandas as pd

    from gamelib.runtime.paths import results_dir

    root = Path(results_dir("paper", "pgleaf") if root is None else root)
    frames = []
    for pattern, (suffix, registered) in CONFIRMATORY.items():
        folder = root / pattern
        if (folder / "provenance.json").is_file():
            report, config = pooled_report([folder])
            frames.append(claim_verdicts(report, config, configuration_label(config) + suffix,
                                         alpha, registered))
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=COLUMNS)
