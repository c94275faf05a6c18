"""Stopping a long command cleanly on SIGTERM and SIGHUP, as on Ctrl-C.

Python stops at once on SIGTERM and SIGHUP (the default action): no ``finally`` block runs, so a
process pool's workers, the forkserver and the resource tracker are left behind, blocked on their
pipes. :func:`terminate_on_signals` turns both signals into :class:`Terminated`, a
:class:`KeyboardInterrupt`, so they take the path Ctrl-C takes: the exception unwinds the run,
:class:`~gamelib.runtime.executor.Executor` terminates its workers, atomic writers remove
their temporary files, and the command exits; rerunning it resumes from the last checkpoint.

:func:`stop_descendants` ends every process started below this one (for a notebook's kernel,
whose own workers this process cannot reach otherwise).
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
from typing import Iterator

SIGNALS = tuple(getattr(signal, name) for name in ("SIGTERM", "SIGHUP") if hasattr(signal, name))


class Terminated(KeyboardInterrupt):
    """SIGTERM or SIGHUP arrived; :attr:`signum` says which."""

    def __init__(self, signum: int):
        super().__init__(f"stopped by {signal.Signals(signum).name}")
        self.signum = signum


def exit_status(interrupt: KeyboardInterrupt) -> int:
    """The shell's status for a command stopped by ``interrupt``: 128 + the signal number."""
    return 128 + getattr(interrupt, "signum", signal.SIGINT)


def _raise_terminated(signum, _frame) -> None:
    # Cleanup must not be interrupted by a second signal (e.g. `timeout` then `kill`): later
    # SIGTERM/SIGHUP are ignored until the handlers are restored.
    for sig in SIGNALS:
        signal.signal(sig, signal.SIG_IGN)
    raise Terminated(signum)


@contextlib.contextmanager
def terminate_on_signals(only_if_default: bool = False) -> Iterator[bool]:
    """Within the block, SIGTERM and SIGHUP raise :class:`Terminated` in the main thread.

    Parameters
    ----------
    only_if_default : bool
        Leave a signal alone when someone already handles it (a library's own use: never
        override the handler of the program it runs in).

    Yields
    ------
    bool
        Whether a handler was installed (never outside the main thread, where Python cannot).
    """
    if threading.current_thread() is not threading.main_thread():
        yield False
        return
    previous = {sig: signal.getsignal(sig) for sig in SIGNALS}
    mine = [sig for sig, handler in previous.items()
            if not only_if_default or handler is signal.SIG_DFL]
    for sig in mine:
        signal.signal(sig, _raise_terminated)
    try:
        yield bool(mine)
    finally:
        for sig in mine:
            signal.signal(sig, previous[sig])


def stop_descendants(grace: float = 3.0) -> int:
    """Terminate every process below this one, then kill those still alive after ``grace`` s.

    The process tree is read once, before any signal is sent, so processes whose parent dies
    first (a kernel's forkserver and its pool workers) are still reached. Returns the number of
    processes found.
    """
    import psutil

    try:
        procs = psutil.Process(os.getpid()).children(recursive=True)
    except psutil.Error:
        return 0
    for proc in procs:
        with contextlib.suppress(psutil.Error):
            proc.terminate()
    _, alive = psutil.wait_procs(procs, timeout=grace)
    for proc in alive:
        with contextlib.suppress(psutil.Error):
            proc.kill()
    psutil.wait_procs(alive, timeout=grace)
    return len(procs)
