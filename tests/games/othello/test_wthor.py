"""WTHOR reader: the real records (when ../shared is there) and synthetic good and bad files."""

from __future__ import annotations

import struct

import numpy as np
import pandas as pd
import pytest

from gamelib.games.othello import wthor

from . import reference as ref

# Games per year, from the shared README's table (1977-2020, 126,406 games).
GAMES_PER_YEAR = {
    1977: 12, 1978: 8, 1979: 11, 1980: 160, 1981: 153, 1982: 110, 1983: 199, 1984: 587,
    1985: 954, 1986: 1440, 1987: 1386, 1988: 1823, 1989: 2186, 1990: 2986, 1991: 3152,
    1992: 3347, 1993: 3484, 1994: 4343, 1995: 4968, 1996: 5852, 1997: 7681, 1998: 8077,
    1999: 7685, 2000: 4253, 2001: 5575, 2002: 5423, 2003: 3858, 2004: 9113, 2005: 4199,
    2006: 2942, 2007: 2478, 2008: 2232, 2009: 4348, 2010: 2172, 2011: 1891, 2012: 2208,
    2013: 2396, 2014: 1817, 2015: 1789, 2016: 2013, 2017: 2449, 2018: 2429, 2019: 1949,
    2020: 268,
}

SHARED = wthor.default_dirs()[-2]
needs_shared = pytest.mark.skipif(
    not SHARED.is_dir(), reason=f"WTHOR records not found at {SHARED} (../shared is absent)"
)


@pytest.fixture(scope="module")
def records():
    return wthor.load(SHARED)


@needs_shared
def test_every_shared_game_replays(records):
    # load() raises on any illegal move; here we also check the counts per year.
    assert len(records) == 126_406
    assert records.groupby("year").size().to_dict() == GAMES_PER_YEAR
    assert (records["moves"].str[:2] == "f5").all()  # WTHOR normalises the first move
    assert (records["moves"].str.len() == 2 * records["n_moves"]).all()


