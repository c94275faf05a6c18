"""The USI engine driven through a pipe: protocol, errors, garbage, stop, a game between two."""

from __future__ import annotations

import os
import queue
import random
import subprocess
import sys
import threading
import time

import numpy as np
import pytest

from gamelib.games.minishogi import features as ev
from gamelib.games.minishogi import Position
from gamelib.play.usi import CP_PER_UNIT, score_text

FIRST_READY_TIMEOUT = 600  # the first start may compile the search (numba cache)
TIMEOUT = 60


class UsiProcess:
    """An engine subprocess with a reader thread collecting its output lines."""

    def __init__(self):
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "gamelib.play.usi"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=dict(os.environ),
        )
        self.lines: queue.Queue[str | None] = queue.Queue()
        self.log: list[str] = []
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self):
        for raw in self.proc.stdout:
            self.lines.put(raw.decode("utf-8", errors="replace").rstrip("\n"))
        self.lines.put(None)

    def send(self, text: str | bytes) -> None:
        data = text if isinstance(text, bytes) else (text + "\n").encode()
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def expect(self, prefix: str, timeout: float = TIMEOUT) -> list[str]:
        """Lines up to and including the first one starting with ``prefix``."""
        got = []
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"no {prefix!r} within {timeout} s; got {got[-20:]}; stderr: {self.stderr()}")
            try:
                line = self.lines.get(timeout=left)
            except queue.Empty:
                continue
            if line is None:
                raise AssertionError(f"engine exited before {prefix!r}; got {got[-20:]}; stderr: {self.stderr()}")
            got.append(line)
            self.log.append(line)
            if line.startswith(prefix):
                return got

    def drain(self, wait: float = 0.3) -> list[str]:
        got = []
        end = time.monotonic() + wait
        while time.monotonic() < end:
            try:
                line = self.lines.get(timeout=0.05)
            except queue.Empty:
                continue
            if line is None:
                break
            got.append(line)
        return got

    def stderr(self) -> str:
        if self.proc.poll() is None:
            return "(running)"
        return self.proc.stderr.read().decode(errors="replace")[-2000:]

    def ready(self, timeout: float = TIMEOUT) -> None:
        self.send("isready")
        self.expect("readyok", timeout)

    def close(self) -> int:
        if self.proc.poll() is None:
            try:
                self.send("quit")
            except BrokenPipeError:
                pass
        try:
            return self.proc.wait(timeout=TIMEOUT)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()


@pytest.fixture(scope="module")
def engine():
    e = UsiProcess()
    e.send("usi")
    lines = e.expect("usiok")
    assert lines[0].startswith("id name ") and lines[1].startswith("id author ")
    names = {ln.split()[2] for ln in lines if ln.startswith("option name")}
    assert {"EvalFile", "Nodes", "Depth", "QDepth", "NoiseStd", "Seed", "USI_Hash"} <= names
    e.ready(FIRST_READY_TIMEOUT)
    yield e
    assert e.close() == 0


def bestmove(lines):
    assert lines[-1].startswith("bestmove ")
    return lines[-1].split()[1]


def test_go_nodes_gives_a_legal_deterministic_move(engine):
    moves = "2e3d 4a3b 3d2c"
    engine.send(f"position startpos moves {moves}")
    engine.send("go nodes 5000")
    lines = engine.expect("bestmove")
    pos = Position()
    for m in moves.split():
        pos.push_usi(m)
    best = bestmove(lines)
    assert best in pos.legal_moves
    infos = [ln for ln in lines if ln.startswith("info depth")]
    assert infos, lines
    for ln in infos:
        f = ln.split()
        for key in ("depth", "seldepth", "score", "nodes", "nps", "time", "pv"):
            assert key in f
        assert f[f.index("score") + 1] in ("cp", "mate")
        assert int(f[f.index("nodes") + 1]) <= 5000
        pv = f[f.index("pv") + 1 :]
        p = pos.copy()
        for m in pv:  # the PV is legal in USI coordinates
            assert m in p.legal_moves
            p.push_usi(m)
    assert infos[-1].split()[infos[-1].split().index("pv") + 1] == best
    engine.send("go nodes 5000")
    assert bestmove(engine.expect("bestmove")) == best  # same position, options, budget


