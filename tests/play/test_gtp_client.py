"""The GTP client and the Othello match runner against misbehaving GTP engines (small fake
engines written to tmp_path): each loses with the reason recorded and leaves no process."""

from __future__ import annotations

import re

import pytest

from gamelib.games.othello import Board
from gamelib.play import othello_match as M
from gamelib.play.engine_process import EngineError
from gamelib.play.gtp_client import GtpEngine, board_of_showboard
from gamelib.play.stats import Record
from gtp_fake import alive, alive_engines, fake  # noqa: F401 (fake is a fixture)

#: The shortest openings after which the side to move must pass: black after these 8 moves.
BLACK_MUST_PASS = ("d3", "c3", "b3", "b2", "f5", "a3", "a1", "c1")


def _spec(fake, mode):
    return M.OthelloPlayerSpec(fake(mode), name=f"fake-{mode}")


GREEDY = M.OthelloPlayerSpec("gamelib:greedy")


def test_opening_makes_black_pass():
    b = Board()
    b.play(list(BLACK_MUST_PASS))
    assert b.turn == "X" and b.must_pass()


@pytest.mark.parametrize("mode, reason", [
    ("hang", "engine timeout: no answer to 'genmove {colour}' within 3 s"),
    ("die_midgame", "engine died (exit code 4) while we waited for answer to 'genmove {colour}'"),
    ("garbage", "garbled move 'xyzzy'"),
    ("illegal", "illegal move 'a1'"),
    ("resign", "resigned"),
    ("pass_with_moves", "passed with legal moves ("),
    ("refuse_play", "engine refused 'play {other} "),
])
def test_bad_engine_loses_both_colours_with_the_reason(fake, tmp_path, mode, reason):
    result = M.run_match(_spec(fake, mode), GREEDY, 2, tmp_path / "out", openings=0, progress=False,
                         start_timeout=5.0, move_timeout=3.0)
    assert result.record == Record(0, 0, 2)
    rows = M.read_games(tmp_path / "out" / "games.csv")
    assert [r["game"] for r in rows] == [0, 1]
    for row in rows:
        colour = "black" if row["black"] == f"fake-{mode}" else "white"
        other = "white" if colour == "black" else "black"
        assert row["result"] == other
        assert row["reason"].startswith(f"{colour} {reason.format(colour=colour, other=other)}"), row
        assert row["score"] == ""
        # it fails on its first move, or (refuse_play as black) when it is told the reply to it
        plies = 2 if (mode, colour) == ("refuse_play", "black") else 0 if colour == "black" else 1
        assert len(row["moves"]) // 2 == plies
    assert alive_engines(fake) == []


def test_engine_claiming_a_move_when_it_must_pass_loses(fake):
    game = M.play_game(_spec(fake, "move_when_must_pass"), GREEDY, seed=0, opening=BLACK_MUST_PASS,
                       move_timeout=5.0)
    assert (game.result, game.reason, game.score) == ("white", "black played 'b1' but must pass", None)
    assert game.moves == BLACK_MUST_PASS
    assert alive_engines(fake) == []


def test_engine_that_passes_when_it_must_plays_on_to_the_end_by_our_rules(fake):
    """The fake (black) must pass after the opening; both sides then play to the end, with the
    fake told of every move and pass; the score is the final board's."""
    game = M.play_game(_spec(fake, "noisy"), GREEDY, seed=0, opening=BLACK_MUST_PASS, move_timeout=5.0)
    assert game.moves[len(BLACK_MUST_PASS)] == "pass"
    board = Board()
    for m in game.moves:
        board.push(m)
    assert board.is_game_over()
    assert game.score == board.score()
    assert game.result == ("black" if game.score > 0 else "white" if game.score < 0 else "draw")
    assert game.reason == "game over {}-{}".format(*board.count())
    assert alive_engines(fake) == []


@pytest.mark.parametrize("mode, reason", [
    ("exit_at_start", "engine died (exit code 3)"),
    ("no_name", "engine timeout: no answer to 'name' within 3 s"),
    ("no_boardsize", "engine refused 'boardsize 8': unacceptable size"),
])
def test_engine_that_does_not_start(fake, tmp_path, mode, reason):
    """A match whose player cannot start is refused before a game is played or a file written;
    in one game, it loses."""
    with pytest.raises(ValueError, match="^" + re.escape(f"player 'fake-{mode}': the {reason}")):
        M.run_match(_spec(fake, mode), GREEDY, 2, tmp_path / "out", progress=False, start_timeout=3.0)
    assert not (tmp_path / "out").exists()
    game = M.play_game(GREEDY, _spec(fake, mode), seed=0, start_timeout=3.0)
    assert (game.result, game.moves) == ("black", ())
    assert game.reason.startswith(f"white {reason}")
    assert alive_engines(fake) == []


def test_missing_program_is_a_setup_error(tmp_path):
    missing = M.OthelloPlayerSpec(str(tmp_path / "no-such-engine"), name="missing")
    with pytest.raises(ValueError, match="^player 'missing': the engine did not start: No such file or directory"):
        M.run_match(missing, GREEDY, 2, tmp_path / "m", progress=False)
    assert not (tmp_path / "m").exists()


def test_engine_ignoring_quit_and_sigterm_is_killed(fake):
    engine = GtpEngine(fake("stubborn"), start_timeout=5.0).start()
    assert engine.name == "Fake stubborn"
    pid = engine.pid
    engine.close()
    assert not alive(pid)
    assert engine.pid is None


def test_failure_answer_is_an_engine_error_naming_the_command(fake):
    with GtpEngine(fake("good"), start_timeout=5.0) as engine:
        assert engine.exchange("frobnicate", 5.0) == (False, "unknown command")
        with pytest.raises(EngineError, match=r"^refused 'frobnicate': unknown command$"):
            engine.ask("frobnicate", 5.0)
        engine.new_game()
        engine.play("black", "f5")
        assert engine.genmove("white") == "f4"  # the first legal square (f4 < d6 < f6)
    assert alive_engines(fake) == []


def test_showboard_rows_are_placed_by_their_printed_number():
    text = ("Next move: Black\n    a b c d e f g h\n" + "\n".join(
        f"  {r} " + " ".join("X" if (r, c) == (8, 0) else "O" if (r, c) == (1, 7) else "." for c in range(8))
        for r in range(8, 0, -1)))  # printed from row 8 down to row 1
    board = board_of_showboard(text)
    assert board[7] == "O" and board[56] == "X" and board.count("-") == 62
    with pytest.raises(ValueError, match="no 8x8 board"):
        board_of_showboard("= Next move: Black\n  1 . . .")


def test_good_fakes_play_a_match_whose_scores_match_the_boards(fake, tmp_path):
    first, second = _spec(fake, "good"), M.OthelloPlayerSpec("gamelib:random")
    result = M.run_match(first, second, 4, tmp_path / "out", openings=2, progress=False, move_timeout=5.0)
    assert len(result.rows) == 4
    for row in result.rows:
        board = Board()
        board.play(row["moves"])
        assert board.is_game_over()
        assert int(row["score"]) == board.score()
    assert result.record.games == 4
    assert alive_engines(fake) == []
