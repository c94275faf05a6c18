"""A USI client: start a shogi engine process and talk to it, with timeouts.

:class:`UsiEngine` runs any USI engine from a command line (python-chess's ``SimpleEngine`` and
cshogi's match runner are the models) and drives the protocol:

* the handshake ``usi`` -> ``id name`` / ``option`` lines / ``usiok``, then ``setoption`` for
  each option, ``isready`` -> ``readyok``. An engine whose ``id name`` says Fairy-Stockfish is put
  into 5×5 shogi by the client itself: ``setoption name USI_Variant value minishogi`` (or
  ``UCI_Variant``, the name Fairy-Stockfish 11.1 announces over USI), unless the caller sets the
  variant option;
* per game ``usinewgame`` (and ``isready``), per move ``position startpos|sfen ... moves ...``
  and ``go`` with ``nodes`` / ``depth`` / ``byoyomi`` limits, answered by ``bestmove``;
* ``gameover win|lose|draw`` at the end of a game and ``quit`` at the end; an engine that does
  not leave within a second is terminated, then killed.

Anything that goes wrong -- the program cannot be started, dies, never answers ``usiok``,
``readyok`` or ``bestmove`` within its timeout -- raises :class:`EngineError` with a short
reason (``"did not start: ..."``, ``"died ..."``, ``"timeout ..."``), and the process is gone
after :meth:`UsiEngine.close` (also called by ``with`` and on every error of the handshake).
Lines the engine writes that the protocol does not expect (``info``, banners, garbage) are
ignored; the text of ``bestmove`` is returned as it is, for the caller to check against the
rules.
"""

from __future__ import annotations

import os
import queue
import shlex
import signal
import subprocess
import threading
import time
from dataclasses import dataclass, field
from typing import Mapping, Sequence

from gamelib.minishogi import rules as R

__all__ = ["EngineError", "Limits", "UsiEngine", "VARIANT", "position_command", "split_command"]

#: Fairy-Stockfish's name of 5×5 shogi.
VARIANT = "minishogi"
_VARIANT_OPTIONS = ("USI_Variant", "UCI_Variant")
_QUIT_GRACE = 1.0


class EngineError(RuntimeError):
    """A USI engine failed; ``str(err)`` is the reason recorded with the game."""


@dataclass(frozen=True)
class Limits:
    """The limits of a ``go`` command (at least one): ``nodes``, ``depth`` (plies) and
    ``byoyomi`` (milliseconds per move, sent as ``btime 0 wtime 0 byoyomi MS``)."""

    nodes: int | None = None
    depth: int | None = None
    byoyomi: int | None = None

    def __post_init__(self):
        for name in ("nodes", "depth", "byoyomi"):
            v = getattr(self, name)
            if v is not None and (isinstance(v, bool) or not isinstance(v, int) or v < 1):
                raise ValueError(f"{name} must be a positive integer or None, got {v!r}")
        if self.nodes is None and self.depth is None and self.byoyomi is None:
            raise ValueError("give at least one limit: nodes, depth or byoyomi")

    def go_command(self) -> str:
        """``go nodes N depth D btime 0 wtime 0 byoyomi MS`` with the limits that are set."""
        parts = ["go"]
        if self.nodes is not None:
            parts += ["nodes", str(self.nodes)]
        if self.depth is not None:
            parts += ["depth", str(self.depth)]
        if self.byoyomi is not None:
            parts += ["btime", "0", "wtime", "0", "byoyomi", str(self.byoyomi)]
        return " ".join(parts)


def split_command(command: str | Sequence[str]) -> list[str]:
    """The argument list of an engine command line (a string is split like a POSIX shell)."""
    args = shlex.split(command) if isinstance(command, str) else [str(a) for a in command]
    if not args:
        raise ValueError("empty engine command")
    return args


def position_command(start_sfen: str, moves: Sequence[str]) -> str:
    """``position startpos|sfen <sfen> [moves ...]`` (``startpos`` for the standard position)."""
    head = "position startpos" if start_sfen == R.START_SFEN else f"position sfen {start_sfen}"
    return head + (" moves " + " ".join(moves) if moves else "")


