"""Value table (seed 004, eqs. 1-3, Table 2): decomposition, counting, look-ups, split."""

import numpy as np
import pandas as pd
import pytest

from gamelib.games.othello import Board
from gamelib.games import registry
from gamelib.play.games import random_opening
from gamelib.games.othello.value_table import (
    PAPER_TABLE2,
    ValueTable,
    aggregate,
    build_tables,
    decompose_games,
    parse_move_strings,
    parse_state_string,
    split_games,
    state_string,
    table2_comparison,
    load_years,
    table_value,
)
from gamelib.games.othello.wthor import find_wthor_dir


def random_games(n, seed, plies=60):
    """Move strings of ``n`` random games (full games unless ``plies`` < 60)."""
    rng = np.random.default_rng(seed)
    game = registry.get("othello")
    names = [f"{'abcdefgh'[s % 8]}{s // 8 + 1}" for s in range(64)]

    def squares():
        moves = []
        for m in random_opening(game, rng, 200, game.start()):   # a pass is a ply here, not there
            if len(moves) == plies:
                break
            if m < 64:
                moves.append(m)
        return moves

    return ["".join(names[s] for s in squares()) for _ in range(n)]


def oracle_positions(moves):
    """Positions after every move, replayed with the engine's Board (independent of the kernel)."""
    board = Board()
    out = []
    for i in range(0, len(moves), 2):
        board.play(moves[i:i + 2])
        out.append((board.black, board.white))
    return out, board


def to_paper_string(board_string):
    return board_string.replace("-", "0").replace("X", "1").replace("O", "2")


@pytest.mark.parametrize("row", PAPER_TABLE2, ids=[r[0] for r in PAPER_TABLE2])
def test_paper_table2_state_vectors_are_the_positions_after_their_moves(row):
    moves, state = row[0], row[1]
    board = Board()
    board.play(moves)
    assert to_paper_string(board.board_string()) == state
    assert state_string(board.black, board.white) == state
    assert parse_state_string(state) == (board.black, board.white)


def test_state_string_rejects_bad_input():
    with pytest.raises(ValueError, match="64 characters"):
        parse_state_string("012")
    with pytest.raises(ValueError, match="character '3' at position 0"):
        parse_state_string("3" + "0" * 63)
    with pytest.raises(ValueError, match="share squares"):
        state_string(1, 1)


def test_parse_move_strings():
    sq = parse_move_strings(["f5D6c3", ""])
    assert sq.shape == (2, 60) and sq.dtype == np.int8
    assert sq[0, :4].tolist() == [37, 43, 18, -1]
    assert (sq[1] == -1).all()
    with pytest.raises(ValueError, match="move 2 'i9' is not a square"):
        parse_move_strings(["f5i9"])
    with pytest.raises(ValueError, match="two characters"):
        parse_move_strings(["f5d"])
    with pytest.raises(ValueError, match="game 1"):
        parse_move_strings(["f5", "f5" * 61])


def test_decomposition_matches_board_replay():
    games = random_games(40, seed=1) + random_games(10, seed=2, plies=17)
    scores = np.full(len(games), 40)
    dec = decompose_games(games, scores)
    pos = 0
    for g, moves in enumerate(games):
        expected, board = oracle_positions(moves)
        n = len(expected)
        assert list(zip(dec.black[pos:pos + n].tolist(), dec.white[pos:pos + n].tolist())) == expected
        assert (dec.game[pos:pos + n] == g).all()
        pos += n
        assert dec.finished[g] == board.is_game_over()
        if board.is_game_over():
            b, w = board.count()
            assert dec.result[g] == (1 if b > w else 0 if b < w else -1)
        else:  # unfinished: the recorded score (40 > 32) says Black won
            assert dec.result[g] == 1
    assert pos == dec.black.size


def test_decomposition_reports_illegal_moves_and_missing_scores():
    with pytest.raises(ValueError, match=r"game 1: move 3 \(f6\) is illegal"):
        decompose_games(["f5d6", "f5f6f6"], [40, 40])
    with pytest.raises(ValueError, match="stops before the end"):
        decompose_games(["f5d6"])
    bad = np.full((1, 60), -1, dtype=np.int8)
    bad[0, 1] = 37
    with pytest.raises(ValueError, match="follows the end"):
        decompose_games(bad)


def test_aggregate_counts_like_a_dictionary():
    # short games from few openings repeat positions often
    games = random_games(300, seed=3, plies=6)
    dec = decompose_games(games, np.arange(300) % 65)
    label = np.random.default_rng(0).integers(0, 2, dec.black.size)
    table = aggregate(dec.black, dec.white, label)
    counts = {}
    for b, w, z in zip(dec.black.tolist(), dec.white.tolist(), label.tolist()):
        n, k = counts.get((b, w), (0, 0))
        counts[(b, w)] = (n + 1, k + z)
    assert len(table) == len(counts) < dec.black.size
    got = {(b, w): (n, k) for b, w, n, k in table[["black", "white", "n", "wins"]].itertuples(index=False)}
    assert got == counts
    np.testing.assert_allclose(table["v_b"], table["wins"] / table["n"])
    assert table["n"].sum() == dec.black.size


def test_aggregate_rejects_bad_rows():
    with pytest.raises(ValueError, match="row counts differ"):
        aggregate([1, 2], [4], [0, 1])
    with pytest.raises(ValueError, match="leave drawn games out"):
        aggregate([1], [2], [-1])
    with pytest.raises(ValueError, match="both black and white"):
        aggregate([3], [1], [1])


