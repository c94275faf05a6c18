"""Othello's value-table evaluation kind (``EVAL_TABLE`` of :mod:`gamelib.games.othello.game`): the
kernel's score is the paper's by its formula bit for bit (found positions their win rate for
the side to move, misses scored by the fallback network or 0, both sides to move); the
game-neutral search with it finds the minimax score of a plain negamax
(``tests/othello_reference.py``) and a move of that value at a fixed depth; the packed θ round-trips,
stays finite whatever the keys, and a damaged one is refused naming what is wrong; a packed
table is checked in full once."""

from __future__ import annotations

import numpy as np
import pytest

from gamelib.games.othello import game as go
from gamelib.games import registry
from gamelib.games.protocol import EVAL_LINEAR, ONGOING
from gamelib.games.othello import core
from gamelib.games.othello.mlp import MLP
from gamelib.games.othello.value_table import ValueTable, table_value
from gamelib.play import games as G
from othello_reference import after, negamax

GAME = registry.get("othello")
U64 = np.uint64


def _bits(x) -> bytes:
    return np.asarray(x, dtype=np.float64).tobytes()


def _pair(s):
    top = 4 + 2 * int(s[0])
    return (int(np.int64(x).astype(np.uint64)) for x in s[top:top + 2])


def _random_positions(n_games: int, seed: int):
    """Every ongoing position of ``n_games`` uniformly random games: (state, black, white,
    black_to_move)."""
    rng = np.random.default_rng(seed)
    buf = np.empty(GAME.MAX_MOVES, dtype=np.int32)
    out = []
    for _ in range(n_games):
        s = GAME.start(120)
        while GAME.outcome(s, buf, 0) == ONGOING:
            p, o = _pair(s)
            black_to_move = int(GAME.side_to_move(s)) == 0
            black, white = (p, o) if black_to_move else (o, p)
            out.append((s.copy(), black, white, black_to_move))
            n = int(GAME.gen_moves(s, buf, 0))
            GAME.make_move(s, int(buf[rng.integers(n)]))
    return out


def _table_of(boards, seed: int, share: float = 0.6) -> ValueTable:
    """A table of a random ``share`` of ``boards`` ((black, white) pairs), each seen 1-20 times
    with random results (so that the win rates are of many values)."""
    rng = np.random.default_rng(seed)
    rows_b, rows_w, won = [], [], []
    for black, white in dict.fromkeys(boards):
        if rng.random() < share:
            n = int(rng.integers(1, 21))
            rows_b += [black] * n
            rows_w += [white] * n
            won += rng.integers(0, 2, n).tolist()
    return ValueTable.from_rows(np.array(rows_b, dtype=U64), np.array(rows_w, dtype=U64), won)


POSITIONS = _random_positions(8, seed=21)
TABLE = _table_of([(b, w) for _, b, w, _ in POSITIONS], seed=5)
NETWORKS = {
    "f32-paper": lambda: MLP.init((64, 16, 1), "paper", seed=3),
    "f64-planes": lambda: MLP.init((128, 24, 8, 1), "planes", seed=4, dtype=np.float64),
    "none": lambda: None,
}


def test_the_positions_and_the_table_cover_hits_misses_and_both_sides():
    assert len(POSITIONS) >= 400
    found = TABLE.rows([b for _, b, _, _ in POSITIONS], [w for _, _, w, _ in POSITIONS]) >= 0
    assert 0.4 < found.mean() < 0.8
    assert {btm for _, _, _, btm in POSITIONS} == {True, False}
    assert np.unique(TABLE.frame["v_b"]).size > 50


