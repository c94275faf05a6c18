"""Compare a notebook's output folder with its stored references.

A chapter writes its figure data (CSV, JSON) and figures (PNG) to its output folder
(:mod:`gamelib.notebook`). The references of the quick profile live in ``data/reference/<name>/``.
:func:`compare_dirs` checks that every reference file was produced again and still agrees:

* CSV: same header and shape; numeric columns equal within ``rtol``/``atol``; text columns equal.
* JSON: same structure; numbers within ``rtol``/``atol``; everything else equal.
* PNG: :func:`matplotlib.testing.compare.compare_images` with an RMS tolerance ``image_tol``.

Files present in the output but absent from the references are reported too (a new result must be
stored on purpose: ``python -m gamelib.notebook update-reference NAME``).
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np

RTOL = 1e-6
ATOL = 1e-9
IMAGE_TOL = 2.0
SUFFIXES = (".csv", ".json", ".png")


def _compare_csv(actual: Path, expected: Path, rtol: float, atol: float) -> list[str]:
    import pandas as pd

    a = pd.read_csv(actual, keep_default_na=False)
    e = pd.read_csv(expected, keep_default_na=False)
    if list(a.columns) != list(e.columns):
        return [f"{expected.name}: columns {list(a.columns)} != reference {list(e.columns)}"]
    if a.shape != e.shape:
        return [f"{expected.name}: shape {a.shape} != reference {e.shape}"]
    problems = []
    for col in e.columns:
        ea, ee = a[col], e[col]
        numeric = pd.api.types.is_numeric_dtype(ee) and pd.api.types.is_numeric_dtype(ea)
        if numeric:
            av, rv = ea.to_numpy(float), ee.to_numpy(float)
            bad = ~np.isclose(av, rv, rtol=rtol, atol=atol, equal_nan=True)
            if bad.any():
                i = int(np.flatnonzero(bad)[0])
                problems.append(f"{expected.name}: column {col!r} differs in {int(bad.sum())} rows, "
                                f"first at row {i}: {av[i]!r} != reference {rv[i]!r}")
        else:
            bad = (ea.astype(str).to_numpy() != ee.astype(str).to_numpy())
            if bad.any():
                i = int(np.flatnonzero(bad)[0])
                problems.append(f"{expected.name}: column {col!r} differs in {int(bad.sum())} rows, "
                                f"first at row {i}: {ea.iloc[i]!r} != reference {ee.iloc[i]!r}")
    return problems


def _compare_json_values(a, e, where: str, rtol: float, atol: float) -> list[str]:
    if isinstance(e, bool) or isinstance(a, bool):
        return [] if a == e else [f"{where}: {a!r} != reference {e!r}"]
    if isinstance(e, (int, float)) and isinstance(a, (int, float)):
        if (math.isnan(e) and math.isnan(a)) or math.isclose(a, e, rel_tol=rtol, abs_tol=atol):
            return []
        return [f"{where}: {a!r} != reference {e!r}"]
    if isinstance(e, dict) and isinstance(a, dict):
        if set(a) != set(e):
            return [f"{where}: keys {sorted(a)} != reference {sorted(e)}"]
        out = []
        for k in e:
            out += _compare_json_values(a[k], e[k], f"{where}.{k}", rtol, atol)
        return out
    if isinstance(e, list) and isinstance(a, list):
        if len(a) != len(e):
            return [f"{where}: length {len(a)} != reference {len(e)}"]
        out = []
        for i, (x, y) in enumerate(zip(a, e)):
            out += _compare_json_values(x, y, f"{where}[{i}]", rtol, atol)
        return out
    return [] if a == e else [f"{where}: {a!r} != reference {e!r}"]


def _compare_json(actual: Path, expected: Path, rtol: float, atol: float) -> list[str]:
    a = json.loads(actual.read_text())
    e = json.loads(expected.read_text())
    return _compare_json_values(a, e, expected.name, rtol, atol)


def _compare_png(actual: Path, expected: Path, tol: float) -> list[str]:
    from matplotlib.testing.compare import compare_images

    result = compare_images(str(expected), str(actual), tol=tol, in_decorator=True)
    if result is None:
        return []
    return [f"{expected.name}: image differs from reference (RMS {result['rms']:.3f} > {tol}); "
            f"diff image {result['diff']}"]


def compare_dirs(actual_dir: Path, reference_dir: Path, rtol: float = RTOL, atol: float = ATOL,
                 image_tol: float = IMAGE_TOL) -> list[str]:
    """List every disagreement between an output folder and its references (empty = agreement).

    Raises
    ------
    FileNotFoundError
        If the reference folder does not exist or holds no reference file.
    """
    actual_dir, reference_dir = Path(actual_dir), Path(reference_dir)
    refs = sorted(p for p in reference_dir.glob("*") if p.suffix in SUFFIXES) \
        if reference_dir.is_dir() else []
    if not refs:
        raise FileNotFoundError(f"no references in {reference_dir}; create them with "
                                f"python -m gamelib.notebook update-reference {reference_dir.name}")
    produced = sorted(p.name for p in actual_dir.glob("*") if p.suffix in SUFFIXES)
    problems = []
    for ref in refs:
        out = actual_dir / ref.name
        if not out.exists():
            problems.append(f"{ref.name}: not produced (reference exists)")
        elif ref.suffix == ".csv":
            problems += _compare_csv(out, ref, rtol, atol)
        elif ref.suffix == ".json":
            problems += _compare_json(out, ref, rtol, atol)
        else:
            problems += _compare_png(out, ref, image_tol)
    ref_names = {p.name for p in refs}
    for extra in produced:
        if extra not in ref_names:
            problems.append(f"{extra}: produced but has no reference (store it on purpose)")
    return problems
