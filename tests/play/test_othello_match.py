"""The Othello match runner: resumption, signals (no process left), the records it exports,
and the command line's errors (one line, exit 2, nothing written)."""

from __future__ import annotations

import csv
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from gamelib.games.othello import Board, square_name
from gamelib.games.othello.records import parse_ggf, parse_transcript
from gamelib.play import othello_match as M
from gamelib.play.othello_players import OrientedPlayer, records_symmetry, run_table_theta
from gamelib.play.stats import Record
from gtp_fake import alive_engines, fake  # noqa: F401 (fake is a fixture)
from process_tree import session_members

#: about 2 minutes of tests on a busy CI machine: run before the other modules (tests/conftest.py)
pytestmark = pytest.mark.early(minutes=2)

GREEDY = M.OthelloPlayerSpec("gamelib:greedy")
RANDOM = M.OthelloPlayerSpec("gamelib:random")
STOP_WITHIN = 15.0


def _csv(path):
    with open(path, newline="") as f:
        return list(csv.reader(f))


def test_resume_after_a_kill_gives_the_uninterrupted_file(tmp_path):
    full = M.run_match(GREEDY, RANDOM, 6, tmp_path / "full", progress=False)
    part = tmp_path / "part"
    M.run_match(GREEDY, RANDOM, 4, part, progress=False)
    text = (part / "games.csv").read_text()
    (part / "games.csv").write_text(text[: len(text) - 25])  # the fourth line cut by a kill
    resumed = M.run_match(GREEDY, RANDOM, 6, part, progress=False)
    assert _csv(part / "games.csv") == _csv(tmp_path / "full" / "games.csv")
    assert resumed.record == full.record and resumed.record.games == 6
    for row in full.rows:  # the scores are the final boards', the colours alternate
        board = Board()
        board.play(row["moves"])
        assert board.is_game_over() and int(row["score"]) == board.score()
        assert row["black"] == ("gamelib:greedy" if row["game"] % 2 == 0 else "gamelib:random")
    with pytest.raises(ValueError, match="holds a match with other settings"):
        M.run_match(GREEDY, RANDOM, 6, part, seed=1, progress=False)


