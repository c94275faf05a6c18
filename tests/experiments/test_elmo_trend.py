"""The registered tests of elmo's λ over training runs (gamelib.experiments.elmo_trend) on
hand-made match tables whose slopes, differences and p-values are computed here by hand; the
paired-openings size of the experiment; the command line's one error line."""

from __future__ import annotations

import json
import math
import subprocess
from fractions import Fraction

import pandas as pd
import pytest

from gamelib.experiments import elmo_shogi as X
from gamelib.experiments import elmo_trend as E
from gamelib.runtime.paths import repo_root

LAMBDAS = ["0", "0.5", "1"]


def _matches(ref: tuple[int, int, int], apery: int, init: tuple[int, int, int]):
    """One run's table: wins out of 200 decisive games (no draws) of elmo λ = 0, 0.5, 1 and Apery."""
    rows = []
    for lam, w_ref, w_init in zip(LAMBDAS, ref, init):
        rows.append(("elmo_" + lam, "reference", w_ref))
        rows.append(("elmo_" + lam, "initial", w_init))
    rows.append(("apery", "reference", apery))
    rows.append(("apery", "initial", 100))
    return pd.DataFrame([{"player": p, "opponent": o, "wins": w, "draws": 0, "losses": 200 - w}
                         for p, o, w in rows])


def _p_two_sided_df2(t: float) -> float:
    """Student's t with 2 degrees of freedom: P(|T| >= t) = 1 - t / sqrt(2 + t^2)."""
    return 1 - t / math.sqrt(2 + t * t)


def test_the_slope_is_the_exact_least_squares_slope():
    xs = [Fraction(0), Fraction(1), Fraction(2), Fraction(4)]
    ys = [Fraction(1), Fraction(2), Fraction(2), Fraction(5)]
    # x̄ = 7/4, ȳ = 5/2; Σ(x-x̄)(y-ȳ) = 8.5, Σ(x-x̄)² = 8.75
    assert E.slope(xs, ys) == Fraction(17, 2) / Fraction(35, 4)
    with pytest.raises(ValueError, match="two distinct x"):
        E.slope([Fraction(1), Fraction(1)], [Fraction(0), Fraction(1)])


def test_three_runs_give_the_hand_computed_verdicts():
    runs = [_matches((100, 110, 120), 100, (100, 100, 96)),
            _matches((100, 111, 122), 100, (100, 100, 100)),
            _matches((100, 112, 124), 100, (100, 100, 108))]
    table = E.trend_table(runs, LAMBDAS).set_index("test")
    # slopes on λ = 0, 0.5, 1 are y(1) - y(0): 0.10, 0.11, 0.12 against the reference
    ref = table.loc["trend_reference"]
    t = 0.11 / (0.01 / math.sqrt(3))
    assert ref["mean"] == pytest.approx(0.11, abs=1e-15) and ref.sd == pytest.approx(0.01, rel=1e-12)
    assert ref.p_two_sided == pytest.approx(_p_two_sided_df2(t), rel=1e-9)
    assert ref.runs == 3 and ref.runs_positive == 3 and ref.unit == "training run"
    assert ref.pooled == pytest.approx(366 / 600 - 300 / 600, abs=1e-15)
    # λ = 0.5 minus Apery against the reference: 0.05, 0.055, 0.06
    vs = table.loc["elmo_vs_apery"]
    assert vs["mean"] == pytest.approx(0.055, abs=1e-15)
    assert vs.p_two_sided == pytest.approx(_p_two_sided_df2(0.055 / (0.005 / math.sqrt(3))), rel=1e-9)
    # against the initial evaluation: slopes -0.02, 0, 0.04
    init = table.loc["trend_initial"]
    sd = math.sqrt(((-0.02 - 0.02 / 3) ** 2 + (0.02 / 3) ** 2 + (0.04 - 0.02 / 3) ** 2) / 2)
    assert init.sd == pytest.approx(sd, rel=1e-12) and init.runs_positive == 1
    assert init.p_two_sided == pytest.approx(_p_two_sided_df2((0.02 / 3) / (sd / math.sqrt(3))), rel=1e-9)
    # the runs a decision needs: the fewest with power 0.8 at 1 %/3 two-sided
    from gamelib.play.replicate_tests import t_power
    n = int(init.runs_needed)
    assert t_power(0.02 / 3, sd, n - 1, 0.01 / 6) < 0.8 <= t_power(0.02 / 3, sd, n, 0.01 / 6)
    # Holm at 1 %: the two p = 0.0029 pass 0.01/3 and 0.01/2; the third does not
    assert (ref.verdict, vs.verdict, init.verdict) == ("rises", "elmo ahead", "undecided")
    falling = [_matches((120, 110, 100), 100, (100, 100, 100)),
               _matches((122, 111, 100), 100, (100, 100, 100)),
               _matches((124, 112, 100), 100, (100, 100, 100))]
    assert E.trend_table(falling, LAMBDAS).set_index("test").verdict["trend_reference"] == "falls"


