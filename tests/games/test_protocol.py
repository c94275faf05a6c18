"""The protocol's registry, the specialisation of generic algorithms (and its on-disk cache),
the generic functions' argument checks and the generic-vs-own perft benchmark."""

from __future__ import annotations

import re
import subprocess
import sys
import textwrap
from types import SimpleNamespace

import numpy as np
import pytest
from numba import njit
from numba.core.caching import FunctionCache, NullCache

from gamelib.games import bench, perft, playout, protocol, registry
from gamelib.games.othello import game as gos
from gamelib.games.protocol import CONSTANTS, KERNELS, PYTHON, ProtocolError, game_from_module
from gamelib.games.specialize import fingerprint, generic, specialize


@njit
def _never(s):
    return False


def _othello_space(**replace):
    space = {k: getattr(gos, k) for k in (*KERNELS, *CONSTANTS, *PYTHON)}
    space.update(replace)
    return SimpleNamespace(**{k: v for k, v in space.items() if v is not None})


def test_a_missing_kernel_is_one_error_naming_it():
    with pytest.raises(ProtocolError, match=r"^game 'toy' \(SimpleNamespace\) does not follow "
                                            r"gamelib.games.protocol: lacks gen_noisy$"):
        game_from_module("toy", _othello_space(gen_noisy=None))


def test_every_missing_and_wrong_entry_is_named_in_one_error():
    space = _othello_space(outcome=None, live_length=None, features=lambda s, i, v: 0, PASS="64",
                           start=None)
    with pytest.raises(ProtocolError) as err:
        game_from_module("toy", space)
    assert str(err.value) == (
        "game 'toy' (SimpleNamespace) does not follow gamelib.games.protocol: lacks outcome, "
        "live_length, start; features is not a numba @njit function; PASS must be an integer in "
        "[-1, 2147483647], got '64'")


@pytest.mark.parametrize("replace, message", [
    ({"N_WEIGHTS": 10}, "N_WEIGHTS (10) is below N_FEATURES (54848)"),
    ({"TEMPO_INDEX": 54848}, "TEMPO_INDEX (54848) is not a feature (N_FEATURES 54848)"),
    ({"SIDE_HALF": 30000}, "two SIDE_HALF blocks (30000) exceed N_FEATURES (54848)"),
])
def test_learner_constants_must_fit_the_features(replace, message):
    with pytest.raises(ProtocolError, match=re.escape(message)):
        game_from_module("toy", _othello_space(**replace))


def test_evaluation_kinds_are_declared_or_the_linear_kind_alone():
    assert list(game_from_module("toy", _othello_space()).eval_kinds) == [protocol.EVAL_LINEAR]
    kinds = game_from_module("toy", _othello_space(EVAL_KINDS=gos.EVAL_KINDS)).eval_kinds
    assert kinds == gos.EVAL_KINDS and kinds[gos.EVAL_MLP].check is gos.check_mlp_theta
    for bad, message in (({2: gos.EVAL_KINDS[2]}, "EVAL_KINDS must be a dict {kind: EvalKind} holding "
                                                  "EVAL_LINEAR (1)"),
                         ({1: gos.EVAL_KINDS[1], -1: gos.EVAL_KINDS[2]}, "EVAL_KINDS[-1] must be a kind"),
                         ({1: gos.EVAL_KINDS[1], 2: gos.check_mlp_theta}, "EVAL_KINDS[2] must be a kind")):
        with pytest.raises(ProtocolError, match=re.escape(message)):
            game_from_module("toy", _othello_space(EVAL_KINDS=bad))


def test_a_reference_opponent_is_declared_or_none():
    assert game_from_module("toy", _othello_space()).reference is None
    ref = game_from_module("toy", _othello_space(REFERENCE=gos.REFERENCE)).reference
    assert ref is gos.REFERENCE and ref.qdepth is None and ref.max_depth is None
    with pytest.raises(ProtocolError, match=re.escape("REFERENCE must be a gamelib.games.protocol.Reference")):
        game_from_module("toy", _othello_space(REFERENCE=gos.reference_theta))
    for bad, message in (({"theta": 3}, "Reference.theta must be a function"),
                         ({"theta": gos.reference_theta, "qdepth": -1}, "Reference.qdepth must be None or an integer >= 0"),
                         ({"theta": gos.reference_theta, "max_depth": 0}, "Reference.max_depth must be None or an integer >= 1")):
        with pytest.raises(ProtocolError, match=re.escape(message)):
            protocol.Reference(**bad)


def test_the_pgleaf_reference_is_the_games_reference_player():
    """5×5 shogi's is the reference opponent of gamelib.play.shogi (the games of earlier runs:
    the same settings and θ), Othello's the classic weights searched as the learners search; a
    game without a REFERENCE is refused naming it."""
    from gamelib.experiments.pgleaf.matches import MatchSettings
    from gamelib.play.games import player_identity
    from gamelib.play.shogi import reference_player

    shogi = MatchSettings(node_budget=700, max_depth=32, noise_var=0.001)
    assert player_identity(shogi.reference()) == player_identity(
        reference_player(node_budget=700, noise_std=shogi.noise_std))
    othello = MatchSettings(node_budget=700, max_depth=20, qdepth=3, game="othello").reference()
    assert (othello.max_depth, othello.qdepth, othello.node_budget) == (20, 3, 700)
    assert np.array_equal(othello.theta, gos.reference_theta())
    registry._GAMES["toy_without_reference"] = game_from_module("toy_without_reference", _othello_space())
    try:
        with pytest.raises(ValueError, match="the game 'toy_without_reference' has no reference opponent"):
            MatchSettings(node_budget=700, max_depth=20, game="toy_without_reference").reference()
    finally:
        del registry._GAMES["toy_without_reference"]


