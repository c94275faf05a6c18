"""The benchmark dispatcher: every listed benchmark exists, bad names are refused."""

import importlib

import pytest

from gamelib.bench.__main__ import BENCHMARKS, main


@pytest.mark.parametrize("name", sorted(BENCHMARKS))
def test_every_benchmark_module_has_a_main(name):
    module = importlib.import_module(BENCHMARKS[name])
    assert callable(getattr(module, "main", None)), f"{BENCHMARKS[name]} has no main(argv)"


def test_unknown_benchmark_is_refused(capsys):
    assert main(["chess"]) == 2
    err = capsys.readouterr().err
    assert "unknown benchmark 'chess'" in err and "selfplay" in err


def test_selfplay_bench_rejects_non_positive_sizes():
    with pytest.raises(SystemExit):
        main(["selfplay", "--games", "0"])


def test_selfplay_bench_refuses_a_theta_pattern_without_the_algorithm(capsys):
    with pytest.raises(SystemExit):
        main(["selfplay", "--theta", "theta.npz"])
    assert "'{algorithm}'" in capsys.readouterr().err


def test_selfplay_bench_names_the_parameter_file_it_cannot_load(tmp_path, capsys):
    (tmp_path / "td.npz").write_bytes(b"not a zip file")
    with pytest.raises(SystemExit):
        main(["selfplay", "--algorithms", "td", "--theta", str(tmp_path / "{algorithm}.npz")])
    err = capsys.readouterr().err
    assert "td's parameters" in err and str(tmp_path / "td.npz") in err


def test_selfplay_bench_plays_from_the_given_parameters(tmp_path, capsys):
    import numpy as np

    from gamelib.games.minishogi import features as E
    from gamelib.learn import learners, td_selfplay as tds

    theta = E.table1_theta()          # other games than from the initial parameters
    E.save_theta(tmp_path / "td.npz", theta)
    seeds = np.arange(3, dtype=np.int64) + 12345
    settings = learners.settings("td")
    plies = {name: sum(r.plies for r in tds.play_td_games(th, settings, seeds)[1]) / 3
             for name, th in (("given", theta), ("initial", E.initial_theta(0)))}
    assert plies["given"] != plies["initial"]
    main(["selfplay", "--algorithms", "td", "--games", "3", "--repeat", "1",
          "--theta", str(tmp_path / "{algorithm}.npz")])
    assert f"3 games, {plies['given']:.1f} plies each" in capsys.readouterr().out
