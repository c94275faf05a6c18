"""Tests of gamelib.games.minishogi.features: layout, features against an independent oracle,
the two sides' halves under the mirror, evaluate == θ·φ, material-only engine, initial weights, parameter files."""

from __future__ import annotations

import math
import zipfile

import numpy as np
import pytest
from eval_positions import mirror_sfen, mirror_state
from feature_oracle import phi as oracle_phi

import gamelib.games.minishogi as ms
from gamelib.games.minishogi import features as E
from gamelib.games.minishogi import core


def state(sfen: str) -> np.ndarray:
    return ms.Position(sfen).state.copy()


def sparse(s):
    idx = np.empty(E.MAX_ACTIVE, dtype=np.int32)
    val = np.empty(E.MAX_ACTIVE, dtype=np.float64)
    n = E.features(s, idx, val)
    return idx[:n].copy(), val[:n].copy()


# ----------------------------------------------------------------------------- layout
def test_layout_blocks_are_contiguous_and_sized_as_documented():
    sizes = {b.name: b.size for b in E.LAYOUT}
    n_types, n_off = 10, 7 * 7 - 1  # P S G B R K +P +S +B +R; offsets with max(|dr|,|dc|) <= 3
    side = {
        "material": 9 + 5,
        "piece_square": n_types * 25,
        "pair_own": math.comb(n_types, 2) * n_off + 9 * n_off // 2,  # no king-king; equal types halved
        "pair_enemy": n_types * n_types * n_off,
        "blocker": 4 * 4 * 2 * n_types,
        "mobility": 9 * 13,
        "king_mobility": 9,
    }
    assert sizes == {**side, **{f"opp_{k}": v for k, v in side.items()}, "tempo": 1}
    assert list(sizes) == [*side, *(f"opp_{k}" for k in side), "tempo"]
    offset = 0
    for b in E.LAYOUT:
        assert b.offset == offset
        offset = b.stop
    assert E.OPP_OFFSET == sum(side.values()) == 7886
    assert offset == E.N_FEATURES == 2 * 7886 + 1
    assert E.TEMPO_INDEX == E.block("tempo").offset == E.N_FEATURES - 1
    for name in side:
        assert E.block(f"opp_{name}").offset == E.block(name).offset + E.OPP_OFFSET
    assert E.block("pair_enemy").slice == slice(2640, 7440)
    with pytest.raises(ValueError, match="unknown feature block 'nope'"):
        E.block("nope")


def test_feature_names_are_unique_and_checked():
    names = [E.feature_name(k) for k in range(E.N_FEATURES)]
    assert len(set(names)) == E.N_FEATURES
    assert E.feature_name(0) == "material: P on the board"
    assert E.feature_name(13) == "material: R in hand"
    assert E.feature_name(E.OPP_OFFSET - 1) == "king_mobility: own king with 8 moves"
    assert E.feature_name(E.N_FEATURES - 2) == "opp_king_mobility: own king with 8 moves"
    assert E.feature_name(E.opp_index(13)) == "opp_material: R in hand"
    assert E.feature_name(E.TEMPO_INDEX) == "tempo: side to move"
    for bad in (-1, E.N_FEATURES, 1.5, True):
        with pytest.raises(ValueError, match="feature index"):
            E.feature_name(bad)


# ----------------------------------------------------------------------------- features
def test_features_match_the_independent_oracle(positions):
    for sfen in positions[:250]:
        idx, val = sparse(state(sfen))
        got = {E.feature_name(int(k)): int(v) for k, v in zip(idx, val)}
        assert got == oracle_phi(sfen), sfen


