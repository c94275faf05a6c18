"""Profile and parameter resolution of gamelib.notebook."""

import pytest

from gamelib import notebook as nb

PROFILES = {"quick": {"n_games": 10, "depth": 1}, "paper": {"n_games": 1000, "depth": 3}}


def test_profile_values_fill_unset_sizes(tmp_path):
    cfg = nb.resolve("demo", PROFILES, {"profile": "paper", "seed": 3, "depth": 5,
                                         "output_dir": str(tmp_path)})
    assert (cfg.profile, cfg.seed, cfg.n_games, cfg.depth) == ("paper", 3, 1000, 5)
    assert cfg.output_dir == tmp_path.resolve()


def test_default_output_dir_is_per_profile_and_notebook():
    cfg = nb.resolve("demo", PROFILES, {"profile": "quick", "n_games": None})
    assert cfg.output_dir == nb.repo_root() / "data" / "results" / "quick" / "demo"
    assert cfg.n_games == 10


def test_unknown_profile_lists_valid_ones():
    with pytest.raises(ValueError, match=r"unknown profile 'fast'.*valid profiles: paper, quick"):
        nb.resolve("demo", PROFILES, {"profile": "fast"})


def test_unknown_parameter_lists_valid_ones():
    with pytest.raises(ValueError, match=r"unknown parameter\(s\) 'n_game'.*valid parameters: "
                                         r"depth, n_games, output_dir, profile, seed"):
        nb.resolve("demo", PROFILES, {"n_game": 5})


@pytest.mark.parametrize("seed", [-1, 1.5, "0", True])
def test_bad_seed(seed):
    with pytest.raises(ValueError, match="seed must be a non-negative integer"):
        nb.resolve("demo", PROFILES, {"seed": seed})


def test_profiles_must_agree_on_sizes():
    with pytest.raises(ValueError, match="profiles name different parameters"):
        nb.resolve("demo", {"quick": {"a": 1}, "paper": {"b": 2}}, {})


def test_configure_sees_parameters_defined_after_start(tmp_path):
    ns = {"PROFILES": PROFILES}
    nb.start(ns)
    ns.update(profile="quick", seed=0, output_dir=str(tmp_path / "o"), n_games=None, depth=None,
              _i3="ipython history is ignored")
    cfg = nb.configure(ns, "demo", PROFILES)
    assert cfg.n_games == 10 and (tmp_path / "o").is_dir()
    ns["typo_param"] = 1
    with pytest.raises(ValueError, match="'typo_param'"):
        nb.configure(ns, "demo", PROFILES)


def test_configure_requires_start():
    with pytest.raises(RuntimeError, match="start"):
        nb.configure({}, "demo", PROFILES)


def test_unknown_attribute_names_the_known_ones():
    cfg = nb.resolve("demo", PROFILES, {})
    with pytest.raises(AttributeError, match="known: depth, n_games, output_dir, profile, seed"):
        cfg.n_gamez
