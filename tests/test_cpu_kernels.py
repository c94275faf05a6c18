"""Results do not depend on the CPU: not on numpy's BLAS kernel, not on numba's code generation.

numpy's OpenBLAS picks its matrix kernel by CPU, and the kernels round differently: the Othello
value network, once trained with numpy matrix products, came out different on a machine with
AVX-512. ``OPENBLAS_CORETYPE`` forces a kernel and ``NUMBA_CPU_NAME`` (with an empty
``NUMBA_CPU_FEATURES``) makes numba compile for another CPU, so one machine can play several:

* the value network's kernels give the same bits (a stored fingerprint) when numba compiles
  them for Sandy Bridge (AVX, no FMA) and for Haswell (AVX2 and FMA) as for this machine;
* the notebooks whose numbers once came from BLAS reproduce their references in
  ``data/reference/`` bit for bit (CSV and JSON byte for byte, PNG pixel for pixel, ``.npz``
  array for array) under two or three forced OpenBLAS kernels;
* the learners (``tests/cpu_cases.py``) give the same bits when glibc's math library is made to
  take its code for CPUs without FMA and AVX2 (``GLIBC_TUNABLES``), numpy's for CPUs without
  AVX-512 or AVX2 (``NPY_DISABLE_CPU_FEATURES``), and when numba compiles them for Sandy Bridge
  and for Haswell: before :mod:`gamelib.exactmath` replaced the C
  library's ``exp``, ``log``, ``tanh`` and ``cos`` in them, the four self-play learners and the
  Bonanza learner came out different without FMA.
"""

from __future__ import annotations

import hashlib
import os
import platform
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from gamelib import notebook as nb

#: about 10 minutes of tests on a busy CI machine: run before the other modules (tests/conftest.py)
pytestmark = pytest.mark.early(minutes=10)

#: Notebooks whose results went through numpy matrix products.
NOTEBOOKS = ("othello_value",)

#: sha256 of :func:`fingerprint`: changes only when the network's arithmetic changes on purpose.
FINGERPRINT = "0b4b37d8a11d3b6b38a4860bcfe90da6c5dfa8d336e1e7c9b1e588d994af0b6b"

X86 = platform.machine().lower() in ("x86_64", "amd64")


def _cpu_flags() -> set:
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:
        return set()
    for line in text.splitlines():
        if line.startswith("flags"):
            return set(line.split(":", 1)[1].split())
    return set()


def openblas_coretypes() -> list[str]:
    """The OpenBLAS kernels this CPU can run, among Sandy Bridge, Haswell and Skylake-X."""
    flags = _cpu_flags()
    needs = {"Sandybridge": {"avx"}, "Haswell": {"avx2", "fma"}, "SkylakeX": {"avx512f"}}
    return [kind for kind, need in needs.items() if need <= flags] if X86 else []


def fingerprint() -> str:
    """sha256 over the value network's outputs on fixed inputs: training (Adam, eq. 4 losses),
    batch prediction, the float64 gradient and the search's single-board forward pass."""
    import pandas as pd

    from gamelib.games.othello.mlp import PAPER_SIZES, MLP, encode_states, mlp_value, train

    rng = np.random.default_rng(2024)
    cells = rng.integers(0, 3, size=(600, 64))
    bits = np.uint64(1) << np.arange(64, dtype=np.uint64)
    black = np.bitwise_or.reduce(np.where(cells == 1, bits, np.uint64(0)), axis=1)
    white = np.bitwise_or.reduce(np.where(cells == 2, bits, np.uint64(0)), axis=1)
    n = rng.integers(1, 5, 600)
    table = pd.DataFrame({"black": black, "white": white, "n": n, "wins": rng.integers(0, n + 1)})
    digest = hashlib.sha256()
    for encoding in ("paper", "planes"):
        net = MLP.init((64 * (1 + (encoding == "planes")),) + PAPER_SIZES[1:], encoding, seed=1)
        history = train(net, table, epochs=2, batch_size=64, seed=3, progress=False)
        digest.update(net.params.tobytes())
        digest.update(np.array(history.train_loss).tobytes())
        digest.update(net.predict(black, white).tobytes())
        args = net.kernel_args()
        digest.update(np.array([mlp_value(*args, b, w) for b, w in zip(black[:50], white[:50])])
                      .tobytes())
        x = encode_states(black[:100], white[:100], encoding, dtype=np.float64)
        loss, grad = net.astype(np.float64).loss_and_grad(x, rng.random(100), n[:100])
        digest.update(np.float64(loss).tobytes() + grad.tobytes())
    return digest.hexdigest()