def test_features_of_hand_made_positions():
    # only kings: sente's king on 5e sees 3 squares, gote's on 1a (its 5e) too
    got = {E.feature_name(int(k)): v for k, v in zip(*sparse(state("4k/5/5/5/K4 w - 1")))}
    assert got == {"piece_square: own K on 5e": 1.0, "king_mobility: own king with 3 moves": 1.0,
                   "opp_piece_square: own K on 5e": -1.0, "opp_king_mobility: own king with 3 moves": -1.0,
                   "tempo: side to move": 1.0}
    # with a sente rook in hand the material entry appears with the count
    kings = {k.replace("opp_", ""): abs(v) for k, v in got.items()}
    got = {E.feature_name(int(k)): v for k, v in zip(*sparse(state("4k/5/5/5/K4 b 2R 1")))}
    assert got == {**kings, "opp_piece_square: own K on 5e": -1.0,
                   "opp_king_mobility: own king with 3 moves": -1.0, "material: R in hand": 2.0}
    got = {E.feature_name(int(k)): v for k, v in zip(*sparse(state("4k/5/5/5/K4 w R 1")))}
    assert got["opp_material: R in hand"] == -1.0 and "material: R in hand" not in got


def test_a_mirror_position_has_features_and_antisymmetric_weights_give_it_the_tempo():
    # 1. 2e4c 4a2c: the position is its own colour-swapped mirror: φ = (ψ, -ψ, 1)
    pos = ms.Position()
    for usi in ("2e4c", "4a2c"):
        pos.push_usi(usi)
    phi = E.dense_features(pos)
    assert np.array_equal(phi, -E.swap_sides(phi) + 2 * (np.arange(E.N_FEATURES) == E.TEMPO_INDEX))
    assert np.count_nonzero(phi) > 50
    rng = np.random.default_rng(3)
    theta = rng.normal(0, 1, E.N_FEATURES)
    assert abs(E.evaluate(pos.state, theta) - theta[E.TEMPO_INDEX]) > 1e-3  # learnable
    sym = E.side_weights_theta(theta[:E.OPP_OFFSET], tempo=0.25)
    assert E.evaluate(pos.state, sym) == pytest.approx(0.25, abs=1e-12)
    # the tempo weight is worth the same to whichever side is to move
    s = state("3sk/5/2+R2/2b2/K4 b P 1")
    t = state("3sk/5/2+R2/2b2/K4 w P 1")
    only_tempo = np.zeros(E.N_FEATURES)
    only_tempo[E.TEMPO_INDEX] = 0.25
    assert E.evaluate(s, only_tempo) == E.evaluate(t, only_tempo) == 0.25


def test_features_are_sorted_unique_nonzero_and_bounded(positions):
    for sfen in positions:
        idx, val = sparse(state(sfen))
        assert len(idx) <= E.MAX_ACTIVE
        assert np.all(np.diff(idx) > 0)
        assert np.all(val != 0) and np.all(val == np.round(val))
        assert idx.min(initial=0) >= 0 and idx.max(initial=0) < E.N_FEATURES


def test_features_unsorted_are_the_features_in_scan_order(positions):
    """The learners' unsorted φ: the same (index, value) entries as ``features``, no index twice,
    and the scratch array left all zeros (it is shared by every call)."""
    idx = np.empty(E.MAX_ACTIVE, dtype=np.int32)
    val = np.empty(E.MAX_ACTIVE)
    pos = np.zeros(E.N_FEATURES, dtype=np.int32)
    unordered = 0
    repeated = 0
    for sfen in positions:
        s = state(sfen)
        want_idx, want_val = sparse(s)
        n = E.features_unsorted(s, idx, val, pos)
        order = np.argsort(idx[:n], kind="stable")
        assert np.array_equal(idx[:n][order], want_idx)
        assert np.array_equal(val[:n][order], want_val)
        assert not pos.any()
        unordered += bool(np.any(np.diff(idx[:n]) < 0))
        pieces = s[:25][s[:25] != 0]
        repeated += len(np.unique(pieces)) < len(pieces)  # a side with two pieces of one type
    assert unordered > len(positions) // 2  # the scan order is not the sorted one
    # both paths of the merge are taken: positions without repeated types skip it
    assert 0.1 * len(positions) < repeated < 0.9 * len(positions)


def test_features_do_not_modify_the_state(positions):
    s = state(positions[7])
    before = s.copy()
    sparse(s)
    E.evaluate(s, E.initial_theta(0))
    assert np.array_equal(s, before)


