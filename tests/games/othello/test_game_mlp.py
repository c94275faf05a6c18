"""Othello's value-network evaluation kind (``EVAL_MLP`` of :mod:`gamelib.games.othello.game`): the
kernel's score is the network's value of :mod:`gamelib.games.othello.mlp` bit for bit, from the side to
move's view, for float32 and float64 networks of both input encodings; the packed θ round-trips;
the game-neutral search and the softmax player play with it; a kind a game lacks and parameters
of the other kind are refused by name; the linear kind is unchanged."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from gamelib.games.othello import game as go
from gamelib.games import registry
from gamelib.games.protocol import EVAL_LINEAR, ONGOING, check_kind, eval_weights
from gamelib.games.othello.mlp import MLP
from gamelib.play import games as G

ROOT = Path(__file__).resolve().parents[3]
PAPER_MLP = ROOT / "data" / "results" / "paper" / "othello_value" / "mlp.npz"
GAME = registry.get("othello")

#: Small networks: float32 with an odd number of parameters (the last slot half padding),
#: float64 with the planes encoding, and three hidden layers as the paper's.
NETWORKS = {
    "f32-paper-odd": lambda: MLP.init((64, 16, 1), "paper", seed=3),
    "f64-planes": lambda: MLP.init((128, 24, 8, 1), "planes", seed=4, dtype=np.float64),
    "f32-deep": lambda: MLP.init((64, 32, 48, 16, 1), "paper", seed=5),
}


def _bits(x) -> bytes:
    return np.asarray(x, dtype=np.float64).tobytes()


def _random_positions(n_games: int, seed: int):
    """Every ongoing position of ``n_games`` uniformly random games: (state, black, white,
    black_to_move)."""
    rng = np.random.default_rng(seed)
    buf = np.empty(GAME.MAX_MOVES, dtype=np.int32)
    out = []
    for _ in range(n_games):
        s = GAME.start(120)
        while GAME.outcome(s, buf, 0) == ONGOING:
            top = 4 + 2 * int(s[0])
            p, o = (int(np.int64(x).astype(np.uint64)) for x in s[top:top + 2])
            black_to_move = int(GAME.side_to_move(s)) == 0
            black, white = (p, o) if black_to_move else (o, p)
            out.append((s.copy(), black, white, black_to_move))
            n = int(GAME.gen_moves(s, buf, 0))
            GAME.make_move(s, int(buf[rng.integers(n)]))
    return out


POSITIONS = _random_positions(6, seed=11)


def _want(mlp, positions) -> np.ndarray:
    """2 v - 1 for the side to move, v = the network's Black win probability (MLP.predict) or
    one minus it."""
    v = mlp.predict(np.array([b for _, b, _, _ in positions], dtype=np.uint64),
                    np.array([w for _, _, w, _ in positions], dtype=np.uint64))
    return np.array([2.0 * (x if btm else 1.0 - x) - 1.0 for x, (_, _, _, btm) in zip(v, positions)])


def test_the_positions_cover_both_sides_to_move():
    assert len(POSITIONS) >= 300
    sides = {btm for _, _, _, btm in POSITIONS}
    assert sides == {True, False}


@pytest.mark.parametrize("net", sorted(NETWORKS))
def test_the_mlp_kind_is_the_networks_value_bit_for_bit(net):
    mlp = NETWORKS[net]()
    theta = go.pack_mlp(mlp)
    got = np.array([GAME.evaluate_kind(s, theta, go.EVAL_MLP) for s, _, _, _ in POSITIONS])
    assert _bits(got) == _bits(_want(mlp, POSITIONS))
    assert np.all(np.abs(got) <= 1.0) and np.unique(got).size > len(POSITIONS) // 2
    # the kernel alone: Black's win probability, as mlp.predict
    s, black, white, _ = POSITIONS[40]
    assert _bits(go.packed_mlp_value(theta, np.uint64(black), np.uint64(white))) == _bits(
        mlp.predict(np.array([black], np.uint64), np.array([white], np.uint64))[0])


def test_the_papers_network_scores_by_eq_3():
    mlp = MLP.load(PAPER_MLP)
    assert mlp.params.dtype == np.float32
    theta = go.pack_mlp(mlp)
    positions = POSITIONS[::2]
    got = np.array([GAME.evaluate_kind(s, theta, go.EVAL_MLP) for s, _, _, _ in positions])
    assert _bits(got) == _bits(_want(mlp, positions))


def test_the_linear_kind_is_the_linear_evaluation():
    theta = np.random.default_rng(2).normal(0.0, 0.1, go.N_FEATURES)
    for s, _, _, _ in POSITIONS[::25]:
        assert _bits(GAME.evaluate_kind(s, theta, EVAL_LINEAR)) == _bits(GAME.evaluate(s, theta))


@pytest.mark.parametrize("net", sorted(NETWORKS))
def test_a_packed_network_unpacks_to_the_same_network(net):
    mlp = NETWORKS[net]()
    theta = go.pack_mlp(mlp)
    assert theta.dtype == np.float64 and theta[0] == go.MLP_TAG and np.all(np.isfinite(theta))
    back = go.unpack_mlp(theta)
    assert (back.sizes, back.encoding, back.params.dtype) == (mlp.sizes, mlp.encoding, mlp.params.dtype)
    assert back.params.tobytes() == mlp.params.tobytes()
    assert go.check_mlp_theta(theta) is theta


def test_bad_packed_networks_are_refused_by_name():
    theta = go.pack_mlp(NETWORKS["f32-paper-odd"]())
    linear = go.initial_theta()
    with pytest.raises(ValueError, match=r"not a value network packed .*a linear evaluation's θ \(54848"):
        go.check_mlp_theta(linear)
    with pytest.raises(ValueError, match="vector of 54848 parameters"):
        go.check_theta(theta)
    cases = [(1, 7.0, "bad encoding code"), (2, 2.0, "bad bytes per parameter"),
             (3, 1.0, "bad number of layer widths"), (4, 0.5, "positive integers"),
             (7, 10.0, "does not match its length"), (4, 128.0, "not an MLP: layer sizes")]
    for at, value, message in cases:
        bad = theta.copy()
        bad[at] = value
        with pytest.raises(ValueError, match=message):
            go.check_mlp_theta(bad, name="net")
    with pytest.raises(ValueError, match="does not match its length"):
        go.check_mlp_theta(theta[:-1])
    with pytest.raises(ValueError, match="pack_mlp needs a gamelib.games.othello.mlp.MLP"):
        go.pack_mlp(linear)


def test_the_games_declare_their_evaluation_kinds():
    assert {k: v.name for k, v in GAME.eval_kinds.items()} == {1: "linear", 2: "mlp", 3: "table"}
    shogi = registry.get("minishogi")
    assert {k: v.name for k, v in shogi.eval_kinds.items()} == {0: "material", 1: "linear"}
    assert check_kind(GAME, np.int64(2)) == 2
    with pytest.raises(ValueError, match=r"game 'othello' has no evaluation kind 0: its kinds are "
                                         r"1 \(linear\), 2 \(mlp\), 3 \(table\)"):
        check_kind(GAME, 0)
    with pytest.raises(ValueError, match=r"game 'minishogi' has no evaluation kind 2: its kinds are "
                                         r"0 \(material\), 1 \(linear\)"):
        eval_weights(shogi, np.zeros(shogi.N_FEATURES), go.EVAL_MLP)
    with pytest.raises(ValueError, match="has no evaluation kind True"):
        check_kind(GAME, True)


def test_a_search_with_the_mlp_kind_plays_legal_moves_and_leaves_the_state():
    theta = go.pack_mlp(NETWORKS["f32-deep"]())
    player = G.SearchPlayer(theta, go.EVAL_MLP, node_budget=600, qdepth=0)
    buf = np.empty(GAME.MAX_MOVES, dtype=np.int32)
    for s, _, _, _ in POSITIONS[5::60]:
        live = int(GAME.live_length(s))
        before = s[:live].copy()
        result = player.search(GAME, s, 7, 120)
        n = int(GAME.gen_moves(s, buf, 0))
        assert result.move in buf[:n].tolist() and result.nodes > 0
        assert np.array_equal(s[:live], before)
        if result.depth == 0 or abs(result.score) >= 2.0:
            continue
        assert -1.0 <= result.score <= 1.0         # a network's score, not a game end
    # a whole game against a random player ends by the rules
    played = G.play_game(GAME, player, G.RandomPlayer(), 3, max_plies=120)
    assert played.result != ONGOING and len(played.moves) >= 50


def test_the_softmax_player_scores_the_children_by_the_network():
    mlp = NETWORKS["f64-planes"]()
    theta = go.pack_mlp(mlp)
    s = POSITIONS[30][0]
    moves, scores = G.SoftmaxPlayer(theta, go.EVAL_MLP, temperature=0.1, qdepth=0).scores(GAME, s, 0)
    assert len(moves) >= 2
    for m, score in zip(moves, scores):
        child = s.copy()
        GAME.make_move(child, int(m))
        assert _bits(score) == _bits(-GAME.evaluate_kind(child, theta, go.EVAL_MLP))


def test_parameters_of_the_other_kind_are_refused_by_name():
    theta = go.pack_mlp(NETWORKS["f32-paper-odd"]())
    s, rng = GAME.start(60), np.random.default_rng(0)
    with pytest.raises(ValueError, match="not a value network packed by gamelib.games.othello.game.pack_mlp"):
        G.SearchPlayer(go.initial_theta(), go.EVAL_MLP).choose(GAME, s, rng, 0)
    with pytest.raises(ValueError, match="vector of 54848 parameters"):
        G.SearchPlayer(theta, EVAL_LINEAR).choose(GAME, s, rng, 0)
    with pytest.raises(ValueError, match="not a value table packed by gamelib.games.othello.game.pack_table "
                                         r"\(its first entry is not TABLE_TAG\): it is a value network "
                                         r"packed by pack_mlp \(the kind EVAL_MLP\)"):
        G.SearchPlayer(theta, go.EVAL_TABLE).choose(GAME, s, rng, 0)
    table = np.array([go.TABLE_TAG, 1.0, 0.0, 0.0, -1.0])               # a packed empty table
    with pytest.raises(ValueError, match="not a value network packed by gamelib.games.othello.game.pack_mlp "
                                         r"\(its first entry is not MLP_TAG\): it is a value table "
                                         r"packed by pack_table \(the kind EVAL_TABLE\)"):
        G.SearchPlayer(table, go.EVAL_MLP).choose(GAME, s, rng, 0)
    with pytest.raises(ValueError, match="game 'othello' has no evaluation kind 4"):
        G.SearchPlayer(theta, 4).choose(GAME, s, rng, 0)
    with pytest.raises(ValueError, match="game 'othello' has no evaluation kind 0"):
        G.SoftmaxPlayer(go.initial_theta(), 0).choose(GAME, s, rng, 0)
