"""The claims with the training run as the unit: verdicts on hand-made replicates, pooling
seeds, labels, the committed tables."""

import json
import math
import statistics
import subprocess
from dataclasses import replace
from datetime import datetime

import pandas as pd
import pytest

from gamelib.experiments import pgleaf
from gamelib.experiments.pgleaf.verdicts import (COLUMNS, CONFIRMATORY, REGISTERED, TESTS,
                                                 claim_verdicts, claims_by_configuration,
                                                 configuration_label, confirmatory_verdicts,
                                                 pooled_report)
from gamelib.runtime.paths import repo_root, results_dir


def _report(rr_rows, curve_rows):
    rr = pd.DataFrame(rr_rows, columns=["games", "replicate", "player", "opponent", "wins",
                                        "draws", "losses"])
    g = pd.DataFrame(curve_rows, columns=["games", "run", "algorithm", "reward", "replicate",
                                          "wins", "draws", "losses"])
    return pgleaf.PGLeafReport(None, rr, g, pgleaf.curves(g), None, {})


def _round_robin(a, b, records, games=1000):
    """Both directions of pairing (a, b), one (wins, draws, losses) per replicate."""
    rows = []
    for k, (w, d, l) in enumerate(records):
        rows += [(games, k, a, b, w, d, l), (games, k, b, a, l, d, w)]
    return rows


def _gauntlet(algorithm, reward, rates, games=1000, n=100):
    """A gauntlet row per replicate: ``rate`` of ``n`` games won, no draws."""
    return [(games, f"{algorithm}/{reward}/{k}", algorithm, reward, k, round(r * n), 0,
             n - round(r * n)) for k, r in enumerate(rates)]


def _t_p(values, mu0):
    """One-sided p (greater) of the t-test by the closed forms of ν = 1 and 2, in floats."""
    n = len(values)
    t = (statistics.mean(values) - mu0) / (statistics.stdev(values) / math.sqrt(n))
    if n == 2:
        return 0.5 - math.atan(t) / math.pi
    assert n == 3
    return 0.5 - t / (2 * math.sqrt(2 + t * t))


RR = (_round_robin("pgleaf", "reinforce", [(60, 0, 40), (28, 60, 12), (90, 0, 10)])
      + _round_robin("tdleaf", "pgleaf", [(52, 0, 48), (47, 0, 53), (50, 0, 50)])
      + _round_robin("td", "reinforce", [(5, 0, 95), (6, 0, 94), (4, 0, 96)]))
GAUNTLET = (_gauntlet("pgleaf", "mdp", [0.8, 0.7, 0.9]) + _gauntlet("tdleaf", "mdp", [0.3, 0.35, 0.2])
            + _gauntlet("reinforce", "mdp", [0.1, 0.1, 0.1]) + _gauntlet("td", "mdp", [0.2, 0.2, 0.2])
            + _gauntlet("pgleaf", "non_mdp", [0.79, 0.71, 0.9])
            + _gauntlet("tdleaf", "non_mdp", [0.29, 0.21, 0.4]))


def test_verdicts_on_hand_made_results_take_the_training_run_as_the_unit():
    table = claim_verdicts(_report(RR, GAUNTLET), {"replicates": 3}, "toy").set_index("claim")
    one_a = table.loc["1a PGLeaf beats REINFORCE after 1,000 games"]
    # per replicate 0.6, 0.7 (28 of 40 decisive), 0.9; pooled 178 of 240 decisive games: a
    # sign test on the pooled games gives p ~ 1e-14 -- "reproduced" with the games as the unit.
    # With the replicates as the unit: t = 2.52 on 2 degrees of freedom, p = 0.064
    assert one_a.test == "one-sample t" and one_a.unit == "training run"
    assert one_a.statistic == pytest.approx((0.6 + 0.7 + 0.9) / 3, rel=1e-15)
    assert one_a.pooled_rate == pytest.approx(178 / 240, rel=1e-15)
    assert one_a.p_value == pytest.approx(_t_p([0.6, 0.7, 0.9], 0.5), rel=1e-12)
    assert one_a.verdict == "undecided"
    assert (one_a.replicates, one_a.replicates_for) == (3, 3)
    two = table.loc["2 TDLeaf(λ) beats PGLeaf after 1,000 games"]
    assert (two.replicates_for, two.verdict) == (1, "undecided")            # 52, 47, 50 %
    four = table.loc["4 TD(λ) beats REINFORCE after 100,000 games"]
    # 5, 6, 4 %: t = -77.9, p(less) = (1 - √(t²/(2 + t²)))/2 = 8.2e-5 < 0.01/10: contradicted
    assert four.p_value == pytest.approx(_t_p([0.05, 0.06, 0.04], 0.5), rel=1e-12)
    assert 1 - four.p_value == pytest.approx(8.2284e-5, rel=1e-4)
    assert (four.verdict, four.replicates_for) == ("contradicted", 0)
    five = table.loc["5 PGLeaf ahead against the reference after 10,000 games (MDP)"]
    # the best other learner by pooled rate is TDLeaf(λ) (28.3 %); differences 0.5, 0.35, 0.7
    assert five.test == "paired t"
    assert five.statistic == pytest.approx((0.5 + 0.35 + 0.7) / 3, rel=1e-14)
    assert five.pooled_rate == pytest.approx(0.8 - 0.85 / 3, rel=1e-14)
    assert five.p_value == pytest.approx(_t_p([0.5, 0.35, 0.7], 0), rel=1e-12)
    eight = table.loc["8 PGLeaf as strong with either reward"]
    # differences 0.01, -0.01, 0: TOST against ±0.1, p = max of the two shifted t-tests
    assert eight.test == "paired t equivalence" and eight.replicates_for == 3
    assert eight.p_value == pytest.approx(_t_p([0.1 + 0.01, 0.1 - 0.01, 0.1], 0), rel=1e-12)
    six = table.loc["6 PGLeaf ahead of TDLeaf(λ) after 100,000 games (non-MDP)"]
    # differences 0.5, 0.5, 0.5: no spread, p = 0, first in Holm's order (0 <= 0.01 / 10);
    # claim 8's p = 2.2e-3 comes next, above 0.01 / 9: undecided, and Holm stops there
    assert (six.p_value, six.verdict) == (0.0, "reproduced")
    assert eight.p_value == min(table.p_value[table.p_value > 0]) and eight.verdict == "undecided"
    assert list(table.reset_index()[COLUMNS].columns) == list(COLUMNS)
    assert set(table.test) <= set(TESTS)


