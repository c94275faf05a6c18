"""The Othello evaluation's unit c: the pre-registered rule (the bisection, its ends and its
failure), the conversion of every size by its dimension, the time cut by hand, a calibration
from the command line, and the registration's place in git."""

import json
import subprocess

import numpy as np
import pytest

from gamelib.experiments.pgleaf import othello_unit as U
from gamelib.experiments.pgleaf.config import (INIT_SCALE, RunSpec, init_scale, profile_config,
                                               run_record, settings_of, train_config)
from gamelib.experiments.pgleaf.matches import match_settings
from gamelib.runtime.paths import repo_root

REGISTERED = "data/results/paper/pgleaf/othello/PREREGISTRATION.md"


def test_bisection_finds_the_unit_of_a_known_decreasing_measure():
    measure = lambda c: 1.0 / (1.0 + c)          # = target at c = 2
    c, steps = U.bisect_unit(measure, 1.0 / 3.0)
    assert 2.0 / 1.01 <= c <= 2.0 and measure(c) >= 1.0 / 3.0
    assert [s[0] for s in steps[:2]] == list(U.BRACKET)
    assert all(v == measure(x) for x, v in steps)
    lows = [x for x, v in steps if v >= 1.0 / 3.0]
    highs = [x for x, v in steps if v < 1.0 / 3.0]
    assert min(highs) / max(lows) < 1 + U.TOLERANCE and c == max(lows)


def test_bisection_refuses_a_target_outside_the_bracket():
    with pytest.raises(ValueError, match="no unit in .* the target 2 is not between"):
        U.bisect_unit(lambda c: 1.0 / (1.0 + c), 2.0)
    with pytest.raises(ValueError, match="need 0 < low < high"):
        U.bisect_unit(lambda c: c, 0.5, bracket=(1.0, 0.5))


def test_the_unit_converts_every_size_by_its_dimension():
    c = 2.5
    base = profile_config("paper", game="othello", rewards=["mdp"], beta=12.8, td_alpha=1e-5)
    conv = profile_config("paper", game="othello", rewards=["mdp"], beta=12.8, td_alpha=1e-5,
                          eval_unit=c)
    for algorithm, paper_t in (("pgleaf", 0.05), ("reinforce", 0.05), ("tdleaf", 0.03),
                               ("td", 0.03)):
        a, b = (settings_of(RunSpec(algorithm, "mdp", 0), x) for x in (base, conv))
        assert a.temperature == paper_t and b.temperature == pytest.approx(c * paper_t, rel=1e-15)
        assert b.alpha == pytest.approx(c * c * a.alpha, rel=1e-15)
        if algorithm in ("tdleaf", "td"):            # the TD learners' squashing slope
            assert b.beta == pytest.approx(a.beta / c, rel=1e-15)
            assert b.beta * b.temperature == pytest.approx(a.beta * a.temperature, rel=1e-15)
        else:                                        # kept in the run's record all the same
            assert run_record(RunSpec(algorithm, "mdp", 0), conv)["beta"] == pytest.approx(
                12.8 / c, rel=1e-15)
    assert init_scale(base) == INIT_SCALE and init_scale(conv) == pytest.approx(c * INIT_SCALE)
    assert match_settings(conv).noise_std == pytest.approx(c * match_settings(base).noise_std)
    assert train_config(conv)["init"]["scale"] == init_scale(conv)
    assert train_config(conv) != train_config(base)
    # 1 is left out of the stored sizes (5×5 shogi's runs keep their identity), and refused
    # otherwise for 5×5 shogi, whose evaluation is the paper's
    assert "eval_unit" not in dict(profile_config("paper")) and dict(conv)["eval_unit"] == c
    with pytest.raises(ValueError, match="eval_unit must be 1 for 5×5 shogi"):
        profile_config("paper", eval_unit=2.0)
    with pytest.raises(ValueError, match="eval_unit"):
        profile_config("paper", game="othello", rewards=["mdp"], eval_unit=0.0)


def test_the_time_cut_by_hand():
    rates = {"selfplay_games_per_s": {a: 300.0 for a in ("pgleaf", "reinforce", "tdleaf", "td")},
             "seconds_per_evaluation_game": 0.5}
    # self-play 4 × 5 × 100,000 / 300 s; evaluation 5 × (6 × 400 × 3 + 4 × 400 × 4) games × 0.5 s
    hours = (4 * 5 * 100_000 / 300 + 68_000 * 0.5) / 2 / 3600
    cut = U.time_cut(rates)
    assert cut["evaluation_games"] == 68_000 and cut["hours_estimated"] == pytest.approx(hours)
    assert not cut["cut"] and cut["n_games"] == 100_000
    slow = U.time_cut({**rates, "seconds_per_evaluation_game": 1.0})    # 10.3 h
    assert slow["cut"] and slow["n_games"] == 20_000 and slow["table_points"] == [1000, 10_000, 20_000]


