"""Fake GTP Othello engines for the tests: a script whose MODE decides how it misbehaves.

The fixture ``fake`` writes the script to tmp_path and gives ``fake(MODE)``, the command line
``python gtp_fake.py MODE PIDDIR``: the engine notes its pid in PIDDIR (``alive_engines(fake)``
lists those still running) and keeps its own board (plain Python, no gamelib: it starts at
once). A well-behaved mode plays the first legal move in square order (a1, b1, ..., h8) and
passes when it must.
"""

import os
import sys

import pytest

FAKE = r'''
import os, signal, sys, time
mode, piddir = sys.argv[1], sys.argv[2]
open(os.path.join(piddir, str(os.getpid())), "w").close()
if mode == "exit_at_start":
    sys.exit(3)
if mode == "stubborn":
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
DIRS = [(-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1)]
board = {}

def reset():
    board.clear()
    board.update({(3, 3): "w", (4, 4): "w", (4, 3): "b", (3, 4): "b"})

def flips(c, r, me):
    if (c, r) in board:
        return []
    other, out = ("w" if me == "b" else "b"), []
    for dc, dr in DIRS:
        line, x, y = [], c + dc, r + dr
        while 0 <= x < 8 and 0 <= y < 8 and board.get((x, y)) == other:
            line.append((x, y)); x += dc; y += dr
        if line and 0 <= x < 8 and 0 <= y < 8 and board.get((x, y)) == me:
            out += line
    return out

def legal(me):
    return [(c, r) for r in range(8) for c in range(8) if flips(c, r, me)]

def put(c, r, me):
    for sq in flips(c, r, me) + [(c, r)]:
        board[sq] = me

def name(c, r):
    return "abcdefgh"[c] + str(r + 1)

def say(text, ok=True):
    if mode == "noisy":
        sys.stdout.write("thinking... " + text + "\n")
    sys.stdout.write(("= " if ok else "? ") + text + "\n\n"); sys.stdout.flush()

reset()
moves = 0
for line in sys.stdin:
    cmd = line.split()
    if not cmd:
        continue
    if cmd[0] == "name":
        if mode == "no_name":
            continue
        say("Fake " + mode)
    elif cmd[0] == "boardsize":
        say("" if mode != "no_boardsize" else "unacceptable size", ok=mode != "no_boardsize")
    elif cmd[0] == "clear_board":
        reset(); say("")
    elif cmd[0] == "play":
        me, where = cmd[1][0], cmd[2].lower()
        if mode == "refuse_play":
            say("illegal move", ok=False); continue
        if where != "pass":
            put("abcdefgh".index(where[0]), int(where[1]) - 1, me)
        say("")
    elif cmd[0] == "genmove":
        me = cmd[1][0]
        moves += 1
        mine = legal(me)
        if mode == "hang":
            continue
        if mode == "die_midgame":
            sys.exit(4)
        if mode == "garbage":
            say("xyzzy"); continue
        if mode == "illegal":
            say("a1"); continue
        if mode == "resign":
            say("resign"); continue
        if mode == "pass_with_moves":
            say("pass"); continue
        if mode == "slow":
            time.sleep(0.05)
        if not mine:
            if mode == "move_when_must_pass":
                c, r = next((c, r) for r in range(8) for c in range(8) if (c, r) not in board)
                say(name(c, r).upper())
            else:
                say("PASS")
            continue
        c, r = mine[0]
        put(c, r, me)
        say(name(c, r).upper())
    elif cmd[0] == "quit":
        if mode != "stubborn":
            say("")
            break
        say("")
    else:
        say("unknown command", ok=False)
'''


@pytest.fixture()
def fake(tmp_path):
    script = tmp_path / "gtp_fake.py"
    script.write_text(FAKE)
    piddir = tmp_path / "pids"
    piddir.mkdir()

    def command(mode: str) -> str:
        return f"{sys.executable} {script} {mode} {piddir}"

    command.piddir = piddir
    return command


def alive(pid: int) -> bool:
    """Whether process ``pid`` runs (a zombie is gone but for its exit status)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    with open(f"/proc/{pid}/stat") as f:
        return f.read().split(")")[-1].split()[0] != "Z"


def alive_engines(fake) -> list[int]:
    """The fake engines of ``fake`` still running (at least one must have run)."""
    pids = [int(p.name) for p in fake.piddir.iterdir()]
    assert pids, "the fake engine never ran"
    return [pid for pid in pids if alive(pid)]
