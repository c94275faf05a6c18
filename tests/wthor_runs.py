"""What the tests of the experiments on WTHOR records share: the skip when the records are
absent, the command line of a tiny run, its files, waiting for a checkpoint, a run killed there
and finished by a rerun."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from gamelib.games.othello import wthor


def wthor_missing(year: int = 1980) -> str | None:
    """Why the WTHOR records of ``year`` cannot be read here, or None."""
    try:
        folder = wthor.find_wthor_dir()
    except FileNotFoundError as err:
        return str(err)
    if not (folder / f"WTH_{year}.wtb").is_file():
        return f"no WTH_{year}.wtb in {folder}; run `python -m gamelib.games.othello.download`"
    return None


needs_wthor = pytest.mark.skipif(wthor_missing() is not None,
                                 reason=f"WTHOR records absent: {wthor_missing()}")


def experiment_argv(name: str, quick, out, sizes, workers: int = 1, seed: int = 3) -> list:
    """The command line of experiment ``name`` at ``sizes``: the quick profile (``quick``, its
    sizes) with ``-p`` for every size that differs from it."""
    args = [sys.executable, "-m", "gamelib.experiments", name, "--profile", "quick",
            "--out", str(out), "--workers", str(workers), "--no-progress", "--seed", str(seed)]
    for key, value in sizes.items():
        if quick[key] != value:
            args += ["-p", key, json.dumps(value)]
    return args


def read_files(out, names) -> dict:
    """``{name: bytes}`` of the files ``names`` in the folder ``out``."""
    return {name: (Path(out) / name).read_bytes() for name in names}


def listing(folder: Path) -> dict:
    """``{relative path: bytes}`` of every file under ``folder``."""
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(Path(folder).rglob("*"))
            if p.is_file()}


def kill_at(argv, out, checkpoint: str, cwd) -> None:
    """Run ``argv`` (writing into ``out``) until it has saved ``out/checkpoint``, and SIGKILL it
    there."""
    proc = start_paused_at(argv, out, checkpoint, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL, cwd=cwd)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(60)


def finish(argv, cwd) -> None:
    """Rerun ``argv`` to the end (it must succeed: its stderr is the failure's message)."""
    done = subprocess.run(argv, capture_output=True, text=True, cwd=cwd)
    assert done.returncode == 0, done.stderr


def paused_at(checkpoint: str) -> dict:
    """The environment of a run that stops itself (SIGSTOP) once it has saved the checkpoint
    whose path ends with ``checkpoint``: the test then kills it there, however fast it runs."""
    return {**os.environ, "GAMELIB_PAUSE_AFTER": checkpoint}


def start_paused_at(argv, out, checkpoint: str, **popen_args) -> subprocess.Popen:
    """Start the run ``argv`` writing into ``out`` and return its process once it has saved
    ``out/checkpoint`` and stopped itself there (:func:`paused_at`)."""
    proc = subprocess.Popen(argv, env=paused_at(checkpoint), **popen_args)
    wait_for(Path(out) / checkpoint, proc)
    return proc


def wait_for(path: Path, proc, timeout: float = 300.0, poll: float = 0.05) -> None:
    """Wait until ``path`` exists while the process ``proc`` still runs."""
    end = time.monotonic() + timeout
    while not path.exists():
        assert proc.poll() is None, "the run ended before it could be stopped"
        assert time.monotonic() < end, f"{path} did not appear"
        time.sleep(poll)
