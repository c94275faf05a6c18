"""The pre-registered claims: Holm's procedure, verdicts on hand-made results, the committed table."""

import math

import pandas as pd
import pytest

from gamelib.experiments import pgleaf
from gamelib.experiments.pgleaf.verdicts import (claim_verdicts, claims_by_configuration,
                                                 holm)
from gamelib.runtime.paths import results_dir


def test_holm_by_hand():
    # alpha 0.05, m = 4: thresholds 0.0125, 0.01667, 0.025, 0.05 in p order
    assert holm([0.01, 0.04, 0.03, 0.005], 0.05) == [True, False, False, True]  # 0.03 > .025
    assert holm([0.01, 0.04, 0.03, 0.02], 0.05) == [True, False, False, False]
    assert holm([0.013, 0.001], 0.05) == [True, True]          # 0.001 <= .025, 0.013 <= .05
    assert holm([0.03, 0.001], 0.05) == [True, True]
    assert holm([0.03, math.nan, 0.001], 0.05) == [True, False, True]   # NaN: not in the family
    assert holm([0.2, 0.3], 0.05) == [False, False]


def _report(rr_rows, curve_rows):
    rr = pd.DataFrame(rr_rows, columns=["games", "replicate", "player", "opponent", "wins",
                                        "draws", "losses"])
    g = pd.DataFrame(curve_rows, columns=["games", "run", "algorithm", "reward", "replicate",
                                          "wins", "draws", "losses"])
    return pgleaf.PGLeafReport(None, rr, g, pgleaf.curves(g), None, {})


def test_verdicts_on_hand_made_results():
    rr = [(1000, 0, "pgleaf", "reinforce", 90, 0, 10), (1000, 0, "reinforce", "pgleaf", 10, 0, 90),
          (1000, 0, "tdleaf", "pgleaf", 52, 0, 48), (1000, 0, "pgleaf", "tdleaf", 48, 0, 52),
          (1000, 0, "td", "reinforce", 5, 0, 95), (1000, 0, "reinforce", "td", 95, 0, 5)]
    g = [(1000, "pgleaf/mdp/0", "pgleaf", "mdp", 0, 80, 0, 20),
         (1000, "tdleaf/mdp/0", "tdleaf", "mdp", 0, 30, 0, 70),
         (1000, "pgleaf/non_mdp/0", "pgleaf", "non_mdp", 0, 79, 0, 21),
         (1000, "tdleaf/non_mdp/0", "tdleaf", "non_mdp", 0, 30, 0, 70)]
    table = claim_verdicts(_report(rr, g), {"replicates": 1}, "toy").set_index("claim")
    verdict = table.verdict.to_dict()
    # 90 of 100 decisive: p = P(X >= 90 | n=100) ~ 1.5e-17, survives Holm
    assert verdict["1a PGLeaf beats REINFORCE after 1,000 games"] == "reproduced"
    assert table.loc["1a PGLeaf beats REINFORCE after 1,000 games", "statistic"] == 0.9
    assert verdict["2 TDLeaf(λ) beats PGLeaf after 1,000 games"] == "undecided"     # 52-48
    assert verdict["4 TD(λ) beats REINFORCE after 100,000 games"] == "contradicted"   # 5-95
    assert verdict["5 PGLeaf ahead against the reference after 10,000 games (MDP)"] == \
        "reproduced"                                                         # 80 % vs 30 %
    assert table.loc["5 PGLeaf ahead against the reference after 10,000 games (MDP)",
                     "statistic"] == pytest.approx(0.5)
    # 80 % vs 79 % on 100 games each: the 90 % intervals of the difference lie within ±10
    # points only with more games -- undecided, not contradicted
    assert verdict["8 PGLeaf as strong with either reward"] == "undecided"
    assert set(table.columns) == {"configuration", "test", "verdict", "statistic", "p_value",
                                  "replicates", "games"}
    assert table.test.to_dict() == {
        **{c: "sign" for c in table.index if c[0] in "1234"},
        **{c: "two-proportion z" for c in table.index if c[0] in "567"},
        "8 PGLeaf as strong with either reward": "equivalence"}


def test_the_committed_claims_table_is_what_the_committed_runs_give():
    path = results_dir("paper", "pgleaf") / "claims_by_configuration.csv"
    if not path.is_file():
        pytest.skip("no committed claims table")
    committed = pd.read_csv(path)
    pd.testing.assert_frame_equal(committed, claims_by_configuration(), rtol=1e-9)
