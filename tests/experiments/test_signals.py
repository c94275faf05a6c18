"""SIGTERM and SIGHUP stop a parallel run and every process it started; the run then resumes.

A real two-worker run of the command line (the toy experiment of ``experiments_toy``, on a
forkserver process pool) is started in a session of its own; once it has checkpointed, the
signal goes to its main process only (as ``kill``, ``timeout`` or a batch scheduler send it).
Within seconds no process of that session may be left -- no pool worker, forkserver or resource
tracker -- and the same command must finish the run with the numbers of an uninterrupted one.
"""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import experiments_toy as toy
from process_tree import session_members
from gamelib.runtime.atomic import read_json
from gamelib.runtime.checkpoint import MANIFEST, CheckpointStore

N_BATCHES = 12
TOY_SCRIPT = Path(toy.__file__)
STOP_WITHIN = 15.0      # seconds; the workers get 2 s after SIGTERM, then SIGKILL


def completed(folder: Path) -> int:
    try:
        return read_json(folder / MANIFEST)["completed"]
    except (FileNotFoundError, ValueError):
        return 0


def cli(folder: Path):
    return [sys.executable, str(TOY_SCRIPT), "cli", "toy", "--workers", "2", "--out",
            str(folder), "-p", "n_batches", str(N_BATCHES), "--no-progress"]


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """The uninterrupted run's final state (serial: the executor never changes the numbers)."""
    return toy.run(tmp_path_factory.mktemp("reference"), seed=0, n_batches=N_BATCHES).state


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc")
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP], ids=lambda s: s.name)
def test_signal_stops_the_whole_run_which_then_resumes(sig, tmp_path, reference):
    folder = tmp_path / "run"
    env = dict(os.environ, TOY_JOB_SLEEP="0.3")
    log = tmp_path / "stderr.txt"       # a file, not a pipe: leftover workers would hold that
    with open(log, "w") as stderr:
        proc = subprocess.Popen(cli(folder), env=env, stdout=subprocess.DEVNULL, stderr=stderr,
                                start_new_session=True)
    try:
        deadline = time.monotonic() + 120
        while completed(folder) < 1 or len(session_members(proc.pid)) < 4:
            assert proc.poll() is None, log.read_text()
            assert time.monotonic() < deadline, "the run made no progress"
            time.sleep(0.05)
        assert completed(folder) < N_BATCHES
        time.sleep(0.2)                 # in the middle of a batch: the workers are busy
        proc.send_signal(sig)
        proc.wait(timeout=STOP_WITHIN)
        err = log.read_text()
        deadline = time.monotonic() + STOP_WITHIN
        while session_members(proc.pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        left = session_members(proc.pid)
    finally:
        for pid in session_members(proc.pid):
            os.kill(pid, signal.SIGKILL)
        proc.kill()
        proc.wait()
    assert not left, f"processes of the run still alive after {sig.name}: {left}"
    assert proc.returncode == 128 + sig, err
    assert f"stopped by {sig.name}: rerun the same command to resume" in err
    assert "Traceback" not in err
    assert not list(folder.glob(".*.tmp")), "a temporary file was left behind"
    stopped_at = completed(folder)
    assert 1 <= stopped_at < N_BATCHES

    done = subprocess.run(cli(folder), capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    with CheckpointStore(folder, {"config": toy.CONFIG, "seed": 0}) as store:
        state = store.latest().arrays
        assert store.completed == N_BATCHES
    assert state.keys() == reference.keys()
    for name in state:
        assert state[name].tobytes() == reference[name].tobytes(), name


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc")
def test_a_plain_script_using_the_executor_leaves_no_worker_behind(tmp_path):
    """No command-line handler here: the executor itself turns SIGTERM into an interrupt
    while its pool is open (e.g. a tournament run from a script)."""
    script = ("import time\nfrom gamelib.runtime.executor import map_ordered\n"
              "map_ordered(time.sleep, [0.5] * 400, workers=2)\n")
    proc = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        deadline = time.monotonic() + 120
        while len(session_members(proc.pid)) < 5:   # main, tracker, forkserver, 2 workers
            assert proc.poll() is None
            assert time.monotonic() < deadline, "the pool never started"
            time.sleep(0.05)
        proc.send_signal(signal.SIGTERM)
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
    assert not left, f"processes left after SIGTERM: {left}"