def test_go_depth_and_mate(engine):
    engine.send("position sfen 4k/5/2G2/5/K4 b G 1")
    engine.send("go depth 3")
    lines = engine.expect("bestmove")
    assert bestmove(lines) == "G*2b"
    assert any("score mate 1 " in ln for ln in lines)
    engine.send("position sfen 4k/5/2G2/5/K4 b G 1 moves G*2b")
    engine.send("go nodes 1000")
    assert bestmove(engine.expect("bestmove")) == "resign"


def test_go_infinite_waits_for_stop(engine):
    engine.send("position startpos")
    engine.send("go infinite")
    time.sleep(0.5)
    assert not any(ln.startswith("bestmove") for ln in engine.drain(0.3))
    engine.send("stop")
    assert bestmove(engine.expect("bestmove")) in Position().legal_moves
    # even when the search itself is over (a mate), infinite keeps the move until stop
    engine.send("position sfen 4k/5/2G2/5/K4 b G 1")
    engine.send("go infinite")
    time.sleep(0.5)
    assert not any(ln.startswith("bestmove") for ln in engine.drain(0.3))
    engine.send("isready")  # answered while searching
    engine.expect("readyok")
    engine.send("stop")
    assert bestmove(engine.expect("bestmove")) == "G*2b"


def test_time_controls_end_the_search(engine):
    engine.send("position startpos moves 2e3d")
    engine.send("go movetime 200")
    assert bestmove(engine.expect("bestmove")) in Position("rbsgk/4p/5/P1B2/KGS1R w - 2").legal_moves
    engine.send("go btime 1000 wtime 1000 byoyomi 100")
    engine.expect("bestmove")
    engine.send("go wtime 0 btime 0 binc 50 winc 50")
    engine.expect("bestmove")


def test_bad_commands_keep_the_position(engine, tmp_path):
    engine.send("position startpos moves 2e3d")
    bad = [
        "position sfen rbsgk/4p/5/P4/KGSBX b - 1",
        "position startpos moves 2e3d 2e3d",
        "position startpos moves 9z9z",
        "position",
        "position foo",
        "position startpos extra moves",
        "go nodes",
        "go nodes abc",
        "go nodes -1",
        "go depth 0",
        "go wtime",
        "go sideways 3",
        "setoption",
        "setoption name",
        "setoption name NoSuchOption value 3",
        "setoption name Nodes value -7",
        "setoption name Nodes value 99999999999999999999999",
        "setoption name NoiseStd value nan",
        "setoption name QDepth value 1.5",
        "setoption name USI_Ponder value maybe",
        "setoption name USI_Ponder",
        "go nodes 1e400",
        "go ponder nodes x",
        "go depth -5",
        "go movetime 99999999999999999999999999999 sideways",
        "position startpos moves 2e3d 4a3b 3d2c 5a4a 2c1b+ 1a1b",
        "position sfen rbsgk/4p/5/P4/KGSBR b - 99999999999999999999999999",
        "\x00\x01binary\xff",
        f"setoption name EvalFile value {tmp_path / 'missing.npz'}",
        "frobnicate",
    ]
    for cmd in bad:
        engine.send(cmd)
        lines = engine.expect("info string error")
        assert len(lines) == 1, (cmd, lines)
    engine.send("d")
    lines = engine.expect("info string sfen")
    assert lines[-1] == "info string sfen rbsgk/4p/5/P1B2/KGS1R w - 2"


