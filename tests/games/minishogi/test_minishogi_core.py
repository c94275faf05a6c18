"""The numba core: published perft, make/unmake invariants, move fields, use from @njit code."""

from __future__ import annotations

import random

import numpy as np
import pytest
from numba import njit

import gamelib.games.minishogi as ms
from gamelib.games.minishogi.ffish import VARIANT, sf, sfen_to_fen, usi_to_ffish
from gamelib.games.minishogi import core

#: Published minishogi perft of the start position, depths 1-6.
PUBLISHED_PERFT = [14, 181, 2_512, 35_401, 533_203, 8_276_188]


@pytest.mark.parametrize("depth", range(1, 7))
def test_start_position_perft_matches_published_numbers(depth):
    assert ms.perft(ms.START_SFEN, depth) == PUBLISHED_PERFT[depth - 1]


def test_perft_depth_zero_and_bad_depths():
    assert ms.perft(ms.START_SFEN, 0) == 1
    for bad in (-1, 1.5, "3", True, None):
        with pytest.raises(ValueError, match="perft depth"):
            ms.perft(ms.START_SFEN, bad)


def test_perft_divide_sums_to_perft():
    s = ms.Position().state
    moves = np.zeros(core.MAX_MOVES, dtype=np.int64)
    counts = np.zeros(core.MAX_MOVES, dtype=np.int64)
    n = core.perft_divide(s, 4, moves, counts)
    assert n == 14 and counts[:n].sum() == PUBLISHED_PERFT[3]
    assert sorted(ms.format_usi(m) for m in moves[:n]) == sorted(ms.legal_moves(ms.START_SFEN))


def test_make_unmake_restore_the_state_exactly(sample_plies):
    """Everything up to the current history entry is restored (later entries are stale)."""
    buf = np.empty(core.MAX_MOVES, dtype=np.int32)
    live = core.HIST + core.HIST_STRIDE
    for p in sample_plies[:150]:
        s = ms.Position(p.sfen).state[:live]
        s = np.concatenate([s, np.zeros(core.HIST_STRIDE, dtype=np.int64)])
        before = s.copy()
        n = core.gen_moves(s, buf, 0, False)
        for m in buf[:n]:
            core.make_move(s, m)
            assert s[core.PLY] == 1 and s[core.HIST + core.HIST_STRIDE] == s[core.HASH]
            core.unmake_move(s)
            assert (s[:live] == before[:live]).all(), (p.sfen, ms.format_usi(m))


def test_incremental_hash_and_check_flag_equal_fresh_ones(sample_plies):
    for p in sample_plies[:150]:
        pos = ms.Position(p.sfen)
        for usi in pos.legal_moves:
            pos.push_usi(usi)
            fresh = ms.Position(pos.sfen())
            assert pos.zobrist_hash() == fresh.zobrist_hash()
            assert pos.is_check() == fresh.is_check() == bool(core.is_attacked(pos.state, int(pos.state[core.KING_SQ + pos.state[core.STM]]), 1 - int(pos.state[core.STM])))
            pos.pop()


@njit(cache=True)
def _check_flag_mismatches(s, seed, max_plies):
    """Along a random game, every legal move of every position: make_move's check flag (two
    rays: the moved piece's and the discovered one) against the full attack test of the enemy
    king. Returns (moves tried, mismatches, checks)."""
    np.random.seed(seed)
    buf = np.empty(core.MAX_MOVES * 2, dtype=np.int32)
    tried = bad = checks = 0
    while core.game_result(s, buf, 0, max_plies) == core.RESULT_NONE:
        n = core.gen_moves(s, buf, 0, False)
        for i in range(n):
            core.make_move(s, np.int64(buf[i]))
            stm = s[core.STM]
            full = core.is_attacked(s, s[core.KING_SQ + stm], 1 - stm)
            bad += core.in_check(s) != full
            checks += full
            tried += 1
            core.unmake_move(s)
        core.make_move(s, np.int64(buf[np.random.randint(n)]))
    return tried, bad, checks


def test_check_flag_of_every_move_of_random_games():
    tried = checks = 0
    for seed in range(60):
        s = np.concatenate([ms.Position().state, np.zeros(core.HIST_STRIDE * 310, dtype=np.int64)])
        t, bad, c = _check_flag_mismatches(s, seed, 300)
        assert bad == 0
        tried += t
        checks += c
    assert tried > 50_000 and checks > 2_000


def test_hash_distinguishes_hands_and_side():
    a = ms.Position("k4/5/5/5/4K b P 1").zobrist_hash()
    b = ms.Position("k4/5/5/5/4K b p 1").zobrist_hash()
    c = ms.Position("k4/5/5/5/4K w P 1").zobrist_hash()
    d = ms.Position("k4/5/5/5/4K b 2P 1").zobrist_hash()
    assert len({a, b, c, d}) == 4


def test_gives_check_matches_pyffish(sample_plies):
    rng = random.Random(17)
    pairs = [(p.sfen, m) for p in sample_plies for m in ms.legal_moves(p.sfen)]
    checks = 0
    for sfen, usi in rng.sample(pairs, 120) + [(p.sfen, m) for p in sample_plies[:60] for m in ms.legal_moves(p.sfen) if ms.Position(p.sfen).gives_check(m)][:30]:
        ours = ms.Position(sfen).gives_check(usi)
        assert ours == sf.gives_check(VARIANT, sfen_to_fen(sfen), [usi_to_ffish(usi)]), (sfen, usi)
        checks += ours
    assert checks >= 30


