"""The PGLeaf part's helpers (gamelib.book.pgleaf_pages): readable labels, verdict sentences,
the dependence of each verdict on the varied choices, Tables 2-4 beside the paper."""

import pandas as pd
import pytest

from gamelib.book import pgleaf_pages as pp


def test_checkpoint_labels_read_as_words():
    assert pp.checkpoint_label("tdleaf/mdp/0@100000") == \
        "TDLeaf(λ), MDP, replicate 0, after 100,000 games"
    assert pp.checkpoint_label("reinforce/non_mdp/12@1000") == \
        "REINFORCE, non-MDP, replicate 12, after 1,000 games"
    assert pp.checkpoint_label("initial/3@0") == "initial parameters, replicate 3"
    assert pp.checkpoint_label("reference") == "reference"
    for bad in ("tdleaf/mdp@100", "chess/mdp/0@10", "td/other/0@10"):
        with pytest.raises(ValueError):
            pp.checkpoint_label(bad)


def test_claim_parts_and_statistics():
    assert pp.claim_parts("1a PGLeaf beats REINFORCE after 1,000 games") == \
        ("1a", "PGLeaf beats REINFORCE after 1,000 games")
    with pytest.raises(ValueError, match="claim number"):
        pp.claim_parts("PGLeaf beats REINFORCE")
    assert pp.statistic_text("one-sample t", 0.736) == "73.6 %"
    assert pp.percent_range(0.46, 0.522) == "46.0–52.2 %"
    assert pp.percent_range(1.0, 0.99999) == "100.0 %"
    assert pp.percent_range(0.05, 0.55, 0) == "5–55 %"
    assert pp.statistic_text("paired t", -0.1255) == "−12.6 points"
    assert pp.statistic_text("paired t equivalence", 0.019) == "+1.9 points"


def test_verdict_text_names_unit_count_pooled_rate_and_test():
    row = next(pd.DataFrame([{"claim": "3 PGLeaf beats TDLeaf(λ) after 100,000 games",
                              "test": "one-sample t", "verdict": "reproduced", "statistic": 0.7,
                              "p_value": 0.0002, "replicates": 5, "replicates_for": 4,
                              "pooled_rate": 0.71}]).itertuples())
    text = pp.verdict_text(row)
    assert text.startswith("**reproduced**: 70.0 % (mean over 5 training runs, 4 of 5")
    assert "pooled 71.0 %" in text and "one-sample t test, p = 2.0e-4" in text


def _config(label, plies):
    return pp.Configuration(label, label + (f", {plies}-ply random openings" if plies else ""),
                            None, {"match_opening_plies": plies})


def test_dependence_names_the_choice_that_changes_a_verdict():
    configs = {k: _config(*k) for k in (("A", 0), ("A", 4), ("B", 0), ("B", 4))}
    labels = [c.label for c in configs.values()]
    verdicts = {"1 same": ["reproduced"] * 4,
                "2 layout": ["reproduced", "reproduced", "undecided", "undecided"],
                "3 openings": ["reproduced", "undecided", "reproduced", "undecided"],
                "4 both": ["reproduced", "undecided", "undecided", "contradicted"]}
    table = pd.DataFrame([{"configuration": l, "claim": c, "verdict": v}
                          for c, vs in verdicts.items() for l, v in zip(labels, vs)])
    dep = pp.dependence(table, configs).set_index("claim")
    assert dep.depends_on["1 same"] == "nothing we varied"
    assert dep.depends_on["2 layout"] == "the layout and TD scale"
    assert dep.depends_on["3 openings"] == "the openings"
    assert dep.depends_on["4 both"] == "the layout and TD scale, and the openings"
    assert dep.loc["2 layout", labels[2]] == "undecided"
    with pytest.raises(ValueError, match="not among the committed runs"):
        pp.dependence(table.assign(configuration="C"), configs)


def test_pairings_beside_paper_pool_games_and_count_runs():
    rr = pd.DataFrame([
        {"games": 1000, "replicate": 0, "player": "pgleaf", "opponent": "reinforce", "wins": 30, "draws": 5, "losses": 10},
        {"games": 1000, "replicate": 1, "player": "pgleaf", "opponent": "reinforce", "wins": 10, "draws": 0, "losses": 30},
        {"games": 1000, "replicate": 0, "player": "reinforce", "opponent": "pgleaf", "wins": 10, "draws": 5, "losses": 30},
    ])
    [row] = pp.pairings_beside_paper(rr, points=[1000]).itertuples()
    assert row.pairing == "PGLeaf vs REINFORCE" and row.paper == pytest.approx(0.77)
    assert row.ours_pooled == pytest.approx(40 / 80)
    assert (row.lowest_replicate, row.highest_replicate) == (0.25, 0.75)
    assert row.replicates_won == "1 of 2"
