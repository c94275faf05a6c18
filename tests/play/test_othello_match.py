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

from gamelib.othello import Board
from gamelib.othello.records import parse_ggf, parse_transcript
from gamelib.play import othello_match as M
from gamelib.play.stats import Record
from gtp_fake import alive_engines, fake  # noqa: F401 (fake is a fixture)
from process_tree import session_members

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
     "error: unknown gamelib player 'gamelib:mlp': use gamelib:random, gamelib:greedy, gamelib:positional"),
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

    from gamelib.games import othello as G, registry
    from gamelib.games.othello_features import initial_theta
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
    from gamelib.evaluation import shogi
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
