"""The match runner against misbehaving USI engines (tiny fake engines written to tmp_path),
its games.csv, resumption after a kill, independence of the number of workers, and the
statistics it prints."""

from __future__ import annotations

import csv
import math
import os
import re
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from gamelib.games.minishogi import Position
from process_tree import session_members
from gamelib.play import engine_match as M
from gamelib.play.match_stats import Sprt, elo_interval, likelihood_of_superiority
from gamelib.play.stats import Record
from gamelib.play.usi_client import EngineError, Limits, UsiEngine

#: about 4 minutes of tests on a busy CI machine: run before the other modules (tests/conftest.py)
pytestmark = pytest.mark.early(minutes=4)

FAKE = textwrap.dedent('''
    """A fake USI engine: MODE decides how it misbehaves; it notes its pid in PIDDIR."""
    import os, signal, sys, time
    mode, piddir = sys.argv[1], sys.argv[2]
    open(os.path.join(piddir, str(os.getpid())), "w").close()
    if mode == "exit_at_start":
        sys.exit(3)
    if mode == "stubborn":
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    def say(line):
        sys.stdout.write(line + "\\n"); sys.stdout.flush()
    for line in sys.stdin:
        cmd = line.split()
        if not cmd:
            continue
        if cmd[0] == "usi":
            if mode == "no_usiok":
                continue
            say("id name Fake " + mode)
            say("option name Nodes type spin default 1 min 1 max 100")
            say("usiok")
        elif cmd[0] == "isready":
            if mode != "no_readyok":
                say("readyok")
        elif cmd[0] == "go":
            if mode == "hang":
                continue
            if mode == "die_midgame":  # after the handshake and a new game
                sys.exit(4)
            say("info depth 1 score cp 0 garbage here")
            if mode == "garbage":
                say("bestmove xyzzy")
            elif mode == "illegal":
                say("bestmove 5a4a")
            elif mode == "resign":
                say("bestmove resign")
            elif mode == "dropmate":
                say("bestmove P*1b")
            elif mode == "slow":  # the first legal move (by gamelib's rules), after a pause
                from gamelib.games.minishogi import Position
                pos = Position()
                for m in MOVES:
                    pos.push_usi(m)
                time.sleep(0.05)
                say("bestmove " + sorted(pos.legal_moves)[0])
            else:  # a legal move: the king steps back and forth (sente: 1e..., gote: 1a...)
                if mode == "nap":
                    time.sleep(0.1)
                say("bestmove " + NEXT)
        elif cmd[0] == "position":
            words = line.split()
            MOVES = words[words.index("moves") + 1:] if "moves" in words else []
            n = len(MOVES)
            gote = n % 2 == 1
            NEXT = ("4a3b" if n % 4 == 1 else "3b4a") if gote else ("2e3d" if n % 4 == 0 else "3d2e")
        elif cmd[0] == "quit":
            if mode != "stubborn":
                break
''')


@pytest.fixture()
def fake(tmp_path):
    script = tmp_path / "fake_engine.py"
    script.write_text(FAKE)
    piddir = tmp_path / "pids"
    piddir.mkdir()

    def command(mode: str) -> str:
        return f"{sys.executable} {script} {mode} {piddir}"

    command.piddir = piddir
    return command


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    with open(f"/proc/{pid}/stat") as f:  # a zombie is gone but for its exit status
        return f.read().split(")")[-1].split()[0] != "Z"


def _no_process_left(fake) -> list[int]:
    pids = [int(p.name) for p in fake.piddir.iterdir()]
    assert pids, "the fake engine never ran"
    return [pid for pid in pids if _alive(pid)]


NODES = Limits(nodes=20)
STOP_WITHIN = 15.0      # seconds; the workers get 2 s after SIGTERM, then SIGKILL


