"""The paper's rewards: MDP (+1/-1/0) and non-MDP (enclosure bonus) on hand-made games."""

import numpy as np
import pytest

from gamelib.learn import selfplay as sp
from gamelib.games.minishogi import START_SFEN, core
from gamelib.games.minishogi.notation import parse_sfen, usi_to_move


def _play(sfen, moves):
    board, hands, side, number = parse_sfen(sfen)
    s = core.new_state(board, hands, side, number, capacity=64)
    for usi in moves:
        core.make_move(s, usi_to_move(s, usi))
    return s


@pytest.mark.parametrize("sfen, moves, bonus", [
    # start: sente's gold 4e is next to its king 5e, its silver 3e is not; gote's gold 2a is
    # next to its king 1a
    (START_SFEN, [], (0.1, 0.1)),
    (START_SFEN, ["3e4d"], (0.2, 0.1)),                      # the silver joins the king
    (START_SFEN, ["4e3d", "1b1c", "3d4d"], (0.1, 0.1)),      # leaves and comes back: counts
    (START_SFEN, ["4e3d"], (0.0, 0.1)),                      # on the board but not enclosing
    # captured by the rook, recaptured later and dropped back next to the king: it left the
    # board, so it does not count
    ("4k/5/5/1r3/KG3 w - 1", ["4d4e", "5e4e", "G*2c", "R*2d", "1a1b", "2d2c", "1b2c", "G*4d"],
     (0.0, 0.0)),
    # a captured gold dropped next to the captor's king is not the captor's from the start
    ("4k/5/5/1r3/KG3 w - 1", ["4d4e", "5e4e", "G*2a"], (0.0, 0.0)),
    # a promoted silver is no longer a silver
    ("4k/KS3/5/5/5 b - 1", ["4b4a+"], (0.0, 0.0)),
    ("4k/KS3/5/5/5 b - 1", ["4b4a"], (0.1, 0.0)),
])
def test_enclosure_bonus(sfen, moves, bonus):
    got = sp.enclosure_bonus_usi(sfen, moves)
    np.testing.assert_allclose(got, bonus, atol=1e-15)
    s = _play(sfen, moves)
    before = s.copy()
    np.testing.assert_allclose(sp.enclosure_bonus(s), bonus, atol=1e-15)
    np.testing.assert_array_equal(s, before)                  # the state is left alone


def test_rewards_of_a_mate_and_of_draws():
    s = _play("k4/5/1G3/5/4K b G 1", ["G*5b"])                # drop mate with a gold
    buf = np.empty(core.MAX_MOVES, dtype=np.int32)
    assert core.game_result(s, buf, 0, 0) == core.RESULT_SENTE_WINS
    assert sp.game_rewards(s, core.RESULT_SENTE_WINS, "mdp") == (1.0, -1.0)
    assert sp.game_rewards(s, core.RESULT_SENTE_WINS, "non_mdp") == (1.0, -1.0)  # gold 4c is far
    s = _play(START_SFEN, ["3e4d"])
    assert sp.game_rewards(s, core.RESULT_GOTE_WINS, "mdp") == (-1.0, 1.0)
    r = sp.game_rewards(s, core.RESULT_GOTE_WINS, "non_mdp")  # both bonuses, as they apply
    np.testing.assert_allclose(r, (-1.0 + 0.2, 1.0 + 0.1), atol=1e-15)
    r = sp.game_rewards(s, core.RESULT_SENTE_WINS, "non_mdp", bonus=0.5)
    np.testing.assert_allclose(r, (1.0 + 1.0, -1.0 + 0.5), atol=1e-15)
    assert sp.game_rewards(s, core.RESULT_DRAW, "non_mdp") == (0.0, 0.0)


def test_bad_input():
    with pytest.raises(ValueError, match="move 2 of the game: illegal move '4e3d'"):
        sp.enclosure_bonus_usi(START_SFEN, ["4e3d", "4e3d"])
    with pytest.raises(ValueError, match="bad SFEN|SFEN"):
        sp.enclosure_bonus_usi("xyz", [])
    s = _play(START_SFEN, [])
    with pytest.raises(ValueError, match="unknown reward setting 'markov'"):
        sp.game_rewards(s, core.RESULT_DRAW, "markov")
    with pytest.raises(ValueError, match="finished game"):
        sp.game_rewards(s, core.RESULT_NONE, "mdp")
