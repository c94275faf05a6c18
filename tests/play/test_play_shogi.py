"""Tests of gamelib.play.shogi: games by the rules, seeds, players, matches and tournaments."""

from __future__ import annotations

import random

import numpy as np
import pytest

import gamelib.games.minishogi as ms
from gamelib.games.minishogi import features as E
from gamelib.games.minishogi.reference import HAND_BONUS, MATERIAL, REFERENCE_NODE_BUDGET, reference_theta
from gamelib.play import shogi as P
from gamelib.play.stats import Record


def replay(game: P.GameRecord, max_plies: int) -> ms.Position:
    """The game replayed by the string API (every move checked for legality)."""
    pos = ms.Position(game.start_sfen, max_plies=max_plies)
    for usi in game.moves:
        assert pos.outcome() is None  # the game did not go on after its end
        pos.push_usi(usi)
    return pos


# ----------------------------------------------------------------------------- games
@pytest.mark.parametrize("seed", range(12))
def test_random_games_end_by_the_rules(seed):
    game = P.play_game(P.RandomPlayer(), P.RandomPlayer(), seed, max_plies=120)
    pos = replay(game, 120)
    end = pos.outcome()
    assert end == (game.winner or "draw")
    assert game.outcome == {"sente": 1, "gote": -1, "draw": 0}[end]
    if game.reason == "checkmate":
        assert pos.is_checkmate()
    elif game.reason == "no legal move":
        assert pos.is_stalemate()
    elif game.reason == "repetition":
        assert pos.is_repetition()
    else:
        assert game.reason == "max plies" and game.plies == 120 and game.outcome == 0


def test_game_reasons_cover_the_rules():
    reasons = {P.play_game(P.RandomPlayer(), P.RandomPlayer(), seed, max_plies=300).reason for seed in range(60)}
    assert {"checkmate", "max plies"} <= reasons


def test_games_are_functions_of_the_seed():
    a = P.play_game(P.RandomPlayer(), P.RandomPlayer(), 5)
    b = P.play_game(P.RandomPlayer(), P.RandomPlayer(), 5)
    c = P.play_game(P.RandomPlayer(), P.RandomPlayer(), 6)
    assert a == b and a.moves == b.moves
    assert a.moves != c.moves
    noisy = P.SearchPlayer(E.initial_theta(0), node_budget=300, noise_std=P.PAPER_NOISE_STD)
    g1 = P.play_game(noisy, noisy, 3, max_plies=40)
    g2 = P.play_game(noisy, noisy, 3, max_plies=40)
    g3 = P.play_game(noisy, noisy, 4, max_plies=40)
    assert g1.moves == g2.moves and g1.moves != g3.moves


def test_random_openings_make_noiseless_engines_play_different_games():
    engine = P.SearchPlayer(E.table1_theta(), E.EVAL_MATERIAL, node_budget=200)
    same = [P.play_game(engine, engine, seed, max_plies=30).moves for seed in range(3)]
    assert same[0] == same[1] == same[2]  # deterministic engines, no randomness
    varied = [P.play_game(engine, engine, seed, max_plies=30, opening_plies=4).moves for seed in range(3)]
    assert len({m[:4] for m in varied}) == 3
    replay(P.play_game(engine, engine, 0, max_plies=30, opening_plies=4), 30)


def test_the_ply_cap_counts_from_the_sfen_move_number():
    pos = ms.Position()
    for usi in ("2e3d", "4a3b"):
        pos.push_usi(usi)
    sfen = pos.sfen()  # move 3
    game = P.play_game(P.RandomPlayer(), P.RandomPlayer(), 1, start_sfen=sfen, max_plies=12)
    assert game.plies <= 10
    if game.reason == "max plies":
        assert game.plies == 10 and game.outcome == 0