def _match(fake, mode, tmp_path, games=2, **kwargs):
    first = M.PlayerSpec(fake(mode), NODES, name=f"fake-{mode}")
    second = M.PlayerSpec("gamelib:random", NODES)
    return M.run_match(first, second, games, tmp_path / f"out-{mode}", openings=0, progress=False,
                       start_timeout=3.0, move_timeout=3.0, **kwargs)


@pytest.mark.parametrize("mode, reason", [
    ("hang", "engine timeout: no bestmove within 3 s"),
    ("garbage", "garbled move 'xyzzy'"),
    ("illegal", "illegal move '5a4a'"),
    ("resign", "resigned"),
])
def test_bad_engine_loses_every_game_with_the_reason(fake, tmp_path, mode, reason):
    result = _match(fake, mode, tmp_path)
    assert result.record == Record(0, 0, 2)
    rows = M.read_games(tmp_path / f"out-{mode}" / "games.csv")
    assert [r["game"] for r in rows] == [0, 1]
    for row in rows:
        side = "sente" if row["sente"] == f"fake-{mode}" else "gote"
        assert row["result"] == ("gote" if side == "sente" else "sente")
        assert row["reason"].startswith(f"{side} {reason}"), row
    assert _no_process_left(fake) == []


STARTS_BADLY = [
    ("exit_at_start", "engine died (exit code 3)"),  # before 'usi' is written, or while we wait for usiok
    ("no_usiok", "engine timeout: no usiok within 3 s"),
    ("no_readyok", "engine timeout: no readyok within 3 s"),
]


@pytest.mark.parametrize("mode, reason", STARTS_BADLY)
def test_engine_that_does_not_start_is_a_setup_error_before_any_game(fake, tmp_path, mode, reason):
    """A match whose player cannot start is refused before a game is played or a file
    written (it used to forfeit every game and exit 0)."""
    with pytest.raises(ValueError, match=f"^player 'fake-{mode}': the {re.escape(reason)}"):
        _match(fake, mode, tmp_path)
    assert not (tmp_path / f"out-{mode}").exists()
    assert _no_process_left(fake) == []


@pytest.mark.parametrize("mode, reason", STARTS_BADLY)
def test_engine_failing_to_start_for_one_game_loses_it(fake, mode, reason):
    game = M.play_game(M.PlayerSpec(fake(mode), NODES), M.PlayerSpec("gamelib:random", NODES), seed=0,
                       start_timeout=3.0)
    assert (game.result, game.moves) == ("gote", ())
    assert game.reason.startswith(f"sente {reason}")
    assert _no_process_left(fake) == []
def test_engine_dying_mid_game_loses(fake, tmp_path):
    result = _match(fake, "die_midgame", tmp_path)
    assert result.record == Record(0, 0, 2)
    for row in result.rows:
        side = "sente" if row["sente"] == "fake-die_midgame" else "gote"
        assert row["reason"] == f"{side} engine died (exit code 4) while we waited for bestmove"
        assert row["plies"] == (0 if side == "sente" else 1)
    assert _no_process_left(fake) == []


# sente to move with a pawn in hand: P*1b mates (silver 3b covers 2a, gold 2c covers 2b and 1b)
DROP_MATE_SFEN = "4k/2S2/3G1/5/K4 b P 1"


def test_pawn_drop_mate_loses_by_our_rules(fake):
    assert "P*1b" not in Position(DROP_MATE_SFEN).legal_moves
    assert "P*2b" in Position(DROP_MATE_SFEN).legal_moves  # a pawn drop that does not mate
    game = M.play_game(M.PlayerSpec(fake("dropmate"), NODES), M.PlayerSpec("gamelib:random", NODES), seed=0,
                       start_sfen=DROP_MATE_SFEN, move_timeout=5.0)
    assert (game.result, game.reason, game.moves) == ("gote", "sente illegal move 'P*1b'", ())
    assert _no_process_left(fake) == []


