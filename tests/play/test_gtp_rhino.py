"""GRhino (``gtp-rhino``, Debian package ``grhino``) through the GTP client: its coordinates are
Othello's, it passes when it must, and a game against it ends by our rules with the score of
the final board. Skipped, with the reason, where GRhino is not installed."""

from __future__ import annotations

import pytest

from gamelib.games.othello import Board
from gamelib.play import othello_match as M
from gamelib.play.gtp_client import GtpEngine, grhino_path

GRHINO = grhino_path()
pytestmark = pytest.mark.skipif(
    GRHINO is None, reason="GRhino is not installed (or $GRHINO is not an executable): 'sudo apt-get "
                           "install grhino' (Debian/Ubuntu; scripts/setup.sh does it as root) or set "
                           "GRHINO=/path/to/gtp-rhino")

#: The standard opening (the "tiger"), then a few more moves: both colours, flips in every direction.
TIGER = ("f5", "d6", "c3", "d3", "c4", "f4", "f6", "f3", "e6", "e7")
#: After these moves black must pass (the shortest such opening).
BLACK_MUST_PASS = ("d3", "c3", "b3", "b2", "f5", "a3", "a1", "c1")


def test_vertices_are_othello_squares_with_row_1_at_the_top():
    """Played as our square names, the moves give GRhino the board they give us, move by move
    (with Go's convention, row 1 at the bottom, f5 would be f4 and illegal at the start)."""
    with GtpEngine(f"{GRHINO} --level 1", start_timeout=30.0, move_timeout=30.0) as engine:
        engine.new_game()
        board = Board()
        assert engine.board() == board.board_string()
        for i, move in enumerate(TIGER):
            engine.play("black" if i % 2 == 0 else "white", move)
            board.push(move)
            assert engine.board() == board.board_string(), move
        reply = engine.genmove("black")
        assert reply in board.legal_moves
        board.push(reply)
        assert engine.board() == board.board_string()


def test_grhino_passes_when_it_must_and_plays_on_after_our_pass():
    with GtpEngine(f"{GRHINO} --level 1", start_timeout=30.0, move_timeout=30.0) as engine:
        engine.new_game()
        for i, move in enumerate(BLACK_MUST_PASS):
            engine.play("black" if i % 2 == 0 else "white", move)
        assert engine.genmove("black") == "pass"
        board = Board()
        board.play(list(BLACK_MUST_PASS) + ["pass"])
        assert engine.genmove("white") in board.legal_moves
    with GtpEngine(f"{GRHINO} --level 1", start_timeout=30.0, move_timeout=30.0) as engine:
        engine.new_game()
        for i, move in enumerate(BLACK_MUST_PASS):
            engine.play("black" if i % 2 == 0 else "white", move)
        engine.play("black", "pass")  # refused by GRhino, which passes by itself
        reply = engine.genmove("white")
        assert reply in board.legal_moves
        board.push(reply)
        assert engine.board() == board.board_string()


@pytest.mark.parametrize("grhino_black", [True, False])
def test_full_game_against_level_1_ends_by_our_rules(tmp_path, grhino_black):
    """A whole game of GRhino level 1 against our positional player (with a pass to make in the
    opening's line for black): it ends when neither side can move, and the recorded score is
    the final board's."""
    rhino = M.OthelloPlayerSpec(f"{GRHINO} --level 1", name="grhino-1")
    ours = M.OthelloPlayerSpec("gamelib:positional", depth=2)
    black, white = (rhino, ours) if grhino_black else (ours, rhino)
    game = M.play_game(black, white, seed=0, opening=BLACK_MUST_PASS, move_timeout=60.0)
    assert game.reason.startswith("game over"), game
    board = Board()
    for move in game.moves:
        board.push(move)
    assert board.is_game_over()
    assert game.moves[len(BLACK_MUST_PASS)] == "pass"
    assert game.score == board.score()
    assert game.result == ("black" if game.score > 0 else "white" if game.score < 0 else "draw")
    assert game.reason == "game over {}-{}".format(*board.count())


def test_without_its_opening_book_grhino_replays_the_same_game_after_an_opening():
    """With ``--book 0`` (and the default ``--rand 0``) a game from a random opening against a
    deterministic player is the same every time, so a match can be resumed or rerun game for
    game. (From the start position GRhino picks its first move among the four symmetric ones at
    random, and with its book among the book's moves.)"""
    rhino = M.OthelloPlayerSpec(f"{GRHINO} --level 1 --book 0", name="grhino-1")
    greedy = M.OthelloPlayerSpec("gamelib:greedy")
    opening = M.opening_moves(0, 0, 4)
    games = {M.play_game(rhino, greedy, seed=0, opening=opening, move_timeout=60.0).moves for _ in range(3)}
    assert len(games) == 1
