"""The whole PGLeaf experiment at a tiny size: command line, report files, resume, Dask."""

import json

import numpy as np
import pandas as pd
import pytest

import pgleaf_tiny as tiny
from gamelib.experiments import pgleaf
from gamelib.experiments.cli import main

TINY = ["-p", "n_games", "8", "-p", "M", "4", "-p", "games_per_job", "2", "-p", "max_plies",
        "40", "-p", "keep_points", "[4, 8]", "-p", "table_points", "[8]", "-p", "curve_points",
        "[0, 8]", "-p", "round_robin_games", "2", "-p", "gauntlet_games", "2", "-p",
        "node_budget", "50", "-p", "max_depth", "4"]


def test_command_line_runs_reports_and_resumes(tmp_path, capsys):
    out = tmp_path / "run"
    argv = ["pgleaf", "--profile", "quick", "--seed", "1", "--out", str(out), "--workers", "1",
            "--no-progress", *TINY]
    assert main(argv) == 0
    printed = capsys.readouterr().out
    assert "wall time: training" in printed and f"results in {out}" in printed
    for name in ("training.csv", "round_robin.csv", "gauntlet.csv", "curves.csv", "elo.csv",
                 "tables.md", "fig1_mdp.png", "fig2_non_mdp.png", "provenance.json"):
        assert (out / name).stat().st_size > 0, name
    assert len(list((out / "theta").glob("*.npz"))) == 8                 # 8 runs at 8 games
    rr = pd.read_csv(out / "round_robin.csv")
    assert len(rr) == 12 and set(rr.games) == {8}                      # 6 pairs, both sides
    assert (rr.wins + rr.draws + rr.losses == 2).all()
    g = pd.read_csv(out / "gauntlet.csv")
    assert len(g) == 16 and set(g.games) == {0, 8}
    # at 0 games all runs share the initial parameters: one player, one record
    assert g[g.games == 0][["wins", "draws", "losses"]].drop_duplicates().shape[0] == 1
    training = pd.read_csv(out / "training.csv")
    assert len(training) == 16 and (training[["sente_wins", "gote_wins", "draws"]].sum(axis=1)
                                     == 4).all()
    prov = json.loads((out / "provenance.json").read_text())
    assert prov["profile"] == "quick" and prov["seed"] == 1 and prov["sizes"]["n_games"] == 8
    first = {p.name: p.read_bytes() for p in out.glob("*.csv")}
    assert main(argv) == 0                                             # resumes: nothing new
    assert {p.name: p.read_bytes() for p in out.glob("*.csv")} == first
    assert len(json.loads((out / "provenance.json").read_text())["invocations"]) == 2
    tables = (out / "tables.md").read_text()
    assert "| PGLeaf |" in tables
    # the report files alone give the report back (what the chapter shows of a committed run)
    report, sizes = pgleaf.load_report(out)
    assert sizes["n_games"] == 8 and sizes["table_points"] == [8]
    pd.testing.assert_frame_equal(report.round_robin, rr)
    pd.testing.assert_frame_equal(report.curves, pgleaf.curves(report.gauntlet), rtol=1e-9)
    assert set(report.timings) >= {"training", "matches", "report"}
    invocations = json.loads((out / "provenance.json").read_text())["invocations"]
    assert report.timings["training"] == pytest.approx(
        sum(i["wall_time_s"]["training"] for i in invocations))              # both calls
    assert pgleaf.load_report(out, expect=sizes)[1] == sizes
    with pytest.raises(ValueError, match=r"other sizes: gauntlet_games 2 \(wanted 4\)"):
        pgleaf.load_report(out, expect={**sizes, "gauntlet_games": 4})
    assert list(pgleaf.claims(report, sizes).columns) == ["claim", "paper", "ours", "p_value",
                                                          "verdict"]


