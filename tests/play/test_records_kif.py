"""KIF and CSA records of 5×5 games: the exact text of a known game, round trips over random
games with every kind of ending, files in both encodings, hand-written variants, bad input."""

from __future__ import annotations

import pytest

from gamelib.games.minishogi import Position, random_game
from gamelib.games.minishogi import records_kif as K
from gamelib.play import engine_match as M

# Fairy-Stockfish (300 nodes) against the reference player: mate in 25 plies
GAME = ("2e1d 4a1d 4e3d B*4c 3d4c 5a4a 3e3d 1b1c B*5b 4a5a 1e1d 5a5b B*4d 2a2b 1d1c 1a2a 4c5b 2b1c R*1a 2a3b "
        "1a1c+ B*2b 1c2c 3b2a G*1b").split()

KIF_HEAD = """# ---- gamelib 5×5 shogi ----
手合割：５五将棋
先手：fsf
後手：reference
手数----指手---------消費時間--
   1 １四角(25)
   2 同　角(41)
   3 ３四金(45)
   4 ４三角打
   5 同　金(34)
"""
KIF_TAIL = """  21 １三飛成(11)
  22 ２二角打
  23 ２三龍(13)
  24 ２一玉(32)
  25 １二金打
  26 詰み
まで25手で先手の勝ち
"""
CSA_HEAD = """V2.2
N+fsf
N-reference
P1-HI-KA-GI-KI-OU
P2 *  *  *  * -FU
P3 *  *  *  *  * 
P4+FU *  *  *  * 
P5+OU+KI+GI+KA+HI
+
+2514KA
-4114KA
+4534KI
-0043KA
"""


def test_known_game_text():
    game = K.GameText(GAME, "checkmate", "sente", "fsf", "reference")
    kif, csa = K.write_kif(game), K.write_csa(game)
    assert kif.startswith(KIF_HEAD) and kif.endswith(KIF_TAIL)
    assert csa.startswith(CSA_HEAD) and csa.endswith("+1323RY\n-3221OU\n+0012KI\n%TSUMI\n")
    assert K.read_kif(kif) == game == K.read_csa(csa)


def _ended(seed: int):
    """A random game, cut so that it ends in various ways."""
    moves = random_game(seed, max_plies=120)
    pos = Position(max_plies=None)
    for m in moves:
        pos.push_usi(m)
    found = K.ending_of_position(pos)
    return moves, found, pos.outcome()


@pytest.mark.parametrize("seed", range(12))
def test_round_trips_of_random_games(seed, tmp_path):
    moves, found, outcome = _ended(seed)
    if found is not None:
        games = [K.GameText(moves, found, outcome, "a", "b")]
    else:
        loser_wins = "gote" if len(moves) % 2 == 0 else "sente"  # the side to move loses
        games = [K.GameText(moves, "max plies", "draw", "a", "b"),
                 K.GameText(moves, "resign", loser_wins, "a", "b"),
                 K.GameText(moves, "illegal", loser_wins, "a", "b"),
                 K.GameText(moves, "time", loser_wins, "a", "b"),
                 K.GameText(moves, "unfinished", None, "a", "b")]
    for game in games:
        assert K.read_kif(K.write_kif(game)) == game
        assert K.read_csa(K.write_csa(game)) == game
        for ext in ("kifu", "kif", "csa"):
            path = K.save_record(tmp_path / f"g.{ext}", game)
            assert K.load_record(path) == game
    raw = (tmp_path / "g.kif").read_bytes()
    assert "手合割：５五将棋".encode("cp932") in raw  # Shift-JIS, as .kif readers expect


def test_endings_of_the_rules_are_read_from_the_position():
    # kings' shuffle: the fourth occurrence of the start position, sente loses
    moves = ["2e3d", "4a3b", "3d2e", "3b4a"] * 3
    game = K.game_text(moves, "repetition", "gote", "a", "b")
    assert game.ending == "repetition"
    kif = K.write_kif(game)
    assert "  13 千日手\nまで12手で後手の勝ち" in kif
    assert K.read_kif(kif) == game and K.read_csa(K.write_csa(game)) == game
    with pytest.raises(ValueError, match="not 'checkmate'"):
        K.GameText(moves, "checkmate", "gote")
    with pytest.raises(ValueError, match="rules end the game"):
        K.GameText(moves, "resign", "sente")


def test_hand_written_kif_variants():
    text = ("手合割:5五将棋\n先手:x\n後手:y\n"
            "1 ３四角(25)   ( 0:01/00:00:01)\n"
            "2 ３二銀(41)   ( 0:02/00:00:02)\n"  # wrong: 4a is a bishop
            )
    with pytest.raises(ValueError, match="line 5: .* names a piece that is not on 4a"):
        K.read_kif(text)
    text = "手合割：五々将棋\n1 １四角(25)\n2 同　角不成(41)\n3 中断\n"
    game = K.read_kif(text)
    assert game.moves == ("2e1d", "4a1d") and game.ending == "unfinished" and game.result is None