def test_exact_exp_and_sigmoid():
    import math

    from gamelib.exactmath import exp_nonpositive, sigmoid

    xs = np.concatenate([-np.random.default_rng(0).random(5000) * 40, -np.linspace(0, 745, 2001),
                         [-0.0, -1e-300, -0.5 * math.log(2), -708.4]])
    for x in xs:
        want = math.exp(x)
        if want > 2.3e-308:  # normal range: within one unit in the last place
            assert abs(exp_nonpositive(x) - want) <= math.ulp(want), x
    assert exp_nonpositive(0.0) == 1.0 and exp_nonpositive(-1.0) == math.exp(-1.0)
    assert exp_nonpositive(-746.0) == 0.0 and exp_nonpositive(-1e300) == 0.0
    assert sigmoid(0.0) == 0.5 and sigmoid(800.0) == 1.0 and sigmoid(-800.0) == 0.0
    for z in (0.1, 1.0, 3.5, 20.0):
        assert sigmoid(-z) == pytest.approx(1.0 - sigmoid(z), rel=1e-15, abs=1e-16)
        assert sigmoid(z) == pytest.approx(1.0 / (1.0 + math.exp(-z)), rel=2e-16)


@pytest.mark.parametrize("name, reference, xs, max_ulps", [
    ("exp", "exp", [(-745.0, 709.0), (-1.0, 1.0)], 1.0),
    ("expm1", "expm1", [(-40.0, 40.0), (-0.4, 0.4), (-1e-8, 1e-8)], 4.0),
    ("log", "log", [(1e-300, 1e300), (0.5, 2.0), (0.999, 1.001)], 2.0),
    ("log1p", "log1p", [(-0.999, 10.0), (-1e-6, 1e-6), (-0.3, 0.3)], 2.0),
    ("tanh", "tanh", [(-25.0, 25.0), (-0.1, 0.1), (-1e-9, 1e-9)], 3.0),
])
def test_exact_functions_are_within_a_few_ulps_of_the_c_library(name, reference, xs, max_ulps):
    import math

    from gamelib import exactmath

    f, ref = getattr(exactmath, name), getattr(math, reference)
    rng = np.random.default_rng(len(name))
    for lo, hi in xs:
        sample = (np.exp(rng.uniform(math.log(lo), math.log(hi), 3000)) if name == "log" and lo > 0
                  and hi / lo > 1e6 else rng.uniform(lo, hi, 3000))
        for x in sample:
            want = ref(float(x))
            assert abs(f(float(x)) - want) <= max_ulps * math.ulp(want), (name, x)
    arrays = {"exp": exactmath.exp_array, "log": exactmath.log_array, "tanh": exactmath.tanh_array}
    if name in arrays:
        x = np.abs(rng.uniform(0.1, 3.0, (3, 4)))
        got = arrays[name](x)
        assert got.shape == (3, 4) and all(got.ravel()[i] == f(float(v)) for i, v in enumerate(x.ravel()))


def test_exact_functions_at_their_edges():
    import math

    from gamelib import exactmath as X

    assert X.exp(0.0) == 1.0 and X.exp(710.0) == math.inf and X.exp(-800.0) == 0.0
    assert X.log(1.0) == 0.0 and X.log(0.0) == -math.inf and math.isnan(X.log(-1.0))
    assert X.log(math.inf) == math.inf and math.isnan(X.exp(math.nan))
    assert X.tanh(0.0) == 0.0 and X.tanh(30.0) == 1.0 and X.tanh(-30.0) == -1.0
    assert X.tanh(-0.3) == -X.tanh(0.3) and X.log1p(0.0) == 0.0 and math.isnan(X.log1p(-2.0))
    assert X.softplus(0.0) == X.log(2.0) and X.softplus(800.0) == 800.0 and X.softplus(-800.0) == 0.0
    for z in (-30.0, -1.0, 0.5, 12.0):
        assert X.softplus(z) == pytest.approx(math.log1p(math.exp(z)), rel=1e-15)
    assert X.cos_2pi(0.0) == 1.0 and X.cos_2pi(0.25) == 0.0 and X.cos_2pi(0.5) == -1.0
    assert X.cos_2pi(0.75) == 0.0
    for u in np.random.default_rng(0).random(2000):
        assert abs(X.cos_2pi(float(u)) - math.cos(2 * math.pi * u)) < 1e-15   # 2πu rounds too
    assert X.sigmoid_array(0.0).shape == () and float(X.sigmoid_array(0.0)) == 0.5


def test_value_network_fingerprint():
    assert fingerprint() == FINGERPRINT, "the value network's arithmetic changed"


@pytest.mark.skipif(not X86, reason="NUMBA_CPU_NAME values below are x86-64 CPUs")
def test_value_network_is_the_same_when_compiled_for_other_cpus():
    """numba compiles for the host CPU (vector width, FMA): the sums must not care."""
    code = f"import runpy; print(runpy.run_path({str(Path(__file__))!r})['fingerprint']())"
    procs = {cpu: subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, text=True,
                                   env={**os.environ, "NUMBA_CPU_NAME": cpu,
                                        "NUMBA_CPU_FEATURES": ""})
             for cpu in ("sandybridge", "haswell")}
    for cpu, proc in procs.items():
        out, err = proc.communicate(timeout=900)
        assert proc.returncode == 0, f"fingerprint for {cpu} failed:\n{err[-3000:]}"
        assert out.split()[-1] == FINGERPRINT, f"compiled for {cpu}, the value network differs"


