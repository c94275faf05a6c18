"""run_batched: killed and resumed runs, workers, Dask and checkpoint interval change nothing."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

import experiments_toy as toy
from gamelib.runtime import RunConfigMismatch, run_batched
from gamelib.runtime.atomic import read_json
from gamelib.runtime.checkpoint import MANIFEST, CheckpointStore
from gamelib.runtime.driver import BatchContext

TOY_SCRIPT = Path(toy.__file__)
N_BATCHES = 30


def same_state(a, b):
    assert a.keys() == b.keys()
    for name in a:
        assert a[name].dtype == b[name].dtype and a[name].shape == b[name].shape
        assert a[name].tobytes() == b[name].tobytes(), name


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """An uninterrupted serial run."""
    return toy.run(tmp_path_factory.mktemp("reference"), seed=11, n_batches=N_BATCHES)


@pytest.fixture(scope="module")
def cluster():
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster:
        yield cluster


def completed(folder):
    try:
        return read_json(folder / MANIFEST)["completed"]
    except (FileNotFoundError, ValueError):
        return 0


def start_and_kill(folder, at_least, timeout=60.0):
    """Start the toy run as a script, SIGKILL it once it has checkpointed ``at_least``
    batches; returns the completed count the manifest shows after the kill."""
    env = dict(os.environ, TOY_SLEEP="0.05")
    proc = subprocess.Popen([sys.executable, str(TOY_SCRIPT), str(folder), "11",
                             str(N_BATCHES)], env=env, stderr=subprocess.PIPE)
    deadline = time.monotonic() + timeout
    while completed(folder) < at_least:
        assert proc.poll() is None, proc.stderr.read().decode()
        assert time.monotonic() < deadline, "toy run made no progress"
        time.sleep(0.005)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    proc.stderr.close()
    assert proc.returncode == -signal.SIGKILL
    return completed(folder)


def test_killed_twice_then_resumed_equals_uninterrupted_bit_for_bit(tmp_path, reference):
    folder = tmp_path / "run"
    first = start_and_kill(folder, at_least=4)
    second = start_and_kill(folder, at_least=first + 5)
    assert 4 <= first < second < N_BATCHES
    result = toy.run(folder, seed=11, n_batches=N_BATCHES)
    assert result.resumed_from >= second and result.completed == N_BATCHES
    same_state(result.state, reference.state)
    assert int(result.state["games"]) == N_BATCHES * toy.CONFIG["games_per_batch"]
    assert not [p for p in folder.iterdir() if p.name.endswith(".tmp")]


def test_exception_midway_then_resume(tmp_path, reference):
    calls = []

    def flaky_step(state, ctx):
        calls.append(ctx.index)
        if ctx.index == 17 and calls.count(17) == 1:
            raise RuntimeError("power cut")
        return toy.step(state, ctx)

    kwargs = dict(config=toy.CONFIG, seed=11, n_batches=N_BATCHES, init=toy.init,
                  step=flaky_step, checkpoint_every=4)
    with pytest.raises(RuntimeError, match="power cut"):
        run_batched(tmp_path, **kwargs)
    result = run_batched(tmp_path, **kwargs)
    assert result.resumed_from == 16           # the last multiple of 4 before batch 17
    same_state(result.state, reference.state)


@pytest.mark.parametrize("executor", ["processes", "dask", "serial-sparse-checkpoints"])
def test_executor_and_checkpoint_interval_do_not_change_results(executor, tmp_path, reference,
                                                                cluster):
    kwargs = {"processes": {"workers": 2},
              "dask": {"scheduler": cluster.scheduler_address},
              "serial-sparse-checkpoints": {"workers": 1, "checkpoint_every": 7}}[executor]
    result = toy.run(tmp_path, seed=11, n_batches=N_BATCHES, **kwargs)
    same_state(result.state, reference.state)


def test_other_seed_gives_other_numbers(tmp_path, reference):
    result = toy.run(tmp_path, seed=12, n_batches=N_BATCHES)
    assert not np.array_equal(result.state["params"], reference.state["params"])


def test_extend_a_finished_run_and_keep_milestones(tmp_path, reference):
    toy.run(tmp_path, seed=11, n_batches=10, keep=(5, 10))
    again = toy.run(tmp_path, seed=11, n_batches=10)
    assert again.resumed_from == 10
    result = toy.run(tmp_path, seed=11, n_batches=N_BATCHES, keep=(5, 10, 20))
    assert result.resumed_from == 10
    same_state(result.state, reference.state)
    with CheckpointStore(tmp_path, {"config": toy.CONFIG, "seed": 11}) as store:
        tags = {e["tag"]: e["completed"] for e in store.checkpoints if e["tag"]}
        assert tags == {"batch-5": 5, "batch-10": 10, "batch-20": 20}
        # the milestone holds the state an uninterrupted run had after 10 batches
        short = toy.run(tmp_path / "short", seed=11, n_batches=10)
        same_state(store.load(tag="batch-10").arrays, short.state)
    with pytest.raises(ValueError, match="already has 30 batches"):
        toy.run(tmp_path, seed=11, n_batches=20)


def test_another_run_in_the_same_folder_is_refused(tmp_path):
    toy.run(tmp_path, seed=11, n_batches=2)
    with pytest.raises(RunConfigMismatch, match="'seed': stored 11, requested 12"):
        toy.run(tmp_path, seed=12, n_batches=2)
    with pytest.raises(RunConfigMismatch, match="'config.lr'"):
        run_batched(tmp_path, config={**toy.CONFIG, "lr": 0.5}, seed=11, n_batches=2,
                    init=toy.init, step=toy.step)


def test_zero_batches_returns_the_initial_state(tmp_path):
    result = toy.run(tmp_path, seed=11, n_batches=0)
    same_state(result.state, {k: np.asarray(v) for k, v in toy.init(toy.CONFIG, 11).items()})


def test_bad_arguments_and_bad_steps(tmp_path):
    common = dict(config=toy.CONFIG, seed=1, init=toy.init, step=toy.step)
    with pytest.raises(ValueError, match="n_batches"):
        run_batched(tmp_path / "a", n_batches=-1, **common)
    with pytest.raises(ValueError, match="checkpoint_every"):
        run_batched(tmp_path / "a", n_batches=1, checkpoint_every=0, **common)
    with pytest.raises(ValueError, match="keep"):
        run_batched(tmp_path / "a", n_batches=1, keep=[0], **common)
    with pytest.raises(ValueError, match="seed"):
        run_batched(tmp_path / "a", n_batches=1, **{**common, "seed": 1.0})
    with pytest.raises(TypeError, match=r"step \(batch 0\) must return a dict"):
        run_batched(tmp_path / "b", n_batches=1, **{**common, "step": lambda s, c: [1]})
    with pytest.raises(TypeError, match="dtype object"):
        run_batched(tmp_path / "c", n_batches=1,
                    **{**common, "step": lambda s, c: {"x": np.array([None])}})
    with pytest.raises(TypeError, match="init must return"):
        run_batched(tmp_path / "d", n_batches=1, **{**common, "init": lambda c, s: None})


def test_batch_context_seeds():
    ctx = BatchContext({"a": 1}, run_seed=5, index=3)
    from gamelib.runtime.seeds import derive_seed
    assert ctx.seed == derive_seed(5, "batch", 3)
    assert ctx.derive_seed("game", 40) == derive_seed(5, "game", 40)
    assert ctx.derive_seed("game", 40, bits=32) < 2 ** 32
    np.testing.assert_array_equal(ctx.rng("x").random(3), BatchContext({}, 5, 3).rng("x")
                                  .random(3))
    assert ctx.map(abs, [-1, 2, -3]) == [1, 2, 3]