@pytest.mark.parametrize("text, message", [
    ("手合割：平手\n1 ７六歩(77)\n", "not 5×5 shogi"),
    ("1 １四角(25)\n", "no 手合割"),
    ("手合割：５五将棋\n1 １一角(25)\n", "illegal move"),
    ("手合割：５五将棋\n2 １四角(25)\n", "move number 2, expected 1"),
    ("手合割：５五将棋\n1 ６四角(25)\n", "cannot read"),
])
def test_bad_kif(text, message):
    with pytest.raises(ValueError, match=message):
        K.read_kif(text)


@pytest.mark.parametrize("text, message", [
    ("V2.2\nPI\n+\n", "PI is the 9×9"),
    ("V2.2\n+\n-2514KA\n", "side not to move"),
    ("V2.2\n+\n+2514HI\n", "not HI"),
    ("V2.2\n+\n+2511KA\n", "illegal move"),
    ("V2.2\n+\n+2514KA\n%KACHI\n", "unknown special move"),
])
def test_bad_csa(text, message):
    with pytest.raises(ValueError, match=message):
        K.read_csa(text)


def test_match_games_export(tmp_path):
    a = M.PlayerSpec("gamelib:material", M.Limits(nodes=100), name="material")
    b = M.PlayerSpec("gamelib:random", M.Limits(nodes=100), name="random")
    result = M.run_match(a, b, 2, tmp_path / "m", max_plies=40, progress=False)
    paths = M.export_records(result.rows, tmp_path / "records", ("kifu", "csa"))
    assert [p.name for p in paths] == ["game-00000.kifu", "game-00000.csa", "game-00001.kifu", "game-00001.csa"]
    for row, path in zip(result.rows, paths[::2]):
        game = K.load_record(path)
        assert " ".join(game.moves) == row["moves"] and game.result == row["result"]
        assert (game.sente, game.gote) == (row["sente"], row["gote"])


# ----------------------------------------------------------------------------- records under faults
# the rooks step back and forth: the start position for the fourth time at ply 12, gote wins
CYCLE = ["1e1d", "5a5b", "1d1e", "5b5a"]


def _kif_game_going_on(text: str, more: str) -> str:
    """``text`` (a KIF) with its end and summary lines replaced by the move ``more``."""
    lines = text.splitlines()
    end = next(i for i, line in enumerate(lines) if line.strip().endswith("千日手"))
    return "\n".join(lines[:end] + [more, "  14 投了", "まで13手で後手の勝ち"]) + "\n"


def test_a_game_going_on_after_the_rules_ended_it_is_refused():
    with pytest.raises(ValueError, match=r"move 13 \('1e1d'\): the rules ended the game after 12 plies "
                                         r"\(repetition, gote wins\); the record goes on"):
        K.GameText(tuple(CYCLE * 5 + ["5d5c"]), "resign", "sente")
    ended = K.GameText(tuple(CYCLE * 3), "repetition", "gote", "a", "b")
    kif = _kif_game_going_on(K.write_kif(ended), "  13 １四飛(15)")
    with pytest.raises(ValueError, match=r"line 18: '13 １四飛\(15\)': the rules ended the game after 12 plies"):
        K.read_kif(kif)
    csa = K.write_csa(ended).replace("%SENNICHITE\n", "+1514HI\n%TORYO\n")
    with pytest.raises(ValueError, match=r"line 22: '\+1514HI': the rules ended the game after 12 plies"):
        K.read_csa(csa)


def test_a_stated_result_that_contradicts_the_rules_is_refused():
    game = K.GameText(GAME, "checkmate", "sente", "fsf", "reference")
    kif = K.write_kif(game)
    with pytest.raises(ValueError, match="the summary says gote wins, but the game .checkmate. gives sente wins"):
        K.read_kif(kif.replace("まで25手で先手の勝ち", "まで25手で後手の勝ち"))
    with pytest.raises(ValueError, match="the summary says 24 moves, the record has 25"):
        K.read_kif(kif.replace("まで25手で先手の勝ち", "まで24手で先手の勝ち"))
    # the side that moved illegally must be the one to move
    text = K.write_csa(K.GameText(GAME[:4], "illegal", "gote"))
    assert text.endswith("%+ILLEGAL_ACTION\n") and K.read_csa(text).result == "gote"
    with pytest.raises(ValueError, match="the end line says gote lost by illegal, but sente is to move"):
        K.read_csa(text.replace("%+ILLEGAL_ACTION", "%-ILLEGAL_ACTION"))
    # the position after 1e1d a fourth time at ply 13, gote to move: sente lost the repetition,
    # so gote's resignation (sente's win) contradicts the rules
    moves = ["1e1d"] + ["5a5b", "1d1c", "5b5a", "1c1d"] * 3
    repeated = K.GameText(moves, "repetition", "gote")
    with pytest.raises(ValueError, match=r"CSA: the record ends by resign \(sente wins\), but the rules ended the "
                                         r"game at its last position \(repetition, gote wins\)"):
        K.read_csa(_csa_with_end(repeated, "%TORYO"))