def test_a_game_name_must_be_an_identifier():
    with pytest.raises(ProtocolError, match="identifier"):
        game_from_module("two words", _othello_space())


def test_the_registry_knows_each_game_once():
    assert registry.names() == ["minishogi", "othello"]
    assert registry.get("othello").gen_moves is gos.gen_moves
    assert registry.get("othello").in_package and registry.get("minishogi").in_package
    with pytest.raises(ProtocolError, match="registered already"):
        registry.register("othello", gos)
    with pytest.raises(ProtocolError, match="unknown game 'chess'; registered: minishogi, othello"):
        registry.get("chess")
    with pytest.raises(AttributeError, match="no protocol entry 'gen_capture'"):
        registry.get("othello").gen_capture


def test_protocol_stubs_refuse_to_run_outside_a_specialisation():
    with pytest.raises(TypeError, match="outside a specialisation"):
        protocol.gen_moves(np.zeros(8, np.int64), np.zeros(8, np.int32), 0)


def test_specialisations_are_named_by_game_and_bindings():
    othello = registry.get("othello")
    variant = game_from_module("othello", _othello_space(PERFT_END_LEAF=0))
    assert fingerprint(othello) != fingerprint(variant)
    assert fingerprint(othello) == fingerprint(game_from_module("othello", _othello_space()))
    one, two = specialize(othello, perft), specialize(variant, perft)
    assert specialize(othello, perft) is one
    assert one.perft_kernel.py_func.__qualname__ == f"perft_kernel[othello-{fingerprint(othello)}]"
    assert one.perft_kernel is not two.perft_kernel
    assert isinstance(one.perft_kernel._cache, FunctionCache)   # on disk
    kernel = game_from_module("test_kernel", _othello_space(in_check=_never))
    assert not kernel.in_package
    assert isinstance(specialize(kernel, playout).random_playout_kernel._cache, NullCache)


def test_specialize_needs_generic_functions_and_chooses_the_cache_itself():
    with pytest.raises(ValueError, match="no function marked"):
        specialize(registry.get("othello"), protocol)
    with pytest.raises(TypeError, match="cache is chosen by specialize"):
        generic(cache=True)


_LOAD = textwrap.dedent("""
    from gamelib.games import registry, perft, playout
    from gamelib.games.specialize import specialize
    for name in registry.names():
        game = registry.get(name)
        perft.perft(game, game.start(64), 3)
        playout.random_playout(game, game.start(64), 1, 20)
        for d in (specialize(game, perft).perft_kernel, specialize(game, playout).random_playout_kernel):
            print(sum(d.stats.cache_hits.values()), sum(d.stats.cache_misses.values()))
""")


def test_a_specialised_algorithm_is_loaded_from_the_disk_cache_in_the_next_process():
    runs = [subprocess.run([sys.executable, "-c", _LOAD], capture_output=True, text=True, check=True)
            for _ in range(2)]
    counts = [tuple(map(int, line.split())) for line in runs[1].stdout.splitlines()]
    assert len(counts) == 4 and all(c == (1, 0) for c in counts), runs[1].stdout


_CLOSURE = textwrap.dedent("""
    from numba import njit

    @njit(cache=True)
    def one(x):
        return x + 1

    def make(f):
        @njit(cache=True)
        def g(n):
            return f(n)
        return g

    g = make(one)
    g(1)
    print(sum(g.stats.cache_hits.values()))
""")


def test_numba_never_loads_a_closure_over_a_jitted_function_from_its_cache(tmp_path):
    """Why gamelib.games.specialize rebinds globals instead of closing over the kernels."""
    (tmp_path / "closure.py").write_text(_CLOSURE)
    env = {"NUMBA_CACHE_DIR": str(tmp_path / "cache"), "PATH": "/usr/bin:/bin"}
    hits = [subprocess.run([sys.executable, "closure.py"], cwd=tmp_path, env=env, capture_output=True,
                           text=True, check=True).stdout.strip() for _ in range(2)]
    assert hits == ["0", "0"]
    assert len(list((tmp_path / "cache").rglob("closure.make.locals.g-*.nbc"))) == 2


@pytest.mark.parametrize("bad", [-1, 65, True, 2.0])
def test_perft_refuses_a_bad_depth(bad):
    game = registry.get("othello")
    with pytest.raises(ValueError, match="perft depth must be an integer in"):
        perft.perft(game, game.start(), bad)


def test_random_playout_refuses_a_bad_ply_count():
    game = registry.get("othello")
    with pytest.raises(ValueError, match="max_plies must be an integer >= 0"):
        playout.random_playout(game, game.start(), 0, -1)


def test_the_benchmark_compares_equal_counts(capsys):
    assert bench.main(["--depth", "3", "--repeat", "1"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("minishogi: perft(3) = 2,512 leaves")
    assert out[1].startswith("othello: perft(3) = 56 leaves") and "generic / own" in out[1]


def test_the_benchmark_refuses_bad_sizes(capsys):
    with pytest.raises(SystemExit) as stop:
        bench.main(["--repeat", "0"])
    err = capsys.readouterr().err
    assert stop.value.code == 2 and err.startswith("error: ") and len(err.splitlines()) == 1
    assert "--repeat >= 1" in err