def _gote_mates_in_one(n_wanted: int) -> list[tuple[str, str]]:
    """(sfen, mating move) of positions with gote to move and a mate in one, from random games."""
    rng = random.Random(11)
    found = []
    while len(found) < n_wanted:
        pos = ms.Position(max_plies=None)
        for _ in range(200):
            if pos.outcome() is not None:
                break
            if pos.turn == "gote" and pos.ply > 6:
                for usi in pos.legal_moves:
                    pos.push_usi(usi)
                    mate = pos.is_checkmate()
                    pos.pop()
                    if mate:
                        found.append((pos.sfen(), usi))
                        break
            pos.push_usi(rng.choice(pos.legal_moves))
    return found


def test_first_mover_is_the_side_to_move_of_the_start_position():
    engine = P.SearchPlayer(E.table1_theta(), E.EVAL_MATERIAL, node_budget=2_000)
    for sfen, _ in _gote_mates_in_one(3):
        game = P.play_game(engine, P.RandomPlayer(), 0, start_sfen=sfen)
        assert (game.plies, game.winner, game.reason, game.outcome) == (1, "gote", "checkmate", 1)
        game = P.play_game(P.RandomPlayer(), engine, 0, start_sfen=sfen)
        assert game.outcome == (1 if game.winner == "gote" else -1 if game.winner == "sente" else 0)


def test_play_game_rejects_bad_input():
    rp = P.RandomPlayer()
    with pytest.raises(ValueError, match="first must be a gamelib.play.shogi Player"):
        P.play_game("random", rp, 0)
    with pytest.raises(ValueError, match="seed"):
        P.play_game(rp, rp, 1.5)
    with pytest.raises(ValueError, match="max_plies"):
        P.play_game(rp, rp, 0, max_plies=0)
    with pytest.raises(ValueError, match="opening_plies"):
        P.play_game(rp, rp, 0, opening_plies=-1)
    with pytest.raises(ValueError, match="bad SFEN"):
        P.play_game(rp, rp, 0, start_sfen="rbsgk/4p/5/P4/KGSBR x - 1")
    with pytest.raises(ValueError, match="beyond max_plies"):
        P.play_game(rp, rp, 0, start_sfen="rbsgk/4p/5/P4/KGSBR b - 301")


# ----------------------------------------------------------------------------- players
def test_player_settings_are_checked():
    theta = E.initial_theta(0)
    with pytest.raises(ValueError, match=f"vector of {E.N_FEATURES}"):
        P.SearchPlayer(np.zeros(5))
    with pytest.raises(ValueError, match="kind"):
        P.SearchPlayer(theta, kind=2)
    with pytest.raises(ValueError, match="node_budget"):
        P.SearchPlayer(theta, node_budget=0)
    with pytest.raises(ValueError, match="noise_std"):
        P.SearchPlayer(theta, noise_std=-1)
    with pytest.raises(ValueError, match="temperature"):
        P.SoftmaxPlayer(theta, temperature=0)
    with pytest.raises(ValueError, match="depth"):
        P.SoftmaxPlayer(theta, depth=0)


def test_softmax_policy_is_equation_6():
    scores = np.array([0.10, 0.02, -0.04, 0.10])
    p = P.softmax_policy(scores, 0.05)
    assert p.sum() == pytest.approx(1.0)
    for i in range(4):
        for j in range(4):
            assert p[i] / p[j] == pytest.approx(np.exp((scores[i] - scores[j]) / 0.05))
    big = P.softmax_policy(np.array([1e5, 1e5 - 0.05]), 0.05)  # mate scores: no overflow
    assert big == pytest.approx([1 / (1 + np.exp(-1)), np.exp(-1) / (1 + np.exp(-1))])
    with pytest.raises(ValueError, match="temperature"):
        P.softmax_policy(scores, -1)
    with pytest.raises(ValueError, match="non-empty"):
        P.softmax_policy([], 1.0)