def test_one_replicate_gives_no_p_value_and_no_verdict():
    rr = _round_robin("pgleaf", "reinforce", [(99, 0, 1)])
    table = claim_verdicts(_report(rr, []), {"replicates": 1}, "one")
    assert math.isnan(table.p_value.iloc[0]) and table.verdict.iloc[0] == "undecided"


def test_configuration_labels_say_what_the_configuration_is():
    from gamelib.experiments.pgleaf.closest import closest_sizes

    assert configuration_label(pgleaf.profile_config("paper")) \
        == "per-side layout, TD β=1 (T_eff 0.03)"
    assert configuration_label(closest_sizes()) == "antisymmetric layout, TD β=12.8 (T_eff 0.384)"
    assert configuration_label(replace(closest_sizes(), match_opening_plies=4, temperature=0.01)) \
        == "antisymmetric layout, TD β=12.8 (T_eff 0.128), 4-ply random openings"


def _write_run(folder, sizes, seed, rates):
    """A finished run folder of ``sizes`` with PGLeaf-REINFORCE round-robin ``rates`` (100
    games per replicate) and nothing else."""
    folder.mkdir(parents=True)
    rows = _round_robin("pgleaf", "reinforce", [(round(100 * r), 0, 100 - round(100 * r))
                                                for r in rates], games=300)
    pd.DataFrame(rows, columns=["games", "replicate", "player", "opponent", "wins", "draws",
                                "losses"]).to_csv(folder / "round_robin.csv", index=False)
    pd.DataFrame(columns=["games", "run", "algorithm", "reward", "replicate", "wins", "draws",
                          "losses"]).to_csv(folder / "gauntlet.csv", index=False)
    pd.DataFrame(columns=["algorithm", "reward", "replicate", "games"]).to_csv(
        folder / "training.csv", index=False)
    for name in ("curves.csv", "elo.csv"):
        pd.DataFrame(columns=["games"]).to_csv(folder / name, index=False)
    (folder / "provenance.json").write_text(json.dumps(
        {"experiment": "pgleaf", "seed": seed, "sizes": sizes,
         "invocations": [{"wall_time_s": {"matches": 2.0}}]}))


def test_the_seeds_of_one_configuration_are_pooled_as_one_set_of_replicates(tmp_path):
    from gamelib.experiments.pgleaf.closest import closest_sizes

    sizes = {**pgleaf.PROFILES["quick"], **{k: v for k, v in closest_sizes().items()
                                            if k in ("tie_sides", "beta", "td_alpha")},
             "replicates": 2}
    _write_run(tmp_path / "closest" / "seed-0", sizes, 0, [0.6, 0.7])
    alone = claims_by_configuration(tmp_path)
    assert list(alone.configuration.unique()) == ["antisymmetric layout, TD β=12.8 (T_eff 0.384)"]
    assert alone.replicates.iloc[0] == 2
    assert alone.p_value.iloc[0] == pytest.approx(_t_p([0.6, 0.7], 0.5), rel=1e-12)
    _write_run(tmp_path / "closest" / "seed-1", sizes, 1, [0.9, 0.8])
    report, pooled_sizes = pooled_report([tmp_path / "closest" / "seed-0",
                                          tmp_path / "closest" / "seed-1"])
    assert pooled_sizes["replicates"] == 4 and report.timings == {"matches": 4.0}
    assert sorted(set(report.round_robin.replicate)) == [0, 1, 2, 3]
    both = claims_by_configuration(tmp_path)
    row = both.iloc[0]
    assert (row.replicates, row.replicates_for) == (4, 4)
    assert row.registered == REGISTERED["closest/seed-*"]
    t = 0.25 / (statistics.stdev([0.6, 0.7, 0.9, 0.8]) / 2)          # ν = 3, closed form
    assert row.p_value == pytest.approx(
        0.5 - (math.atan(t / math.sqrt(3)) + math.sqrt(3) * t / (3 + t * t)) / math.pi, rel=1e-9)
    # another configuration's run among the seeds is refused, naming what differs
    _write_run(tmp_path / "closest" / "seed-2", {**sizes, "beta": 1.0}, 2, [0.5, 0.5])
    with pytest.raises(ValueError, match="seed-2 is another configuration.*beta"):
        claims_by_configuration(tmp_path)


