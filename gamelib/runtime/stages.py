"""Wall time per stage of a run folder, summed over every invocation -- killed ones included.

A long run is often stopped and resumed (a time limit ends it, a machine reboots, ``kill -9``). Its
provenance should state what the whole run cost, not what the finishing invocation did, so the
clock keeps its totals in ``<run folder>/wall_time.json``: read when a run starts, rewritten
atomically every ``flush_every`` seconds while a stage runs and when it ends. An invocation that
is killed without warning loses at most ``flush_every`` seconds of its record; one that ends by an
exception (Ctrl-C, SIGTERM) loses nothing.
"""

from __future__ import annotations

import threading
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Mapping

from gamelib.runtime.atomic import atomic_write_json, read_json

__all__ = ["StageClock", "CLOCK_FILE"]

CLOCK_FILE = "wall_time.json"


class StageClock:
    """Times the stages of one run folder.

    Use ``with clock.stage("training"): ...``; :attr:`this` holds this invocation's seconds
    per stage and :attr:`totals` those of every invocation of the folder so far.
    ``earlier``: the totals to start from when the folder has no clock file yet (a run begun
    before clocks existed, whose provenance records its earlier invocations).
    """

    def __init__(self, folder, flush_every: float = 15.0,
                 earlier: Mapping[str, float] | None = None):
        self.path = Path(folder) / CLOCK_FILE
        self.flush_every = float(flush_every)
        saved = read_json(self.path) if self.path.is_file() else dict(earlier or {})
        if not isinstance(saved, dict) or not all(isinstance(v, (int, float))
                                                  for v in saved.values()):
            raise ValueError(f"{self.path} is damaged: expected {{stage: seconds}}, got {saved!r}")
        self._before = {k: float(v) for k, v in saved.items()}   # earlier invocations
        self.this: dict[str, float] = {}
        self._running: tuple[str, float] | None = None
        self._lock = threading.Lock()

    @property
    def totals(self) -> dict[str, float]:
        """Seconds per stage over all invocations, the running stage included."""
        with self._lock:
            return self._totals()

    def _totals(self) -> dict[str, float]:
        out = dict(self._before)
        for stage, seconds in self.this.items():
            out[stage] = out.get(stage, 0.0) + seconds
        if self._running is not None:
            stage, start = self._running
            out[stage] = out.get(stage, 0.0) + time.perf_counter() - start
        return out

    def _flush(self) -> None:
        with self._lock:
            totals = self._totals()
        atomic_write_json(self.path, totals)

    @contextmanager
    def stage(self, name: str):
        """Time the body as stage ``name`` (a stage may run in several pieces)."""
        if self._running is not None:
            raise RuntimeError(f"stage {name!r} started inside stage {self._running[0]!r}")
        stop = threading.Event()

        def flush_periodically():
            while not stop.wait(self.flush_every):
                self._flush()

        self._running = (name, time.perf_counter())
        ticker = threading.Thread(target=flush_periodically, daemon=True,
                                  name=f"stage clock {name}")
        ticker.start()
        try:
            yield
        finally:
            stop.set()
            ticker.join()
            with self._lock:
                _, start = self._running
                self.this[name] = self.this.get(name, 0.0) + time.perf_counter() - start
                self._running = None
            self._flush()
