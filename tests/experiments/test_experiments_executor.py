"""map_ordered: same results in the same order, serially, in processes and on Dask."""

import os
import threading
import time

import numpy as np
import pytest

from experiments_toy import play
from gamelib.runtime.executor import SCHEDULER_ENV, START_METHOD, Executor, map_ordered
from gamelib.runtime.seeds import derive_seed


def slow_square(x):
    """Later items finish first, so completion order is the reverse of input order."""
    time.sleep(0.02 * (5 - x % 5))
    return x * x


def where(_):
    return os.getpid(), threading.current_thread().name


def fail_on_three(x):
    if x == 3:
        raise KeyError(f"bad item {x}")
    return x


@pytest.fixture(scope="module")
def cluster():
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster:
        yield cluster


def jobs(n=12):
    params = np.linspace(-1, 1, 16)
    return [(derive_seed(1, "game", i), params) for i in range(n)]


def test_serial_processes_and_dask_give_identical_results(cluster):
    serial = map_ordered(play, jobs(), workers=1)
    processes = map_ordered(play, jobs(), workers=2, chunksize=5)
    dask = map_ordered(play, jobs(), scheduler=cluster.scheduler_address)
    direct = [play(job) for job in jobs()]
    for results in (serial, processes, dask):
        assert len(results) == len(direct)
        for a, b in zip(results, direct):
            assert a.tobytes() == b.tobytes()


def test_results_follow_input_order_not_completion_order(cluster):
    items = list(range(10))
    expected = [x * x for x in items]
    assert map_ordered(slow_square, items, scheduler=cluster.scheduler_address) == expected
    assert map_ordered(slow_square, items, workers=2, chunksize=3, progress=True,
                       desc="squares") == expected


def test_one_pool_serves_many_maps_in_other_processes(monkeypatch):
    monkeypatch.delenv(SCHEDULER_ENV, raising=False)
    with Executor(workers=2) as executor:
        first = {pid for pid, _ in executor.map(where, range(4))}
        pool = executor._pool
        with pytest.raises(KeyError, match="bad item 3") as info:
            executor.map(fail_on_three, range(20), chunksize=4)
        assert info.value.__notes__ == ["in job 3 of 20"]
        second = {pid for pid, _ in executor.map(where, range(4), chunksize=2)}
        assert executor._pool is pool
    assert executor._pool is None
    assert os.getpid() not in first | second
    assert len(first | second) <= 2
    assert map_ordered(where, range(3), workers=1) == [(os.getpid(), "MainThread")] * 3


def test_environment_variable_selects_dask(cluster, monkeypatch):
    monkeypatch.setenv(SCHEDULER_ENV, cluster.scheduler_address)
    assert Executor().description == f"Dask cluster at {cluster.scheduler_address}"
    results = map_ordered(where, range(4))
    # a threads-only LocalCluster runs jobs in this process, on worker threads
    assert {pid for pid, _ in results} == {os.getpid()}
    assert all(name != "MainThread" for _, name in results)
    # workers=1 still means serial, and an explicit scheduler wins over workers
    assert Executor(workers=1).description == "serial (this process)"
    assert Executor(workers=1, scheduler="tcp://h:1").description == "Dask cluster at tcp://h:1"


def test_dask_accepts_a_client(cluster):
    from distributed import Client
    with Client(cluster.scheduler_address, set_as_default=False) as client:
        assert map_ordered(slow_square, range(6), scheduler=client) == [0, 1, 4, 9, 16, 25]
        assert Executor(scheduler=client).description == \
            f"Dask cluster at {cluster.scheduler_address}"
        # the caller's client stays open
        assert client.submit(slow_square, 3).result() == 9


def test_describe_local(monkeypatch):
    monkeypatch.delenv(SCHEDULER_ENV, raising=False)
    assert Executor(workers=3).description == f"3 local processes ({START_METHOD})"


@pytest.mark.parametrize("mode", ["serial", "dask"])
def test_errors_name_the_job(mode, cluster):
    kwargs = {"serial": {"workers": 1}, "dask": {"scheduler": cluster.scheduler_address}}[mode]
    with pytest.raises(KeyError, match="bad item 3") as info:
        map_ordered(fail_on_three, range(6), chunksize=2, **kwargs)
    assert info.value.__notes__ == ["in job 3 of 6"]


def test_unpicklable_function_gets_a_clear_error(monkeypatch):
    monkeypatch.delenv(SCHEDULER_ENV, raising=False)
    with pytest.raises(ValueError, match="cannot be sent to worker processes"):
        map_ordered(lambda x: x, range(3), workers=2)
    assert map_ordered(lambda x: x + 1, range(3), workers=1) == [1, 2, 3]


@pytest.mark.parametrize("kwargs,message", [
    ({"workers": 0}, "workers"), ({"workers": 1.5}, "workers"), ({"workers": True}, "workers"),
    ({"chunksize": 0}, "chunksize"), ({"scheduler": " "}, "scheduler address is empty")])
def test_bad_arguments(kwargs, message):
    with pytest.raises(ValueError, match=message):
        map_ordered(slow_square, range(3), **kwargs)


def test_empty_input():
    assert map_ordered(slow_square, [], workers=2) == []


@pytest.mark.skipif(START_METHOD != "forkserver", reason="only the forkserver preloads modules")
def test_workers_start_with_the_gamelib_modules_the_parent_had_loaded():
    """The forkserver imports what the process starting the first pool had loaded, so a worker
    does not import numba and gamelib again (``executor.process_context``): ``gamelib.learn.elmo``,
    imported by the parent only, is there in the workers; ``gamelib.learn.elmo_train``, imported
    by no one, is not."""
    import subprocess
    import sys
    from pathlib import Path

    code = ("import gamelib.learn.elmo, sys\n"
            "from experiments_toy import loaded\n"
            "from gamelib.runtime.executor import map_ordered\n"
            "print(map_ordered(loaded, ['gamelib.learn.elmo', 'gamelib.learn.elmo_train',"
            " 'numba'] * 2, workers=2, chunksize=1))\n")
    out = subprocess.run([sys.executable, "-c", code], cwd=Path(__file__).parent, text=True,
                         capture_output=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.split("\n")[-2] == str([True, False, True] * 2)