def test_load_report_refuses_an_unfinished_or_foreign_run(tmp_path):
    with pytest.raises(FileNotFoundError, match="missing training.csv.*provenance.json"):
        pgleaf.load_report(tmp_path)
    for name in ("training", "round_robin", "gauntlet", "curves", "elo"):
        (tmp_path / f"{name}.csv").write_text("a\n1\n")
    (tmp_path / "provenance.json").write_text('{"experiment": "elmo", "sizes": {}}')
    with pytest.raises(ValueError, match="experiment 'elmo', not 'pgleaf'"):
        pgleaf.load_report(tmp_path)
    (tmp_path / "provenance.json").write_text('{"experiment": "pgl')
    with pytest.raises(ValueError, match="corrupt JSON file"):
        pgleaf.load_report(tmp_path)


def test_bad_options_are_refused(tmp_path, capsys):
    assert main(["pgleaf", "--profile", "huge", "--out", str(tmp_path / "x")]) == 2
    assert "unknown profile 'huge'" in capsys.readouterr().err
    assert main(["pgleaf", "--out", str(tmp_path / "x"), "-p", "n_gamez", "3"]) == 2
    assert "unknown parameter(s) 'n_gamez'" in capsys.readouterr().err
    assert main(["pgleaf", "--out", str(tmp_path / "y"), "-p", "beta", "-1"]) == 2
    assert "beta must be a positive number, got -1" in capsys.readouterr().err
    assert not (tmp_path / "y").exists()


def test_dask_cluster_gives_the_same_parameters(tmp_path):
    distributed = pytest.importorskip("distributed")
    reference = tiny.run(tmp_path / "serial", seed=3)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster:
        result = tiny.run(tmp_path / "dask", seed=3, scheduler=cluster.scheduler_address)
    for key, value in reference.state.items():
        assert np.array_equal(result.state[key], value), key


def test_paper_tables_are_the_papers():
    t4 = pgleaf.paper_table(100_000)
    assert t4.loc["PGLeaf", "TL"] == 56.2 and t4.loc["TDLeaf(λ)", "PL"] == 43.8
    assert t4.loc["TD(λ)", "RE"] == 68.7 and np.isnan(t4.loc["TD(λ)", "TD"])
    t2 = pgleaf.paper_table(1000)
    assert t2.loc["TD(λ)", "TL"] == 31.2 and t2.loc["TDLeaf(λ)", "TD"] == 67.8   # as printed
    assert pgleaf.paper_table(10_000).loc["REINFORCE", "TD"] == 52.6


def _synthetic_report(pl_vs_re, tl_vs_pl, curve):
    rows = []
    for point in (1000, 100_000):
        for (a, b), (w, d, l) in {("pgleaf", "reinforce"): pl_vs_re,
                                  ("tdleaf", "pgleaf"): tl_vs_pl}.items():
            rows.append({"games": point, "replicate": 0, "player": a, "opponent": b,
                         "wins": w, "draws": d, "losses": l})
            rows.append({"games": point, "replicate": 0, "player": b, "opponent": a,
                         "wins": l, "draws": d, "losses": w})
    rr = pd.DataFrame(rows)
    g = pd.DataFrame([{"games": games, "run": f"{a}/{r}/0", "algorithm": a, "reward": r,
                       "replicate": 0, "wins": w, "draws": 0, "losses": 100 - w}
                      for (games, a, r), w in curve.items()])
    return pgleaf.PGLeafReport(None, rr, g, pgleaf.curves(g), None, {})