def _csa_with_end(game, end: str) -> str:
    return K.write_csa(game).rsplit("%", 1)[0] + end + "\n"


def test_a_players_ending_on_a_position_the_rules_ended_is_only_warned_when_the_result_agrees():
    game = K.GameText(GAME, "checkmate", "sente", "fsf", "reference")
    for text, read in ((_csa_with_end(game, "%TORYO"), K.read_csa),
                       (K.write_kif(game).replace("  26 詰み", "  26 投了"), K.read_kif)):
        with pytest.warns(K.RecordWarning, match="ends by resign where the rules had ended the game with the "
                                                 "same result: read as checkmate"):
            assert read(text) == game


@pytest.mark.parametrize("text", ["", "\n\n", "' a comment\n'another\n", "V2.2\nN+a\nN-b\n",
                                  "$EVENT:x\nT10\n"])
def test_empty_or_comment_only_csa_is_refused(text):
    with pytest.raises(ValueError, match="no start position"):
        K.read_csa(text)


def test_a_record_without_moves_or_end_is_refused():
    with pytest.raises(ValueError, match="no moves and no end line: the record holds no game"):
        K.read_csa("V2.2\n+\n")
    with pytest.raises(ValueError, match="no moves and no end line"):
        K.read_kif("# comment\n手合割：５五将棋\n先手：a\n")
    assert K.read_csa("V2.2\n+\n%CHUDAN\n").moves == ()  # a game stopped before its first move


def test_one_end_line_only():
    game = K.GameText(GAME, "checkmate", "sente")
    with pytest.raises(ValueError, match=r"line 36: a second end line \('%TORYO'\)"):
        K.read_csa(K.write_csa(game) + "%TORYO\n")
    with pytest.raises(ValueError, match="a second end line"):
        K.read_kif(K.write_kif(game).replace("  26 詰み\n", "  26 詰み\n  26 投了\n"))
    with pytest.raises(ValueError, match="a second summary line"):
        K.read_kif(K.write_kif(game) + "まで25手で先手の勝ち\n")


def test_a_truncated_record_is_read_as_unfinished_with_a_warning():
    game = K.GameText(GAME, "checkmate", "sente")
    cut_short = K.GameText(GAME[:20], "unfinished", None)
    for text, read in ((K.write_csa(cut_short)[:-len("%CHUDAN\n")], K.read_csa),
                       (K.write_kif(cut_short).split("  21 ")[0], K.read_kif)):
        with pytest.warns(K.RecordWarning, match=r"no end line after move 20 \(truncated\?\): read as an unfinished"):
            assert read(text) == cut_short
    # cut after the mating move: the rules end the game there
    for text, read in ((K.write_csa(game)[:-len("%TSUMI\n")], K.read_csa),
                       (K.write_kif(game).split("  26 ")[0], K.read_kif)):
        with pytest.warns(K.RecordWarning, match=r"no end line after move 25 \(truncated\?\): read as the rules' ending "
                                                 "there, checkmate"):
            assert read(text) == game


def test_shift_jis_records_are_read_and_undecodable_files_named(tmp_path):
    game = K.GameText(GAME, "checkmate", "sente", "先手の人", "後手の人")
    for ext, text in (("csa", K.write_csa(game)), ("kifu", K.write_kif(game)), ("kif", K.write_kif(game))):
        path = tmp_path / f"sjis.{ext}"
        path.write_bytes(text.encode("cp932"))
        assert K.load_record(path) == game
    bad = tmp_path / "bad.csa"
    bad.write_bytes(b"V2.2\nN+\x81 \n+\n")  # a Shift_JIS lead byte without its second byte
    with pytest.raises(ValueError, match=f"^{bad}: the file is neither UTF-8 nor Shift_JIS"):
        K.load_record(bad)
    wrong = tmp_path / "wrong.csa"
    wrong.write_bytes(b"V2.2\n+\n+2511KA\n")
    with pytest.raises(ValueError, match=f"^{wrong}: line 3: '\\+2511KA': illegal move"):
        K.load_record(wrong)