def test_eval_file(engine, tmp_path):
    good = tmp_path / "theta.npz"
    ev.save_theta(good, ev.table1_theta())
    engine.send(f"setoption name EvalFile value {good}")
    assert engine.expect("info string")[-1].startswith("info string EvalFile")
    junk = tmp_path / "junk.npz"
    junk.write_bytes(bytes(random.Random(1).randrange(256) for _ in range(3000)))
    engine.send(f"setoption name EvalFile value {junk}")
    engine.expect("info string error")
    wrong = tmp_path / "wrong.npz"
    np.savez(wrong, theta=np.zeros(10), layout=np.array("othello"), version=np.array(1))
    engine.send(f"setoption name EvalFile value {wrong}")
    engine.expect("info string error")
    engine.send("position startpos")
    engine.send("go nodes 2000")
    assert bestmove(engine.expect("bestmove")) in Position().legal_moves
    engine.send("setoption name EvalFile value <empty>")  # back to the default weights
    engine.ready()


def test_garbage_never_kills_the_engine(engine):
    rng = random.Random(2024)
    words = ["usi", "isready", "go", "position", "setoption", "name", "value", "startpos", "sfen",
             "moves", "nodes", "depth", "infinite", "movetime", "btime", "wtime", "byoyomi",
             "ponder", "ponderhit", "stop", "usinewgame", "gameover", "d", "EvalFile", "Nodes",
             "USI_Hash", "2e3d", "G*2b", "5e4d", "-1", "0", "1", "99999999999999999999999999",
             "1e400", "rbsgk/4p/5/P4/KGSBR", "b", "w", "-", "\t", "mate", "+", "*"]
    for _ in range(300):
        kind = rng.random()
        if kind < 0.4:
            line = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 60)))
            line = line.replace(b"\n", b" ").replace(b"\r", b" ")
            if line.split()[:1] == [b"quit"]:
                continue
            engine.send(line + b"\n")
        else:
            toks = [rng.choice(words) for _ in range(rng.randrange(1, 9))]
            engine.send(" ".join(toks))
    engine.send("x" * 100_000)  # a very long line
    engine.send("stop")
    engine.drain(1.0)
    engine.ready()
    assert engine.proc.poll() is None
    engine.send("usinewgame")
    engine.send("setoption name EvalFile value <empty>")
    engine.send("setoption name Nodes value 200000")
    engine.send("position startpos")
    engine.send("go nodes 3000")
    assert bestmove(engine.expect("bestmove")) in Position().legal_moves


def fsf_move(usi: str) -> str:
    """USI -> Fairy-Stockfish's internal coordinates, by the formula of its USI mode
    (uci.cpp: file char = '1' + max_file - file, rank char = 'a' + max_rank - rank)."""

    def sq(name):
        return "abcde"[5 - int(name[0])] + str(5 - "abcde".index(name[1]))

    if "*" in usi:
        return usi[0] + "@" + sq(usi[2:4])
    return sq(usi[0:2]) + sq(usi[2:4]) + ("+" if usi.endswith("+") else "")


def test_a_game_between_two_engines():
    """Two engine processes play a game; every move is legal for our rules and, in standard
    USI coordinates, for Fairy-Stockfish's minishogi (pyffish)."""
    import pyffish as sf

    start_fen = sf.start_fen("minishogi")
    a, b = UsiProcess(), UsiProcess()
    try:
        for e, seed in ((a, 1), (b, 2)):
            e.send("usi")
            e.expect("usiok", FIRST_READY_TIMEOUT)
            e.send("setoption name NoiseStd value 0.0316")
            e.send(f"setoption name Seed value {seed}")
            e.send("setoption name MaxPlies value 60")
            e.ready(FIRST_READY_TIMEOUT)
            e.send("usinewgame")
        pos = Position(max_plies=60)
        played = []
        while pos.outcome() is None:
            e = a if pos.turn == "sente" else b
            e.send("position startpos" + (" moves " + " ".join(played) if played else ""))
            e.send("go nodes 3000")
            move = bestmove(e.expect("bestmove"))
            assert move != "resign"  # the game is not over, so there is a legal move
            assert move in pos.legal_moves
            assert fsf_move(move) in sf.legal_moves("minishogi", start_fen, [fsf_move(m) for m in played])
            pos.push_usi(move)
            played.append(move)
        assert pos.outcome() in ("sente", "gote", "draw") and len(played) >= 2
    finally:
        assert a.close() == 0 and b.close() == 0