def test_one_run_decides_nothing():
    table = E.trend_table([_matches((100, 150, 190), 10, (100, 150, 190))], LAMBDAS)
    assert table.p_two_sided.isna().all() and (table.verdict == "undecided").all()


def test_the_paired_openings_size():
    sizes = dict(X.PROFILES["paper"])
    assert X.elmo_config(sizes).paired_openings is True
    old = {k: v for k, v in sizes.items() if k != "paired_openings"}
    config = X.elmo_config(old)                       # a run made before the size existed
    assert config.paired_openings is False and "paired_openings" not in config.as_dict()
    with pytest.raises(ValueError, match="match_games \\(401\\) must be even with paired_openings"):
        X.elmo_config({**sizes, "match_games": 401})
    with pytest.raises(ValueError, match="paired_openings must be true or false"):
        X.elmo_config({**sizes, "paired_openings": "yes"})


def test_the_command_line_names_a_folder_that_is_not_a_run(tmp_path, capsys):
    assert E.main([str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"error: not a finished elmo_shogi run folder: {tmp_path}"]


REGISTERED = "data/results/paper/elmo_shogi/PREREGISTRATION.md"


def test_the_registration_precedes_every_run_it_judges():
    if not (repo_root() / ".git").exists():
        pytest.skip("not a git checkout")
    git = lambda *a: subprocess.run(["git", "-C", str(repo_root()), *a], capture_output=True,
                                    text=True, check=True).stdout
    assert git("show", f"{E.PREREGISTRATION_COMMIT}:{REGISTERED}") == (repo_root() / REGISTERED).read_text()
    assert git("show", f"{E.PREREGISTRATION_COMMIT}:gamelib/experiments/elmo_trend.py").count("def trend_tests")
    for provenance in sorted((repo_root() / "data/results/paper/elmo_shogi").glob("seed-*/provenance.json")):
        stored = json.loads(provenance.read_text())
        if not stored["sizes"].get("paired_openings"):
            continue                      # a run made before the registration
        for invocation in stored["invocations"]:
            subprocess.run(["git", "-C", str(repo_root()), "merge-base", "--is-ancestor",
                            E.PREREGISTRATION_COMMIT, invocation["git_commit"]], check=True)


def test_the_registered_runs_and_no_verdict_before_all_five(tmp_path, monkeypatch):
    for seed, paired in ((0, True), (1, False), (2, True), (7, True)):
        (tmp_path / f"seed-{seed}").mkdir()
        (tmp_path / f"seed-{seed}" / "provenance.json").write_text(
            json.dumps({"seed": seed, "sizes": {"paired_openings": paired} if paired else {}}))
    assert E.registered_folders(tmp_path) == [tmp_path / "seed-0", tmp_path / "seed-2"]
    runs = [_matches((100, 110, 120), 100, (100, 100, 96)), _matches((100, 111, 122), 100, (100, 100, 100)),
            _matches((100, 112, 124), 100, (100, 100, 108))]
    monkeypatch.setattr(E, "trend_tests", lambda folders, alpha: E.trend_table(runs, LAMBDAS, alpha))
    table, folders = E.registered_trend(tmp_path)
    assert len(folders) == 2
    assert (table.verdict == "interim (2 of 5 runs): no verdict").all() and not table.holm_rejects.any()
    with pytest.raises(ValueError, match="no registered elmo run"):
        E.registered_trend(tmp_path / "seed-1")