def test_exported_records_read_back_as_the_games(tmp_path, fake):
    result = M.run_match(M.OthelloPlayerSpec(fake("illegal"), name="cheat"), GREEDY, 2, tmp_path / "m",
                         progress=False, move_timeout=5.0)
    full = M.run_match(GREEDY, RANDOM, 2, tmp_path / "n", progress=False)
    rows = result.rows + [dict(r, game=r["game"] + 2) for r in full.rows]
    paths = M.export_records(rows, tmp_path / "records")
    assert sorted(p.name for p in paths) == [f"game-0000{i}.{ext}" for i in range(4) for ext in ("ggf", "txt")]
    for row in rows:
        name = tmp_path / "records" / f"game-{row['game']:05d}"
        assert Path(f"{name}.txt").read_text() == row["moves"] + "\n"
        (game,) = parse_ggf(Path(f"{name}.ggf").read_text())
        assert (game.black, game.white, list(game.moves)) == (row["black"], row["white"],
                                                              parse_transcript(row["moves"]))
        if row["score"] == "":  # the forfeit of the fake, as a resignation
            assert game.result == ("+64.000:r" if row["result"] == "black" else "-64.000:r")
        else:
            assert float(game.result) == int(row["score"])
    assert alive_engines(fake) == []


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc")
def test_sigterm_stops_the_whole_match_which_then_resumes(fake, tmp_path):
    """SIGTERM to the main process of a two-worker match with GTP engines: no process of its
    session and no engine is left, it exits with 143, the finished games are kept, and the same
    command finishes the match with the games of an uninterrupted one-worker run."""
    def command(out, workers):
        return [sys.executable, "-m", "gamelib.play.othello_match", fake("slow"), "gamelib:greedy", "--games", "6",
                "--openings", "2", "--out", str(out), "--no-progress", "--name1", "slow", "--workers", str(workers)]

    out = tmp_path / "m"
    log = tmp_path / "stderr.txt"
    with open(log, "w") as stderr:
        proc = subprocess.Popen(command(out, 2), stdout=subprocess.DEVNULL, stderr=stderr, start_new_session=True)
    try:
        deadline = time.monotonic() + 300
        while len(M.read_games(out / "games.csv")) < 2 or len(session_members(proc.pid)) < 3:
            assert proc.poll() is None, log.read_text()
            assert time.monotonic() < deadline, "the match made no progress"
            time.sleep(0.05)
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=STOP_WITHIN)
        deadline = time.monotonic() + STOP_WITHIN
        while (session_members(proc.pid) or alive_engines(fake)) and time.monotonic() < deadline:
            time.sleep(0.05)
        left = session_members(proc.pid)
    finally:
        for pid in session_members(proc.pid):
            os.kill(pid, signal.SIGKILL)
        proc.kill()
        proc.wait()
    err = log.read_text()
    assert not left, f"processes of the match still alive after SIGTERM: {left}"
    assert alive_engines(fake) == []
    assert proc.returncode == 128 + signal.SIGTERM, err
    assert "stopped by SIGTERM: rerun the same command to resume" in err
    kept = M.read_games(out / "games.csv")
    assert 2 <= len(kept) < 6
    done = subprocess.run(command(out, 2), capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    assert "W-D-L" in done.stdout and "game ends: game over 6" in done.stdout
    fresh = subprocess.run(command(tmp_path / "fresh", 1), capture_output=True, text=True, timeout=600)
    assert fresh.returncode == 0, fresh.stderr
    assert _csv(out / "games.csv") == _csv(tmp_path / "fresh" / "games.csv")
    assert alive_engines(fake) == []


@pytest.mark.parametrize("args, line", [
    (["gamelib:greedy", "gamelib:random", "--games", "2", "--level", "1"],
     "error: --level, --mid, --end, --book and --rand are GRhino's options, but neither player runs gtp-rhino"),
    (["gtp-rhino", "gamelib:random", "--games", "2", "--level", "6"], "error: --level must be an integer in [1, 5], got 6"),
    (["gtp-rhino", "gamelib:random", "--games", "2", "--rand", "11"], "error: --rand must be an integer in [0, 10], got 11"),
    (["gamelib:greedy", "gamelib:mlp", "--games", "2"],
     "error: player 'gamelib:mlp': gamelib:mlp needs the network's file, gamelib:mlp=FILE"),
    (["gamelib:greedy", "gamelib:mlp={missing}", "--games", "2", "--out", "{out}"],
     "error: player 'gamelib:mlp={missing}': no parameter file {missing}"),
    (["gamelib:greedy", "gamelib:tree", "--games", "2"],
     "error: unknown gamelib player 'gamelib:tree': use gamelib:random, gamelib:greedy, gamelib:positional, "
     "gamelib:linear, gamelib:linear=FILE, gamelib:mlp=FILE, gamelib:table=FOLDER"),
    (["gamelib:greedy", "gamelib:table", "--games", "2"],
     "error: player 'gamelib:table': gamelib:table needs a finished othello_value run folder, "
     "gamelib:table=FOLDER"),
    (["gamelib:greedy", "gamelib:random", "--games", "2", "--records", "ggf"], "error: --records needs --out"),
    (["gamelib:greedy", "gamelib:random", "--games", "2", "--records", "sgf", "--out", "{out}"],
     "error: --records: use transcript, ggf, got 'sgf'"),
    (["gamelib:greedy", "gamelib:greedy", "--games", "2", "--out", "{out}"],
     "error: the players need different names, both are 'gamelib:greedy'"),
    (["gamelib:greedy", "gamelib:random", "--games", "0", "--out", "{out}"], "error: games must be an integer in"),
    (["gamelib:greedy", "gamelib:random", "--games", "2", "--depth", "0"], "error: depth must be an integer in [1, 60]"),
    (["gamelib:greedy", "gamelib:random", "--games", "2", "--timeout", "0"],
     "error: --timeout must be a number in (0, 86400], got 0.0"),
    (["gamelib:greedy", "gamelib:random", "--games", "2", "--out", "{file}"], "error: --out {file} is a file, not a folder"),
    (["gamelib:greedy", "gamelib:random", "--games", "2", "--out", "{file}/sub"],
     "error: --out {file}/sub cannot be made: {file} is a file"),
    (["{missing}", "gamelib:random", "--games", "2", "--out", "{out}"],
     "error: player '{missing}': the engine did not start: No such file or directory"),
])
def test_command_line_errors_are_one_line_before_anything_is_written(tmp_path, capsys, args, line):
    fill = {"out": str(tmp_path / "out"), "missing": str(tmp_path / "no-engine"), "file": str(tmp_path / "f")}
    (tmp_path / "f").write_text("not a folder")
    assert M.main([a.format(**fill) for a in args]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith(line.format(**fill)), err
    assert len(err.splitlines()) == 1
    assert not (tmp_path / "out").exists()


def test_command_line_match_prints_the_statistics(tmp_path, capsys):
    assert M.main(["gamelib:greedy", "gamelib:random", "--games", "4", "--out", str(tmp_path / "o"),
                   "--no-progress", "--records", "transcript"]) == 0
    out = capsys.readouterr().out
    rec = M.run_match(GREEDY, RANDOM, 4, tmp_path / "o", progress=False).record
    assert out.startswith(f"gamelib:greedy vs gamelib:random: {rec.wins}-{rec.draws}-{rec.losses} (W-D-L)")
    assert "game ends: game over 4" in out
    assert len(list((tmp_path / "o" / "records").glob("*.txt"))) == 4
    assert rec.games == 4 and rec != Record(0, 0, 0)


LINEAR = M.OthelloPlayerSpec("gamelib:linear", nodes=200)


def test_a_linear_player_plays_the_generic_searchs_move_in_every_position():
    import numpy as np

    from gamelib.games import registry
    from gamelib.games.othello import game as G
    from gamelib.games.othello.features import initial_theta
    from gamelib.play.games import SearchPlayer

    game, search = registry.get("othello"), SearchPlayer(initial_theta(), node_budget=200, qdepth=0)
    result = M.run_match(LINEAR, RANDOM, 4, progress=False, openings=2)
    checked = 0
    for row in result.rows:
        assert row["reason"].startswith("game over"), row
        linear_is_black = row["black"] == LINEAR.name
        board = Board()
        for ply, move in enumerate(parse_transcript(row["moves"])):
            if move == "pass":
                board.push(move)
                continue
            if ply >= 2 and (board.turn == "X") == linear_is_black:
                s = G.new_state(board.black, board.white, board.turn == "X", len(board.move_stack))
                assert G.move_text(search.choose(game, s, np.random.default_rng(ply), 120)) == move
                checked += 1
            board.push(move)
    assert checked > 50


def test_a_linear_player_is_part_of_the_matchs_identity_and_refuses_bad_files(tmp_path):
    M.run_match(LINEAR, RANDOM, 2, tmp_path / "m", progress=False)
    other = M.OthelloPlayerSpec("gamelib:linear", nodes=300)
    with pytest.raises(ValueError, match="holds a match with other settings"):
        M.run_match(other, RANDOM, 2, tmp_path / "m", progress=False)
    from gamelib.games.minishogi import features as shogi
    shogi.save_theta(tmp_path / "shogi.npz", shogi.initial_theta(0, 1e-4))
    for spec, message in (("gamelib:linear=", "unknown gamelib player"),
                          ("gamelib:greedy=x.npz", "unknown gamelib player"),
                          (f"gamelib:linear={tmp_path / 'none.npz'}", "no parameter file"),
                          (f"gamelib:linear={tmp_path / 'shogi.npz'}", "shogi.npz")):
        with pytest.raises(ValueError, match=message):
            M.OthelloPlayerSpec(spec)
    with pytest.raises(ValueError, match="nodes"):
        M.OthelloPlayerSpec("gamelib:linear", nodes=0)


@pytest.mark.skipif(M.grhino_path() is None, reason="GRhino (gtp-rhino) is not installed")
def test_a_linear_player_finishes_its_games_against_grhino():
    rhino = M.OthelloPlayerSpec(M.grhino_options("gtp-rhino", level=1, book=0), name="rhino-1")
    result = M.run_match(LINEAR, rhino, 2, progress=False)
    assert all(row["reason"].startswith("game over") for row in result.rows), result.rows


# ----------------------------------------------------------------------------- gamelib:mlp=FILE
PAPER_MLP = Path(__file__).resolve().parents[2] / "data" / "results" / "paper" / "othello_value" / "mlp.npz"


def _small_mlp(tmp_path, seed=1):
    """A small freshly initialised network and the file it is saved to."""
    from gamelib.games.othello.mlp import MLP

    mlp = MLP.init((64, 24, 8, 1), "paper", seed=seed)
    return mlp, mlp.save(tmp_path / f"net{seed}.npz")


#: The board symmetry (of gamelib.games.othello.features.SYMMETRIES, (c, r) -> (x, y)) that takes
#: each first move to f5, from the table of gamelib.games.othello.symmetry's docstring: the tests'
#: expectations are built from these square maps, not from the player's bitboard transforms.
_TO_F5 = {"f5": 0, "c4": 3, "e6": 4, "d3": 7}
SQUARES = [square_name(sq) for sq in range(64)]


def _turn(g: int, square: str) -> str:
    from gamelib.games.othello.features import SYMMETRIES
    from gamelib.games.othello import parse_square

    sq = parse_square(square)
    x, y = SYMMETRIES[g](sq % 8, sq // 8)
    return square_name(8 * y + x)


def _oriented_move(search, board: Board, ply_seed: int) -> str:
    """The move of ``search`` (a game-neutral SearchPlayer) in ``board``'s game turned so that its
    first move is f5, turned back: the f5 game is replayed from the start position with every
    move turned (the rules commute with the board's symmetries), searched, and its move turned
    back (each of the four symmetries is its own inverse)."""
    import numpy as np

    from gamelib.games import registry
    from gamelib.games.othello import game as G

    g = _TO_F5[board.move_stack[0]]
    mirror = Board()
    mirror.play([m if m == "pass" else _turn(g, m) for m in board.move_stack])
    assert mirror.move_stack[0] == "f5" and mirror.turn == board.turn
    here, there = board.board_string(), mirror.board_string()   # the same discs, turned
    assert all(there[SQUARES.index(_turn(g, name))] == here[sq] for sq, name in enumerate(SQUARES))
    s = G.new_state(mirror.black, mirror.white, mirror.turn == "X", len(mirror.move_stack))
    found = G.move_text(search.choose(registry.get("othello"), s, np.random.default_rng(ply_seed), 120))
    return _turn(g, found)


def test_an_mlp_player_plays_the_generic_searchs_move_in_the_f5_orientation(tmp_path):
    """In a match, every move of gamelib:mlp is the game-neutral search's move in the position
    turned so that the game's first move is f5, turned back; the match (openings from f5 and
    c4) ends by the rules."""
    from gamelib.games.othello import game as G
    from gamelib.play.games import SearchPlayer

    mlp, path = _small_mlp(tmp_path)
    spec = M.OthelloPlayerSpec(f"gamelib:mlp={path}", nodes=300, name="net")
    assert spec.searched == G.EVAL_MLP and not spec.is_linear
    assert spec.theta().tobytes() == G.pack_mlp(mlp).tobytes()
    result = M.run_match(spec, RANDOM, 4, tmp_path / "m", progress=False, openings=2)
    assert [row["reason"].split()[:2] for row in result.rows] == [["game", "over"]] * 4
    assert result.record.games == 4
    assert {parse_transcript(row["moves"])[0] for row in result.rows} == {"f5", "c4"}
    search = SearchPlayer(G.pack_mlp(mlp), G.EVAL_MLP, node_budget=300, qdepth=0)
    checked = 0
    for row in result.rows:
        board = Board()
        for ply, move in enumerate(parse_transcript(row["moves"])):
            if move != "pass" and ply >= 2 and (board.turn == "X") == (row["black"] == "net"):
                assert _oriented_move(search, board, ply) == move
                checked += 1
            board.push(move)
    assert checked > 40
    # the network is part of the match's identity
    _, other = _small_mlp(tmp_path, seed=2)
    with pytest.raises(ValueError, match="holds a match with other settings"):
        M.run_match(M.OthelloPlayerSpec(f"gamelib:mlp={other}", nodes=300, name="net"), RANDOM, 4,
                    tmp_path / "m", progress=False, openings=2)


def test_an_mlp_player_turns_games_from_d3_c4_and_e6_to_f5_and_leaves_f5_games_as_they_are(tmp_path):
    """For each first move, a game against random moves: the side's move is legal and is the
    search's move in the f5-oriented position turned back; from f5 that is the search's move
    in the position as it stands. In the games from d3, c4 and e6 the orientation changes
    some moves (the small network is not symmetric), so the test sees the turn."""
    import numpy as np

    from gamelib.games import registry
    from gamelib.games.othello import game as G
    from gamelib.play.games import SearchPlayer

    mlp, path = _small_mlp(tmp_path, seed=3)
    spec = M.OthelloPlayerSpec(f"gamelib:mlp={path}", nodes=200, name="net")
    search = SearchPlayer(G.pack_mlp(mlp), G.EVAL_MLP, node_budget=200, qdepth=0)
    game = registry.get("othello")
    for first in ("d3", "c4", "e6", "f5"):
        side = spec.make_side(1.0, 1.0)
        assert isinstance(side.player, OrientedPlayer)
        rng, board = np.random.default_rng(5), Board()
        board.push(first)
        checked = differs = 0
        while not board.is_game_over():
            if board.must_pass():
                assert side.move(board, rng) == "pass"
                board.push("pass")
                continue
            if board.turn == "O":                     # the network plays white
                seed = len(board.move_stack)
                move = side.move(board, np.random.default_rng(seed))
                assert board.is_legal(move)
                assert move == _oriented_move(search, board, seed)
                s = G.new_state(board.black, board.white, board.turn == "X", len(board.move_stack))
                as_it_stands = G.move_text(search.choose(game, s, np.random.default_rng(seed), 120))
                if first == "f5":
                    assert move == as_it_stands
                differs += move != as_it_stands
                checked += 1
            else:
                moves = board.legal_moves
                move = moves[int(rng.integers(len(moves)))]
            board.push(move)
        assert checked >= 20
        if first != "f5":
            assert differs > 0, first


def test_an_mlp_player_searches_the_start_position_and_other_starts_as_they_stand(tmp_path):
    """Before the first move the identity is used (the four symmetries that keep the start
    position give the same position to search); a game from another position is not turned.
    The linear players are never turned."""
    import numpy as np

    from gamelib.games import registry
    from gamelib.games.othello import game as G
    from gamelib.games.othello import core
    from gamelib.games.othello.symmetry import IDENTITY, START_SYMMETRIES, transform
    from gamelib.play.games import SearchPlayer

    for sym in START_SYMMETRIES:      # the start position is kept by all four
        assert [int(transform(sym, x)) for x in (core.START_BLACK, core.START_WHITE)] == \
            [int(core.START_BLACK), int(core.START_WHITE)]
    assert records_symmetry(M.protocol_state(Board())) == IDENTITY
    mlp, path = _small_mlp(tmp_path, seed=4)
    spec = M.OthelloPlayerSpec(f"gamelib:mlp={path}", nodes=200)
    search = SearchPlayer(G.pack_mlp(mlp), G.EVAL_MLP, node_budget=200, qdepth=0)
    game = registry.get("othello")

    def as_it_stands(board):
        s = G.new_state(board.black, board.white, board.turn == "X", len(board.move_stack))
        return G.move_text(search.choose(game, s, np.random.default_rng(0), 120))

    board = Board()
    assert spec.make_side(1.0, 1.0).move(board, np.random.default_rng(0)) == as_it_stands(board)
    # a game from another position is not turned, whether its first move is one of c4, d3, e6,
    # f5 (d3 here) or not (f3)
    other = Board()
    other.play("f5d6c3")
    for first in ("d3", "f3"):
        board = Board(other.board_string(), other.turn)
        board.push(first)
        assert records_symmetry(M.protocol_state(board)) == IDENTITY
        assert spec.make_side(1.0, 1.0).move(board, np.random.default_rng(0)) == as_it_stands(board)
    for first in _TO_F5:               # from the standard start, the table's symmetry
        board = Board()
        board.push(first)
        assert records_symmetry(M.protocol_state(board)) == {0: 0, 3: 1, 4: 2, 7: 3}[_TO_F5[first]]
    assert not isinstance(LINEAR.make_side(1.0, 1.0).player, OrientedPlayer)


def test_the_papers_network_loads_and_plays_a_move():
    from gamelib.games.othello import game as G
    from gamelib.games.othello.mlp import MLP

    spec = M.OthelloPlayerSpec(f"gamelib:mlp={PAPER_MLP}", nodes=200)
    back = G.unpack_mlp(spec.theta())
    assert back.sizes == (64, 128, 256, 64, 1) and back.params.tobytes() == MLP.load(PAPER_MLP).params.tobytes()
    g = M.play_game(spec, RANDOM, seed=3, opening=("f5", "d6"))
    assert g.reason.startswith("game over") and g.score is not None


def test_a_parameter_file_is_read_once_per_player(tmp_path, monkeypatch):
    _, path = _small_mlp(tmp_path)
    reads = []
    real = M._load_parameters
    monkeypatch.setattr(M, "_load_parameters", lambda kind, p: reads.append(p) or real(kind, p))
    spec = M.OthelloPlayerSpec(f"gamelib:mlp={path}", nodes=100)
    M.run_match(spec, RANDOM, 2, tmp_path / "m", progress=False)
    assert reads == [str(path)]


def test_an_mlp_player_refuses_missing_and_wrong_files(tmp_path):
    from gamelib.games.othello import game as G

    G.save_theta(tmp_path / "linear.npz", G.initial_theta())
    (tmp_path / "junk.npz").write_bytes(b"not a zip")
    for spec, message in (("gamelib:mlp", r"gamelib:mlp needs the network's file, gamelib:mlp=FILE"),
                          ("gamelib:mlp=", r"gamelib:mlp needs the network's file"),
                          (f"gamelib:mlp={tmp_path / 'none.npz'}", r"no parameter file .*none\.npz"),
                          (f"gamelib:mlp={tmp_path / 'junk.npz'}", r"cannot read MLP file .*junk\.npz"),
                          (f"gamelib:mlp={tmp_path / 'linear.npz'}",
                           r"linear\.npz is not an MLP file.*it holds a linear evaluation's parameters: "
                           r"use gamelib:linear="),
                          (f"gamelib:linear={PAPER_MLP}",
                           r"mlp\.npz: not a othello parameter file.*it holds a value network: use gamelib:mlp=")):
        with pytest.raises(ValueError, match=message):
            M.OthelloPlayerSpec(spec)


# ----------------------------------------------------------------------------- gamelib:table=FOLDER
def _wthor_missing() -> str:
    from gamelib.games.othello import wthor

    try:
        wthor.find_wthor_dir()
    except FileNotFoundError as err:
        return str(err)
    return ""


def _value_run(tmp_path, seed=1, sha=None):
    """A finished othello_value run folder in miniature: WTHOR 1977-1978, a tenth held out, and
    a small network (and the WTHOR files' sha256 ``sha`` when given)."""
    import json

    folder = tmp_path / "othello_value"
    folder.mkdir()
    mlp, _ = _small_mlp(tmp_path, seed)
    mlp.save(folder / "mlp.npz")
    (folder / "provenance.json").write_text(json.dumps({"parameters": {
        "first_year": 1977, "last_year": 1978, "val_fraction": 0.1, "seed": 0, "depth": 2,
        "n_pairs": 1, "opening_plies": 4}} | ({"wthor_sha256": sha} if sha else {})))
    return folder, mlp


@pytest.mark.skipif(bool(_wthor_missing()), reason=_wthor_missing() or "WTHOR records found")
def test_a_table_player_plays_the_value_runs_table_and_network_in_the_f5_orientation(tmp_path):
    """gamelib:table=FOLDER is the run's training table (rebuilt from WTHOR with its years,
    held-out share and seed) with its network as the fallback; every move of a match is the
    generic search's move with that table in the position turned to f5; the packed table is
    part of the match's identity and is not sent to worker processes."""
    import hashlib
    import pickle

    from gamelib.games.othello import game as G
    from gamelib.games.othello import wthor
    from gamelib.games.othello.value_table import build_tables, load_years
    from gamelib.play.games import SearchPlayer

    sha = {f"WTH_{y}.wtb": hashlib.sha256((wthor.find_wthor_dir() / f"WTH_{y}.wtb").read_bytes()).hexdigest()
           for y in (1977, 1978)}
    folder, mlp = _value_run(tmp_path, sha=sha)
    run_table_theta.cache_clear()
    spec = M.OthelloPlayerSpec(f"gamelib:table={folder}", nodes=300, name="table")
    assert spec.searched == G.EVAL_TABLE and isinstance(spec.make_side(1.0, 1.0).player, OrientedPlayer)
    table = build_tables(load_years(1977, 1978), 0.1, 0).train
    theta = G.pack_table(table, mlp)
    assert spec.theta().tobytes() == theta.tobytes() and len(table) > 1000
    assert spec.identity()["theta_sha256"] == M.OthelloPlayerSpec(
        f"gamelib:table={folder}", nodes=300, name="table").identity()["theta_sha256"]
    result = M.run_match(spec, RANDOM, 4, tmp_path / "m", progress=False, openings=2)
    assert [row["reason"].split()[:2] for row in result.rows] == [["game", "over"]] * 4
    assert {parse_transcript(row["moves"])[0] for row in result.rows} == {"f5", "c4"}
    search = SearchPlayer(theta, G.EVAL_TABLE, node_budget=300, qdepth=0)
    checked = differs = 0
    for row in result.rows:
        board = Board()
        for ply, move in enumerate(parse_transcript(row["moves"])):
            if move != "pass" and ply >= 2 and (board.turn == "X") == (row["black"] == "table"):
                assert _oriented_move(search, board, ply) == move
                checked += 1
            board.push(move)
    assert checked > 40
    # a worker gets the spec without the table and builds it (once per process) to the same bits
    state = pickle.loads(pickle.dumps(spec))
    assert "_parameters" in spec.__dict__ and "_parameters" not in state.__dict__
    run_table_theta.cache_clear()
    assert state.theta() is not spec.theta() and state.theta().tobytes() == theta.tobytes()
    assert len(pickle.dumps(spec)) < 1000
    # another network is another match
    (folder / "mlp.npz").unlink()
    _small_mlp(tmp_path, seed=2)[0].save(folder / "mlp.npz")
    run_table_theta.cache_clear()
    with pytest.raises(ValueError, match="holds a match with other settings"):
        M.run_match(M.OthelloPlayerSpec(f"gamelib:table={folder}", nodes=300, name="table"), RANDOM, 4,
                    tmp_path / "m", progress=False, openings=2)
    # WTHOR files other than those the run read are refused
    other = tmp_path / "other"
    other.mkdir()
    _value_run(other, sha=dict(sha, **{"WTH_1978.wtb": "0" * 64}))
    run_table_theta.cache_clear()
    with pytest.raises(ValueError, match=r"WTH_1978\.wtb is not the WTHOR file the run .* read"):
        M.OthelloPlayerSpec(f"gamelib:table={other / 'othello_value'}")
    run_table_theta.cache_clear()


def test_a_table_player_refuses_what_is_not_a_value_run(tmp_path, monkeypatch):
    from gamelib.games.othello import wthor

    folder, _ = _value_run(tmp_path)
    empty = tmp_path / "empty"
    empty.mkdir()
    net = folder / "mlp.npz"
    run_table_theta.cache_clear()
    for spec, message in (("gamelib:table=", r"gamelib:table needs a finished othello_value run folder"),
                          (f"gamelib:table={tmp_path / 'none'}", r"none is not a folder: gamelib:table needs"),
                          (f"gamelib:table={net}", r"mlp\.npz is not a folder.*it holds a value network: "
                                                   r"use gamelib:mlp="),
                          (f"gamelib:table={empty}", r"empty is not a finished othello_value run: no "
                                                     r"provenance\.json"),
                          (f"gamelib:mlp={folder}", r"othello_value is a folder, not a parameter file; a "
                                                    r"finished othello_value run folder is played as "
                                                    r"gamelib:table="),
                          (f"gamelib:linear={empty}", r"empty is a folder, not a parameter file$")):
        with pytest.raises(ValueError, match=message):
            M.OthelloPlayerSpec(spec)

    def nowhere():
        raise FileNotFoundError("no WTHOR .wtb files found in /nowhere")

    monkeypatch.setattr(wthor, "find_wthor_dir", nowhere)
    with pytest.raises(ValueError, match=r"player 'gamelib:table=.*': no WTHOR \.wtb files found"):
        M.OthelloPlayerSpec(f"gamelib:table={folder}")
