"""The gamelib-records format: round trips, the other accepted inputs, and errors that name
the file, the line and the problem."""

import pytest

from gamelib.games.minishogi import records as rc
from gamelib.games.minishogi import Position
from gamelib.games.minishogi import rules as R

START = R.START_SFEN


def _legal_line(n: int, seed: int = 0) -> list[str]:
    from gamelib.games.minishogi.sampling import random_game

    return random_game(seed)[:n]


def test_round_trip(tmp_path):
    moves = _legal_line(12)
    games = [rc.RecordedGame(START, moves, "sente", "checkmate"),
             rc.RecordedGame("4k/5/5/5/K4 b G 10", ("G*2b",), None),
             rc.RecordedGame(START, (), "draw")]
    path = rc.write_records(tmp_path / "g.txt", games, comments=["settings: x", "two\nlines"])
    text = path.read_text()
    assert text.startswith(f"# {rc.FORMAT_NAME}")
    assert "# two\n# lines\n" in text
    back = rc.read_records(path)
    assert back == games
    assert back[0].source == f"{path}, line 5"


def test_usi_lines_move_lists_and_blocks():
    pos = Position()
    moves = _legal_line(6, seed=3)
    for m in moves[:2]:
        pos.push_usi(m)
    sfen = pos.sfen()
    text = "\n".join([
        "# comment",
        f"position startpos moves {' '.join(moves)}",
        f"position sfen {sfen} moves {' '.join(moves[2:4])}",
        f"startpos moves {moves[0]}",
        " ".join(moves),
        "",
        "' a CSA comment",
        f"sfen {sfen}",
        f"1 {moves[2]} (0:01/00:00:01)",
        f"2. {moves[3]}",
        "result draw",
        "",
        *[f"{'+-'[k % 2]}{m}" for k, m in enumerate(moves[:3])],
        "%TORYO",
        "",
        f"{moves[0]}",
        f"{moves[1]}",
    ])
    games = rc.parse_records(text, "mine.kif")
    assert [g.moves for g in games] == [tuple(moves), tuple(moves[2:4]), (moves[0],),
                                        tuple(moves), tuple(moves[2:4]), tuple(moves[:3]),
                                        tuple(moves[:2])]
    assert games[1].start_sfen == sfen and games[4].start_sfen == sfen
    assert [g.result for g in games] == [None, None, None, None, "draw", "sente", None]
    assert games[5].reason == "resignation"       # gote to move after 3 plies resigned
    assert games[4].source == "mine.kif, line 8"


@pytest.mark.parametrize("text, message", [
    ("startpos | 2e3d 2e3d | sente", "line 1: illegal move '2e3d'"),
    ("startpos | 2e3d | won", "line 1: unknown result 'won'"),
    ("# x\nstartpos | 2e3d", "line 2: expected 3 or 4 fields"),
    ("rbsgk/4p/5/P4/KGSBX b - 1 | | *", "line 1: bad SFEN"),
    ("startpos | 2e3d zz | *", "line 1: bad USI move 'zz'"),
    ("hello world", "line 1: cannot read 'hello world'"),
    ("+2e3d\n+4a3b", "line 2: move '4a3b' is signed '+' but it is gote's turn"),
    ("1 2e3d\n2e3d 4a3b", "line 2: several moves on one line"),
    ("position sfen rbsgk/4p/5/P4/KGSBR b - 1 foo 2e3d", "line 1: bad SFEN"),
    ("position startpos 2e3d", "expected 'moves'"),
    ("5/5/5/5/K4 b - 1 | | *", "line 1: bad SFEN"),
])
def test_malformed_records_name_file_line_and_problem(text, message):
    with pytest.raises(ValueError) as err:
        rc.parse_records(text, "bad.txt")
    assert "bad.txt, line" in str(err.value)
    assert message in str(err.value)


def test_no_move_after_the_end_of_the_game(tmp_path):
    # gote is mated by the gold drop; any further move is refused
    sfen = "k4/5/1G3/5/4K b G 1"
    assert rc.parse_records(f"{sfen} | G*5b | sente | checkmate")[0].plies == 1
    path = tmp_path / "after.txt"
    path.write_text(f"{sfen} | G*5b 5a4a | sente\n")
    with pytest.raises(ValueError, match=r"after.txt, line 1: move '5a4a' \(move 2\) after the end"):
        rc.read_records(path)


def test_not_utf8(tmp_path):
    path = tmp_path / "x.txt"
    path.write_bytes(b"\xff\xfe startpos")
    with pytest.raises(ValueError, match="not UTF-8"):
        rc.read_records(path)


def test_recorded_game_checks_and_from_game():
    with pytest.raises(ValueError, match="result must be one of"):
        rc.RecordedGame(START, (), "white")
    with pytest.raises(ValueError, match="may not contain"):
        rc.RecordedGame(START, (), None, "a|b")
    from gamelib.play.shogi import RandomPlayer, play_game

    g = play_game(RandomPlayer(), RandomPlayer(), 5, max_plies=40)
    rec = rc.RecordedGame.from_game(g)
    assert rec.moves == g.moves and rec.result == (g.winner or "draw")
    assert rc.parse_records(rc.format_record(rec))[0] == rec