def test_end_of_input_and_quit_exit_cleanly():
    e = UsiProcess()
    e.send("usi")
    e.expect("usiok", FIRST_READY_TIMEOUT)
    e.send("position startpos")
    e.send("go infinite")
    e.proc.stdin.close()  # the GUI went away: stop the search, answer, exit
    assert e.proc.wait(timeout=TIMEOUT) == 0
    rest = []
    while True:
        line = e.lines.get(timeout=TIMEOUT)
        if line is None:
            break
        rest.append(line)
    assert rest and rest[-1].startswith("bestmove")


def test_score_conversion():
    assert score_text(0.02) == "cp 100" and CP_PER_UNIT == 5000
    assert score_text(-0.3) == "cp -1500"
    assert score_text(999.0) == "mate 1" and score_text(-996.0) == "mate -4"


def _last_pv(lines):
    infos = [ln.split() for ln in lines if ln.startswith("info depth") and " pv " in ln]
    return infos[-1][infos[-1].index("pv") + 1 :]


def test_usi_ponder_option_gives_the_expected_reply(engine):
    engine.send("usi")
    assert "option name USI_Ponder type check default false" in engine.expect("usiok")
    engine.send("setoption name USI_Ponder value true")
    engine.send("position startpos moves 2e3d")
    engine.send("go nodes 5000")
    lines = engine.expect("bestmove")
    words = lines[-1].split()
    pv = _last_pv(lines)
    assert len(pv) >= 2 and words == ["bestmove", pv[0], "ponder", pv[1]]
    pos = Position("rbsgk/4p/5/P1B2/KGS1R w - 2")
    pos.push_usi(pv[0])
    assert pv[1] in pos.legal_moves
    engine.send("setoption name USI_Ponder value false")
    engine.send("go nodes 5000")
    assert engine.expect("bestmove")[-1] == f"bestmove {pv[0]}"  # same search, no ponder field


def test_go_ponder_without_a_clock_ends_by_its_budget_after_ponderhit(engine):
    engine.send("setoption name USI_Ponder value true")
    engine.send("position startpos moves 2e3d 4a3b")
    engine.send("go nodes 4000")
    expected = engine.expect("bestmove")[-1]
    for go in ("go ponder nodes 4000", "go ponder"):
        if go == "go ponder":
            engine.send("setoption name Nodes value 4000")  # the budget of a go without limits
        engine.send(go)
        time.sleep(0.5)
        assert not any(ln.startswith("bestmove") for ln in engine.drain(0.5))  # held while pondering
        engine.send("ponderhit")
        assert engine.expect("bestmove", timeout=30)[-1] == expected  # deterministic, as 'go nodes'
    engine.send("go ponder depth 2")
    time.sleep(0.3)
    engine.send("ponderhit")
    pos = Position()
    for m in ("2e3d", "4a3b"):
        pos.push_usi(m)
    assert bestmove(engine.expect("bestmove", timeout=30)) in pos.legal_moves
    engine.send("setoption name Nodes value 200000")
    engine.send("setoption name USI_Ponder value false")


def test_go_ponder_with_a_clock_waits_for_ponderhit_then_the_clock(engine):
    engine.send("position startpos")
    engine.send("go ponder btime 1000 wtime 1000 byoyomi 200")
    time.sleep(1.5)  # longer than the move time: the clock starts at ponderhit
    assert not any(ln.startswith("bestmove") for ln in engine.drain(0.3))
    engine.send("ponderhit")
    assert bestmove(engine.expect("bestmove", timeout=30)) in Position().legal_moves


def test_stop_during_ponder_answers_bestmove(engine):
    engine.send("position startpos")
    for go in ("go ponder", "go ponder btime 5000 wtime 5000", "go ponder infinite"):
        engine.send(go)
        time.sleep(0.3)
        engine.send("stop")
        assert bestmove(engine.expect("bestmove", timeout=30)) in Position().legal_moves
    engine.ready()