def test_sharpness_falls_as_the_unit_grows_and_the_command_writes_the_calibration(tmp_path):
    seeds = U.calibration_seeds(2)
    assert seeds.tolist() == U.calibration_seeds(5)[:2].tolist()
    assert U.sharpness("othello", 0.01, seeds) > U.sharpness("othello", 100.0, seeds)
    out = tmp_path / "calibration.json"
    assert U.main(["calibrate", "--games", "2", "--no-speed", "--out", str(out)]) == 0
    result = json.loads(out.read_text())
    assert result["preregistration"] == U.PREREGISTRATION_COMMIT and result["games"] == 2
    assert U.BRACKET[0] <= result["c"] < U.BRACKET[1]
    target = result["target_minishogi_chosen_prob"]
    assert target == pytest.approx(U.sharpness("minishogi", 1.0, seeds), rel=1e-15)
    above = [s["c"] for s in result["steps"] if s["othello_chosen_prob"] >= target]
    assert result["c"] == max(above)


def test_a_bad_number_of_games_is_one_error_line(capsys):
    assert U.main(["calibrate", "--games", "0", "--no-speed"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["error: --games must be a positive integer, got 0"]


def test_the_preregistration_commit_holds_the_file_and_no_calibration_or_run():
    if not (repo_root() / ".git").exists():
        pytest.skip("not a git checkout")
    git = lambda *a: subprocess.run(["git", "-C", str(repo_root()), *a], capture_output=True,
                                    text=True, check=True).stdout
    files = git("ls-tree", "-r", "--name-only", U.PREREGISTRATION_COMMIT,
                "data/results/paper/pgleaf/othello").split()
    assert files == [REGISTERED]
    assert git("show", f"{U.PREREGISTRATION_COMMIT}:{REGISTERED}") == \
        (repo_root() / REGISTERED).read_text()
    assert not np.any([name.startswith("gamelib/experiments/pgleaf/othello_unit") for name in
                       git("ls-tree", "-r", "--name-only", U.PREREGISTRATION_COMMIT).split()])


@pytest.mark.parametrize("cut", [False, True])
def test_the_registered_runs_sizes_follow_the_calibration_and_the_cut(cut):
    games = 20_000 if cut else 100_000
    calibration = {"c": 0.8, "time_cut": {"n_games": games}}
    main = U.run_sizes(calibration)
    assert (main.game, list(main.rewards), main.replicates) == ("othello", ["mdp"], 5)
    assert main.eval_unit == 0.8 and main.beta == 12.8 and main.td_alpha == 0.001 / 12.8 ** 2
    assert main.n_games == games and list(main.table_points) == [1000, 10_000, games]
    assert list(main.curve_points) == [0, 1000, 10_000, games] and main.keep_points[-1] == games
    for unit, factor in (("c-over-4", 0.25), ("4c", 4.0)):
        alt = U.run_sizes(calibration, unit)
        assert alt.eval_unit == factor * 0.8 and alt.n_games == 10_000
        assert list(alt.table_points) == [1000, 10_000] and list(alt.curve_points) == [0, 1000, 10_000]
        assert U.run_folder(unit).parts[-3:] == ("othello", f"unit={unit}", "seed-0")
    assert U.run_folder("c", 2).parts[-2:] == ("othello", "seed-2")
    argv = U.run_argv(calibration, "4c")
    assert argv[argv.index("eval_unit") + 1] == "3.2"
    with pytest.raises(ValueError, match="unknown unit 'c/4'"):
        U.run_sizes(calibration, "c/4")


def test_the_command_line_needs_a_calibration(tmp_path, capsys):
    assert U.main(["argv", "--calibration", str(tmp_path / "none.json")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"error: no calibration at {tmp_path / 'none.json'}: run 'calibrate' first"]
    (tmp_path / "cal.json").write_text(json.dumps({"c": 1.5, "time_cut": {"n_games": 20000}}))
    assert U.main(["argv", "--unit", "4c", "--calibration", str(tmp_path / "cal.json")]) == 0
    out = capsys.readouterr().out
    assert out.startswith("python -m gamelib.experiments pgleaf --profile paper --seed 0 --out "
                          "data/results/paper/pgleaf/othello/unit=4c/seed-0 ") and "-p eval_unit 6.0" in out
