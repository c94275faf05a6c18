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
after :meth:`UsiEngine.close` (also called by ``with`` and on every error of the handshake);
the process plumbing is :class:`gamelib.play.engine_process.EngineProcess`, shared with the GTP
client.
Lines the engine writes that the protocol does not expect (``info``, banners, garbage) are
ignored; the text of ``bestmove`` is returned as it is, for the caller to check against the
rules.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Mapping, Sequence

from gamelib.games.minishogi import rules as R
from gamelib.play.engine_process import EngineError, EngineProcess, split_command

__all__ = ["EngineError", "Limits", "UsiEngine", "VARIANT", "position_command", "split_command"]

#: Fairy-Stockfish's name of 5×5 shogi.
VARIANT = "minishogi"
_VARIANT_OPTIONS = ("USI_Variant", "UCI_Variant")


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


def position_command(start_sfen: str, moves: Sequence[str]) -> str:
    """``position startpos|sfen <sfen> [moves ...]`` (``startpos`` for the standard position)."""
    head = "position startpos" if start_sfen == R.START_SFEN else f"position sfen {start_sfen}"
    return head + (" moves " + " ".join(moves) if moves else "")


@dataclass
class UsiEngine(EngineProcess):
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

    # ------------------------------------------------------------------ protocol
    def read_until(self, token: str, timeout: float) -> list[str]:
        """The lines the engine writes up to and including the first whose first word is
        ``token`` (``EngineError`` if it dies or ``timeout`` seconds pass first)."""
        deadline = time.monotonic() + timeout
        seen = []
        while True:
            line = self.next_line(deadline, timeout, token)
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
