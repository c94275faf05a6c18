"""An engine process spoken to over its standard input and output, with timeouts: the
plumbing that the USI client (:mod:`gamelib.play.usi_client`) and the GTP client
(:mod:`gamelib.play.gtp_client`) share.

:class:`EngineProcess` starts a program from its command line in a session of its own, reads
its output lines on a thread into a queue, writes command lines, and waits for an answer line
until a deadline. Anything that goes wrong -- the program cannot be started, dies, does not
answer within the timeout -- raises :class:`EngineError` with a short reason (``"did not start:
..."``, ``"died (exit code N) ..."``, ``"timeout: no ... within T s"``). :meth:`EngineProcess.close`
writes ``quit``, waits a second, then terminates and at last kills the whole process group, so
no process is left behind; it is called by ``with``, and on every error of the protocol's
opening exchange (:meth:`EngineProcess._handshake`, which each protocol defines).
"""

from __future__ import annotations

import os
import queue
import shlex
import signal
import subprocess
import threading
import time
from typing import Sequence

__all__ = ["EngineError", "EngineProcess", "split_command"]

_QUIT_GRACE = 1.0


class EngineError(RuntimeError):
    """An engine failed; ``str(err)`` is the reason recorded with the game."""


def split_command(command: str | Sequence[str]) -> list[str]:
    """The argument list of an engine command line (a string is split like a POSIX shell)."""
    args = shlex.split(command) if isinstance(command, str) else [str(a) for a in command]
    if not args:
        raise ValueError("empty engine command")
    return args


class EngineProcess:
    """One engine program, started by :meth:`start` and ended by :meth:`close`.

    A subclass is a dataclass with the field ``command`` (a string or an argument list) and
    defines :meth:`_handshake`.
    """

    command: str | Sequence[str]
    _proc: subprocess.Popen | None = None
    _lines: queue.Queue | None = None

    # ------------------------------------------------------------------ life cycle
    def start(self):
        """Start the process and do the handshake (``EngineError`` on failure, nothing left
        running)."""
        args = split_command(self.command)
        try:
            self._proc = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                          stderr=subprocess.DEVNULL, text=True, bufsize=1,
                                          encoding="utf-8", errors="replace", start_new_session=True)
        except OSError as err:
            raise EngineError(f"did not start: {err.strerror or err}") from None
        self._lines = queue.Queue()
        threading.Thread(target=self._read, args=(self._proc.stdout, self._lines), daemon=True).start()
        try:
            self._handshake()
        except BaseException:
            self.close()
            raise
        return self

    def _handshake(self) -> None:
        """The protocol's opening exchange (``EngineError`` if it fails)."""
        raise NotImplementedError

    def __enter__(self):
        return self.start() if self._proc is None else self

    def __exit__(self, *exc) -> None:
        self.close()

    @staticmethod
    def _read(stream, lines: queue.Queue) -> None:
        try:
            for line in stream:
                lines.put(line.rstrip("\r\n"))
        except (OSError, ValueError):
            pass
        lines.put(None)

    def close(self) -> None:
        """``quit``, then terminate, then kill (the whole process group); idempotent."""
        proc, self._proc = self._proc, None
        if proc is None:
            return
        try:
            if proc.poll() is None:
                try:
                    proc.stdin.write("quit\n")
                    proc.stdin.flush()
                except (OSError, ValueError):
                    pass
                try:
                    proc.wait(_QUIT_GRACE)
                except subprocess.TimeoutExpired:
                    self._signal(proc, signal.SIGTERM)
                    try:
                        proc.wait(_QUIT_GRACE)
                    except subprocess.TimeoutExpired:
                        self._signal(proc, signal.SIGKILL)
                        proc.wait()
        finally:
            for stream in (proc.stdin, proc.stdout):
                try:
                    stream.close()
                except (OSError, ValueError):
                    pass

    @staticmethod
    def _signal(proc: subprocess.Popen, sig: int) -> None:
        try:
            os.killpg(proc.pid, sig)
        except (ProcessLookupError, PermissionError):
            try:
                proc.send_signal(sig)
            except ProcessLookupError:
                pass

    @property
    def pid(self) -> int | None:
        """The engine's process id (None when not running)."""
        return None if self._proc is None else self._proc.pid

    # ------------------------------------------------------------------ lines
    def send(self, line: str) -> None:
        """Write one command line (``EngineError`` if the engine has gone)."""
        if self._proc is None:
            raise EngineError("is not running")
        try:
            self._proc.stdin.write(line + "\n")
            self._proc.stdin.flush()
        except (OSError, ValueError):
            raise EngineError(f"died (exit code {self._proc.poll()}) before {line.split()[0]!r}") from None

    def next_line(self, deadline: float, timeout: float, awaited: str) -> str:
        """The engine's next output line, waiting until ``deadline`` (a ``time.monotonic()``
        value): ``EngineError`` naming ``awaited`` if the engine dies or the deadline (of
        ``timeout`` seconds) passes first."""
        left = deadline - time.monotonic()
        try:
            line = self._lines.get(timeout=left) if left > 0 else self._lines.get_nowait()
        except queue.Empty:
            raise EngineError(f"timeout: no {awaited} within {timeout:g} s") from None
        if line is None:
            code = self._proc.wait() if self._proc is not None else None
            raise EngineError(f"died (exit code {code}) while we waited for {awaited}")
        return line
