"""Expected failures of ``python -m gamelib.experiments``: one line ``error: ...`` naming the
problem and the path, exit status 2, no traceback, and nothing written."""

import contextlib
import errno
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import experiments_toy as toy
from gamelib.runtime.checkpoint import CheckpointStore
from gamelib.experiments.cli import main
from gamelib.experiments.registry import discover


def listing(folder: Path) -> dict:
    """Every path below ``folder`` with its bytes (None for folders)."""
    if not folder.exists():
        return {}
    return {str(p.relative_to(folder)): None if p.is_dir() else p.read_bytes()
            for p in sorted(folder.rglob("*"))}


def fails_cleanly(argv, capsys, registry=None) -> str:
    """Run the command line; it must return 2 with one ``error:`` line; returns that line."""
    status = main(argv, toy.registry() if registry is None else registry)
    err = capsys.readouterr().err
    assert status == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), err
    return lines[0]


def toy_argv(out, *more):
    return ["toy", "--out", str(out), "--workers", "1", "--no-progress", *more]


@contextlib.contextmanager
def mounted_tmpfs(folder: Path, options: str):
    """A tmpfs at ``folder`` (root only; skips where mounting is not allowed)."""
    folder.mkdir(parents=True, exist_ok=True)
    if os.geteuid() != 0 or subprocess.run(["mount", "-t", "tmpfs", "-o", options, "tmpfs",
                                            str(folder)], capture_output=True).returncode:
        pytest.skip("cannot mount a tmpfs here")
    try:
        yield folder
    finally:
        subprocess.run(["umount", "-l", str(folder)], check=True)


def test_out_naming_a_file(tmp_path, capsys):
    target = tmp_path / "notes.txt"
    target.write_text("mine\n")
    line = fails_cleanly(toy_argv(target), capsys)
    assert line == f"error: run folder {target} is a file, not a folder"
    line = fails_cleanly(toy_argv(target / "run"), capsys)
    assert line == f"error: run folder {target / 'run'} cannot be made: {target} is a file"
    assert listing(tmp_path) == {"notes.txt": b"mine\n"}


def test_out_under_proc(capsys):
    out = Path("/proc/gamelib-no-such/run")
    line = fails_cleanly(toy_argv(out), capsys)
    assert line.startswith(f"error: run folder {out} cannot be written: /proc: ")


def test_out_in_a_folder_that_cannot_be_written(tmp_path, capsys):
    readonly = tmp_path / "ro"
    if os.geteuid() != 0:
        readonly.mkdir()
        readonly.chmod(0o555)
        context = contextlib.nullcontext(readonly)
    else:
        context = mounted_tmpfs(readonly, "ro,size=64k")
    with context:
        line = fails_cleanly(toy_argv(readonly / "run"), capsys)
        assert line.startswith(f"error: run folder {readonly / 'run'} cannot be written: "
                               f"{readonly}: ")
        assert listing(readonly) == {}


def test_run_folder_in_use_by_another_run(tmp_path, capsys):
    out = tmp_path / "run"
    assert main(toy_argv(out), toy.registry()) == 0
    before = listing(out)
    with CheckpointStore(out, {"config": toy.CONFIG, "seed": 0}):    # another run holds it
        line = fails_cleanly(toy_argv(out, "-p", "n_batches", "5"), capsys)
    assert line.startswith(f"error: run folder {out} is in use by another process")
    assert listing(out) == before


def test_unreachable_scheduler_is_refused_before_anything_is_made(tmp_path, capsys):
    out = tmp_path / "run"
    line = fails_cleanly(toy_argv(out, "--scheduler", "tcp://127.0.0.1:1"), capsys)
    assert line.startswith("error: no Dask scheduler answers at tcp://127.0.0.1:1 within 5 s")
    assert not out.exists()


def test_disk_full(tmp_path, capsys, monkeypatch):
    """ENOSPC when the first file is made durable: the error names that file, and no
    temporary file is left."""
    def full(fd):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    out = tmp_path / "run"
    monkeypatch.setattr(os, "fsync", full)
    line = fails_cleanly(toy_argv(out), capsys)
    assert line == f"error: {out / 'manifest.json'}: No space left on device"
    assert not out.exists()


def test_disk_really_full(tmp_path, capsys):
    with mounted_tmpfs(tmp_path / "tiny", "size=64k") as tiny:
        with contextlib.suppress(OSError), open(tiny / "filler", "wb") as fh:
            while True:
                fh.write(b"x" * 4096)
                fh.flush()
        line = fails_cleanly(toy_argv(tiny / "run"), capsys)
        assert line.startswith(f"error: {tiny / 'run'}/")
        assert line.endswith(": No space left on device")
        assert sorted(listing(tiny)) == ["filler"]


def finished_pgleaf_run(folder: Path) -> dict:
    folder.mkdir(parents=True)
    (folder / "provenance.json").write_text(json.dumps({"experiment": "pgleaf", "seed": 0}))
    (folder / "training.csv").write_text("games\n100\n")
    return listing(folder)


def test_another_experiments_run_folder_is_refused_before_anything_is_written(tmp_path,
                                                                               capsys):
    registry = discover()
    finished = tmp_path / "pgleaf_done"
    before = finished_pgleaf_run(finished)
    line = fails_cleanly(["elmo_shogi", "--out", str(finished), "--workers", "1"], capsys, registry)
    assert line == (f"error: run folder {finished} holds a run of experiment 'pgleaf', not "
                    f"'elmo_shogi'; choose another --out")
    assert listing(finished) == before
    unfinished = tmp_path / "pgleaf_half"           # killed in training: no provenance yet
    (unfinished / "train").mkdir(parents=True)
    (unfinished / "train" / "manifest.json").write_text(json.dumps(
        {"format": "gamelib-run/1", "config": {"config": {"experiment": "pgleaf"}, "seed": 0}}))
    before = listing(unfinished)
    line = fails_cleanly(["bonanza_shogi", "--out", str(unfinished), "--workers", "1"], capsys,
                         registry)
    assert "holds a run of experiment 'pgleaf', not 'bonanza_shogi'" in line
    assert listing(unfinished) == before


def test_a_folder_of_other_files_is_refused(tmp_path, capsys):
    (tmp_path / "thesis.tex").write_text("x")
    line = fails_cleanly(toy_argv(tmp_path), capsys)
    assert line.startswith(f"error: folder {tmp_path} is not a run folder")
    assert listing(tmp_path) == {"thesis.tex": b"x"}


def test_debug_variable_shows_the_traceback(tmp_path, monkeypatch):
    target = tmp_path / "file"
    target.write_text("")
    monkeypatch.setenv("GAMELIB_DEBUG", "1")
    with pytest.raises(ValueError, match="is a file, not a folder"):
        main(toy_argv(target), toy.registry())


def test_command_line_prints_one_line_and_exits_2(tmp_path):
    target = tmp_path / "file"
    target.write_text("")
    done = subprocess.run([sys.executable, "-m", "gamelib.experiments", "pgleaf", "--out",
                           str(target)], capture_output=True, text=True)
    assert done.returncode == 2
    assert done.stderr == f"error: run folder {target} is a file, not a folder\n"