# ----------------------------------------------------------------------------- antisymmetry
def test_mirror_sfen_helper():
    assert mirror_sfen("rbsgk/4p/5/P4/KGSBR b - 1") == "rbsgk/4p/5/P4/KGSBR b - 1"
    assert mirror_sfen("4k/1+r3/5/p4/K4 w 2Pb 7") == "4k/4P/5/3+R1/K4 w 2pB 7"


def _swapped_negated(s):
    """-swap_sides(φ(s)) with the tempo entry kept at +1: φ of the mirror (and of s with the
    turn passed), as the module docstring states."""
    phi = E.dense_features(s)
    out = -E.swap_sides(phi)
    out[E.TEMPO_INDEX] = phi[E.TEMPO_INDEX]
    return out


def test_mirror_exchanges_the_sides_halves(positions):
    rng = np.random.default_rng(1)
    theta = rng.normal(0, 1, E.N_FEATURES)
    sym = E.side_weights_theta(theta[:E.OPP_OFFSET], tempo=theta[E.TEMPO_INDEX])
    tempo = theta[E.TEMPO_INDEX]
    n_check = 0
    for sfen in positions:
        s, s_hat = state(sfen), mirror_state(sfen)
        n_check += core.in_check(s)
        assert E.dense_features(s)[E.TEMPO_INDEX] == 1.0
        assert np.array_equal(E.dense_features(s_hat), _swapped_negated(s)), sfen
        # general θ: the mirror swaps the weights' roles; equal halves: antisymmetric but tempo
        assert E.evaluate(s_hat, theta) == pytest.approx(
            E.evaluate(s, E.swap_sides(theta) * -1) + 2 * tempo, abs=1e-9)
        assert E.evaluate(s_hat, sym) - tempo == pytest.approx(-(E.evaluate(s, sym) - tempo), abs=1e-12)
        assert E.evaluate_material(s_hat, sym) == pytest.approx(-E.evaluate_material(s, sym), abs=1e-12)
    assert n_check > 0  # positions in check were covered too


def test_phi_is_the_same_for_the_same_situation_seen_by_the_other_colour(positions):
    # colours swapped and the turn passed: the side to move is in the very same situation
    for sfen in positions[::3]:
        a = sparse(state(sfen))
        b = sparse(state(mirror_sfen(sfen, keep_turn=False)))
        assert np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1]), sfen


def test_passing_the_turn_exchanges_the_halves(positions):
    for sfen in positions[::3]:
        s = state(sfen)
        t = s.copy()
        t[core.STM] = 1 - t[core.STM]
        assert np.array_equal(E.dense_features(t), _swapped_negated(s))


# ----------------------------------------------------------------------------- evaluation
def test_evaluate_equals_theta_dot_features(positions):
    rng = np.random.default_rng(7)
    thetas = [rng.normal(0, 1, E.N_FEATURES), E.initial_theta(3), rng.uniform(-5, 5, E.N_FEATURES)]
    for sfen in positions:
        s = state(sfen)
        idx, val = sparse(s)
        for theta in thetas:
            assert E.evaluate(s, theta) == pytest.approx(float(theta[idx] @ val), abs=1e-12)
            assert E.evaluate_kind(s, theta, E.EVAL_LINEAR) == E.evaluate(s, theta)


def test_material_only_is_the_material_block(positions):
    rng = np.random.default_rng(8)
    theta = rng.normal(0, 1, E.N_FEATURES)
    mat = np.r_[E.block("material").slice, E.block("opp_material").slice]
    only_material = np.zeros(E.N_FEATURES)
    only_material[mat] = theta[mat]
    for sfen in positions:
        s = state(sfen)
        dense = E.dense_features(s)
        expected = float(theta[mat] @ dense[mat])
        assert E.evaluate_material(s, theta) == pytest.approx(expected, abs=1e-12)
        assert E.evaluate_kind(s, theta, E.EVAL_MATERIAL) == E.evaluate_material(s, theta)
        assert E.evaluate(s, only_material) == pytest.approx(expected, abs=1e-12)


