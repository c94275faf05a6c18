"""A GTP client for Othello engines: start an engine process and talk the Go Text Protocol to
it, with timeouts.

:class:`GtpEngine` runs any GTP engine from a command line (GRhino's ``gtp-rhino`` is the
model) over the process plumbing of :class:`gamelib.play.engine_process.EngineProcess`:

* the handshake ``name`` then ``boardsize 8``; per game ``clear_board``;
* ``play black|white VERTEX`` for the opponent's moves and ``genmove black|white`` for the
  engine's, answered by a vertex, ``pass`` or ``resign`` (returned lower-cased, as it is, for
  the caller to check against the rules); ``showboard`` read back into a board string
  (:meth:`GtpEngine.board`); ``quit`` at the end (an engine that does not leave within a second
  is terminated, then killed).

A GTP answer is a line starting with ``=`` (success) or ``?`` (failure), an optional id,
the text, and more lines up to an empty one; lines before it are ignored. A failure answer to
a command the game needs, an engine that cannot be started, dies or does not answer within its
timeout raise :class:`EngineError` with a short reason (``"refused 'play black f5': illegal
move"``, ``"died ..."``, ``"timeout: no answer to 'genmove white' within 60 s"``).

**Coordinates.** The vertices are Othello's square names: column ``a``..``h`` from the left,
row ``1``..``8`` from the top, as in the transcript ``f5d6c3...`` (not Go's convention of row 1
at the bottom). GRhino 0.16.1 uses them so -- its ``showboard`` prints row 1 at the top with the
start position's white discs on d4 and e5, and after ``play black f5`` the disc on e5 is
black; ``tests/play/test_gtp_rhino.py`` checks this on the standard opening.

**Passes.** A pass the engine must make is its answer ``pass`` to ``genmove``. The
opponent's pass is sent as ``play COLOUR pass``; GRhino refuses that command (``? syntax
error``) and passes by itself when the side to move has no move, so a refused ``play ...
pass`` is not an error.
"""

from __future__ import annotations

import os
import shutil
import time
from dataclasses import dataclass, field
from typing import Sequence

from gamelib.play.engine_process import EngineError, EngineProcess

__all__ = ["GtpEngine", "COLOURS", "GRHINO", "grhino_path", "board_of_showboard"]

#: GTP's names of the side to move ``"X"`` (black) and ``"O"`` (white).
COLOURS = {"X": "black", "O": "white"}
#: GRhino's GTP front end (Debian package ``grhino``).
GRHINO = "gtp-rhino"
_GRHINO_PLACES = ("/usr/games/gtp-rhino",)
_ROWS = tuple("12345678")
_DISCS = {".": "-", "-": "-", "+": "-", "X": "X", "x": "X", "*": "X", "#": "X", "O": "O", "o": "O", "@": "O"}


def grhino_path() -> str | None:
    """Where ``gtp-rhino`` is: ``$GRHINO`` if it is set (None if that is not an executable
    file), else the ``PATH``, else ``/usr/games`` (Debian puts it there, outside a user's usual
    ``PATH``); None if it is nowhere."""
    if os.environ.get("GRHINO"):
        return os.environ["GRHINO"] if os.access(os.environ["GRHINO"], os.X_OK) else None
    found = shutil.which(GRHINO)
    if found:
        return found
    return next((p for p in _GRHINO_PLACES if os.access(p, os.X_OK)), None)


def board_of_showboard(text: str) -> str:
    """The 64-character board string (``X``, ``O``, ``-``; a1 first) of a ``showboard`` answer:
    the eight lines that start with a row number 1..8 followed by eight discs (``.``/``-``
    empty, ``X``/``x``/``*`` black, ``O``/``o`` white), placed by the printed row number."""
    rows = {}
    for line in text.splitlines():
        words = line.split()
        if len(words) >= 9 and words[0] in _ROWS and all(w in _DISCS for w in words[1:9]):
            rows.setdefault(int(words[0]), "".join(_DISCS[w] for w in words[1:9]))
    if sorted(rows) != list(range(1, 9)):
        raise ValueError(f"no 8x8 board (rows 1-8 of 8 discs) in the showboard answer {text!r}")
    return "".join(rows[r] for r in range(1, 9))


@dataclass
class GtpEngine(EngineProcess):
    """One running GTP engine playing Othello on an 8×8 board.

    Parameters
    ----------
    command : str or list of str
        The engine's command line (e.g. ``"/usr/games/gtp-rhino --level 1"``).
    start_timeout : float
        Seconds to wait for the answers of ``name``, ``boardsize`` and ``clear_board``.
    move_timeout : float
        Seconds to wait for the answer to ``play`` or ``genmove``.
    """

    command: str | Sequence[str]
    start_timeout: float = 60.0
    move_timeout: float = 60.0
    name: str = field(default="", init=False)

    def _handshake(self) -> None:
        self.name = self.ask("name", self.start_timeout)
        self.ask("boardsize 8", self.start_timeout)

    def exchange(self, command: str, timeout: float) -> tuple[bool, str]:
        """Send ``command``; ``(True, text)`` for a success answer, ``(False, text)`` for a
        failure (``EngineError`` if the engine dies or ``timeout`` seconds pass first)."""
        self.send(command)
        deadline = time.monotonic() + timeout
        awaited = f"answer to {command!r}"
        line = ""
        while not (line and line[0] in "=?"):
            line = self.next_line(deadline, timeout, awaited)
        ok, lines = line[0] == "=", [line[1:].lstrip("0123456789").strip()]
        while True:
            more = self.next_line(deadline, timeout, f"end (an empty line) of the {awaited}")
            if not more.strip():
                return ok, "\n".join(lines).strip()
            lines.append(more)

    def ask(self, command: str, timeout: float) -> str:
        """The text of the success answer to ``command`` (``EngineError`` on a failure answer)."""
        ok, text = self.exchange(command, timeout)
        if not ok:
            raise EngineError(f"refused {command!r}: {' '.join(text.split())[:80]}")
        return text

    def new_game(self) -> None:
        """``clear_board``: the start position, black to move."""
        self.ask("clear_board", self.start_timeout)

    def play(self, colour: str, move: str) -> None:
        """``play COLOUR MOVE`` (``colour`` ``black``/``white``, ``move`` a square or ``pass``; a
        refused pass is taken as an engine that passes by itself)."""
        if move == "pass":
            self.exchange(f"play {colour} pass", self.move_timeout)
        else:
            self.ask(f"play {colour} {move}", self.move_timeout)

    def genmove(self, colour: str) -> str:
        """The engine's move for ``colour`` (lower-cased text of the answer: a square, ``pass``,
        ``resign`` or whatever it said)."""
        return self.ask(f"genmove {colour}", self.move_timeout).strip().lower()

    def board(self) -> str:
        """The engine's board as a 64-character string (``showboard``, see
        :func:`board_of_showboard`)."""
        return board_of_showboard(self.ask("showboard", self.start_timeout))