def test_move_fields_agree_with_usi(sample_plies):
    for p in sample_plies[:100]:
        pos = ms.Position(p.sfen)
        for m in pos.legal_move_codes():
            usi = ms.format_usi(m)
            assert core.is_drop(m) == ("*" in usi)
            assert core.is_promotion(m) == usi.endswith("+")
            assert core.move_to(m) == ms.parse_square(usi[2:4])
            if core.is_drop(m):
                assert "PSGBR"[core.drop_type(m) - 1] == usi[0]
            else:
                assert core.move_from(m) == ms.parse_square(usi[0:2])
                target = pos.piece_at(usi[2:4])
                assert core.is_capture(m) == (target is not None)
                if target:
                    letter = target.upper().lstrip("+")
                    promoted = target.startswith("+")
                    assert core.captured_type(m) == ("PSGBRK".index(letter) + 1 if not promoted else {"P": 7, "S": 8, "B": 9, "R": 10}[letter])


def test_captures_only_generates_exactly_the_captures(sample_plies):
    buf = np.empty(2 * core.MAX_MOVES, dtype=np.int32)
    n_caps = 0
    for p in sample_plies:
        s = ms.Position(p.sfen).state
        n = core.gen_moves(s, buf, 0, False)
        k = core.gen_moves(s, buf, core.MAX_MOVES, True)
        everything = {int(m) for m in buf[:n]}
        captures = [int(m) for m in buf[core.MAX_MOVES : core.MAX_MOVES + k]]
        assert sorted(captures) == sorted(m for m in everything if core.is_capture(m))
        n_caps += k
    assert n_caps > 100


def test_is_legal(sample_plies):
    buf = np.empty(2 * core.MAX_MOVES, dtype=np.int32)
    for p in sample_plies[:100]:
        s = ms.Position(p.sfen).state
        n = core.gen_moves(s, buf, 0, False)
        legal = {int(m) & 0x7FF for m in buf[:n]}
        for key in range(0, 1 << 11, 7):
            assert core.is_legal(s, key, buf, core.MAX_MOVES) == (key in legal)


def test_history_capacity_is_checked():
    s = core.new_state(ms.Position().state[:25], np.zeros(10, dtype=np.int64), 0, 1, capacity=1)
    core.make_move(s, ms.usi_to_move(s, "5e4d"))
    with pytest.raises(IndexError, match="history is full"):
        core.make_move(s, ms.usi_to_move(s, "1a2b"))


def test_position_grows_its_history():
    pos = ms.Position(max_plies=None)
    for _ in range(60):
        for usi in ("5e4d", "1a2b", "4d5e", "2b1a"):
            pos.push_usi(usi)
    assert pos.ply == 240 and pos.outcome() == "gote"


@njit(cache=True)
def _njit_random_game(s, seed, max_plies):
    """A random game played entirely inside nopython code with the core API."""
    np.random.seed(seed)
    buf = np.empty(core.MAX_MOVES * 2, dtype=np.int32)
    checks = 0
    while True:
        r = core.game_result(s, buf, 0, max_plies)
        if r != core.RESULT_NONE:
            return r, checks
        n = core.gen_moves(s, buf, 0, False)
        m = np.int64(buf[np.random.randint(n)])
        check = core.gives_check(s, m)
        core.make_move(s, m)
        stm = s[core.STM]
        if core.last_move(s) != m or core.in_check(s) != check or check != core.is_attacked(s, s[core.KING_SQ + stm], 1 - stm):
            return -1, checks
        checks += check


def test_core_is_usable_from_njit_code():
    results = []
    for seed in range(20):
        s = ms.Position().state.copy()
        s = np.concatenate([s, np.zeros(core.HIST_STRIDE * 400, dtype=np.int64)])
        r, _ = _njit_random_game(s, seed, 300)
        assert r in (core.RESULT_SENTE_WINS, core.RESULT_GOTE_WINS, core.RESULT_DRAW)
        # the same game replayed through the string API ends the same way
        moves = [ms.format_usi(s[core.HIST + core.HIST_STRIDE * q + 2]) for q in range(int(s[core.PLY]))]
        assert ms.outcome(ms.START_SFEN, moves) == ms.RESULT_NAMES[r]
        results.append(r)
    s1 = np.concatenate([ms.Position().state, np.zeros(core.HIST_STRIDE * 400, dtype=np.int64)])
    s2 = s1.copy()
    assert _njit_random_game(s1, 3, 300) == _njit_random_game(s2, 3, 300) and (s1 == s2).all()  # seeded
    assert len(set(results)) >= 2


def test_position_api():
    pos = ms.Board()
    assert pos.turn == "sente" and pos.ply == 0 and pos.move_number == 1 and pos.max_plies == 300
    pos.push_usi("2e3d")
    assert pos.turn == "gote" and pos.peek() == "2e3d" and pos.piece_at("3d") == "B" and pos.piece_at("2e") is None
    other = pos.copy()
    other.push_usi("1a2b")
    assert pos.ply == 1 and other.ply == 2 and pos.sfen() != other.sfen()
    assert pos.pop() == "2e3d" and pos.sfen() == ms.START_SFEN
    with pytest.raises(IndexError):
        pos.pop()
    assert ms.Position("k4/5/5/5/4K b 2Ps 1").hand("sente") == {"P": 2, "S": 0, "G": 0, "B": 0, "R": 0}
    assert ms.Position("k4/5/5/5/4K b 2Ps 1").hand("gote")["S"] == 1
    with pytest.raises(ValueError, match="side must be"):
        pos.hand("black")
    assert ms.Position.from_sfen(ms.START_SFEN, max_plies=None).max_plies is None
    assert pos.is_legal("5e4d") and not pos.is_legal("5e5d")
    assert ms.Position("4k/5/5/5/K3r b - 1").piece_at("1e") == "r"
    assert ms.Position("4k/5/5/5/K2+r1 b - 1").piece_at("2e") == "+r"