@pytest.mark.parametrize("net", sorted(NETWORKS))
def test_the_table_kind_scores_by_the_papers_formula_bit_for_bit(net):
    """With any fallback the found positions score their win rate for the side to move and the
    others the network's ``EVAL_MLP`` score (0 without a network)."""
    fallback = NETWORKS[net]()
    theta = go.pack_table(TABLE, fallback)
    got = np.array([GAME.evaluate_kind(s, theta, go.EVAL_TABLE) for s, _, _, _ in POSITIONS])
    rows = TABLE.rows([b for _, b, _, _ in POSITIONS], [w for _, _, w, _ in POSITIONS])
    v_b = TABLE.frame["v_b"].to_numpy()
    net_theta = None if fallback is None else go.pack_mlp(fallback)
    for (s, b, w, btm), row, score in zip(POSITIONS, rows, got):
        if row >= 0:
            v = v_b[row] if btm else 1.0 - v_b[row]
            assert _bits(score) == _bits(2.0 * v - 1.0)
        elif fallback is None:
            assert score == 0.0
        else:
            assert _bits(score) == _bits(GAME.evaluate_kind(s, net_theta, go.EVAL_MLP))
    if fallback is not None:
        misses = got[rows < 0]
        assert np.unique(misses).size > 0.9 * misses.size


def test_the_packed_probe_is_the_tables_own_probe():
    theta = go.pack_table(TABLE, None)
    args = TABLE.kernel_args()
    for _, b, w, _ in POSITIONS:
        want = table_value(*args, U64(b), U64(w))
        assert _bits(go.packed_table_value(theta, U64(b), U64(w))) == _bits(want)
        # the same discs with the colours exchanged are another position
        assert _bits(go.packed_table_value(theta, U64(w), U64(b))) == _bits(
            table_value(*args, U64(w), U64(b)))


def _every_node_has_a_move(p: int, o: int, depth: int) -> bool:
    """Whether the side to move has a move at every node of the tree to ``depth`` plies, the
    leaves included (no pass and no game end: the reference's leaves are all evaluated)."""
    moves = int(core.move_mask(U64(p), U64(o)))
    if moves == 0:
        return False
    if depth == 0:
        return True
    for sq in range(64):
        if moves >> sq & 1:
            np_, no = (int(x) for x in core.make_move(U64(p), U64(o), sq))
            if not _every_node_has_a_move(no, np_, depth - 1):
                return False
    return True


def _leaves(p: int, o: int, black_to_move: bool, depth: int, out: list) -> None:
    """The (black, white) boards ``depth`` plies below."""
    if depth == 0:
        out.append((p, o) if black_to_move else (o, p))
        return
    moves = int(core.move_mask(U64(p), U64(o)))
    for sq in range(64):
        if moves >> sq & 1:
            np_, no = (int(x) for x in core.make_move(U64(p), U64(o), sq))
            _leaves(no, np_, not black_to_move, depth - 1, out)


def test_the_game_neutral_search_finds_the_minimax_score_and_a_best_move():
    """At a fixed depth with no pass or game end in the tree, the game-neutral search with the
    table kind (PVS, transposition table) returns the minimax score of a plain negamax over the
    same leaf scores bit for bit, and a move of that value (the only one where it is unique)."""
    depth = 3
    roots = [(s, b, w, btm) for s, b, w, btm in POSITIONS[6::9]
             if _every_node_has_a_move(*((b, w) if btm else (w, b)), depth)]
    assert len(roots) >= 25
    leaves = []
    for _, b, w, btm in roots:
        _leaves(*((b, w) if btm else (w, b)), btm, depth, leaves)
    table = _table_of(leaves, seed=9, share=0.7)
    fallback = NETWORKS["f32-paper"]()
    theta = go.pack_table(table, fallback)

    def leaf(p, o, black_to_move):
        black, white = (p, o) if black_to_move else (o, p)
        return float(GAME.evaluate_kind(go.new_state(black, white, black_to_move), theta, go.EVAL_TABLE))

    player = G.SearchPlayer(theta, go.EVAL_TABLE, node_budget=10**8, max_depth=depth, qdepth=0)
    unique = 0
    for s, b, w, btm in roots:
        p, o = (b, w) if btm else (w, b)
        new = player.search(GAME, s, 0, 0)
        assert new.depth == depth and not new.partial
        values = {sq: -negamax(*after(p, o, sq), not btm, depth - 1, leaf)
                  for sq in [m for m in range(64) if int(core.move_mask(U64(p), U64(o))) >> m & 1]}
        best = max(values.values())
        assert _bits(new.score) == _bits(best)
        assert values[new.move] == best
        unique += sum(v == best for v in values.values()) == 1
    assert unique >= 35


