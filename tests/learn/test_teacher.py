"""Teacher data: the quiescence leaf, the games' records, the file format, parallel generation."""

import numpy as np
import pytest

from gamelib.games.minishogi import features as E
from gamelib.games.minishogi.reference import reference_theta
from gamelib.learn import teacher as T
from gamelib.games.minishogi import core as mc
from gamelib.games.minishogi.notation import parse_sfen
from gamelib.games.minishogi.sampling import random_positions
from gamelib.search import LEAF_STATIC, search

SETTINGS = T.TeacherSettings(node_budget=300, opening_plies=4, eval_limit=0.5, max_plies=200)


def _state(sfen):
    board, hands, side, number = parse_sfen(sfen)
    return mc.new_state(board, hands, side, number, capacity=300)


@pytest.fixture(scope="module")
def games():
    return T.play_teacher_games((reference_theta(), SETTINGS.as_dict(), 7, 0, 6))


def test_shallow_leaf_is_the_static_value_of_the_leaf():
    theta = reference_theta()
    quiet = 0
    for sfen in random_positions(40, seed=3):
        s = _state(sfen)
        if mc.game_result(s, np.empty(mc.MAX_MOVES, np.int32), 0, 0) != mc.RESULT_NONE:
            continue
        value, leaf, kind = T.shallow_leaf(s, theta, qdepth=8)
        if kind != LEAF_STATIC:
            assert abs(value) > 900          # a mate inside the quiescence search
            continue
        sign = 1.0 if leaf[mc.STM] == s[mc.STM] else -1.0
        assert value == pytest.approx(sign * E.evaluate(leaf, theta), abs=1e-12)
        # stand pat bounds the value from below when not in check
        if not mc.in_check(s):
            assert value >= E.evaluate(s, theta) - 1e-12
        if mc.gen_moves(s, np.empty(mc.MAX_MOVES, np.int32), 0, True) == 0 and not mc.in_check(s):
            quiet += 1
            assert np.array_equal(leaf[:25], s[:25])
    assert quiet > 0


def test_records_are_consistent(games):
    theta = reference_theta()
    assert games.dtype == T.TEACHER_DTYPE and games.size > 20
    assert np.all(games["ply"] >= SETTINGS.opening_plies)
    assert np.all(np.abs(games["deep"]) < SETTINGS.eval_limit)
    for g in np.unique(games["game"]):
        rec = games[games["game"] == g]
        assert np.all(np.diff(rec["ply"]) == 1)                       # consecutive plies
        assert np.all(rec["stm"] == (rec["ply"] % 2))                  # from the start position
        if rec["result"][0] != 0:                                      # results alternate
            assert np.all(rec["result"] == rec["result"][0] * np.where(rec["stm"] == rec["stm"][0], 1, -1))
    # shallow == θ · (leaf features, side to move's view)
    batch, kept = T.leaf_batch(games, draws="half")
    assert kept.size == games.size
    assert np.allclose(batch.shallow_eval(theta), games["shallow"], atol=1e-6)
    # the deep score is the search's (first recorded position: no repetition in the history)
    first = games[0]
    s = T.unpack_state(first)
    deep = search(s, theta, E.EVAL_LINEAR, SETTINGS.max_depth, SETTINGS.node_budget, SETTINGS.qdepth)
    assert np.float32(deep.score) == first["deep"]
    assert (deep.move & 0x7FF) == first["move"]


def test_games_are_deterministic(games):
    again = T.play_teacher_game(reference_theta(), SETTINGS, 7, 2)
    assert np.array_equal(again, games[games["game"] == 2])
    other = T.play_teacher_game(reference_theta(), SETTINGS, 8, 2)
    assert not np.array_equal(other, again)


def test_file_roundtrip_and_sfen(tmp_path, games):
    path = T.save_teacher(tmp_path / "t.npz", games, SETTINGS, 7)
    back, meta = T.load_teacher(path)
    assert np.array_equal(back, games)
    assert meta["seed"] == 7 and meta["settings"]["node_budget"] == 300
    sfen = T.to_sfen(games[5])
    board, hands, side, _ = parse_sfen(sfen)
    assert np.array_equal(np.array(board), games[5]["board"]) and side == games[5]["stm"]
    bad = dict(np.load(path))
    bad["format_version"] = np.int64(99)
    np.savez(tmp_path / "bad.npz", **bad)
    with pytest.raises(ValueError, match="version 99"):
        T.load_teacher(tmp_path / "bad.npz")
    with pytest.raises(ValueError, match="TEACHER_DTYPE"):
        T.save_teacher(tmp_path / "x.npz", np.zeros(3))


def test_draws_and_settings_checks(games):
    fake = games.copy()
    fake["result"][:5] = 0
    assert T.leaf_batch(fake, draws="drop")[1].size == games.size - 5
    half, _ = T.leaf_batch(fake, draws="half")
    assert np.all(half.result[:5] == 0.5)
    with pytest.raises(ValueError, match="draws"):
        T.leaf_batch(games, draws="maybe")
    with pytest.raises(ValueError, match="eval_limit"):
        T.TeacherSettings(eval_limit=0)
    with pytest.raises(ValueError, match="evaluation"):
        T.TeacherSettings(evaluation="ssp")


def test_generation_is_resumable_and_independent_of_workers(tmp_path):
    kw = dict(games_per_batch=2, games_per_job=1)
    serial = T.generate(tmp_path / "a", 4, SETTINGS, 5, workers=1, **kw)
    T.generate(tmp_path / "b", 2, SETTINGS, 5, workers=1, **kw)              # interrupted run
    resumed = T.generate(tmp_path / "b", 4, SETTINGS, 5, workers=2, **kw)    # resumed in parallel
    assert np.array_equal(serial, resumed)
    direct = np.concatenate([T.play_teacher_game(SETTINGS.theta(), SETTINGS, 5, g) for g in range(4)])
    assert np.array_equal(serial, direct)
    with pytest.raises(ValueError, match="multiple"):
        T.generate(tmp_path / "c", 3, SETTINGS, 5, **kw)
