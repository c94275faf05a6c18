"""The PGLeaf study's configuration closest to the paper and the TD learners' own step."""

import json

import pytest

from gamelib.experiments import pgleaf
from gamelib.experiments.pgleaf.closest import (CLOSEST, KNIGHTCAP_BETA, closest_argv,
                                                closest_folder, closest_sizes)
from gamelib.experiments.pgleaf.config import (RunSpec, pgleaf_config, profile_config,
                                               settings_of, train_config)
from gamelib.experiments.registry import discover


def test_td_alpha_sets_only_the_td_learners_step():
    config = profile_config("paper", td_alpha=2e-5)
    steps = {a: settings_of(RunSpec(a, "mdp", 0), config).alpha for a in pgleaf.ALGORITHMS}
    assert steps == {"pgleaf": 0.001, "reinforce": 0.001, "tdleaf": 2e-5, "td": 2e-5}
    unset = {a: settings_of(RunSpec(a, "mdp", 0), profile_config("paper")).alpha
             for a in pgleaf.ALGORITHMS}
    assert set(unset.values()) == {0.001}


def test_runs_made_before_td_alpha_keep_their_identity():
    """A training folder's identity (resuming, the committed runs) does not change when its
    sizes lack ``td_alpha``: None is the value they were made with."""
    paper = dict(pgleaf.PROFILES["paper"])
    before = {k: v for k, v in paper.items() if k != "td_alpha"}
    assert train_config(pgleaf_config(before)) == train_config(pgleaf_config(paper))
    assert "td_alpha" not in json.dumps(train_config(pgleaf_config(paper)))


@pytest.mark.parametrize("bad", [0, -1e-3, "fast", True, float("nan")])
def test_a_bad_td_alpha_is_named(bad):
    with pytest.raises(ValueError, match="td_alpha must be a positive number"):
        profile_config("paper", td_alpha=bad)


def test_the_closest_configuration_is_the_paper_profile_with_its_four_changes():
    sizes = closest_sizes()
    paper = pgleaf.PROFILES["paper"]
    assert {k for k in paper if sizes[k] != paper[k]} == set(CLOSEST)
    assert sizes["replicates"] == 5 and sizes["tie_sides"] is True
    assert sizes["beta"] == KNIGHTCAP_BETA == 12.8
    assert sizes["td_alpha"] * KNIGHTCAP_BETA ** 2 == pytest.approx(paper["alpha"])
    # what the command line runs: the registry accepts it and gives the same sizes
    argv = closest_argv()
    assert argv[argv.index("--out") + 1] == str(closest_folder())
    assert closest_folder().parts[-3:] == ("pgleaf", "closest", "seed-0")
    overrides = {argv[i + 1]: json.loads(argv[i + 2]) for i, a in enumerate(argv) if a == "-p"}
    opts = discover().options("pgleaf", profile="paper", overrides=overrides)
    assert opts.sizes == sizes
    steps = {r.algorithm: settings_of(r, opts.sizes) for r in pgleaf.runs_of(opts.sizes)}
    assert steps["pgleaf"].alpha == steps["reinforce"].alpha == 0.001
    assert steps["td"].alpha == steps["tdleaf"].alpha == sizes["td_alpha"]
    assert all(st.tie_sides for st in steps.values())
    assert steps["td"].beta == steps["tdleaf"].beta == 12.8
    assert len(pgleaf.runs_of(opts.sizes)) == 4 * 2 * 5