def test_a_search_with_the_table_kind_plays_whole_games():
    theta = go.pack_table(TABLE, NETWORKS["f32-paper"]())
    player = G.SearchPlayer(theta, go.EVAL_TABLE, node_budget=400, qdepth=0)
    played = G.play_game(GAME, player, G.RandomPlayer(), 3, max_plies=120)
    assert played.result != ONGOING and len(played.moves) >= 50
    s = POSITIONS[30][0]
    moves, scores = G.SoftmaxPlayer(theta, go.EVAL_TABLE, temperature=0.1, qdepth=0).scores(GAME, s, 0)
    for m, score in zip(moves, scores):
        child = s.copy()
        GAME.make_move(child, int(m))
        assert _bits(score) == _bits(-GAME.evaluate_kind(child, theta, go.EVAL_TABLE))


@pytest.mark.parametrize("net", sorted(NETWORKS))
def test_a_packed_table_unpacks_to_the_same_table_and_network(net):
    fallback = NETWORKS[net]()
    theta = go.pack_table(TABLE, fallback)
    assert theta.dtype == np.float64 and theta[0] == go.TABLE_TAG and np.all(np.isfinite(theta))
    n_slots, n_rows = TABLE.kernel_args()[0].size, len(TABLE)
    n_net = 0 if fallback is None else go.pack_mlp(fallback).size
    assert theta[1:4].tolist() == [n_slots, n_rows, n_net]
    assert theta.size == 4 + n_slots + 5 * n_rows + n_net
    args, back = go.unpack_table(theta)
    for got, want in zip(args, TABLE.kernel_args()):
        assert got.dtype == want.dtype and got.tobytes() == want.tobytes()
    if fallback is None:
        assert back is None
    else:
        assert (back.sizes, back.encoding) == (fallback.sizes, fallback.encoding)
        assert back.params.tobytes() == fallback.params.tobytes()
    assert go.check_table_theta(theta) is theta


def test_keys_whose_bits_are_not_finite_floats_travel_as_finite_halves():
    """A bitboard whose 64 bits read as a float64 are a NaN (the squares e7-g8 all black) is
    packed into finite halves and found again."""
    black = 0x7FF0000000000000 | (1 << 27)
    white = (1 << 28) | (1 << 36)
    assert np.isnan(np.array([black], dtype=U64).view(np.float64)[0])
    table = ValueTable.from_rows(np.array([black, black, 1 << 35], dtype=U64),
                                 np.array([white, white, 1 << 27], dtype=U64), [1, 0, 1])
    theta = go.pack_table(table)
    assert np.all(np.isfinite(theta))
    assert go.packed_table_value(theta, U64(black), U64(white)) == 0.5
    assert go.packed_table_value(theta, U64(1 << 35), U64(1 << 27)) == 1.0
    assert go.packed_table_value(theta, U64(black), U64(1 << 28)) == -1.0
    args, _ = go.unpack_table(theta)
    assert args[1].tolist() == [black, 1 << 35]
    G.SearchPlayer(theta, go.EVAL_TABLE)        # its finiteness check passes


def _parts(theta):
    """The offsets of a packed table's slots, keys, values and network."""
    n_slots, n_rows = int(theta[1]), int(theta[2])
    keys = 4 + n_slots
    return 4, keys, keys + 4 * n_rows, keys + 5 * n_rows


def _moved_row(theta):
    """A copy whose first row sits in an empty slot its probe never reaches."""
    bad = theta.copy()
    slots, _, _, _ = _parts(theta)
    n_slots = int(theta[1])
    index = bad[slots:slots + n_slots]
    filled = np.flatnonzero(index >= 0)
    i = int(filled[0])
    index[int(np.flatnonzero(index < 0)[0])] = index[i]
    index[i] = -1.0
    return bad


