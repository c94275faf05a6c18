"""The ablations of the PGLeaf study: every one is a valid pgleaf run that changes one factor."""

import pytest

from gamelib.experiments import pgleaf
from gamelib.experiments.pgleaf.ablations import (FACTORS, ablation_argv, ablation_sizes,
                                                  ablation_table)
from gamelib.experiments.registry import discover


@pytest.mark.parametrize("factor, setting", [(f, s) for f in FACTORS for s in FACTORS[f]])
def test_an_ablation_changes_one_factor_of_the_paper_profile(factor, setting):
    sizes = ablation_sizes(factor, setting)
    paper = pgleaf.PROFILES["paper"]
    overrides, algorithms = FACTORS[factor][setting]
    assert sizes["n_games"] == 10_000 and sizes["replicates"] == paper["replicates"]
    assert sizes["algorithms"] == algorithms
    changed = {k for k in paper if k in overrides and overrides[k] != paper[k]}
    assert changed == set(overrides)                     # the factor, and nothing else learned
    for key in ("alpha", "beta", "baseline", "tie_sides", "max_plies", "temperature", "M",
                "lam", "gamma", "node_budget", "gauntlet_games", "round_robin_games"):
        if key not in overrides:
            assert sizes[key] == paper[key], key
    # what the command line would run: the registry accepts it and gives the same sizes
    argv = ablation_argv(factor, setting)
    overrides_cli = {argv[i + 1]: __import__("json").loads(argv[i + 2])
                     for i, a in enumerate(argv) if a == "-p"}
    opts = discover().options("pgleaf", profile="paper", overrides=overrides_cli)
    assert opts.sizes == pgleaf.config._check_sizes(sizes)
    st = pgleaf.settings_of(pgleaf.runs_of(opts.sizes)[0], opts.sizes)
    for key, value in overrides.items():
        assert getattr(st, key) == pytest.approx(value)


def test_unknown_factors_are_named():
    with pytest.raises(ValueError, match="unknown factor 'noise'"):
        ablation_sizes("noise", "x")
    with pytest.raises(ValueError, match="unknown setting 'x' of td_scale; valid: knightcap"):
        ablation_sizes("td_scale", "x")


def test_the_table_measures_the_committed_configuration():
    table = ablation_table()
    committed = table[table.factor == "none"]
    assert len(committed) == 24 and (committed.games == 10_000).all()
    assert committed.sente_share.between(0, 1).all() and committed.mirror_rate.between(0, 1).all()
    assert (committed.low <= committed.win_rate_vs_reference).all()


def test_the_committed_ablation_table_is_what_the_committed_runs_give():
    import pandas as pd

    from gamelib.runtime.paths import results_dir

    path = results_dir("paper", "pgleaf") / "ablations.csv"
    if not path.is_file():
        pytest.skip("no committed ablation table")
    pd.testing.assert_frame_equal(pd.read_csv(path), ablation_table(), rtol=1e-9)


def test_the_figure_has_a_row_per_configuration_and_learner():
    import matplotlib.pyplot as plt

    from gamelib.experiments.pgleaf.ablations import plot_ablations

    table = ablation_table()
    axes = plot_ablations(table)
    labels = [t.get_text() for t in axes[0].get_yticklabels()]
    assert len(labels) == len(table.groupby(["factor", "setting", "algorithm"]))
    assert labels[:4] == ["committed: PGLeaf", "committed: REINFORCE", "committed: TDLeaf(λ)",
                          "committed: TD(λ)"]
    dots = sum(len(line.get_xdata()) for line in axes[1].get_lines() if line.get_marker() != "None")
    assert dots == len(table)          # every run is one dot of sente's share
    plt.close("all")