def test_material_values_by_hand():
    theta = E.table1_theta()
    # sente: +R on 3c, pawn in hand; gote: silver and bishop on the board, king each
    s = state("3sk/5/2+R2/2b2/K4 b P 1")
    assert E.evaluate_material(s, theta) == pytest.approx(0.30 + 0.02 - 0.08 - 0.16)
    assert E.evaluate(s, theta) == pytest.approx(0.30 + 0.02 - 0.08 - 0.16)
    s = state("3sk/5/2+R2/2b2/K4 w P 1")
    assert E.evaluate_material(s, theta) == pytest.approx(-(0.30 + 0.02 - 0.08 - 0.16))


# ----------------------------------------------------------------------------- parameters
def test_initial_theta_has_table1_values_and_small_seeded_noise():
    theta = E.initial_theta(seed=5)
    table1 = {"P": 0.02, "S": 0.08, "G": 0.10, "B": 0.16, "R": 0.20, "+P": 0.10, "+S": 0.10, "+B": 0.26, "+R": 0.30}
    for k in range(14):
        name = E.feature_name(k)
        piece = name.split(": ")[1].split()[0]
        assert theta[k] == table1[piece], name
    assert theta[E.TEMPO_INDEX] == 0.0  # no side-to-move bonus at the start
    assert np.array_equal(E.swap_sides(theta), theta)  # both sides alike: antisymmetric
    theta = theta[:E.OPP_OFFSET]
    rest = theta[14:]
    assert np.all(np.abs(rest) < 1e-3) and 0.8e-4 < rest.std() < 1.2e-4
    assert np.array_equal(theta, E.initial_theta(seed=5)[:E.OPP_OFFSET])
    assert not np.array_equal(rest, E.initial_theta(seed=6)[14:])
    assert np.all(E.initial_theta(seed=5, scale=0.0)[14:E.OPP_OFFSET] == 0)
    with pytest.raises(ValueError, match="seed"):
        E.initial_theta(seed=1.5)
    with pytest.raises(ValueError, match="scale"):
        E.initial_theta(scale=-1)


def test_check_theta():
    assert E.check_theta(np.zeros(E.N_FEATURES, dtype=np.float32)).dtype == np.float64
    with pytest.raises(ValueError, match="vector of 15773 parameters"):
        E.check_theta(np.zeros(10))
    with pytest.raises(ValueError, match="non-finite"):
        E.check_theta(np.full(E.N_FEATURES, np.nan))
    with pytest.raises(ValueError, match="numeric"):
        E.check_theta(np.array(["a"] * E.N_FEATURES))


def test_save_load_round_trip(tmp_path):
    theta = E.initial_theta(11)
    path = E.save_theta(tmp_path / "theta.npz", theta)
    assert np.array_equal(E.load_theta(path), theta)
    assert [p.name for p in tmp_path.iterdir()] == ["theta.npz"]  # no temporary left behind


def _write_npz(path, **arrays):
    np.savez(path, **arrays)
    return path


@pytest.mark.parametrize(
    "arrays, message",
    [
        ({"theta": np.zeros(E.N_FEATURES), "layout": np.array("othello-mlp"), "version": np.array(E.FORMAT_VERSION)},
         "layout 'othello-mlp', expected 'minishogi-pgleaf-linear'"),
        # versions 1 and 2: the layouts before the two sides' weights (7,886 and 7,887 parameters)
        ({"theta": np.zeros(7886), "layout": np.array(E.LAYOUT_NAME), "version": np.array(1)},
         "layout version 1, expected 3"),
        ({"theta": np.zeros(7887), "layout": np.array(E.LAYOUT_NAME), "version": np.array(2)},
         "layout version 2, expected 3"),
        ({"theta": np.zeros(8033), "layout": np.array(E.LAYOUT_NAME), "version": np.array(E.FORMAT_VERSION)},
         "vector of 15773 parameters"),
        ({"theta": np.full(E.N_FEATURES, np.inf), "layout": np.array(E.LAYOUT_NAME), "version": np.array(E.FORMAT_VERSION)},
         "non-finite"),
        ({"theta": np.zeros(E.N_FEATURES)}, "missing layout, version"),
    ],
)
def test_load_refuses_wrong_files(tmp_path, arrays, message):
    path = _write_npz(tmp_path / "bad.npz", **arrays)
    with pytest.raises(ValueError, match=message):
        E.load_theta(path)