def test_damaged_packed_tables_are_refused_by_name():
    theta = go.pack_table(TABLE, NETWORKS["f32-paper"]())
    slots, keys, values, net = _parts(theta)
    n_slots, n_rows = int(theta[1]), int(theta[2])
    empty = slots + int(np.flatnonzero(theta[slots:keys] < 0)[0])
    filled = slots + int(np.flatnonzero(theta[slots:keys] >= 0)[0])
    cases = [
        (1, n_slots + 1, "number of slots .* must be a power of two above its number of rows"),
        (1, 2 * n_slots, "does not match its length"),
        (1, 2.5, "sizes must be integers >= 0"),
        (2, n_rows + 1, "does not match its length"),
        (2, -1.0, "sizes must be integers >= 0"),
        (3, theta[3] - 1, "does not match its length"),
        (empty, 0.0, "slots must hold each row once"),
        (filled, float(n_rows), "slots must hold each row once"),
        (filled, -1.0, "slots must hold each row once"),
        (filled, 0.5, "slots must hold each row once"),
        (keys, 2.0**32, "keys must be halves of bitboards"),
        (keys + 1, 0.5, "keys must be halves of bitboards"),
        (values, 1.5, r"values must be win rates in \[0, 1\]"),
        (values + 3, np.nan, r"values must be win rates in \[0, 1\]"),
        (net + 1, 7.0, "its fallback network: a packed network's header has a bad encoding code"),
    ]
    for at, value, message in cases:
        bad = theta.copy()
        bad[at] = value
        with pytest.raises(ValueError, match=f"table: .*{message}"):
            go.check_table_theta(bad, name="table")
    with pytest.raises(ValueError, match="does not match its length"):
        go.check_table_theta(theta[:-1])
    # a key whose black and white share a square; a row its probe does not reach; a key twice
    bad = theta.copy()
    bad[keys + 2:keys + 4] = bad[keys:keys + 2]
    with pytest.raises(ValueError, match="a square both black and white"):
        go.check_table_theta(bad)
    with pytest.raises(ValueError, match="slots do not lead to row"):
        go.check_table_theta(_moved_row(theta))
    bad = theta.copy()
    bad[keys + 4:keys + 8] = bad[keys:keys + 4]
    with pytest.raises(ValueError, match="slots do not lead to row [01]"):
        go.check_table_theta(bad)
    # other kinds' parameters and things that are not a table at all
    with pytest.raises(ValueError, match=r"not a value table packed .*a linear evaluation's θ \(54848"):
        go.check_table_theta(go.initial_theta())
    with pytest.raises(ValueError, match="it is a value network packed by pack_mlp"):
        go.check_table_theta(go.pack_mlp(NETWORKS["f32-paper"]()))
    with pytest.raises(ValueError, match="must be a vector of numbers"):
        go.check_table_theta(["a", "b"])
    with pytest.raises(ValueError, match="not a value network packed"):
        go.check_mlp_theta(theta)
    with pytest.raises(ValueError, match="vector of 54848 parameters"):
        G.SearchPlayer(theta, EVAL_LINEAR).choose(GAME, GAME.start(60), np.random.default_rng(0), 0)
    with pytest.raises(ValueError, match="pack_table needs a gamelib.games.othello.value_table.ValueTable"):
        go.pack_table(theta)
    with pytest.raises(ValueError, match="fallback must be a gamelib.games.othello.mlp.MLP or None"):
        go.pack_table(TABLE, theta)


def test_a_packed_table_is_checked_in_full_once(monkeypatch):
    theta = go.pack_table(TABLE, None)
    calls = []
    real = go.unpack_table
    monkeypatch.setattr(go, "unpack_table", lambda t, name="theta": calls.append(1) or real(t, name))
    assert go.check_table_theta(theta) is theta
    assert go.check_table_theta(theta) is theta
    assert len(calls) == 1
    copy = theta.copy()
    assert go.check_table_theta(copy) is copy and len(calls) == 2
    as_list = theta.tolist()
    go.check_table_theta(as_list)
    go.check_table_theta(as_list)
    assert len(calls) == 4                      # a converted vector is checked every time
    # the moves of a search check it once more at most
    player = G.SearchPlayer(copy, go.EVAL_TABLE, node_budget=50, qdepth=0)
    G.play_game(GAME, player, G.RandomPlayer(), 1, max_plies=120)
    assert len(calls) == 4
