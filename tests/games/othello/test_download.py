"""The WTHOR download script's offline parts: archive checks, install, manifest, verify.

The federation's site is never contacted in tests: archives are made locally.
"""

from __future__ import annotations

import zipfile

import pytest

from gamelib.games.othello import download, wthor

from .test_wthor import SHARED, game_record, needs_shared, random_games, write_names, write_wtb


def make_zip(path, member_name, data):
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        zf.writestr(member_name, data)
    return path


@pytest.fixture
def synthetic_year(tmp_path):
    games = random_games(5, seed=2)
    wtb = write_wtb(tmp_path / "WTH_1979.wtb", [game_record(m, score=b) for m, b, _ in games], year=1979)
    src = tmp_path / "src"
    src.mkdir()
    make_zip(src / "WTH_1979.ZIP", "WTH_1979.wtb", wtb.read_bytes())
    write_names(src / "WTHOR.JOU", ["Alice", "Bob", "Carol"], 20)
    write_names(src / "WTHOR.TRN", ["Open"], 26)
    return src


def test_install_from_dir_and_verify(tmp_path, synthetic_year):
    dest = tmp_path / "dest"
    log = []
    assert download.download([1979], dest, from_dir=synthetic_year, log=log.append) == 0
    assert "WTH_1979.wtb: 5 games, every game replayed legally; changed since the reference" in log[0]
    assert log[1].startswith("WTHOR.JOU: 3 names")
    assert sorted(p.name for p in dest.iterdir()) == ["SHA256SUMS", "WTHOR.JOU", "WTHOR.TRN", "WTH_1979.wtb"]
    assert download.verify_dir(dest) == []
    df = wthor.load(dest)
    assert len(df) == 5 and set(df["black"]) == {"Bob"}
    # tampering is caught
    (dest / "WTH_1979.wtb").write_bytes((dest / "WTH_1979.wtb").read_bytes()[:-1])
    assert download.verify_dir(dest) == ["WTH_1979.wtb: SHA-256 differs from SHA256SUMS"]


def test_strict_rejects_changed_files(tmp_path, synthetic_year):
    dest = tmp_path / "dest"
    log = []
    assert download.download([1979], dest, strict=True, from_dir=synthetic_year, log=log.append) == 3
    assert "differs from the reference" in log[0] and "--strict" in log[0]
    assert not (dest / "WTH_1979.wtb").exists()


def test_bad_archives_install_nothing(tmp_path):
    dest = tmp_path / "dest"
    good = game_record(["f5", "d6"])
    cases = {
        "illegal": (make_zip(tmp_path / "a.zip", "WTH_1980.wtb", write_wtb(tmp_path / "x.wtb", [game_record(["f5", "a1"])], year=1980).read_bytes()), "illegal move a1"),
        "truncated": (make_zip(tmp_path / "b.zip", "WTH_1980.wtb", write_wtb(tmp_path / "y.wtb", [good], year=1980).read_bytes()[:-3]), "truncated"),
        "year": (make_zip(tmp_path / "c.zip", "WTH_1980.wtb", write_wtb(tmp_path / "z.wtb", [good], year=1981).read_bytes()), "header year 1981"),
        "member": (make_zip(tmp_path / "d.zip", "README.txt", b"hello"), "expected one WTH_1980.wtb"),
    }
    (tmp_path / "e.zip").write_bytes(b"not a zip")
    cases["notzip"] = (tmp_path / "e.zip", "not a valid zip")
    for path, match in cases.values():
        with pytest.raises((download.DownloadError, wthor.WthorError), match=match):
            download.install_archive(path, dest, 1980)
    assert not dest.exists() or not any(dest.iterdir())


@needs_shared
def test_reference_checksums_match_shared_copy(tmp_path):
    sums = download.reference_checksums()
    assert len(sums) == 46  # 44 years + the two name files
    for name in ("WTH_1977.wtb", "WTH_2004.wtb", "WTHOR.JOU"):
        assert download.sha256(SHARED / name) == sums[name]
    src = tmp_path / "src"
    src.mkdir()
    make_zip(src / "WTH_1977.ZIP", "WTH_1977.wtb", (SHARED / "WTH_1977.wtb").read_bytes())
    msg = download.install_archive(src / "WTH_1977.ZIP", tmp_path / "dest", 1977, strict=True)
    assert msg == "WTH_1977.wtb: 12 games, every game replayed legally; identical to the reference copy"


def test_year_parsing():
    assert download._parse_years("1977-1979,2004") == [1977, 1978, 1979, 2004]
    with pytest.raises(Exception, match="bad years"):
        download._parse_years("1970")
    with pytest.raises(Exception, match="bad years"):
        download._parse_years("abc")
