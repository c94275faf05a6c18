"""The ablations of the PGLeaf study: every one is a valid pgleaf run that changes one factor."""

import pandas as pd
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
    assert opts.sizes == sizes
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


def _copy_committed(root):
    """The committed run and the td_scale ablation (reports and parameters) under ``root``."""
    import shutil

    from gamelib.experiments.pgleaf.ablations import ablation_folder
    from gamelib.runtime.paths import results_dir

    source = ablation_folder("td_scale", "knightcap")
    if not (source / "provenance.json").is_file():
        pytest.skip("no committed td_scale ablation")
    ignore = shutil.ignore_patterns("train", "matches", "head_to_head", "wall_time.json",
                                    "head_to_head.csv")
    shutil.copytree(results_dir("paper", "pgleaf") / "seed-0", root / "seed-0", ignore=ignore)
    shutil.copytree(source, ablation_folder("td_scale", "knightcap", root=root), ignore=ignore)


def test_head_to_head_against_the_committed_runs(tmp_path):
    """Every ablation run meets the committed run of its algorithm, reward and replicate with
    both colours; a stored game is the game its documented seed plays, and the table's columns
    are the stored games tallied."""
    from gamelib.games.minishogi import features as ev
    from gamelib.experiments.pgleaf.ablations import ablation_folder, head_to_head
    from gamelib.experiments.pgleaf.matches import MatchSettings
    from gamelib.play.shogi import play_game
    from gamelib.play.stats import wilson_interval
    from gamelib.runtime.seeds import derive_seed

    root = tmp_path / "pgleaf"
    _copy_committed(root)
    match = MatchSettings(node_budget=100, max_depth=6, max_plies=40)
    frame = head_to_head("td_scale", "knightcap", games=4, root=root, match=match, workers=1)
    folder = ablation_folder("td_scale", "knightcap", root=root)
    assert len(frame) == 12 * 4 and set(frame.algorithm) == {"tdleaf", "td"}
    per_run = frame.groupby(["algorithm", "reward", "replicate"])
    assert (per_run.ablation_first.sum() == 2).all() and (per_run.size() == 4).all()
    # game 1 of td/mdp/1: the committed parameters move first
    a, b = "td_scale=knightcap:td/mdp/1", "committed:td/mdp/1"
    seed = derive_seed(derive_seed(0, "head-to-head", "td_scale", "knightcap"), "game", a, b, 1)
    ours = match.player(ev.load_theta(folder / "theta" / "td_mdp_1_10000.npz"))
    theirs = match.player(ev.load_theta(root / "seed-0" / "theta" / "td_mdp_1_10000.npz"))
    game = play_game(theirs, ours, seed, max_plies=40)
    row = frame[(frame.algorithm == "td") & (frame.reward == "mdp") & (frame.replicate == 1)
                & (frame.game == 1)].iloc[0]
    assert row.ablation_first == 0 and row.score == -game.outcome
    # the table tallies head_to_head.csv; the committed configuration has no head-to-head
    table = ablation_table(root=root)
    rows = table[table.factor == "td_scale"]
    stored = pd.read_csv(folder / "head_to_head.csv")
    pd.testing.assert_frame_equal(stored, frame)
    for _, r in rows.iterrows():
        g = stored[(stored.algorithm == r.algorithm) & (stored.reward == r.reward)
                   & (stored.replicate == r.replicate)]
        wins, losses = int((g.score == 1).sum()), int((g.score == -1).sum())
        assert r.games_vs_committed == 4
        if wins + losses:
            assert r.win_rate_vs_committed == pytest.approx(wins / (wins + losses))
        assert (r.low_vs_committed, r.high_vs_committed) == pytest.approx(
            wilson_interval(wins, wins + losses, 0.95))
    none = table[table.factor == "none"]
    assert (none.games_vs_committed == 0).all() and none.win_rate_vs_committed.isna().all()
    # a rerun resumes: nothing new is played, the same file
    before = (folder / "head_to_head.csv").read_bytes()
    pd.testing.assert_frame_equal(head_to_head("td_scale", "knightcap", games=4, root=root,
                                               match=match, workers=2), frame)
    assert (folder / "head_to_head.csv").read_bytes() == before
    with pytest.raises(ValueError, match="games must be even"):
        head_to_head("td_scale", "knightcap", games=3, root=root, match=match)


def test_selfplay_health_by_hand():
    """Two batches of 500 games per run: only those within the window before the point count."""
    from gamelib.experiments.pgleaf import selfplay_health

    tr = pd.DataFrame({"algorithm": ["td"] * 3 + ["pgleaf"] * 3, "reward": ["mdp"] * 6,
                       "replicate": [0] * 6, "games": [500, 1000, 1500] * 2,
                       "sente_wins": [500, 400, 100, 250, 240, 0],
                       "gote_wins": [0, 100, 399, 250, 260, 0], "draws": [0, 0, 1, 0, 0, 500],
                       "plies": [5000, 6000, 1, 20000, 21000, 0],
                       "mirror_replies": [900, 300, 0, 10, 0, 0],
                       "gote_moves": [2500, 3000, 1, 10000, 10500, 0]})
    h = selfplay_health(tr, 1000).set_index("algorithm")
    assert h.loc["td", "sente_share"] == 0.9 and h.loc["td", "mean_plies"] == 11.0
    assert h.loc["td", "mirror_rate"] == 1200 / 5500
    assert h.loc["pgleaf", "sente_share"] == 0.49 and h.loc["pgleaf", "mean_plies"] == 41.0
    h = selfplay_health(tr, 1500, window=500).set_index("algorithm")
    assert h.loc["pgleaf", "sente_share"] == 0.0 and h.loc["pgleaf", "mirror_rate"] == 0.0
    assert h.loc["td", "sente_share"] == 0.2