@dataclass
class UsiEngine:
    """One running USI engine.

    Parameters
    ----------
    command : str or list of str
        The engine's command line (e.g. ``"/usr/games/fairy-stockfish"`` or
        ``"python -m gamelib.play.usi"``).
    options : mapping
        ``{name: value}`` sent with ``setoption`` after ``usiok`` (values as text).
    start_timeout : float
        Seconds to wait for ``usiok`` and for each ``readyok``.
    move_timeout : float
        Seconds to wait for a ``bestmove``.
    """

    command: str | Sequence[str]
    options: Mapping[str, object] = field(default_factory=dict)
    start_timeout: float = 60.0
    move_timeout: float = 60.0
    name: str = field(default="", init=False)
    announced: dict = field(default_factory=dict, init=False)
    _proc: subprocess.Popen | None = field(default=None, init=False, repr=False)
    _lines: queue.Queue | None = field(default=None, init=False, repr=False)

    # ------------------------------------------------------------------ life cycle
    def start(self) -> UsiEngine:
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

    def __enter__(self) -> UsiEngine:
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

    # ------------------------------------------------------------------ protocol
    def send(self, line: str) -> None:
        """Write one command line (``EngineError`` if the engine has gone)."""
        if self._proc is None:
            raise EngineError("is not running")
        try:
            self._proc.stdin.write(line + "\n")
            self._proc.stdin.flush()
        except (OSError, ValueError):
            raise EngineError(f"died (exit code {self._proc.poll()}) before {line.split()[0]!r}") from None

    def read_until(self, token: str, timeout: float) -> list[str]:
        """The lines the engine writes up to and including the first whose first word is
        ``token`` (``EngineError`` if it dies or ``timeout`` seconds pass first)."""
        deadline = time.monotonic() + timeout
        seen = []
        while True:
            left = deadline - time.monotonic()
            try:
                line = self._lines.get(timeout=max(0.0, left)) if left > 0 else self._lines.get_nowait()
            except queue.Empty:
                raise EngineError(f"timeout: no {token} within {timeout:g} s") from None
            if line is None:
                code = self._proc.wait() if self._proc is not None else None
                raise EngineError(f"died (exit code {code}) while we waited for {token}")
            seen.append(line)
            if line.split()[:1] == [token]:
                return seen

    def _handshake(self) -> None:
        self.send("usi")
        for line in self.read_until("usiok", self.start_timeout):
            words = line.split()
            if words[:2] == ["id", "name"]:
                self.name = " ".join(words[2:])
            elif words[:2] == ["option", "name"] and "type" in words:
                k = words.index("type")
                self.announced[" ".join(words[2:k]).lower()] = " ".join(words[2:k])
        options = dict(self.options)
        given = {str(k).lower() for k in options}
        if self.is_fairy_stockfish and not given & {o.lower() for o in _VARIANT_OPTIONS}:
            name = next((o for o in _VARIANT_OPTIONS if o.lower() in self.announced), _VARIANT_OPTIONS[0])
            options = {name: VARIANT, **options}
        for key, value in options.items():
            if self.announced and str(key).lower() not in self.announced:
                raise EngineError(f"has no option {key!r} (it announces: {', '.join(self.announced.values())})")
            self.send(f"setoption name {key} value {value}")
        self.ready()

    @property
    def is_fairy_stockfish(self) -> bool:
        """The engine's ``id name`` says Fairy-Stockfish."""
        return "fairy-stockfish" in self.name.lower()

    def ready(self) -> None:
        """``isready`` -> ``readyok``."""
        self.send("isready")
        self.read_until("readyok", self.start_timeout)

    def new_game(self) -> None:
        """``usinewgame`` and ``isready`` (a fresh search state: the same game is replayed
        move for move)."""
        self.send("usinewgame")
        self.ready()

    def bestmove(self, start_sfen: str, moves: Sequence[str], limits: Limits) -> str:
        """The engine's move in the position after ``moves`` (the text after ``bestmove``;
        ``""`` if there is none)."""
        self.send(position_command(start_sfen, moves))
        self.send(limits.go_command())
        words = self.read_until("bestmove", self.move_timeout)[-1].split()
        return words[1] if len(words) > 1 else ""

    def game_over(self, result: str) -> None:
        """``gameover win|lose|draw`` (errors ignored: the game is over anyway)."""
        if result not in ("win", "lose", "draw"):
            raise ValueError(f"result must be 'win', 'lose' or 'draw', got {result!r}")
        try:
            self.send(f"gameover {result}")
        except EngineError:
            pass