def test_draws_are_excluded_or_counted_as_zero():
    # a finished draw, then two unfinished games through the same first move, decided by the
    # recorded score: a Black win (40) and a White win (20)
    candidates = random_games(400, seed=4)
    dec_all = decompose_games(candidates, np.zeros(400))
    drawn = next(g for g, r in zip(candidates, dec_all.result) if r == -1)
    dec = decompose_games([drawn, drawn[:4], drawn[:6]], [32, 40, 20])
    assert dec.result.tolist() == [-1, 1, 0] and dec.n_draws == 1
    first = (np.array([dec.black[0]]), np.array([dec.white[0]]))
    t = ValueTable.from_decomposition(dec)
    assert t.info["draws"] == 1 and t.info["games_counted"] == 2
    assert t.lookup(*first)[["n", "wins"]].values.tolist() == [[2, 1]]
    z = ValueTable.from_decomposition(dec, draws="zero")
    assert z.info["games_counted"] == 3
    assert z.lookup(*first)[["n", "wins"]].values.tolist() == [[3, 1]]
    with pytest.raises(ValueError, match="draws must be"):
        ValueTable.from_decomposition(dec, draws="half")


def test_value_table_lookup_in_python_and_numba():
    games = random_games(50, seed=5, plies=10)
    dec = decompose_games(games, np.where(np.arange(50) % 3 == 0, 20, 44))
    t = ValueTable.from_decomposition(dec)
    args = t.kernel_args()
    for i in [0, 5, len(t) - 1]:
        b, w = int(t.frame["black"].iat[i]), int(t.frame["white"].iat[i])
        v = t.frame["wins"].iat[i] / t.frame["n"].iat[i]
        assert t.value(b, w) == pytest.approx(v)
        assert t.value(b, w, "white") == pytest.approx(1 - v)  # eq. 3
        assert table_value(*args, np.uint64(b), np.uint64(w)) == pytest.approx(v)
    absent = (np.uint64(0xFF), np.uint64(0xFF00))
    assert table_value(*args, *absent) == -1.0
    assert t.lookup([0xFF], [0xFF00])["n"].tolist() == [0]
    with pytest.raises(KeyError):
        t.value(0xFF, 0xFF00)
    with pytest.raises(ValueError, match="duplicate state"):
        ValueTable(pd.concat([t.frame.iloc[:3], t.frame.iloc[:1]]))
    with pytest.raises(ValueError, match="wins <= n"):
        ValueTable(pd.DataFrame({"black": [1], "white": [2], "n": [1], "wins": [2]}))


def test_split_is_seeded_per_game_and_independent_of_the_other_games():
    ids = np.arange(20000)
    a = split_games(ids, 0.2, seed=7)
    assert 0.18 < a.mean() < 0.22
    assert (split_games(ids[5000:6000], 0.2, seed=7) == a[5000:6000]).all()
    assert (split_games(ids, 0.2, seed=8) != a).any()
    with pytest.raises(ValueError, match="val_fraction"):
        split_games(ids, 1.0, 0)


def test_build_tables_splits_by_game():
    games = random_games(200, seed=6, plies=12)
    records = pd.DataFrame({"year": 2000, "moves": games, "black_score": np.arange(200) % 65,
                            "game_index": np.arange(200)})
    rt = build_tables(records, val_fraction=0.3, seed=1)
    dec = rt.decomposition
    # every state occurrence of a decided game is in exactly one of the two tables
    assert rt.train.n_states + rt.val.n_states == rt.full.n_states
    assert rt.train.info["games"] + rt.val.info["games"] == 200
    # the validation table counts only the validation games
    keep = rt.is_val[dec.game] & (dec.black_won() >= 0)
    expected = aggregate(dec.black[keep], dec.white[keep], dec.black_won()[keep])
    assert len(expected) == len(rt.val) and expected["n"].sum() == rt.val.n_states


def _wthor_dir():
    try:
        return find_wthor_dir()
    except FileNotFoundError as err:
        pytest.skip(f"WTHOR records not available: {err}")


def test_real_records_2018_table():
    records = load_years(2018, 2018, _wthor_dir())
    assert len(records) == 2429  # the data README's count for 2018
    rt = build_tables(records)
    decided = rt.decomposition.result >= 0
    assert rt.full.info["games_counted"] == decided.sum() == 2429 - rt.full.info["draws"]
    lengths = records["moves"].str.len().to_numpy() // 2
    assert rt.full.n_states == lengths[decided].sum()
    # where the board is finished, the recorded score (empties to the winner) names the same winner
    fin = rt.decomposition.finished
    recorded = np.sign(records["black_score"].to_numpy() - 32)
    ours = np.where(rt.decomposition.result == 1, 1, np.where(rt.decomposition.result == 0, -1, 0))
    assert (recorded[fin] == ours[fin]).all()
    # every decided game passes through the state after f5 (WTHOR normalises the first move)
    assert table2_comparison(rt.full)["n"].iat[0] == decided.sum()


def test_missing_year_is_named():
    folder = _wthor_dir()
    with pytest.raises(ValueError, match="year.s. 1970, 1971"):
        load_years(1970, 1977, folder)


@pytest.mark.slow
def test_paper_years_table_counts():
    rt = build_tables(load_years(1977, 2018, _wthor_dir()))
    info = rt.full.info
    assert (info["games"], info["draws"], info["states"], info["distinct_states"]) == (
        124189, 7373, 6989720, 5008662)
    comp = table2_comparison(rt.full)
    assert comp["n"].tolist()[:3] == [116816, 39241, 38506]
