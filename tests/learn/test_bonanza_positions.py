"""Expert positions of any game (gamelib.learn.bonanza_positions): records replayed over the
protocol, forced positions left out, unwritten passes played, bad records named, the split by
game."""

import numpy as np
import pytest

from gamelib.games import registry
from gamelib.learn.bonanza_positions import ExpertPositions, split_by_game

OTHELLO = registry.get("othello")


@pytest.fixture(scope="module")
def games(random_games):
    return random_games(30, 1)


def test_positions_are_the_records_unforced_positions(games):
    pos = ExpertPositions("othello", games)
    buf = np.zeros(OTHELLO.MAX_MOVES, dtype=np.int32)
    expected = 0
    for g, moves in enumerate(games):
        s = OTHELLO.start(0)
        for k, m in enumerate(moves):
            n = OTHELLO.gen_moves(s, buf, 0)
            if n > 1:
                i = expected
                assert (pos.game[i], pos.ply[i], pos.expert_move(i)) == (g, k, m)
                assert pos.key[i] == OTHELLO.hash_key(s)
                assert np.array_equal(pos.state(i)[:OTHELLO.live_length(s)],
                                      s[:OTHELLO.live_length(s)])
                expected += 1
            OTHELLO.make_move(s, np.int64(m))
    assert len(pos) == expected and pos.n_games == len(games)
    assert np.array_equal(pos.record_moves(3), games[3])
    every = ExpertPositions("othello", games, skip_forced=False)
    assert len(every) == sum(map(len, games))


def test_unwritten_passes_are_played_and_stored(games):
    with_pass = [m for m in games if OTHELLO.PASS in m]
    assert with_pass, "no random game with a pass: choose another seed"
    written = ExpertPositions("othello", with_pass)
    unwritten = ExpertPositions("othello", [[m for m in g if m != OTHELLO.PASS] for g in with_pass],
                                implied_passes=True)
    assert np.array_equal(unwritten.codes, written.codes)
    assert np.array_equal(unwritten.ply, written.ply) and np.array_equal(unwritten.key, written.key)
    assert all(unwritten.expert_move(i) != OTHELLO.PASS for i in range(len(unwritten)))
    with pytest.raises(ValueError, match="is not a legal move"):
        ExpertPositions("othello", [[m for m in g if m != OTHELLO.PASS] for g in with_pass])


def test_start_states_and_bad_records_are_named(games):
    s = OTHELLO.start(0)
    for m in games[0][:10]:
        OTHELLO.make_move(s, np.int64(m))
    pos = ExpertPositions(OTHELLO, [games[0][10:]], starts=[s])
    full = ExpertPositions(OTHELLO, [games[0]])
    assert np.array_equal(pos.key, full.key[full.ply >= 10])
    with pytest.raises(ValueError, match=r"record 1: move 2 \(a1\) is not a legal move"):
        ExpertPositions("othello", [games[0], [games[0][0], 0]])
    with pytest.raises(ValueError, match="2 start states for 1 records"):
        ExpertPositions("othello", [games[0]], starts=[s, s])
    with pytest.raises(ValueError, match="unknown game"):
        ExpertPositions("chess", [games[0]])


def test_split_by_game(games):
    pos = ExpertPositions("othello", games)
    a = split_by_game(pos, 0.2, 3)
    assert a.held_out_games.size == 6
    assert np.array_equal(a.train, np.flatnonzero(~np.isin(pos.game, a.held_out_games)))
    assert np.all(np.isin(pos.game[a.held_out], a.held_out_games))
    assert not np.isin(pos.key[a.held_out], pos.key[a.train]).any()   # none seen in training
    in_out = np.count_nonzero(np.isin(pos.game, a.held_out_games))
    assert a.held_out.size + a.dropped_seen == in_out and a.dropped_seen > 0   # the openings
    b = split_by_game(pos, 0.2, 3)
    assert np.array_equal(a.held_out, b.held_out)
    assert not np.array_equal(split_by_game(pos, 0.2, 4).held_out_games, a.held_out_games)
    with pytest.raises(ValueError, match="held_out_fraction"):
        split_by_game(pos, 1.0, 0)
