"""Fetch the WTHOR records from the French Othello Federation and validate them.

``python -m gamelib.games.othello.download [--years 1977-2020] [--dest DIR] [--strict]``

For each year, the yearly archive ``WTH_<year>.ZIP`` is downloaded from the federation's site
(https://www.ffothello.org/informatique/la-base-wthor/, files under
``https://www.ffothello.org/wthor/base_zip/``), its zip CRCs are checked, and the ``.wtb``
file inside is validated before it is installed:

1. the header agrees with the file size and names the requested year;
2. every game is replayed with legality checks (:func:`gamelib.games.othello.wthor.load`);
3. its SHA-256 is compared with ``data/othello/wthor.sha256``, the checksums of the copy
   the book was built and tested on.

The federation keeps adding games and names to its files, so a fresh download can differ
from that copy: such a file is accepted after checks 1-2 and reported as *changed*;
``--strict`` rejects it instead. The player and tournament name files (``WTHOR.JOU``,
``WTHOR.TRN``) are fetched from ``https://www.ffothello.org/wthor/base/`` and validated
the same way. Files are written atomically (temporary name, then rename), and the SHA-256
of every installed file is recorded in ``<dest>/SHA256SUMS``; ``--verify`` re-checks an
installed folder against it.

The default destination is ``<repo>/data/othello/wthor`` (git-ignored: the records are
never committed), the last place :func:`gamelib.games.othello.wthor.find_wthor_dir` looks.
``--from-dir`` installs archives downloaded by hand (behind a proxy, say) with the same
checks. The site cannot be reached from the project's build machines, so this script is
not run by the test suite; the install and verify steps are, on locally made archives.
"""

from __future__ import annotations

import argparse
import hashlib
import sys
import tempfile
import urllib.request
import zipfile
from pathlib import Path

from gamelib.runtime import cli
from ...runtime.atomic import atomic_write_bytes
from ...runtime.paths import repo_root
from . import wthor

__all__ = [
    "ARCHIVE_URL",
    "NAMES_URL",
    "FIRST_YEAR",
    "LAST_YEAR",
    "reference_checksums",
    "sha256",
    "install_archive",
    "install_name_file",
    "verify_dir",
    "download",
    "main",
]

ARCHIVE_URL = "https://www.ffothello.org/wthor/base_zip/WTH_{year}.ZIP"
NAMES_URL = "https://www.ffothello.org/wthor/base/{name}"
NAME_FILES = ("WTHOR.JOU", "WTHOR.TRN")
FIRST_YEAR, LAST_YEAR = 1977, 2020
_REPO = repo_root()
CHECKSUMS = _REPO / "data" / "othello" / "wthor.sha256"
DEFAULT_DEST = _REPO / "data" / "othello" / "wthor"


class DownloadError(RuntimeError):
    """A download that failed or did not validate."""


def sha256(path) -> str:
    """Hex SHA-256 of a file."""
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def _read_sums(path: Path) -> dict[str, str]:
    sums = {}
    if path.is_file():
        for line in path.read_text().splitlines():
            if line.strip() and not line.startswith("#"):
                digest, name = line.split(maxsplit=1)
                sums[name.strip().lstrip("*")] = digest
    return sums


def reference_checksums() -> dict[str, str]:
    """File name -> SHA-256 of the reference copy (``data/othello/wthor.sha256``)."""
    return _read_sums(CHECKSUMS)


def _compare(name: str, data: bytes, strict: bool) -> str:
    known = reference_checksums().get(name)
    digest = hashlib.sha256(data).hexdigest()
    if known is None:
        return "new file (no reference checksum)"
    if known == digest:
        return "identical to the reference copy"
    if strict:
        raise DownloadError(f"{name}: SHA-256 {digest} differs from the reference {known} (--strict)")
    return "changed since the reference copy (accepted: header and every game checked)"