def test_claims_verdicts():
    sizes = pgleaf.profile_config("paper", table_points=[1000, 100_000], curve_points=[0, 1000])
    curve = {(0, a, r): 50 for a in pgleaf.ALGORITHMS for r in ("mdp", "non_mdp")}
    curve.update({(1000, "pgleaf", "mdp"): 80, (1000, "reinforce", "mdp"): 40,
                  (1000, "tdleaf", "mdp"): 55, (1000, "td", "mdp"): 45,
                  (1000, "pgleaf", "non_mdp"): 78, (1000, "tdleaf", "non_mdp"): 30,
                  (1000, "reinforce", "non_mdp"): 40, (1000, "td", "non_mdp"): 40})
    c = pgleaf.claims(_synthetic_report((60, 5, 20), (20, 0, 25), curve), sizes)
    verdict = dict(zip(c.claim, c.verdict))
    assert verdict["PGLeaf beats REINFORCE"] == "reproduced"                 # 60-20
    assert verdict["TDLeaf(λ) beats PGLeaf early"] == "not significant"      # 20-25
    assert verdict["PGLeaf beats TDLeaf(λ) at the end"] == "not significant"
    assert verdict["PGLeaf rises fastest against the reference (MDP)"] == "reproduced"
    assert verdict["TDLeaf(λ) is weaker with non-MDP rewards"] == "reproduced"
    assert verdict["PGLeaf is as strong with non-MDP rewards"] == "consistent"
    c = pgleaf.claims(_synthetic_report((10, 0, 60), (10, 0, 60), curve), sizes)
    verdict = dict(zip(c.claim, c.verdict))
    assert verdict["TDLeaf(λ) beats PGLeaf early"] == "contradicted"
    assert verdict["PGLeaf beats TDLeaf(λ) at the end"] == "reproduced"


def test_fastest_rise_is_checked_where_the_paper_states_it():
    """The paper: PGLeaf "far ahead after 10,000 games" -- behind after 1,000 does not count."""
    sizes = pgleaf.profile_config("paper", table_points=[1000, 100_000],
                                  curve_points=[0, 1000, 10_000, 100_000], rewards=["mdp"])
    curve = {(0, a, "mdp"): 50 for a in pgleaf.ALGORITHMS}
    for games, rates in ((1000, (30, 40, 70, 45)), (10_000, (85, 40, 60, 45)),
                         (100_000, (40, 40, 90, 45))):
        curve.update({(games, a, "mdp"): w for a, w in zip(pgleaf.ALGORITHMS, rates)})
    c = pgleaf.claims(_synthetic_report((60, 5, 20), (20, 0, 25), curve), sizes)
    row = c[c.claim == "PGLeaf rises fastest against the reference (MDP)"].iloc[0]
    assert row.verdict == "reproduced" and row.ours.startswith("after 10000 games PGLeaf 85.0 %")


def test_learner_settings_are_set_from_the_command_line(tmp_path, capsys):
    """The learners' settings own the hyper-parameters; the profile and ``-p`` reach them
    (every learner field is checked, whichever learners run)."""
    from gamelib.experiments.registry import discover

    registry = discover()
    opts = registry.options("pgleaf", out=tmp_path / "x",
                            overrides={"temperature": 0.1, "gamma": 0.9, "baseline": "none",
                                       "tie_sides": True})
    run = pgleaf.runs_of(opts.sizes)[0]
    st = pgleaf.settings_of(run, opts.sizes)
    assert (st.temperature, st.gamma, st.baseline, st.tie_sides) == (0.1, 0.9, "none", True)
    default = pgleaf.settings_of(run, pgleaf.profile_config("quick"))
    assert default.temperature == {"pgleaf": 0.05, "reinforce": 0.05, "tdleaf": 0.03,
                                   "td": 0.03}[run.algorithm]           # None: the paper's
    for key, value, message in (("temperature", "-1", "temperature must be a positive number"),
                                ("baseline", '"median"', "unknown baseline 'median'"),
                                ("qdepth", "1.5", "qdepth must be a non-negative integer"),
                                ("lam", "2", "lam must be a number in [0, 1]")):
        assert main(["pgleaf", "--out", str(tmp_path / key), "-p", key, value]) == 2
        assert message in capsys.readouterr().err
        assert not (tmp_path / key).exists()                            # nothing written