def _differences(out: Path, ref: Path) -> list[str]:
    """Every file of ``ref`` that ``out`` does not reproduce exactly (and extra files)."""
    made = sorted(p.name for p in out.iterdir())
    want = sorted(p.name for p in ref.iterdir())
    if made != want:
        return [f"files {made} != reference {want}"]
    problems = []
    for name in want:
        a, e = out / name, ref / name
        if name.endswith(".npz"):
            with np.load(a) as fa, np.load(e) as fe:
                same = sorted(fa.files) == sorted(fe.files) and all(
                    fa[k].dtype == fe[k].dtype and fa[k].shape == fe[k].shape
                    and fa[k].tobytes() == fe[k].tobytes() for k in fe.files)
        elif name.endswith(".png"):  # pixels: the zlib stream may differ between zlib builds
            from matplotlib.image import imread

            same = np.array_equal(imread(a), imread(e))
        else:
            same = a.read_bytes() == e.read_bytes()
        if not same:
            problems.append(f"{name} differs")
    return problems


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_notebook_results_do_not_depend_on_the_blas_kernel(name, tmp_path: Path):
    kinds = openblas_coretypes()
    if len(kinds) < 2:
        pytest.skip(f"this CPU runs fewer than two of the forced OpenBLAS kernels ({kinds})")
    code = ("import sys; from gamelib import notebook as nb; "
            "nb.run(sys.argv[1], sys.argv[2], {'output_dir': sys.argv[3]})")
    procs = {kind: subprocess.Popen(
        [sys.executable, "-c", code, name, str(tmp_path / f"{kind}.ipynb"), str(tmp_path / kind)],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        env={**os.environ, "OPENBLAS_CORETYPE": kind}) for kind in kinds}
    problems = []
    for kind, proc in procs.items():
        log, _ = proc.communicate(timeout=1800)
        assert proc.returncode == 0, f"{name} with OPENBLAS_CORETYPE={kind} failed:\n{log[-3000:]}"
        problems += [f"OPENBLAS_CORETYPE={kind}: {p}"
                     for p in _differences(tmp_path / kind, nb.reference_dir(name))]
    assert not problems, f"{name} depends on the BLAS kernel:\n  " + "\n  ".join(problems)


#: Environments that make one machine take other CPUs' code paths of glibc's libm and numpy.
_NO_AVX512 = {"NPY_DISABLE_CPU_FEATURES": "X86_V4 AVX512_ICL AVX512_SPR"}
_NO_FMA = {"GLIBC_TUNABLES": "glibc.cpu.hwcaps=-AVX2,-FMA,-AVX512F",
           "NPY_DISABLE_CPU_FEATURES": "X86_V3 X86_V4 AVX512_ICL AVX512_SPR"}


@pytest.mark.skipif(not X86, reason="the forced code paths are x86-64 ones")
def test_learners_do_not_depend_on_the_cpu(tmp_path: Path):
    """The same bits with glibc's and numpy's code for other CPUs, and with numba compiling for
    Sandy Bridge (AVX, no FMA) and Haswell (AVX2 and FMA)."""
    script = str(Path(__file__).resolve().parent / "cpu_cases.py")
    runs = {"this CPU": {}, "no AVX-512": _NO_AVX512, "no FMA or AVX2": _NO_FMA}
    for cpu in ("sandybridge", "haswell"):
        runs[f"compiled for {cpu}"] = {"NUMBA_CPU_NAME": cpu, "NUMBA_CPU_FEATURES": "",
                                       "NUMBA_CACHE_DIR": str(tmp_path / cpu)}
    def start(name):
        return subprocess.Popen([sys.executable, script], stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True, env={**os.environ, **runs[name]})

    def finish(name, proc):
        text, err = proc.communicate(timeout=1200)
        assert proc.returncode == 0, f"cpu_cases.py ({name}) failed:\n{err[-3000:]}"
        out[name] = dict(line.split() for line in text.splitlines())

    # this CPU first, alone: it fills numba's cache, which the runs with glibc's and numpy's
    # other code paths then load (they compile for the same CPU) instead of compiling it again
    out = {}
    finish("this CPU", start("this CPU"))
    procs = {name: start(name) for name in list(runs)[1:]}
    for name, proc in procs.items():
        finish(name, proc)
    assert len(out["this CPU"]) == 9
    for name in list(runs)[1:]:
        differ = [case for case, h in out["this CPU"].items() if out[name].get(case) != h]
        assert not differ, f"with {name}, these results differ: {differ}"