def test_the_confirmatory_seed_is_judged_alone(tmp_path):
    """Seed 1 of the antisymmetric layout is its own family: only its replicates, its own
    Holm correction, the label saying so; nothing while its run is not there."""
    from gamelib.experiments.pgleaf.closest import closest_sizes

    sizes = {**pgleaf.PROFILES["quick"], **{k: v for k, v in closest_sizes().items()
                                            if k in ("tie_sides", "beta", "td_alpha")},
             "replicates": 3}
    _write_run(tmp_path / "closest" / "seed-0", sizes, 0, [0.6, 0.7, 0.65])
    assert confirmatory_verdicts(tmp_path).empty
    assert list(confirmatory_verdicts(tmp_path).columns) == list(COLUMNS)
    _write_run(tmp_path / "closest" / "seed-1", sizes, 1, [0.9, 0.8, 0.4])
    table = confirmatory_verdicts(tmp_path)
    row = table.iloc[0]
    suffix, registered = CONFIRMATORY["closest/seed-1"]
    assert row.configuration == "antisymmetric layout, TD β=12.8 (T_eff 0.384)" + suffix
    assert row.registered == registered and row.unit == "training run"
    assert (row.replicates, row.replicates_for) == (3, 2)
    assert row.statistic == pytest.approx(0.7, rel=1e-12)
    assert row.p_value == pytest.approx(_t_p([0.9, 0.8, 0.4], 0.5), rel=1e-12)
    assert row.verdict == "undecided"
    pooled = claims_by_configuration(tmp_path).iloc[0]
    assert pooled.replicates == 6 and pooled.registered == REGISTERED["closest/seed-*"]


def test_the_committed_confirmatory_table_is_what_the_committed_run_gives():
    path = results_dir("paper", "pgleaf") / "claims_confirmatory.csv"
    if not path.is_file():
        pytest.skip("no committed confirmatory table (its run is not committed)")
    pd.testing.assert_frame_equal(pd.read_csv(path), confirmatory_verdicts(), rtol=1e-9)


def test_the_confirmatory_registration_precedes_its_data_in_git():
    registration = _first_commit("data/results/paper/pgleaf/closest/CONFIRMATORY.md")
    if registration is None:
        pytest.skip("no git history")
    for pattern in CONFIRMATORY:
        data = _first_commit(f"data/results/paper/pgleaf/{pattern}/round_robin.csv")
        assert data is None or datetime.fromisoformat(registration) < datetime.fromisoformat(data)


def test_the_committed_claims_table_is_what_the_committed_runs_give():
    path = results_dir("paper", "pgleaf") / "claims_by_configuration.csv"
    if not path.is_file():
        pytest.skip("no committed claims table")
    committed = pd.read_csv(path)
    pd.testing.assert_frame_equal(committed, claims_by_configuration(), rtol=1e-9)


def test_the_committed_power_table_is_what_the_committed_runs_give():
    from gamelib.experiments.pgleaf.power import replicates_needed_table

    path = results_dir("paper", "pgleaf") / "replicates_needed.csv"
    if not path.is_file():
        pytest.skip("no committed power table")
    committed = pd.read_csv(path, dtype={"replicates_needed": "Int64",
                                         "replicates_needed_if_last": "Int64"})
    pd.testing.assert_frame_equal(committed, replicates_needed_table(), rtol=1e-9)


def _first_commit(path: str) -> str | None:
    out = subprocess.run(["git", "log", "--follow", "--diff-filter=A", "--format=%cI", "--", path],
                         capture_output=True, text=True, cwd=repo_root())
    dates = out.stdout.split()
    return dates[-1] if out.returncode == 0 and dates else None


def test_registration_labels_follow_the_git_history():
    """'post hoc' where the configuration's training runs were committed before the claims'
    tests, 'claims before the data' where after."""
    claims_date = _first_commit("gamelib/experiments/pgleaf/verdicts.py")
    if claims_date is None:
        pytest.skip("no git history")
    for pattern, label in REGISTERED.items():
        training = pattern.replace("openings/plies=4/", "").replace("*", "0")
        data_date = _first_commit(f"data/results/paper/pgleaf/{training}/round_robin.csv")
        if data_date is None:
            continue
        before = datetime.fromisoformat(data_date) < datetime.fromisoformat(claims_date)
        assert label == ("post hoc" if before else
                         "claims before the data, replicate unit post hoc"), pattern
