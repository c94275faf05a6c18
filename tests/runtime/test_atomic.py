"""Atomic writes: content round-trips, failures leave the old file and no temporary."""

import os

import numpy as np
import pytest

from gamelib.runtime import atomic
from gamelib.runtime.atomic import (atomic_write_bytes, atomic_write_json, atomic_write_text,
                                        load_npz, read_json, remove_stale_temporaries,
                                        save_npz_atomic)


def test_round_trips(tmp_path):
    atomic_write_bytes(tmp_path / "a.bin", b"\x00\x01")
    atomic_write_text(tmp_path / "sub" / "b.txt", "ünïcode\n")
    atomic_write_json(tmp_path / "c.json", {"b": [1, 2.5, None], "a": "x"})
    arrays = {"w": np.arange(6, dtype=np.float32).reshape(2, 3), "n": np.int64(7),
              "mask": np.array([True, False])}
    save_npz_atomic(tmp_path / "d.npz", arrays)
    assert (tmp_path / "a.bin").read_bytes() == b"\x00\x01"
    assert (tmp_path / "sub" / "b.txt").read_text(encoding="utf-8") == "ünïcode\n"
    assert (tmp_path / "c.json").read_text() == '{\n  "a": "x",\n  "b": [\n    1,\n    2.5,\n' \
                                                '    null\n  ]\n}\n'
    assert read_json(tmp_path / "c.json") == {"a": "x", "b": [1, 2.5, None]}
    back = load_npz(tmp_path / "d.npz")
    assert back.keys() == arrays.keys()
    for name, value in arrays.items():
        assert back[name].dtype == np.asarray(value).dtype
        assert back[name].tobytes() == np.asarray(value).tobytes()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.bin", "c.json", "d.npz", "sub"]


def test_compressed_npz_and_no_suffix_added(tmp_path):
    path = save_npz_atomic(tmp_path / "state.ckpt", {"x": np.zeros(1000)}, compress=True)
    assert path == tmp_path / "state.ckpt" and path.stat().st_size < 1000
    np.testing.assert_array_equal(load_npz(path)["x"], np.zeros(1000))


def test_failed_replace_keeps_old_file_and_removes_temporary(tmp_path, monkeypatch):
    target = tmp_path / "m.json"
    atomic_write_json(target, {"v": 1})

    def broken_replace(src, dst):
        raise OSError("disk on fire")

    monkeypatch.setattr(atomic.os, "replace", broken_replace)
    with pytest.raises(OSError, match="disk on fire"):
        atomic_write_json(target, {"v": 2})
    monkeypatch.undo()
    assert read_json(target) == {"v": 1}
    assert [p.name for p in tmp_path.iterdir()] == ["m.json"]


def test_failing_writer_midway_leaves_old_file_and_no_temporary(tmp_path, monkeypatch):
    save_npz_atomic(tmp_path / "x.npz", {"a": np.ones(3)})

    def half_then_crash(fh, **arrays):
        fh.write(b"PK\x03\x04 half an archive")
        raise RuntimeError("crash in the middle of the write")

    monkeypatch.setattr(np, "savez", half_then_crash)
    with pytest.raises(RuntimeError, match="crash in the middle"):
        save_npz_atomic(tmp_path / "x.npz", {"a": np.zeros(3)})
    monkeypatch.undo()
    np.testing.assert_array_equal(load_npz(tmp_path / "x.npz")["a"], np.ones(3))
    assert [p.name for p in tmp_path.iterdir()] == ["x.npz"]


def test_bad_inputs(tmp_path):
    with pytest.raises(ValueError, match="not plain JSON"):
        atomic_write_json(tmp_path / "x.json", {"x": float("nan")})
    with pytest.raises(ValueError, match="not plain JSON"):
        atomic_write_json(tmp_path / "x.json", {"x": object()})
    with pytest.raises(ValueError, match="dtype object"):
        save_npz_atomic(tmp_path / "x.npz", {"a": np.array([None, 1])})
    with pytest.raises(ValueError, match="array names"):
        save_npz_atomic(tmp_path / "x.npz", {"": np.ones(1)})
    with pytest.raises(TypeError, match="bytes"):
        atomic_write_bytes(tmp_path / "x.bin", "text")
    assert list(tmp_path.iterdir()) == []


def test_damaged_files_are_named(tmp_path):
    save_npz_atomic(tmp_path / "t.npz", {"a": np.arange(1000)})
    data = (tmp_path / "t.npz").read_bytes()
    (tmp_path / "t.npz").write_bytes(data[: len(data) // 2])
    with pytest.raises(ValueError, match="corrupt or truncated npz file .*t.npz"):
        load_npz(tmp_path / "t.npz")
    (tmp_path / "j.json").write_text('{"a": ')
    with pytest.raises(ValueError, match="corrupt JSON file .*j.json"):
        read_json(tmp_path / "j.json")
    with pytest.raises(FileNotFoundError):
        load_npz(tmp_path / "missing.npz")


def test_remove_stale_temporaries(tmp_path):
    (tmp_path / ".m.json.abc123.tmp").write_text("half")
    (tmp_path / "keep.tmp").write_text("not ours: not hidden")
    (tmp_path / "m.json").write_text("{}")
    removed = remove_stale_temporaries(tmp_path)
    assert [p.name for p in removed] == [".m.json.abc123.tmp"]
    assert sorted(os.listdir(tmp_path)) == ["keep.tmp", "m.json"]