def test_missing_program_or_unknown_option_is_a_setup_error(fake, tmp_path):
    first = M.PlayerSpec(str(tmp_path / "no-such-engine"), NODES, name="missing")
    with pytest.raises(ValueError, match="^player 'missing': the engine did not start: No such file or directory"):
        M.run_match(first, M.PlayerSpec("gamelib:random", NODES), 2, tmp_path / "m", progress=False)
    assert not (tmp_path / "m").exists()
    optioned = M.PlayerSpec(fake("good"), NODES, options={"Hash": "16"}, name="optioned")
    with pytest.raises(ValueError, match="^player 'optioned': the engine has no option 'Hash'"):
        M.run_match(M.PlayerSpec("gamelib:random", NODES), optioned, 2, tmp_path / "m", progress=False)
    assert not (tmp_path / "m").exists()
    assert _no_process_left(fake) == []


def test_engine_ignoring_quit_and_sigterm_is_killed(fake):
    engine = UsiEngine(fake("stubborn"), start_timeout=5.0).start()
    assert engine.name == "Fake stubborn"
    pid = engine.pid
    engine.close()
    assert not _alive(pid)
    assert engine.pid is None


def test_unknown_option_is_an_engine_error(fake):
    with pytest.raises(EngineError, match="has no option 'Hash'"):
        UsiEngine(fake("good"), {"Hash": 16}, start_timeout=5.0).start()
    assert _no_process_left(fake) == []


def test_well_behaved_fake_plays_until_our_rules_end_the_game(fake, tmp_path):
    # both fakes shuffle their kings: the fourth repetition ends it, sente loses (no checks)
    first = M.PlayerSpec(fake("good"), NODES, name="a")
    second = M.PlayerSpec(fake("good"), NODES, name="b")
    result = M.run_match(first, second, 2, tmp_path / "out", openings=0, progress=False)
    for row in result.rows:
        assert (row["result"], row["reason"], row["plies"]) == ("gote", "repetition", 12)
        pos = Position()
        for m in row["moves"].split():
            pos.push_usi(m)
        assert pos.outcome() == "gote"
    assert result.record == Record(1, 0, 1)
    assert _no_process_left(fake) == []