@needs_shared
def test_final_disc_count_matches_score_byte(records):
    """Byte 6 is black's discs, or black's discs with the empties given to the winner
    (shared halves in a draw), in every game that reaches a position where no one can move."""
    fin = records[records["finished"]]
    b, w = fin["black_discs"], fin["white_discs"]
    empties = 64 - b - w
    wof = b + np.where(b > w, empties, np.where(b == w, empties // 2, 0))
    ok = (fin["black_score"] == b) | (fin["black_score"] == wof)
    assert ok.all(), fin[~ok].head()
    assert (fin["black_score"] == b).sum() > 0.9 * len(fin)
    # 413 games stop early (resignations, time losses); their byte is the recorded result
    assert (~records["finished"]).sum() == 413
    assert records["theoretical_score"].between(0, 64).all()


@needs_shared
def test_names_resolve(records):
    first = records.iloc[0]
    assert (first["year"], first["tournament"]) == (1977, "Championnat du Monde")
    assert (first["black"], first["white"]) == ("Inoue Hiroshi", "Heiberg Thomas")
    assert first["moves"].startswith("f5d6c3f3f4d3c4g6")
    # ids beyond the 2015 name lists give missing names, never wrong ones
    assert records["black"].isna().sum() > 0
    assert records.loc[records["black"].isna(), "black_id"].min() >= 3336


@needs_shared
def test_final_score_of_every_shared_game_played_out_is_the_wthor_convention(records):
    """All 125,993 WTHOR games played to their end store black's discs with the empties given
    to the winner (3,124 of them with empties that black won: the plain count differs there);
    load() now refuses a game that does not, so none of the 126,406 games is dropped."""
    fin = records[records["finished"]]
    b, w = fin["black_discs"], fin["white_discs"]
    assert len(fin) == 125_993
    assert ((fin["black_score"] != b) & (b + w < 64)).sum() == 3_124


@needs_shared
def test_logistello_book_loads_but_16_scores_split_the_empties():
    """Logistello's book is in WTHOR's format, but 16 of its 37,709 games store the empties
    split between the sides: they are reported (and skipped) like any corrupt game."""
    path = SHARED.parent / "logistello" / "Logistello_book_1999.wtb"
    with pytest.raises(wthor.WthorError, match=r"game 898: black_score byte 33 is not the replayed final "
                                               r"position's score 34 \(31 black, 30 white discs, the 3 empty "
                                               r"squares to the winner\) \(byte offset 61086\) \(and 15 more"):
        wthor.load(path)
    book = wthor.load(path, on_error="skip")
    assert len(book) == 37_693 and book.attrs["n_skipped"] == 16


def test_env_variable_is_searched_first(tmp_path, monkeypatch):
    write_wtb(tmp_path / "WTH_2001.wtb", [game_record(["f5", "d6"])], year=2001)
    monkeypatch.setenv(wthor.ENV_VAR, str(tmp_path))
    assert wthor.find_wthor_dir() == tmp_path
    df = wthor.load()
    assert df["moves"].tolist() == ["f5d6"]
    monkeypatch.setenv(wthor.ENV_VAR, str(tmp_path / "nowhere"))
    if not any(d.is_dir() for d in wthor.default_dirs()[1:]):
        with pytest.raises(FileNotFoundError, match=wthor.ENV_VAR):
            wthor.find_wthor_dir()


# --- synthetic files ---------------------------------------------------------------------------


def header(n1: int, n2: int = 0, year: int = 2001, game_type: int = 0) -> bytes:
    return bytes([20, 23, 4, 1]) + struct.pack("<IHH", n1, n2, year) + bytes([8, game_type, 22, 0])


def game_record(moves, tournament=0, black=1, white=2, score=None, theo=0) -> bytes:
    codes = [10 * (int(m[1]) ) + "abcdefgh".index(m[0]) + 1 for m in moves] + [0] * (60 - len(moves))
    if score is None:
        score = 0
    return struct.pack("<HHHBB", tournament, black, white, score, theo) + bytes(codes)


def write_wtb(path, recs, year=2001, n1=None, extra=b""):
    path.write_bytes(header(len(recs) if n1 is None else n1, year=year) + b"".join(recs) + extra)
    return path


def write_names(path, names, size):
    body = b"".join(n.encode("latin-1").ljust(size, b"\0") for n in names)
    path.write_bytes(header(0, n2=len(names)) + body)


def random_games(n, seed):
    """Random complete games (move lists without passes) and their final disc counts."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n):
        grid, side, moves = list("-" * 27 + "OX" + "-" * 6 + "XO" + "-" * 27), "X", []
        while True:
            legal = ref.legal(grid, side)
            if not legal:
                if not ref.legal(grid, ref.other(side)):
                    break
                side = ref.other(side)
                continue
            sq = legal[rng.integers(len(legal))]
            moves.append("abcdefgh"[sq % 8] + str(sq // 8 + 1))
            grid, side = ref.play(grid, side, sq), ref.other(side)
        out.append((moves, grid.count("X"), grid.count("O")))
    return out


def wthor_score(b: int, w: int) -> int:
    """Byte 6 of a game played out: black's discs, the empty squares to the winner (halves in
    a draw), as the WTHOR format counts them."""
    return b + (64 - b - w if b > w else (64 - b - w) // 2 if b == w else 0)


def test_synthetic_games_round_trip(tmp_path):
    games = random_games(40, seed=1)
    recs = [game_record(m, tournament=i % 2, black=0, white=1, score=wthor_score(b, w))
            for i, (m, b, w) in enumerate(games)]
    write_wtb(tmp_path / "WTH_2001.wtb", recs)
    write_names(tmp_path / "WTHOR.JOU", ["Alice", "Bob"], 20)
    write_names(tmp_path / "WTHOR.TRN", ["Open A", "Open B"], 26)
    df = wthor.load(tmp_path)
    assert df["moves"].tolist() == ["".join(m) for m, _, _ in games]
    assert df["black_discs"].tolist() == [b for _, b, _ in games]
    assert df["white_discs"].tolist() == [w for _, _, w in games]
    assert df["finished"].all()
    assert (df["black"] == "Alice").all() and (df["white"] == "Bob").all()
    assert df["tournament"].tolist() == ["Open A", "Open B"] * 20
    assert (df["year"] == 2001).all() and df["game_index"].tolist() == list(range(40))
    assert df["n_passes"].ge(0).all()


def test_unknown_name_ids_are_missing(tmp_path):
    write_wtb(tmp_path / "g.wtb", [game_record(["f5"], black=0, white=7)])
    write_names(tmp_path / "WTHOR.JOU", ["Alice"], 20)
    df = wthor.load(tmp_path / "g.wtb")
    assert df.loc[0, "black"] == "Alice" and df.loc[0, "white"] is None
    assert df.loc[0, "white_id"] == 7


def bad_file_cases(tmp_path):
    good = game_record(["f5", "d6", "c3"])
    return {
        "truncated": (write_wtb(tmp_path / "t.wtb", [good, good[:30]], n1=2), "truncated.*game 1 is incomplete"),
        "missing": (write_wtb(tmp_path / "m.wtb", [good], n1=3), "truncated.*game 1 is missing"),
        "extra": (write_wtb(tmp_path / "x.wtb", [good], extra=b"\0" * 5), "5 extra bytes after game 0"),
        "illegal": (write_wtb(tmp_path / "i.wtb", [good, game_record(["f5", "a1"])]), "game 1, move 2: illegal move a1 for white"),
        "byte": (write_wtb(tmp_path / "b.wtb", [good, good[:8] + bytes([56, 99]) + bytes(58)]), "game 1, move 2: move byte 99"),
        "after_zero": (write_wtb(tmp_path / "z.wtb", [good, good[:8] + bytes([56, 0, 64]) + bytes(57)]), "game 1, move 3: move byte 64 after"),
    }


@pytest.mark.parametrize("case", ["truncated", "missing", "extra", "illegal", "byte", "after_zero"])
def test_bad_files_raise_naming_file_and_game(tmp_path, case):
    path, match = bad_file_cases(tmp_path)[case]
    with pytest.raises(wthor.WthorError, match=match) as info:
        wthor.load(path)
    assert path.name in str(info.value)


@pytest.mark.parametrize("case", ["truncated", "missing", "illegal", "byte", "after_zero"])
def test_bad_games_can_be_skipped_and_counted(tmp_path, case):
    path, _ = bad_file_cases(tmp_path)[case]
    df = wthor.load(path, on_error="skip")
    assert len(df) == 1 and df.loc[0, "moves"] == "f5d6c3"
    # games the header announces but the file does not hold are not "skipped" games
    assert df.attrs["n_skipped"] == (0 if case == "missing" else 1)
    assert len(df.attrs["errors"]) == 1


def test_move_after_game_end(tmp_path):
    # The shortest game (13-0 after 9 moves), then one more move byte.
    moves = ["e6", "f4", "e3", "f6", "g5", "d6", "e7", "f5", "c5", "a1"]
    # WTHOR normalises to f5 first; the reader must not care.
    path = write_wtb(tmp_path / "e.wtb", [game_record(moves)])
    with pytest.raises(wthor.WthorError, match="game 0, move 10: move a1 after the end"):
        wthor.load(path)
    df = wthor.load(write_wtb(tmp_path / "ok.wtb", [game_record(moves[:-1], score=64)]))
    assert df.loc[0, "finished"] and df.loc[0, "black_discs"] == 13 and df.loc[0, "white_discs"] == 0
    assert df.loc[0, "black_score"] == 64  # the 51 empty squares go to the winner


@pytest.mark.parametrize("moves, score, stored", [
    (["e6", "f4", "e3", "f6", "g5", "d6", "e7", "f5", "c5"], 64, 13),  # 13-0: the empties not given to black
    (["e6", "f4", "e3", "f6", "g5", "d6", "e7", "f5", "c5"], 64, 0),   # the loser's score
])
def test_stored_score_must_be_the_replayed_final_positions(tmp_path, moves, score, stored):
    """A game played to its end must store the score its moves give (a stored score never used
    to be compared with the replay); it is a bad game like the others: raised, or skipped and
    counted. A game stopped early keeps whatever result it records."""
    path = write_wtb(tmp_path / "s.wtb", [game_record(["f5", "d6", "c3"], score=60),
                                          game_record(moves, score=stored)])
    with pytest.raises(wthor.WthorError, match=rf"game 1: black_score byte {stored} is not the replayed final "
                                               rf"position's score {score} \(13 black, 0 white discs, the 51 empty "
                                               rf"squares to the winner\) \(byte offset {16 + 68 + 6}\)"):
        wthor.load(path)
    df = wthor.load(path, on_error="skip")
    assert df["moves"].tolist() == ["f5d6c3"] and df.attrs["n_skipped"] == 1
    assert df.loc[0, "black_score"] == 60 and not df.loc[0, "finished"]
    assert wthor.final_score([13, 30, 20, 32], [0, 33, 40, 32]).tolist() == [64, 30, 20, 32]
    assert wthor.final_score(31, 30) == 34 and wthor.final_score(30, 30) == 32


def test_bad_headers(tmp_path):
    p = tmp_path / "short.wtb"
    p.write_bytes(b"\x14\x17")
    with pytest.raises(wthor.WthorError, match="truncated header"):
        wthor.load(p)
    p = tmp_path / "sol.wtb"
    p.write_bytes(header(0, game_type=1))
    with pytest.raises(wthor.WthorError, match="game type 1"):
        wthor.load(p)
    j = tmp_path / "WTHOR.JOU"
    j.write_bytes(header(0, n2=3) + b"x" * 20)
    with pytest.raises(wthor.WthorError, match="announces 3 names"):
        wthor.read_names(j)
    with pytest.raises(ValueError, match="on_error"):
        wthor.load(p, on_error="ignore")
    with pytest.raises(FileNotFoundError):
        wthor.load(tmp_path / "nope.wtb")


# --- corrupt headers, score bytes and record counts: honest counts, byte offsets ------------


def raw_header(n1=1, year=2001, date=(20, 23, 4, 1), depth=22, board_size=8) -> bytes:
    return bytes(date) + struct.pack("<IHH", n1, 0, year) + bytes([board_size, 0, depth, 0])


GOOD = game_record(["f5", "d6", "c3"])


@pytest.mark.parametrize(
    "head, match",
    [
        (raw_header(year=0xFFFF), r"year of the games 65535 is not in 1970\.\.2099 \(byte offset 10\)"),
        (raw_header(year=0), r"year of the games 0 .*byte offset 10"),
        (raw_header(date=(20, 23, 13, 1)), r"creation date bytes 20 23 13 1 .*\(byte offset 0\)"),
        (raw_header(date=(20, 23, 2, 30)), r"creation date .*byte offset 0"),
        (raw_header(date=(99, 23, 4, 1)), r"creation date .*byte offset 0"),
        (raw_header(depth=200), r"depth of the theoretical score 200 .*byte offset 14"),
        (raw_header(board_size=10), r"board size 10.*byte offset 12"),
    ],
    ids=["year 65535", "year 0", "month 13", "30 February", "century 99", "depth 200", "board size 10"],
)
def test_impossible_headers_are_refused_with_the_byte_offset(tmp_path, head, match):
    path = tmp_path / "h.wtb"
    path.write_bytes(head + GOOD)
    with pytest.raises(wthor.WthorError, match=match):
        wthor.load(path)
    df = wthor.load(path, on_error="skip")  # the file is left out whole, its record counted
    assert len(df) == 0 and df.attrs["n_skipped"] == 1 and "file skipped" in df.attrs["errors"][0]
    assert list(df.columns) == list(wthor.load(write_wtb(tmp_path / "ok.wtb", [GOOD])).columns)


@pytest.mark.parametrize("field, offset", [("black_score", 6), ("theoretical_score", 7)])
def test_score_byte_above_64_is_a_bad_game(tmp_path, field, offset):
    score, theo = (200, 0) if field == "black_score" else (0, 65)
    path = write_wtb(tmp_path / "s.wtb", [GOOD, game_record(["f5", "d6", "c3"], score=score, theo=theo)])
    where = 16 + 68 + offset
    with pytest.raises(wthor.WthorError, match=rf"game 1: {field} byte {score or theo} is not a disc count 0\.\.64 \(byte offset {where}\)"):
        wthor.load(path)
    df = wthor.load(path, on_error="skip")
    assert len(df) == 1 and df.attrs["n_skipped"] == 1 and len(df.attrs["errors"]) == 1


def test_absurd_record_count_is_not_billions_of_skipped_games(tmp_path):
    path = write_wtb(tmp_path / "c.wtb", [GOOD], n1=0xFFFFFFFF)
    with pytest.raises(wthor.WthorError, match=r"announces 4294967295 games .*byte offset 4.*missing \(the file ends at byte offset 84\)"):
        wthor.load(path)
    df = wthor.load(path, on_error="skip")
    assert len(df) == 1 and df.attrs["n_skipped"] == 0 and len(df.attrs["errors"]) == 1


def test_record_count_one_too_small_does_not_drop_a_game_silently(tmp_path):
    path = write_wtb(tmp_path / "c.wtb", [GOOD, GOOD, GOOD], n1=2)
    with pytest.raises(wthor.WthorError, match=r"68 extra bytes after game 1 \(byte offset 152; 1 more records, not loaded\)"):
        wthor.load(path)
    df = wthor.load(path, on_error="skip")
    assert len(df) == 2 and df.attrs["n_skipped"] == 1 and len(df.attrs["errors"]) == 1


def test_empty_and_short_files_in_a_folder_are_skipped(tmp_path):
    write_wtb(tmp_path / "WTH_2001.wtb", [GOOD, GOOD])
    (tmp_path / "WTH_2002.wtb").write_bytes(b"")
    (tmp_path / "WTH_2003.wtb").write_bytes(b"\x14\x17\x04\x01\x00")
    with pytest.raises(wthor.WthorError, match=r"WTH_2002.wtb: truncated header \(0 bytes, expected 16\) \(byte offset 0\)"):
        wthor.load(tmp_path)
    df = wthor.load(tmp_path, on_error="skip")
    assert len(df) == 2 and (df["file"] == "WTH_2001.wtb").all()
    assert df.attrs["n_skipped"] == 0
    assert [e.split(": ", 1)[0].rsplit("/", 1)[-1] for e in df.attrs["errors"]] == ["WTH_2002.wtb", "WTH_2003.wtb"]
    assert all("file skipped" in e and "byte offset" in e for e in df.attrs["errors"])


def test_every_error_message_gives_the_byte_offset(tmp_path):
    for case, (path, _) in bad_file_cases(tmp_path).items():
        with pytest.raises(wthor.WthorError, match="byte offset"):
            wthor.load(path)
    path, _ = bad_file_cases(tmp_path)["illegal"]
    with pytest.raises(wthor.WthorError, match=r"game 1, move 2: illegal move a1 for white \(byte offset 93\)"):
        wthor.load(path)
    j = tmp_path / "WTHOR.JOU"
    j.write_bytes(header(0, n2=3) + b"x" * 20)
    with pytest.raises(wthor.WthorError, match="byte offset 8"):
        wthor.read_names(j)
    write_wtb(tmp_path / "WTH_2001.wtb", [GOOD])  # a bad name file only loses the names
    df = wthor.load(tmp_path / "WTH_2001.wtb", on_error="skip")
    assert pd.isna(df.loc[0, "black"]) and "names left missing" in df.attrs["errors"][0]