def test_load_refuses_damaged_and_missing_files(tmp_path):
    path = E.save_theta(tmp_path / "theta.npz", E.initial_theta(0))
    data = path.read_bytes()
    (tmp_path / "cut.npz").write_bytes(data[: len(data) // 2])
    with pytest.raises(ValueError, match="corrupt or truncated"):
        E.load_theta(tmp_path / "cut.npz")
    with pytest.raises(FileNotFoundError):
        E.load_theta(tmp_path / "nothing.npz")
    with pytest.raises(ValueError):
        E.save_theta(tmp_path / "short.npz", np.zeros(3))
    assert not (tmp_path / "short.npz").exists()
    assert zipfile.is_zipfile(path)


def test_index_helpers_agree_with_feature_names():
    assert E.feature_name(E.material_index("+B")) == "material: +B on the board"
    assert E.feature_name(E.material_index("S", in_hand=True)) == "material: S in hand"
    assert E.feature_name(E.piece_square_index("K", "3c")) == "piece_square: own K on 3c"
    assert E.feature_name(E.pair_index("G", "K", 1, -1, enemy=False)) == "pair_own: own G with own K at (+1,-1)"
    assert E.pair_index("K", "G", -1, 1, enemy=False) == E.pair_index("G", "K", 1, -1, enemy=False)
    assert E.feature_name(E.pair_index("K", "+R", -2, 3, enemy=True)) == "pair_enemy: own K with enemy +R at (-2,+3)"
    assert E.feature_name(E.blocker_index("+B", "SW", "P", enemy=True)) == "blocker: own +B looking SW, blocked by enemy P"
    assert E.feature_name(E.mobility_index("R", 7)) == "mobility: own R with 7 moves"
    assert E.feature_name(E.king_mobility_index(0)) == "king_mobility: own king with 0 moves"
    for call, message in [
        (lambda: E.material_index("K"), "bad piece type 'K'"),
        (lambda: E.material_index("+P", in_hand=True), "bad piece type"),
        (lambda: E.piece_square_index("X", "3c"), "bad piece type 'X'"),
        (lambda: E.piece_square_index("P", "6a"), "bad square '6a'"),
        (lambda: E.pair_index("P", "G", 4, 0, enemy=True), "offset"),
        (lambda: E.pair_index("K", "K", 1, 0, enemy=False), "no pair feature"),
        (lambda: E.blocker_index("B", "N", "P", enemy=False), "bad direction 'N'"),
        (lambda: E.blocker_index("G", "N", "P", enemy=False), "bad piece type 'G'"),
        (lambda: E.mobility_index("P", 13), "n_moves"),
        (lambda: E.king_mobility_index(9), "n_moves"),
    ]:
        with pytest.raises(ValueError, match=message):
            call()


def test_mirror_agrees_with_the_sfen_construction(positions):
    for sfen in positions[::4]:
        s_hat = E.mirror(ms.Position(sfen))
        ref = mirror_state(sfen)
        assert np.array_equal(s_hat[:core.KING_SQ + 2], ref[:core.KING_SQ + 2]), sfen
    with pytest.raises(ValueError, match="Position or core state"):
        E.mirror("rbsgk/4p/5/P4/KGSBR b - 1")


def test_side_helpers():
    k = E.material_index("P")
    assert E.opp_index(k) == k + E.OPP_OFFSET
    for bad in (-1, E.OPP_OFFSET, E.TEMPO_INDEX, 1.0):
        with pytest.raises(ValueError, match="side-to-move feature index"):
            E.opp_index(bad)
    v = np.arange(E.N_FEATURES, dtype=float)
    w = E.swap_sides(v)
    assert w[0] == E.OPP_OFFSET and w[E.OPP_OFFSET] == 0 and w[E.TEMPO_INDEX] == E.TEMPO_INDEX
    assert np.array_equal(E.swap_sides(w), v)
    theta = E.side_weights_theta(np.ones(E.OPP_OFFSET), tempo=0.5)
    assert theta.shape == (E.N_FEATURES,) and theta[E.TEMPO_INDEX] == 0.5
    assert np.array_equal(E.swap_sides(theta), theta)
    with pytest.raises(ValueError, match="side weights"):
        E.side_weights_theta(np.ones(E.N_FEATURES))
    with pytest.raises(ValueError, match="vector of"):
        E.swap_sides(np.ones(3))


# ----------------------------------------------------------------------------- prepared weights
def _theta_with_large_pair_weights(seed):
    """Parameters whose every weight matters (N(0, 0.1), both halves different, signed zeros
    and exact zeros among them), so a pair term taken from the wrong place changes the value."""
    rng = np.random.default_rng(seed)
    theta = rng.normal(0.0, 0.1, E.N_FEATURES)
    theta[rng.integers(0, E.N_FEATURES, 500)] = 0.0
    theta[rng.integers(0, E.N_FEATURES, 500)] = -0.0
    return theta


@pytest.mark.parametrize("seed", [0, 1])
def test_prepared_weights_evaluate_every_position_to_the_same_bits(positions, seed):
    theta = _theta_with_large_pair_weights(seed)
    w = E.prepare(theta)
    assert w.shape == (E.N_WEIGHTS,) and np.array_equal(w[:E.N_FEATURES], theta)
    for sfen in positions:
        s = state(sfen)
        a, b = E.evaluate(s, theta), E.evaluate(s, w)
        assert np.float64(a).view(np.int64) == np.float64(b).view(np.int64), sfen
        # and the same for the other side to move (the sides of the pairs' pieces swap)
        s[core.STM] ^= 1
        assert E.evaluate(s, theta) == E.evaluate(s, w), sfen


@pytest.mark.parametrize("prepared", [False, True])
def test_the_scan_reads_only_the_weights(positions, prepared):
    """The scan drops some terms without a branch (a king's material and mobility, a missing
    pair entry, an empty ray's blocker) by multiplying them by 0.0: their indices must still lie
    in θ. θ sits inside a buffer of NaN, so a read before or after it makes the value NaN."""
    theta = _theta_with_large_pair_weights(4)
    w = E.prepare(theta) if prepared else theta
    pad = 1 << 12
    buffer = np.full(w.shape[0] + 2 * pad, np.nan)
    inside = buffer[pad:pad + w.shape[0]]
    inside[:] = w
    idx = np.empty(E.MAX_ACTIVE, dtype=np.int64)
    val = np.empty(E.MAX_ACTIVE, dtype=np.float64)
    pos = np.zeros(E.N_FEATURES, dtype=np.int32)
    for sfen in positions:
        s = state(sfen)
        for stm in (0, 1):
            s[core.STM] = stm
            v = E.evaluate(s, inside)
            assert np.isfinite(v) and v == E.evaluate(s, w), sfen
            if not prepared:
                assert E.evaluate_and_features_unsorted(s, inside, idx, val, pos)[1] == v, sfen


def test_prepared_weights_of_initial_parameters_and_material_kind(positions):
    theta = E.initial_theta(3)
    w = E.prepare(theta)
    for sfen in positions[:100]:
        s = state(sfen)
        assert E.evaluate(s, theta) == E.evaluate(s, w)
        assert E.evaluate_material(s, theta) == E.evaluate_material(s, w)


def test_prepare_into_follows_a_change_of_theta(positions):
    theta = _theta_with_large_pair_weights(2)
    w = E.prepare(theta)
    k = E.block("pair_enemy").offset + 17
    w[k] += 0.5                                   # θ changed: the table is stale ...
    fresh = E.prepare(w[:E.N_FEATURES])
    assert not np.array_equal(w[E.N_FEATURES:], fresh[E.N_FEATURES:])
    E.prepare_into(w)                             # ... until it is prepared again
    assert np.array_equal(w, fresh)
    theta[k] += 0.5
    for sfen in positions[:100]:
        assert E.evaluate(state(sfen), w) == E.evaluate(state(sfen), theta)


def test_prepare_refuses_bad_parameters():
    bad = E.initial_theta(0)
    bad[5] = np.nan
    with pytest.raises(ValueError, match="non-finite"):
        E.prepare(bad)
    with pytest.raises(ValueError, match=f"{E.N_FEATURES} parameters"):
        E.prepare(np.zeros(E.N_WEIGHTS))          # prepared weights are not parameters
