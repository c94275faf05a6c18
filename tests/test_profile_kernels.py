"""scripts/profile_kernels.py: readable names, the perf map of freshly compiled kernels, the
report's shares, and its refusals."""

import importlib.util
import subprocess
import sys

from numba import njit

from gamelib import notebook as nb

SCRIPT = nb.repo_root() / "scripts" / "profile_kernels.py"
_spec = importlib.util.spec_from_file_location("profile_kernels", SCRIPT)
profile_kernels = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(profile_kernels)


def test_numba_names_read_as_dotted_paths_and_others_stay():
    mangled = ("_ZN7gamelib10evaluation5shogi8evaluateB4v113B40c8tJTIeFIjxB2IKSgI4CrvSCKg1MMVC_2fAwA"
               "_3dE5ArrayIxLi1E1C7mutable7alignedE5ArrayIdLi1E1C7mutable7alignedE")
    assert profile_kernels.readable(mangled) == "gamelib.evaluation.shogi.evaluate"
    assert profile_kernels.readable("__memset_avx2_unaligned_erms") == "__memset_avx2_unaligned_erms"
    # a name cut short after its digits (no IndexError): the parts read so far
    assert profile_kernels.readable("_ZN7gamelib12") == "gamelib."


def test_the_map_places_a_freshly_compiled_function_at_its_address(tmp_path, monkeypatch):
    @njit(cache=False)
    def profiled_square(x):
        return x * x

    assert profiled_square(3.0) == 9.0
    functions = profile_kernels.compiled_functions()
    mine = {a: name for a, name in functions.items() if "profiled_square" in name}
    assert mine, "the function just compiled is not among the compiled functions"
    address, name = next(iter(mine.items()))
    monkeypatch.setattr(profile_kernels.tempfile, "gettempdir", lambda: str(tmp_path))
    path = profile_kernels.write_perf_map(functions, pid=12345)
    assert path == tmp_path / "perf-12345.map"
    rows = [line.split(" ", 2) for line in path.read_text().splitlines()]
    starts = [int(r[0], 16) for r in rows]
    assert starts == sorted(starts) and len(rows) == len(functions)
    row = next(r for r in rows if int(r[0], 16) == address)
    assert row[2] == name and 0 < int(row[1], 16) <= profile_kernels.MAX_FUNCTION_BYTES


def test_shares_are_read_from_the_report_largest_first():
    report = ("# comment\n"
              "     3.50%  [.] _ZN7gamelib9minishogi4core9make_moveB3v38B40xE5ArrayIxLi1E1C7mutable7alignedEx\n"
              "    40.10%  [.] _ZN7gamelib10evaluation5shogi8evaluateB4v1E\n"
              "     1.00%  [.] __memset_avx2_unaligned_erms\n")
    assert profile_kernels.shares(report, 2) == [(40.10, "gamelib.evaluation.shogi.evaluate"),
                                                 (3.50, "gamelib.minishogi.core.make_move")]


def test_bad_arguments_are_refused_before_anything_runs():
    run = subprocess.run([sys.executable, str(SCRIPT), "pgleaf", "--seconds", "0"],
                         capture_output=True, text=True)
    assert run.returncode == 2 and "--seconds" in run.stderr
    run = subprocess.run([sys.executable, str(SCRIPT), "chess"], capture_output=True, text=True)
    assert run.returncode == 2 and "invalid choice" in run.stderr


def test_dead_weak_proxies_among_the_objects_are_passed_over():
    import weakref

    class Gone:
        pass

    thing = Gone()
    proxy = weakref.proxy(thing)
    del thing
    assert isinstance(profile_kernels.compiled_functions(), dict)
    assert proxy is not None
