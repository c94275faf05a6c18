"""The TD temperature study: its grid is the registered one, its pre-registration precedes its
runs in git, and the registered decision rule and test family do what the file says."""

import json
import subprocess

import pandas as pd
import pytest

from gamelib.experiments.pgleaf import td_temperature as tt
from gamelib.experiments.pgleaf.closest import closest_folder
from gamelib.runtime.paths import repo_root

REGISTERED = "data/results/paper/pgleaf/td_temperature/PREREGISTRATION.md"


def _git(*args):
    return subprocess.run(["git", "-C", str(repo_root()), *args], capture_output=True,
                          text=True, check=True).stdout


def test_the_preregistration_commit_holds_the_file_and_no_run_of_the_study():
    if not (repo_root() / ".git").exists():
        pytest.skip("not a git checkout")
    files = _git("ls-tree", "-r", "--name-only", tt.PREREGISTRATION_COMMIT,
                 "data/results/paper/pgleaf/td_temperature").split()
    assert files == [REGISTERED]
    assert _git("show", f"{tt.PREREGISTRATION_COMMIT}:{REGISTERED}") == \
        (repo_root() / REGISTERED).read_text()
    for point in ("teff=0.03", "teff=0.12", "teff=0.384"):
        provenance = tt.point_folder(point) / "provenance.json"
        if provenance.is_file():     # every invocation of a run ran code of a later commit
            for invocation in json.loads(provenance.read_text())["invocations"]:
                subprocess.run(["git", "-C", str(repo_root()), "merge-base", "--is-ancestor",
                                tt.PREREGISTRATION_COMMIT, invocation["git_commit"]],
                               check=True)


def _overrides(argv):
    pairs = {argv[i + 1]: json.loads(argv[i + 2]) for i, a in enumerate(argv) if a == "-p"}
    return pairs


@pytest.mark.parametrize("point, temperature", [("teff=0.03", 0.03), ("teff=0.12", 0.12),
                                                ("teff=0.384", 0.384)])
def test_each_beta_one_point_is_the_registered_run(point, temperature):
    argv = tt.point_argv(point)
    assert argv[argv.index("--out") + 1].endswith(f"pgleaf/td_temperature/{point}/seed-0")
    assert _overrides(argv) == {
        "tie_sides": True, "temperature": temperature, "algorithms": ["tdleaf", "td"],
        "rewards": ["mdp"], "replicates": 5, "n_games": 10000,
        "keep_points": [100, 200, 500, 1000, 2000, 5000, 10000], "table_points": [10000],
        "curve_points": [10000], "gauntlet_games": 100, "round_robin_games": 2}


def test_closest_is_the_closest_run_read_not_rerun():
    sizes = tt.point_sizes("closest")
    assert (sizes["beta"], sizes["temperature"], sizes["td_alpha"]) == (12.8, None,
                                                                       0.001 / 12.8 ** 2)
    assert tt.point_folder("closest") == closest_folder()
    assert tt.POINTS["closest"][0] * tt.POINTS["closest"][1] == pytest.approx(0.384)
    with pytest.raises(ValueError, match="not rerun"):
        tt.point_argv("closest")
    with pytest.raises(ValueError, match="unknown point"):
        tt.point_sizes("teff=1")


def _table(healthy_counts, rates=None):
    """A run table with the given number of healthy replicates per (point, learner)."""
    rows = []
    for (point, algorithm), k in healthy_counts.items():
        for r in range(5):
            rows.append({"point": point, "algorithm": algorithm, "replicate": r,
                         "healthy": r < k})
    return pd.DataFrame(rows)


@pytest.mark.parametrize("counts, pick", [
    ({("teff=0.03", "td"): 5, ("teff=0.03", "tdleaf"): 4, ("teff=0.12", "td"): 5,
      ("teff=0.12", "tdleaf"): 5, ("closest", "td"): 5, ("closest", "tdleaf"): 5}, "teff=0.03"),
    ({("teff=0.03", "td"): 5, ("teff=0.03", "tdleaf"): 3, ("teff=0.12", "td"): 4,
      ("teff=0.12", "tdleaf"): 4, ("closest", "td"): 5, ("closest", "tdleaf"): 5}, "teff=0.12"),
    ({("teff=0.03", "td"): 2, ("teff=0.03", "tdleaf"): 3, ("closest", "td"): 4,
      ("closest", "tdleaf"): 5}, "closest"),
    ({("teff=0.03", "td"): 2, ("teff=0.03", "tdleaf"): 3, ("closest", "td"): 3,
      ("closest", "tdleaf"): 2}, "teff=0.03"),
])
def test_the_decision_rule_is_the_registered_one(counts, pick):
    got = tt.decision(_table(counts))
    assert got["pick"] == pick
    assert (got["why"] == "no healthy setting") == (pick == "teff=0.03"
                                                     and counts[("teff=0.03", "tdleaf")] < 4)


def _strength_table(rates_by_point):
    rows = []
    for point, (ref, h2h) in rates_by_point.items():
        for algorithm in ("tdleaf", "td"):
            for r in range(5):
                row = {"point": point, "algorithm": algorithm, "replicate": r,
                       "wins_reference": ref[r], "losses_reference": 100 - ref[r]}
                for claim in ("2", "3", "4"):
                    row[f"wins_claim{claim}"] = h2h[r]
                    row[f"losses_claim{claim}"] = 50 - h2h[r]
                rows.append(row)
    return pd.DataFrame(rows)


def test_the_family_has_the_registered_tests_and_holm_decides_only_large_effects():
    table = _strength_table({"teff=0.03": ([10, 12, 9, 11, 10], [45, 46, 44, 45, 47]),
                             "closest": ([50, 52, 48, 51, 49], [25, 30, 20, 24, 26])})
    tests = tt.test_table(table)
    # 2 paired tests (one beta 1 point x 2 learners) + 2 points x 3 claims
    assert len(tests) == 8
    paired = tests[tests.test == "paired t vs closest"]
    assert list(paired.decided) == [True, True] and set(paired.direction) == {"lower"}
    assert paired["mean"].tolist() == pytest.approx([-0.396] * 2)
    one = tests[(tests.test == "one-sample t vs 1/2") & (tests.point == "teff=0.03")]
    assert one.decided.all() and set(one.direction) == {"higher"}
    noisy = tests[(tests.test == "one-sample t vs 1/2") & (tests.point == "closest")]
    assert not noisy.decided.any()           # mean 0.5 -> p = 1
    assert (tests.p_value[tests.decided] <= 0.01).all()
