"""CheckpointStore: manifest, resume, pruning, tags, refusal of another run, damage, locking."""

import json
import subprocess
import sys

import numpy as np
import pytest

from gamelib.runtime.checkpoint import (MANIFEST, CheckpointStore, RunConfigMismatch,
                                            config_hash)

CONFIG = {"experiment": "toy", "seed": 3, "lr": 0.001, "sizes": {"games": 100, "m": [1, 2]}}


def state(k):
    return {"w": np.full(4, k, dtype=np.float64), "n": np.int64(k)}


def test_new_run_then_resume(tmp_path):
    folder = tmp_path / "run"
    with CheckpointStore(folder, CONFIG) as store:
        assert store.completed == 0 and store.latest() is None and store.checkpoints == []
        store.save(10, state(10), meta={"games": 1000})
        store.save(20, state(20))
    manifest = json.loads((folder / MANIFEST).read_text())
    assert manifest["format"] == "gamelib-run/1" and manifest["completed"] == 20
    assert manifest["config"] == CONFIG and manifest["config_hash"] == config_hash(CONFIG)
    assert [e["completed"] for e in manifest["checkpoints"]] == [10, 20]
    with CheckpointStore(folder, dict(CONFIG)) as store:
        latest = store.latest()
        assert latest.completed == 20 and latest.tag is None
        np.testing.assert_array_equal(latest.arrays["w"], state(20)["w"])
        assert latest.arrays["n"] == 20
        assert store.load(completed=10).meta == {"games": 1000}


def test_config_hash_is_canonical():
    reordered = {"sizes": {"m": (1, 2), "games": 100}, "lr": 0.001, "seed": 3,
                 "experiment": "toy"}
    assert config_hash(reordered) == config_hash(CONFIG)
    assert config_hash({**CONFIG, "lr": 0.01}) != config_hash(CONFIG)
    assert config_hash({**CONFIG, "seed": 3.0}) != config_hash(CONFIG)


def test_another_config_is_refused_with_the_differences(tmp_path):
    with CheckpointStore(tmp_path, CONFIG) as store:
        store.save(1, state(1))
    other = {**CONFIG, "lr": 0.01, "sizes": {"games": 100, "m": [1, 2], "extra": 1}}
    with pytest.raises(RunConfigMismatch) as info:
        CheckpointStore(tmp_path, other)
    message = str(info.value)
    assert "'lr': stored 0.001, requested 0.01" in message
    assert "'sizes.extra' is new" in message
    assert str(tmp_path) in message
    with pytest.raises(ValueError):       # a RunConfigMismatch is a ValueError
        CheckpointStore(tmp_path, {**CONFIG, "seed": 4})
    with CheckpointStore(tmp_path, CONFIG) as store:     # still usable with the right config
        assert store.completed == 1


def test_pruning_keeps_tagged_and_last_untagged(tmp_path):
    with CheckpointStore(tmp_path, CONFIG, keep_last=2) as store:
        for k in range(1, 8):
            store.save(k, state(k), tag="milestone" if k == 2 else None)
        assert [(e["completed"], e["tag"]) for e in store.checkpoints] == [
            (2, "milestone"), (6, None), (7, None)]
        files = sorted(p.name for p in tmp_path.glob("checkpoint-*.npz"))
        assert files == ["checkpoint-000000002.npz", "checkpoint-000000006.npz",
                         "checkpoint-000000007.npz"]
        assert store.load(tag="milestone").arrays["n"] == 2
        with pytest.raises(ValueError, match=r"no checkpoint at 4 completed; kept: "
                                             r"2 \(milestone\), 6, 7"):
            store.load(completed=4)
        with pytest.raises(ValueError, match="exactly one"):
            store.load()


def test_saving_again_at_the_same_count_replaces_and_keeps_the_tag(tmp_path):
    with CheckpointStore(tmp_path, CONFIG) as store:
        store.save(5, state(5), tag="t")
        store.save(5, state(50))
        (entry,) = store.checkpoints
        assert entry["tag"] == "t" and store.latest().arrays["n"] == 50


def test_bad_saves(tmp_path):
    with CheckpointStore(tmp_path, CONFIG) as store:
        store.save(5, state(5))
        with pytest.raises(ValueError, match="already has one at 5"):
            store.save(4, state(4))
        with pytest.raises(ValueError, match="completed must be"):
            store.save(-1, state(4))
        with pytest.raises(ValueError, match="tag"):
            store.save(6, state(6), tag="")
        store.save(6, state(6), tag="first")
        with pytest.raises(ValueError, match="tag 'first' already names the checkpoint at 6"):
            store.save(7, state(7), tag="first")
        with pytest.raises(ValueError, match="not plain JSON"):
            store.save(6, state(6), meta={"x": object()})
    with pytest.raises(ValueError, match="keep_last"):
        CheckpointStore(tmp_path, CONFIG, keep_last=0)
    with pytest.raises(ValueError, match="mapping"):
        CheckpointStore(tmp_path / "new", [1, 2])