def _csv(path):
    with open(path, newline="") as f:
        return list(csv.reader(f))


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc")
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP], ids=lambda s: s.name)
def test_command_line_signal_stops_the_whole_match_which_then_resumes(fake, tmp_path, sig):
    """SIGTERM or SIGHUP to the main process of a two-worker match (as the experiments' signal
    test): within seconds no process of its session (workers, forkserver, resource tracker) and
    no engine is left, it exits with 128 + the signal, the finished games are kept, and the same
    command finishes the match with the games of an uninterrupted run."""
    def command(out, workers):  # two fakes shuffling their kings, 0.1 s a move: 12 plies a game
        return [sys.executable, "-m", "gamelib.play.engine_match", fake("nap"), fake("nap"), "--games", "6",
                "--nodes", "10", "--openings", "0", "--out", str(out), "--no-progress", "--name1", "a",
                "--name2", "b", "--workers", str(workers)]

    out = tmp_path / "m"
    log = tmp_path / "stderr.txt"       # a file, not a pipe: leftover workers would hold that
    with open(log, "w") as stderr:
        proc = subprocess.Popen(command(out, 2), stdout=subprocess.DEVNULL, stderr=stderr, start_new_session=True)
    try:
        deadline = time.monotonic() + 300
        while len(M.read_games(out / "games.csv")) < 1 or len(session_members(proc.pid)) < 5:
            assert proc.poll() is None, log.read_text()
            assert time.monotonic() < deadline, "the match made no progress"
            time.sleep(0.05)
        proc.send_signal(sig)
        proc.wait(timeout=STOP_WITHIN)
        deadline = time.monotonic() + STOP_WITHIN
        while session_members(proc.pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        left = session_members(proc.pid)
    finally:
        for pid in session_members(proc.pid):
            os.kill(pid, signal.SIGKILL)
        proc.kill()
        proc.wait()
    err = log.read_text()
    assert not left, f"processes of the match still alive after {sig.name}: {left}"
    assert proc.returncode == 128 + sig, err
    assert f"stopped by {sig.name}: rerun the same command to resume" in err
    assert "Traceback" not in err
    kept = M.read_games(out / "games.csv")
    assert 1 <= len(kept) < 6
    assert _no_process_left(fake) == []
    done = subprocess.run(command(out, 2), capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "W-D-L" in done.stdout and "LOS" in done.stdout
    fresh = subprocess.run(command(tmp_path / "fresh", 1), capture_output=True, text=True, timeout=300)
    assert fresh.returncode == 0, fresh.stderr
    assert _csv(out / "games.csv") == _csv(tmp_path / "fresh" / "games.csv")
    final = {row["game"]: row for row in M.read_games(out / "games.csv")}
    assert all(final[row["game"]] == row for row in kept)  # the workers finish games in any order


def test_resume_after_a_kill_gives_the_uninterrupted_file(tmp_path):
    a = M.PlayerSpec("gamelib:material", Limits(nodes=200), name="material")
    b = M.PlayerSpec("gamelib:random", Limits(nodes=200), name="random")
    full = M.run_match(a, b, 6, tmp_path / "full", max_plies=60, progress=False)
    # a killed run: four games written, the fourth cut in the middle of its line
    part = tmp_path / "part"
    M.run_match(a, b, 4, part, max_plies=60, progress=False)
    text = (part / "games.csv").read_text()
    (part / "games.csv").write_text(text[: len(text) - 25])
    resumed = M.run_match(a, b, 6, part, max_plies=60, progress=False)
    assert _csv(part / "games.csv") == _csv(tmp_path / "full" / "games.csv")
    assert resumed.record == full.record
    with pytest.raises(ValueError, match="other settings"):
        M.run_match(a, b, 6, part, max_plies=80, progress=False)


def test_workers_do_not_change_the_games(tmp_path):
    a = M.PlayerSpec("gamelib:material", Limits(nodes=200), name="material")
    b = M.PlayerSpec("gamelib:random", Limits(nodes=200), name="random")
    M.run_match(a, b, 4, tmp_path / "one", max_plies=60, progress=False, workers=1)
    M.run_match(a, b, 4, tmp_path / "two", max_plies=60, progress=False, workers=2)
    rows = _csv(tmp_path / "one" / "games.csv")
    assert rows == _csv(tmp_path / "two" / "games.csv")
    # colours alternate and each opening is played with both
    assert [r[1] for r in rows[1:]] == ["material", "random", "material", "random"]
    assert rows[1][6].split()[:4] == rows[2][6].split()[:4] != rows[3][6].split()[:4]


def test_sprt_stops_on_the_game_prefix(tmp_path):
    a = M.PlayerSpec("gamelib:material", Limits(nodes=100), name="material")
    b = M.PlayerSpec("gamelib:random", Limits(nodes=100), name="random")
    sprt = Sprt(-50, 50, 0.1, 0.1)
    result = M.run_match(a, b, 40, tmp_path / "s", max_plies=60, progress=False, sprt=sprt)
    assert result.decision == "H1"
    n = len(result.rows)
    assert n < 40
    assert sprt.decision(M.record_of(result.rows[:-1], "material")) is None
    assert result.llr == pytest.approx(sprt.llr(result.record)) and result.llr >= sprt.bounds[1]


def test_bad_player_specs_are_refused(tmp_path):
    with pytest.raises(ValueError, match="unknown gamelib player"):
        M.PlayerSpec("gamelib:nonsense", NODES)
    with pytest.raises(ValueError, match="no evaluation file"):
        M.PlayerSpec(f"gamelib:theta={tmp_path}/none.npz", NODES)
    with pytest.raises(ValueError, match="need a node limit"):
        M.PlayerSpec("gamelib:reference", Limits(depth=3))
    with pytest.raises(ValueError, match="NAME=VALUE"):
        M.parse_player("/bin/engine", NODES, ["Hash"])
    with pytest.raises(ValueError, match="different names"):
        M.run_match(M.PlayerSpec("gamelib:random", NODES), M.PlayerSpec("gamelib:random", NODES), 2)


# ----------------------------------------------------------------------------- command-line errors
def _fails_cleanly(argv, capsys) -> str:
    """``engine_match`` must return 2 with one ``error:`` line; returns that line."""
    status = M.main(argv)
    err = capsys.readouterr().err
    assert status == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), err
    return lines[0]


RANDOM_VS_MATERIAL = ["gamelib:random", "gamelib:material", "--games", "2", "--nodes", "50", "--no-progress"]


@pytest.mark.parametrize("more, message", [
    (["--timeout", "inf"], "error: --timeout must be a number in (0, 86400], got inf"),
    (["--timeout", "nan"], "error: --timeout must be a number in (0, 86400], got nan"),
    (["--timeout", "0"], "error: --timeout must be a number in (0, 86400], got 0.0"),
    (["--start-timeout", "1e300"], "error: --start-timeout must be a number in (0, 86400], got 1e+300"),
    (["--openings", "100000"], "error: openings of 100000 random plies reach the cap of 300 plies: no game would "
                               "be played"),
    (["--openings", "250"], "error: the random opening of game 0 ends the game after "),
    (["--seed", str(2**64)], "error: seed must be an integer in [0, 9223372036854775807], got"),
    (["--nodes", str(2**64)], "error: nodes must be an integer in [1, 9223372036854775807], got"),
    (["--name1", "a\nb"], "error: a player's name must be one line of printable text"),
    (["--out", ""], "error: --out: the name is empty"),
    (["--games"], "error: argument --games: expected one argument"),
    (["--workers", "x"], "error: argument --workers: invalid int value: 'x'"),
])
def test_bad_arguments_fail_at_once_with_one_line(more, message, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    try:
        line = _fails_cleanly(RANDOM_VS_MATERIAL + more, capsys)
    except SystemExit as stop:  # argparse's own errors
        assert stop.code == 2
        line = capsys.readouterr().err.strip()
        assert "\n" not in line and "usage" not in line
    assert line.startswith(message), line
    assert list(tmp_path.iterdir()) == []


def test_out_that_cannot_be_a_folder_fails_before_any_game(tmp_path, capsys):
    target = tmp_path / "hostname"
    target.write_text("mine\n")
    assert _fails_cleanly(RANDOM_VS_MATERIAL + ["--out", str(target)], capsys) == \
        f"error: --out {target} is a file, not a folder"
    assert _fails_cleanly(RANDOM_VS_MATERIAL + ["--out", str(target / "m")], capsys) == \
        f"error: --out {target / 'm'} cannot be made: {target} is a file"
    assert _fails_cleanly(RANDOM_VS_MATERIAL + ["--out", "/proc/x"], capsys).startswith(
        "error: --out /proc/x cannot be written: /proc: ")
    (tmp_path / "m").mkdir()
    (tmp_path / "m" / "records").write_text("")
    assert _fails_cleanly(RANDOM_VS_MATERIAL + ["--out", str(tmp_path / "m"), "--records", "kifu"], capsys) == \
        f"error: --out's records folder {tmp_path / 'm' / 'records'} is a file, not a folder"
    assert target.read_text() == "mine\n" and sorted(p.name for p in (tmp_path / "m").iterdir()) == ["records"]


def test_name_that_cannot_head_a_record_fails_before_any_game(tmp_path, capsys):
    """It used to play every game, then fail with a traceback writing the KIF records."""
    out = tmp_path / "m"
    line = _fails_cleanly(RANDOM_VS_MATERIAL + ["--name1", "a\nb", "--out", str(out), "--records", "kifu"], capsys)
    assert line.startswith("error: a player's name must be one line of printable text")
    assert not out.exists()


def test_setup_errors_of_engines_fail_before_any_game(fake, tmp_path, capsys):
    out = tmp_path / "m"
    line = _fails_cleanly([str(tmp_path / "no-engine"), "gamelib:random", "--games", "2", "--nodes", "10",
                           "--out", str(out), "--no-progress"], capsys)
    assert line == f"error: player '{tmp_path / 'no-engine'}': the engine did not start: No such file or directory"
    line = _fails_cleanly([fake("good"), "gamelib:random", "--games", "2", "--nodes", "10", "--option", "Hash=16",
                           "--name1", "fake", "--out", str(out), "--no-progress"], capsys)
    assert line.startswith("error: player 'fake': the engine has no option 'Hash'")
    assert not out.exists()
    assert _no_process_left(fake) == []


# ----------------------------------------------------------------------------- statistics
def test_elo_interval_and_los_known_values():
    # 60 wins, 20 draws, 20 losses: mean 0.7, per-game variance (60·0.09 + 20·0.04 + 20·0.49)/100 = 0.16
    elo, lo, hi = elo_interval(Record(60, 20, 20))
    assert elo == pytest.approx(-400 * math.log10(1 / 0.7 - 1))
    half = 1.959963984540054 * math.sqrt(0.16 / 100)
    assert lo == pytest.approx(-400 * math.log10(1 / (0.7 - half) - 1))
    assert hi == pytest.approx(-400 * math.log10(1 / (0.7 + half) - 1))
    assert likelihood_of_superiority(Record(60, 20, 20)) == pytest.approx(0.5 * (1 + math.erf(40 / math.sqrt(160))))
    assert likelihood_of_superiority(Record(0, 5, 0)) == 0.5


def test_sprt_llr_bounds_and_symmetry():
    sprt = Sprt(0, 10, 0.05, 0.05)
    assert sprt.bounds == pytest.approx((math.log(0.05 / 0.95), math.log(0.95 / 0.05)))
    # a score exactly between s0 and s1 has LLR 0; mirrored hypotheses mirror the LLR
    assert Sprt(-10, 10).llr(Record(30, 40, 30)) == pytest.approx(0.0)
    assert Sprt(-10, 10).llr(Record(40, 20, 30)) == pytest.approx(-Sprt(-10, 10).llr(Record(30, 20, 40)))
    assert sprt.decision(Record(300, 100, 100)) == "H1"
    assert sprt.decision(Record(100, 100, 300)) == "H0"
    with pytest.raises(ValueError, match="below elo1"):
        Sprt(5, 5)


def test_sprt_llr_is_the_exact_gsprt():
    from gamelib.play.match_stats import score_moments
    from gamelib.play.stats import expected_score
    sprt = Sprt(-20, 20)
    s0, s1 = expected_score(-20), expected_score(20)
    # every game won: the best trinomials put the rest on losses, p(win) = s
    assert sprt.llr(Record(7, 0, 0)) == pytest.approx(7 * math.log(s1 / s0))
    assert sprt.llr(Record(0, 0, 7)) == pytest.approx(7 * math.log((1 - s1) / (1 - s0)))
    # many games: the normal approximation (Van den Bergh) agrees closely
    rec = Record(400, 250, 350)
    mu, var = score_moments(rec)
    approx = rec.games * (s1 - s0) * (2 * mu - s0 - s1) / (2 * var)
    assert sprt.llr(rec) == pytest.approx(approx, rel=0.02)


def test_elo_interval_of_a_clean_sweep_has_a_finite_bound():
    from gamelib.play.stats import wilson_interval
    elo, lo, hi = elo_interval(Record(10, 0, 0))
    assert elo == hi == math.inf
    assert lo == pytest.approx(-400 * math.log10(1 / wilson_interval(10, 10)[0] - 1)) and lo > 0