def _validate_wtb(name: str, data: bytes, year: int | None) -> int:
    """Parse and replay a .wtb held in memory; returns its number of games."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / name
        path.write_bytes(data)
        header = wthor.read_header(path)
        if year is not None and header.year != year:
            raise DownloadError(f"{name}: header year {header.year}, expected {year}")
        return len(wthor.load(path))  # raises WthorError naming the game on any problem


def install_archive(zip_path, dest, year: int, strict: bool = False) -> str:
    """Validate a ``WTH_<year>.ZIP`` archive and install its ``.wtb`` into ``dest``.

    Returns a one-line report. Raises :class:`DownloadError` (or
    :class:`gamelib.games.othello.wthor.WthorError`) when the archive is not usable; nothing is
    written then.
    """
    zip_path, dest = Path(zip_path), Path(dest)
    try:
        with zipfile.ZipFile(zip_path) as zf:
            bad = zf.testzip()
            if bad is not None:
                raise DownloadError(f"{zip_path}: CRC error in member {bad}")
            members = [m for m in zf.namelist() if m.lower().endswith(f"wth_{year}.wtb")]
            if len(members) != 1:
                raise DownloadError(f"{zip_path}: expected one WTH_{year}.wtb inside, found {zf.namelist()}")
            data = zf.read(members[0])
    except zipfile.BadZipFile as err:
        raise DownloadError(f"{zip_path}: not a valid zip archive ({err})") from None
    name = f"WTH_{year}.wtb"
    n_games = _validate_wtb(name, data, year)
    status = _compare(name, data, strict)
    atomic_write_bytes(dest / name, data)
    _record_sum(dest, name, hashlib.sha256(data).hexdigest())
    return f"{name}: {n_games} games, every game replayed legally; {status}"


def install_name_file(path, dest, strict: bool = False) -> str:
    """Validate a ``WTHOR.JOU``/``WTHOR.TRN`` name file and install it into ``dest``."""
    path, dest = Path(path), Path(dest)
    names = wthor.read_names(path)  # checks the header against the size
    data = path.read_bytes()
    status = _compare(path.name.upper(), data, strict)
    atomic_write_bytes(dest / path.name.upper(), data)
    _record_sum(dest, path.name.upper(), hashlib.sha256(data).hexdigest())
    return f"{path.name.upper()}: {len(names)} names; {status}"


def _record_sum(dest: Path, name: str, digest: str) -> None:
    manifest = dest / "SHA256SUMS"
    sums = _read_sums(manifest)
    sums[name] = digest
    atomic_write_bytes(manifest, "".join(f"{d}  {n}\n" for n, d in sorted(sums.items())).encode())


def verify_dir(dest) -> list[str]:
    """Re-check an installed folder: every file against ``SHA256SUMS``, every game replayed.

    Returns the problems found (an empty list when everything is fine).
    """
    dest = Path(dest)
    sums = _read_sums(dest / "SHA256SUMS")
    if not sums:
        return [f"{dest}: no SHA256SUMS manifest"]
    problems = []
    for name, digest in sorted(sums.items()):
        path = dest / name
        if not path.is_file():
            problems.append(f"{name}: missing")
            continue
        if sha256(path) != digest:
            problems.append(f"{name}: SHA-256 differs from SHA256SUMS")
            continue
        try:
            if path.suffix.lower() == ".wtb":
                wthor.load(path)
            else:
                wthor.read_names(path)
        except (wthor.WthorError, OSError) as err:
            problems.append(str(err))
    return problems


def _fetch(url: str, timeout: float = 60.0) -> bytes:
    request = urllib.request.Request(url, headers={"User-Agent": "gamelib-wthor-download"})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            data = response.read()
    except OSError as err:
        raise DownloadError(f"could not fetch {url}: {err}") from None
    if not data:
        raise DownloadError(f"{url}: empty response")
    return data


def download(years, dest=DEFAULT_DEST, strict: bool = False, from_dir=None, log=print) -> int:
    """Fetch (or take from ``from_dir``), validate and install the given years and the name files.

    Returns the number of failures (each is logged).
    """
    dest = Path(dest)
    failures = 0
    with tempfile.TemporaryDirectory() as tmp:
        for year in years:
            try:
                if from_dir is not None:
                    zip_path = _find_case_insensitive(Path(from_dir), f"WTH_{year}.ZIP")
                else:
                    zip_path = Path(tmp) / f"WTH_{year}.ZIP"
                    zip_path.write_bytes(_fetch(ARCHIVE_URL.format(year=year)))
                log(install_archive(zip_path, dest, year, strict))
            except (DownloadError, wthor.WthorError, FileNotFoundError) as err:
                failures += 1
                log(f"FAILED WTH_{year}: {err}")
        for name in NAME_FILES:
            try:
                if from_dir is not None:
                    path = _find_case_insensitive(Path(from_dir), name)
                else:
                    path = Path(tmp) / name
                    path.write_bytes(_fetch(NAMES_URL.format(name=name)))
                log(install_name_file(path, dest, strict))
            except (DownloadError, wthor.WthorError, FileNotFoundError) as err:
                failures += 1
                log(f"FAILED {name}: {err}")
    return failures


def _find_case_insensitive(folder: Path, name: str) -> Path:
    for p in folder.iterdir():
        if p.name.lower() == name.lower():
            return p
    raise FileNotFoundError(f"{folder}: no {name}")


def _parse_years(text: str) -> list[int]:
    years: list[int] = []
    for part in text.split(","):
        lo, _, hi = part.partition("-")
        try:
            a, b = int(lo), int(hi or lo)
        except ValueError:
            raise argparse.ArgumentTypeError(f"bad years {text!r}: expected e.g. 1977-2020 or 1990,2004") from None
        if not FIRST_YEAR <= a <= b <= 2100:
            raise argparse.ArgumentTypeError(f"bad years {text!r}: WTHOR starts in {FIRST_YEAR}")
        years += range(a, b + 1)
    return years


def main(argv: list[str] | None = None) -> int:
    parser = cli.ArgumentParser(
        prog="python -m gamelib.games.othello.download", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--years", type=_parse_years, default=list(range(FIRST_YEAR, LAST_YEAR + 1)),
                        help=f"years to fetch, e.g. 1977-2020 or 1990,2004 (default {FIRST_YEAR}-{LAST_YEAR})")
    parser.add_argument("--dest", type=Path, default=DEFAULT_DEST, help=f"target folder (default {DEFAULT_DEST})")
    parser.add_argument("--strict", action="store_true", help="reject files that differ from the reference checksums")
    parser.add_argument("--from-dir", type=Path, help="install archives already downloaded into this folder")
    parser.add_argument("--verify", action="store_true", help="only re-check the files installed in --dest")
    args = parser.parse_args(argv)
    if args.verify:
        problems = verify_dir(args.dest)
        for p in problems:
            print(p)
        print("OK" if not problems else f"{len(problems)} problem(s)")
        return 0 if not problems else 1
    failures = download(args.years, args.dest, args.strict, args.from_dir)
    print(f"done: {len(args.years) + len(NAME_FILES) - failures} files installed in {args.dest}, {failures} failed")
    return 0 if failures == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
