"""gen_captures (the quiescence search's generator) against the full move generator."""

from __future__ import annotations

import numpy as np

import exact_cases as C
from gamelib.games.minishogi import core as mc


def test_gen_captures_is_the_full_generators_captures_in_order():
    buf = np.empty(mc.MAX_MOVES, dtype=np.int32)
    cap = np.empty(mc.MAX_MOVES, dtype=np.int32)
    n_checks = n_captures = 0
    for s in C.random_positions(21, 3000, max_ply=60):
        n = mc.gen_moves(s, buf, 0, False)
        want = [int(m) for m in buf[:n] if mc.is_capture(int(m))]
        k = mc.gen_captures(s, cap, 0)
        assert [int(m) for m in cap[:k]] == want
        assert mc.gen_moves(s, cap, 5, True) == k and list(cap[5:5 + k]) == want
        n_checks += bool(mc.in_check(s))
        n_captures += k
    assert n_checks > 100 and n_captures > 3000  # the positions cover checks and captures