def test_damaged_checkpoint_is_detected(tmp_path):
    with CheckpointStore(tmp_path, CONFIG) as store:
        path = store.save(3, state(3))
    data = bytearray(path.read_bytes())
    data[-30] ^= 0xFF
    path.write_bytes(bytes(data))
    with CheckpointStore(tmp_path, CONFIG) as store:
        with pytest.raises(ValueError, match="is damaged: its SHA-256"):
            store.latest()
    path.unlink()
    with CheckpointStore(tmp_path, CONFIG) as store:
        with pytest.raises(ValueError, match="is missing"):
            store.latest()


def test_damaged_manifest_and_foreign_folders(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "notes.txt").write_text("mine")
    with pytest.raises(ValueError, match="not a run folder .*notes.txt"):
        CheckpointStore(tmp_path / "a", CONFIG)
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / MANIFEST).write_text('{"format": "gamelib-run/1", "config": ')
    with pytest.raises(ValueError, match="corrupt JSON file"):
        CheckpointStore(tmp_path / "b", CONFIG)
    (tmp_path / "c").mkdir()
    (tmp_path / "c" / MANIFEST).write_text('{"format": "something else"}')
    with pytest.raises(ValueError, match="is not a gamelib-run/1 manifest"):
        CheckpointStore(tmp_path / "c", CONFIG)
    (tmp_path / "d").write_text("a file")
    with pytest.raises(ValueError, match="not a folder"):
        CheckpointStore(tmp_path / "d", CONFIG)


def test_leftovers_of_a_killed_writer_are_cleaned(tmp_path):
    with CheckpointStore(tmp_path, CONFIG) as store:
        store.save(1, state(1))
    (tmp_path / ".manifest.json.x1y2.tmp").write_text("{half")
    (tmp_path / "checkpoint-000000002.npz").write_bytes(b"written, never listed")
    with CheckpointStore(tmp_path, CONFIG) as store:
        assert store.completed == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        ".lock", "checkpoint-000000001.npz", MANIFEST]


def test_one_process_at_a_time(tmp_path):
    code = ("import sys; from gamelib.runtime.checkpoint import CheckpointStore\n"
            "try:\n    CheckpointStore(sys.argv[1], {'a': 1})\n"
            "except RuntimeError as e:\n    print(e)\n")
    with CheckpointStore(tmp_path, {"a": 1}):
        out = subprocess.run([sys.executable, "-c", code, str(tmp_path)], capture_output=True,
                             text=True, check=True).stdout
        assert "in use by another process" in out
    out = subprocess.run([sys.executable, "-c", code, str(tmp_path)], capture_output=True,
                         text=True, check=True).stdout
    assert out == ""


def test_gamelib_pause_after_stops_the_process_at_the_named_checkpoint(tmp_path):
    """The hook of the resumption tests: the process stops itself once the checkpoint named by
    GAMELIB_PAUSE_AFTER is on disk (and not at the ones before it), so that a test can kill it
    there however fast the machine is."""
    import os
    import signal
    import time
    script = ("import numpy as np, sys\n"
              "from gamelib.runtime.checkpoint import CheckpointStore\n"
              "with CheckpointStore(sys.argv[1], {'x': 1}, keep_last=5) as s:\n"
              "    for k in (1, 2, 3):\n"
              "        s.save(k, {'w': np.zeros(2)})\n")
    folder = tmp_path / "run"
    env = {**os.environ, "GAMELIB_PAUSE_AFTER": "run/checkpoint-000000002.npz"}
    proc = subprocess.Popen([sys.executable, "-c", script, str(folder)], env=env)
    try:
        end = time.monotonic() + 120
        while open(f"/proc/{proc.pid}/stat").read().rsplit(")", 1)[1].split()[0] != "T":
            assert proc.poll() is None, "the process ran past the checkpoint it was to stop at"
            assert time.monotonic() < end
            time.sleep(0.02)
        assert sorted(p.name for p in folder.glob("checkpoint-*")) == [
            "checkpoint-000000001.npz", "checkpoint-000000002.npz"]
        assert json.loads((folder / MANIFEST).read_text())["completed"] == 2
        proc.send_signal(signal.SIGCONT)            # resumed, it finishes the run
        assert proc.wait(60) == 0
        assert (folder / "checkpoint-000000003.npz").exists()
    finally:
        proc.kill()
        proc.wait()
