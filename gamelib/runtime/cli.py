"""What every command line of the project shares: one ``error:`` line and exit status 2 for an
expected failure, 128 + the signal number when a signal stops it.

* :class:`ArgumentParser` is :class:`argparse.ArgumentParser` whose errors (a missing or unknown
  argument, a value that is not a number, ...) print the single line ``error: <message>`` and
  exit with status 2; the usage block is printed by ``--help`` only.
* :func:`run_guarded` runs a command's body: SIGTERM and SIGHUP stop it as Ctrl-C does
  (:func:`gamelib.runtime.interrupt.terminate_on_signals`: the exception unwinds, process pools
  are terminated, temporary files removed) and it returns 128 + the signal number after saying
  how to resume; an expected failure (:data:`EXPECTED_ERRORS`) prints one ``error:`` line
  (:func:`error_line`) and returns 2. ``GAMELIB_DEBUG=1`` shows the traceback instead.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Callable, NoReturn

from gamelib.runtime.interrupt import exit_status, terminate_on_signals

__all__ = ["ArgumentParser", "DEBUG_ENV", "EXPECTED_ERRORS", "error_line", "run_guarded",
           "debugging"]

#: Set to 1 for a traceback instead of the one-line error.
DEBUG_ENV = "GAMELIB_DEBUG"
#: Failures reported as ``error: ...`` with exit status 2 (bad input, the file system); anything
#: else is a bug and shows a traceback. Callers add their own (e.g. a run folder in use).
EXPECTED_ERRORS = (ValueError, OSError)


class ArgumentParser(argparse.ArgumentParser):
    """:class:`argparse.ArgumentParser` whose errors are one ``error:`` line, exit status 2
    (sub-commands made with ``add_subparsers`` are of this class too)."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, "error: " + " ".join(str(message).split()) + "\n")


def debugging() -> bool:
    """Whether ``GAMELIB_DEBUG`` asks for tracebacks."""
    return os.environ.get(DEBUG_ENV, "") not in ("", "0")


def error_line(err: BaseException) -> str:
    """The one line reporting an expected failure, naming the path where there is one."""
    if isinstance(err, OSError) and err.filename is not None and err.strerror:
        return f"error: {err.filename}: {err.strerror}"
    return "error: " + " ".join(str(err).split())


def run_guarded(command: Callable[[], int], expected: tuple = EXPECTED_ERRORS,
                resume: str = "rerun the same command to resume from the last checkpoint") -> int:
    """``command()``'s exit status, run as a long command line runs: a signal stops it with its
    process tree (status 128 + the signal number, after the line ``stopped by SIGTERM:
    <resume>``), an expected failure (one of ``expected``) prints one ``error:`` line (status 2).
    """
    with terminate_on_signals():
        try:
            return command()
        except KeyboardInterrupt as stop:
            print(f"{stop or 'interrupted'}: {resume}", file=sys.stderr)
            return exit_status(stop)
        except expected as err:
            if debugging():
                raise
            print(error_line(err), file=sys.stderr)
            return 2
