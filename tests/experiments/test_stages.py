"""Stage wall times summed over every invocation of a run folder, killed ones included."""

import json
import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

from gamelib.experiments.run_folder import RunFolder
from gamelib.runtime.stages import CLOCK_FILE, StageClock


def test_stages_add_up_across_invocations(tmp_path):
    clock = StageClock(tmp_path)
    with clock.stage("training"):
        time.sleep(0.05)
    with clock.stage("matches"):
        pass
    with clock.stage("training"):          # a stage may run in pieces
        time.sleep(0.02)
    assert clock.this["training"] >= 0.07 and set(clock.this) == {"training", "matches"}
    again = StageClock(tmp_path)
    assert again.totals == pytest.approx(clock.this)
    with again.stage("training"):
        time.sleep(0.01)
    assert again.totals["training"] == pytest.approx(clock.this["training"]
                                                     + again.this["training"])


def test_an_interrupted_stage_is_counted(tmp_path):
    clock = StageClock(tmp_path)
    with pytest.raises(KeyboardInterrupt):
        with clock.stage("training"):
            time.sleep(0.03)
            raise KeyboardInterrupt
    assert StageClock(tmp_path).totals["training"] >= 0.03


def test_a_killed_invocation_is_counted_in_the_provenance(tmp_path):
    """SIGKILL leaves no chance to write: the periodic flush keeps the time anyway."""
    script = textwrap.dedent(f"""
        import time
        from gamelib.runtime.stages import StageClock
        clock = StageClock({str(tmp_path)!r}, flush_every=0.05)
        with clock.stage("training"):
            time.sleep(60)
    """)
    proc = subprocess.Popen([sys.executable, "-c", script], env={**os.environ})
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            path = tmp_path / CLOCK_FILE
            if path.is_file() and json.loads(path.read_text()).get("training", 0) >= 0.5:
                break
            time.sleep(0.05)
        else:
            pytest.fail("the stage clock never wrote its file")
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    run = RunFolder(tmp_path, "toy", "quick", 0, {"n": 1})
    with run.stage("training"):
        pass
    with run.stage("report"):
        pass
    prov = json.loads(run.finish().read_text())
    assert prov["wall_time_by_stage_s"]["training"] >= 0.5          # the killed invocation's
    assert prov["invocations"][-1]["wall_time_s"]["training"] < 0.5  # this one's alone
    assert prov["wall_time_total_s"] == pytest.approx(sum(prov["wall_time_by_stage_s"].values()))


def test_a_damaged_clock_file_is_named(tmp_path):
    (tmp_path / CLOCK_FILE).write_text('["not", "a", "mapping"]')
    with pytest.raises(ValueError, match="wall_time.json is damaged"):
        StageClock(tmp_path)


def test_size_checks_name_the_size_and_the_range():
    from gamelib.runtime.checks import check_integer, check_number

    for call, message in ((lambda: check_number("l1_weight", -1, 0), r"l1_weight must be a "
                           r"number in \[0, inf\], got -1"),
                          (lambda: check_number("alpha", 0, 0, low_open=True),
                           "alpha must be a positive number, got 0"),
                          (lambda: check_number("f", 1.0, 0, 1, high_open=True),
                           r"f must be a number in \[0, 1\), got 1.0"),
                          (lambda: check_number("f", float("nan"), 0), "f must be a number"),
                          (lambda: check_number("f", "0.5", 0), "f must be a number"),
                          (lambda: check_integer("n", True), "n must be a positive integer"),
                          (lambda: check_integer("n", 2.0), "n must be a positive integer"),
                          (lambda: check_integer("n", -1, 0), "n must be a non-negative integer"),
                          (lambda: check_integer("n", 3, 5), "n must be an integer >= 5")):
        with pytest.raises(ValueError, match=message):
            call()
    assert check_number("f", 1, 0, 1) == 1.0 and check_integer("n", 0, 0) == 0