def test_softmax_player_samples_the_policy():
    from gamelib.search import root_leaves

    pos = ms.Position()
    for usi in ("2e3d", "4a3b", "1e1b", "2a1b"):
        pos.push_usi(usi)
    theta = reference_theta()
    player = P.SoftmaxPlayer(theta, temperature=0.03)
    leaves = root_leaves(pos.state, theta, E.EVAL_LINEAR, 1, 4, max_plies=300)
    p = P.softmax_policy(leaves.scores, 0.03)
    n = 400
    picks = [P.choose_move(pos, player, seed) for seed in range(n)]
    counts = np.array([picks.count(int(m)) for m in leaves.moves])
    assert counts.sum() == n
    expected = n * p
    z = (counts - expected) / np.sqrt(expected * (1 - p) + 1e-12)
    assert np.all(np.abs(z[expected > 5]) < 4.5)
    assert np.all(counts[expected < 1e-6] == 0)


def test_reference_weights_are_as_documented():
    theta = reference_theta()
    for piece, value in MATERIAL.items():
        assert theta[E.material_index(piece)] == value
        if not piece.startswith("+"):
            assert theta[E.material_index(piece, in_hand=True)] == pytest.approx(HAND_BONUS * value)
    assert theta[E.piece_square_index("K", "5e")] == 0.0
    assert theta[E.piece_square_index("K", "3c")] == pytest.approx(-0.024)
    assert theta[E.pair_index("K", "G", 0, 1, enemy=False)] == pytest.approx(0.008)
    assert theta[E.pair_index("K", "+R", -2, 0, enemy=True)] == pytest.approx(-0.004)
    assert theta[E.king_mobility_index(0)] == -0.020
    ref = P.reference_player()
    assert ref.node_budget == REFERENCE_NODE_BUDGET and ref.kind == E.EVAL_LINEAR


# ----------------------------------------------------------------------------- matches
def test_reference_engine_crushes_random_play():
    record = P.play_match(P.reference_player(300), P.RandomPlayer(), 8, 0, names=("ref", "random"), workers=1)
    assert record.games == 8 and record.wins >= 7


def test_results_do_not_depend_on_the_number_of_workers():
    players = {"mat": P.material_player(150, noise_std=P.PAPER_NOISE_STD), "rand": P.RandomPlayer(),
               "soft": P.SoftmaxPlayer(E.initial_theta(1), temperature=0.05)}
    kwargs = dict(max_plies=60)
    serial = P.play_games(players, [("mat", "rand"), ("soft", "mat")], 2, 9, workers=1, **kwargs)
    parallel = P.play_games(players, [("mat", "rand"), ("soft", "mat")], 2, 9, workers=2, **kwargs)
    assert np.array_equal(serial.outcomes, parallel.outcomes)
    assert [g.seed for g in serial.games] == [g.seed for g in parallel.games]


def test_round_robin_and_gauntlet_tables(tmp_path):
    players = {"a": P.RandomPlayer(), "b": P.material_player(100), "c": P.RandomPlayer()}
    table = P.round_robin(players, 2, 1, max_plies=40, workers=1)
    assert table.players == ("a", "b", "c")
    assert all(table.records[(r, c)].games == 2 for r in "abc" for c in "abc" if r != c)
    assert table.records[("a", "b")] == table.records[("b", "a")].reversed()
    results = P.gauntlet(players, "b", 2, 1, max_plies=40, workers=1, folder=tmp_path / "run")
    assert set(results) == {"a", "c"} and all(isinstance(r, Record) and r.games == 2 for r in results.values())
    again = P.gauntlet(players, "b", 2, 1, max_plies=40, workers=1, folder=tmp_path / "run")  # resumed
    assert again == results
    with pytest.raises(ValueError, match="not one of the players"):
        P.gauntlet(players, "z", 2, 1)
    with pytest.raises(ValueError, match="not in players"):
        P.play_games(players, [("a", "z")], 2, 1)
    with pytest.raises(ValueError, match="is not a gamelib.play.shogi Player"):
        P.play_games({"a": players["a"], "x": object()}, [("a", "x")], 2, 1)
