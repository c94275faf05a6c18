"""A USI engine for 5×5 shogi: ``python -m gamelib.play.usi``.

Speaks the USI protocol on stdin/stdout so that a shogi GUI or another USI engine (e.g.
Fairy-Stockfish with ``UCI_Variant minishogi``) can play it. Squares and moves use standard USI
coordinates (files 5..1, ranks a..e: ``5e4d``, ``2b2a+``, ``G*3c``), as
:func:`gamelib.games.minishogi.format_usi` writes them.

Commands
--------
``usi``
    ``id name``/``id author``, the options below, ``usiok``.
``isready``
    Loads the compiled search (the first time) and answers ``readyok`` (also while searching).
``setoption name <name> [value <value>]``
    ``EvalFile`` (a ``.npz`` parameter file of :func:`gamelib.games.minishogi.features.save_theta`;
    empty: the reference opponent's hand-made weights), ``Nodes`` (node budget of a ``go``
    without limits), ``Depth`` (deepest iteration), ``QDepth`` (quiescence plies), ``NoiseStd``
    (standard deviation of the evaluation noise, e.g. 0.0316 for the paper's variance 0.001),
    ``Seed`` (of the noise), ``MaxPlies`` (game-length cap scored a draw, 0: none), ``USI_Hash``
    (MB of transposition table), ``USI_Ponder`` (``true``: ``bestmove <move> ponder <reply>``
    with the reply the principal variation expects, when it has one).
``usinewgame``, ``gameover ...``
    Accepted (every search starts afresh, so there is nothing to reset).
``position startpos|sfen <board> <side> <hand> [<move number>] [moves <m1> <m2> ...]``
    Sets the position. A malformed SFEN or an illegal move is reported with ``info string
    error ...`` and the previous position is kept.
``go [nodes N] [depth N] [movetime MS] [infinite] [btime MS wtime MS [byoyomi MS] [binc MS winc MS]] [ponder]``
    Searches in a background thread and answers ``info depth D seldepth S score cp X|mate N
    nodes N nps N time MS pv ...`` after each iteration and ``bestmove <move>`` (``resign``
    without a legal move). ``nodes`` alone is deterministic (same position, options and seed:
    same move). ``infinite`` searches until ``stop``. ``ponder`` searches the position with
    the limits given (as ``go`` would without ``ponder``) but holds its ``bestmove`` until
    ``ponderhit`` or ``stop``; a move time (``movetime`` or the clock) starts at ``ponderhit``,
    a node budget or depth (given, or the ``Nodes``/``Depth`` options) ends the search by
    itself. Time controls give a move time of byoyomi + increment + 1/20 of the remaining
    time, minus a safety margin.
``stop``, ``quit``
    End the search (with its ``bestmove``) / the engine. End of input quits too.

Anything else (unknown commands, missing or bad values, huge numbers, binary garbage) is
answered with ``info string error: ...`` or ignored; the engine never dies of its input.

Scores: the search's units (a pawn = 0.02) are reported in centipawns with **1 pawn = 100 cp**
(``cp = round(5000 × score)``); forced game ends as ``score mate <plies>`` (negative: the
engine is being mated, or loses by the repetition rule).
"""

from __future__ import annotations

import math
import sys
import threading
import time

from gamelib.games.minishogi import features as ev
from gamelib.games.minishogi.reference import reference_theta
import numpy as np

from gamelib.games.minishogi import Position, core
from gamelib.games.minishogi.notation import format_usi
from gamelib.search import MATE_BOUND, SearchResult, StopSignal, new_workspace, search
from gamelib.search.core import MAX_PLY

__all__ = ["Engine", "main", "score_text", "CP_PER_UNIT"]

ENGINE_NAME = "gamelib-minishogi"
ENGINE_AUTHOR = "the gamelib authors"
#: Centipawns per evaluation unit: a pawn (0.02) is 100 cp.
CP_PER_UNIT = 5000.0
_MAX_BUDGET = 1 << 62
_MAX_MS = 10**9  # ~11.6 days: longer times are clamped
_SAFETY_MS = 50


def score_text(score: float) -> str:
    """The USI ``score`` field of a search score: ``cp <int>`` or ``mate <plies>``."""
    if abs(score) > MATE_BOUND:
        plies = int(round(1000.0 - abs(score)))
        return f"mate {plies if score > 0 else -plies}"
    return f"cp {int(round(score * CP_PER_UNIT))}"


class _Option:
    def __init__(self, name, kind, default, lo=None, hi=None):
        self.name, self.kind, self.default, self.lo, self.hi = name, kind, default, lo, hi
        self.value = default

    def declaration(self) -> str:
        if self.kind == "check":
            return f"option name {self.name} type check default {'true' if self.default else 'false'}"
        if self.kind == "spin":
            return f"option name {self.name} type spin default {self.default} min {self.lo} max {self.hi}"
        return f"option name {self.name} type string default {self.default if self.default != '' else '<empty>'}"

    def parse(self, text: str):
        """The option's value from its USI text, or ValueError naming the problem."""
        if self.kind == "check":
            if text.lower() not in ("true", "false"):
                raise ValueError(f"option {self.name} must be true or false, got {_short(text)!r}")
            return text.lower() == "true"
        if self.kind == "spin":
            try:
                v = int(text)
            except ValueError:
                raise ValueError(f"option {self.name} needs an integer, got {text!r}") from None
            if not self.lo <= v <= self.hi:
                raise ValueError(f"option {self.name} must be in [{self.lo}, {self.hi}], got {v}")
            return v
        if self.name == "NoiseStd":
            try:
                v = float(text)
            except ValueError:
                raise ValueError(f"option NoiseStd needs a number, got {text!r}") from None
            if not math.isfinite(v) or v < 0 or v > 1:
                raise ValueError(f"option NoiseStd must be a number in [0, 1], got {text!r}")
            return v
        return "" if text == "<empty>" else text


def _options() -> dict[str, _Option]:
    opts = [
        _Option("EvalFile", "string", ""),
        _Option("Nodes", "spin", 200_000, 1, 2_000_000_000),
        _Option("Depth", "spin", MAX_PLY - 1, 1, MAX_PLY - 1),
        _Option("QDepth", "spin", 8, 0, 32),
        _Option("NoiseStd", "string", 0.0),
        _Option("Seed", "spin", 0, 0, 2**31 - 1),
        _Option("MaxPlies", "spin", 0, 0, 100_000),
        _Option("USI_Hash", "spin", 16, 1, 256),
        _Option("USI_Ponder", "check", False),
    ]
    return {o.name.lower(): o for o in opts}


def _tt_bits(megabytes: int) -> int:
    """Largest table of 24-byte entries within ``megabytes``."""
    return max(0, min(30, int(math.floor(math.log2(megabytes * 2**20 / 24)))))


class Engine:
    """The protocol state machine; :meth:`handle` takes one input line.

    Parameters
    ----------
    out : callable
        Writes one output line (thread-safe wrapper around it is added here).
    """

    def __init__(self, out=None):
        self._write = out or self._stdout
        self._out_lock = threading.Lock()
        self.options = _options()
        self.theta = reference_theta()
        self.kind = ev.EVAL_LINEAR
        self.position = Position(max_plies=None)
        self._thread: threading.Thread | None = None
        self._stop: StopSignal | None = None
        self._timer: threading.Timer | None = None
        self._ponder_ms: int | None = None
        self._infinite = False
        self._hold: threading.Event | None = None
        self._done: threading.Event | None = None
        self._ready = False
        self._workspace = None  # made for the USI_Hash size at the first search
        self._workspace_mb = None

    # ------------------------------------------------------------------ output
    @staticmethod
    def _stdout(line: str) -> None:
        sys.stdout.write(line + "\n")
        sys.stdout.flush()

    def send(self, line: str) -> None:
        with self._out_lock:
            self._write(line)

    def error(self, text: str) -> None:
        self.send(f"info string error: {text}")

    # ------------------------------------------------------------------ input
    def handle(self, line: str) -> bool:
        """Process one command line; returns False after ``quit``."""
        tokens = line.split()
        if not tokens:
            return True
        cmd, args = tokens[0], tokens[1:]
        handler = {
            "usi": self._usi,
            "isready": self._isready,
            "setoption": self._setoption,
            "usinewgame": self._usinewgame,
            "position": self._position,
            "go": self._go,
            "stop": self._stop_search,
            "ponderhit": self._ponderhit,
            "gameover": lambda a: None,
            "d": self._display,
        }.get(cmd)
        if cmd == "quit":
            self._stop_search([])
            return False
        if handler is None:
            self.error(f"unknown command {_short(cmd)!r}")
            return True
        try:
            handler(args)
        except Exception as err:  # noqa: BLE001 - the engine must survive any input
            self.error(f"{cmd}: {_short(str(err), 200)}")
        return True

    def _usi(self, args):
        self.send(f"id name {ENGINE_NAME}")
        self.send(f"id author {ENGINE_AUTHOR}")
        for o in self.options.values():
            self.send(o.declaration())
        self.send("usiok")

    def _isready(self, args):
        if not self._ready and not self.searching:
            # load (or compile) the search once, so that the first move is not slow
            search(Position(), self.theta, self.kind, 1, 100, 1)
            self._ready = True
        self.send("readyok")

    def _usinewgame(self, args):
        pass

    def _setoption(self, args):
        if not args or args[0] != "name" or len(args) < 2:
            raise ValueError("expected 'setoption name <name> [value <value>]'")
        if "value" in args:
            k = args.index("value")
            name, value = " ".join(args[1:k]), " ".join(args[k + 1 :])
        else:
            name, value = " ".join(args[1:]), ""
        opt = self.options.get(name.lower())
        if opt is None:
            raise ValueError(f"unknown option {_short(name)!r}; options: {', '.join(o.name for o in self.options.values())}")
        v = opt.parse(value)
        if opt.name == "EvalFile":
            if v == "":
                self.theta, self.kind = reference_theta(), ev.EVAL_LINEAR
            else:
                try:
                    theta = ev.load_theta(v)
                except (OSError, ValueError) as err:
                    raise ValueError(f"cannot load EvalFile {v!r}: {_short(str(err), 200)}") from None
                self.theta, self.kind = theta, ev.EVAL_LINEAR
                self.send(f"info string EvalFile {v} loaded")
        opt.value = v

    def _position(self, args):
        if not args:
            raise ValueError("expected 'position startpos|sfen <sfen> [moves ...]'")
        if "moves" in args:
            k = args.index("moves")
            head, moves = args[:k], args[k + 1 :]
        else:
            head, moves = args, []
        if head[0] == "startpos":
            if len(head) != 1:
                raise ValueError(f"unexpected {' '.join(head[1:])!r} after startpos")
            pos = Position(max_plies=None)
        elif head[0] == "sfen":
            pos = Position(" ".join(head[1:]), max_plies=None)
        else:
            raise ValueError(f"expected 'startpos' or 'sfen', got {_short(head[0])!r}")
        for i, m in enumerate(moves):
            try:
                pos.push_usi(m)
            except ValueError as err:
                raise ValueError(f"move {i + 1} ({_short(m)!r}): {err}") from None
        self.position = pos  # only now: a bad command keeps the previous position

    def _display(self, args):
        for line in str(self.position).splitlines():
            self.send(f"info string {line}")
        self.send(f"info string sfen {self.position.sfen()}")

    # ------------------------------------------------------------------ search
    @property
    def searching(self) -> bool:
        """A search runs, or holds its bestmove (infinite, ponder)."""
        if self._thread is None:
            return False
        if self._done is not None and self._done.is_set():
            self._thread.join()  # it has answered and is ending
            self._thread = self._stop = self._hold = self._done = None
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None
            return False
        return self._thread.is_alive()

    def _go(self, args):
        if self.searching:
            raise ValueError("already searching (send 'stop' first)")
        limits = _parse_go(args)
        if "mate" in limits:
            self.send("checkmate notimplemented")
            return
        nodes = limits.get("nodes")
        depth = min(limits.get("depth", self.options["depth"].value), MAX_PLY - 1)
        movetime = limits.get("movetime")
        infinite = "infinite" in limits
        ponder = "ponder" in limits
        clock = self._clock_time(limits)
        if nodes is None and (infinite or movetime is not None or clock is not None or "depth" in limits):
            nodes = _MAX_BUDGET
        if nodes is None:
            nodes = self.options["nodes"].value
        ms = None if infinite else (movetime if movetime is not None else clock)
        # a ponder search's move time starts at 'ponderhit'; its node budget and depth hold as given
        self._ponder_ms = ms if ponder else None
        self._infinite = infinite
        if ponder:
            ms = None
        stop = StopSignal()
        self._stop = stop
        # infinite and ponder searches keep their bestmove until 'stop' (or 'ponderhit')
        hold = threading.Event()
        if not (infinite or ponder):
            hold.set()
        self._hold = hold
        done = self._done = threading.Event()
        mb = self.options["usi_hash"].value
        if self._workspace is None or self._workspace_mb != mb:
            self._workspace, self._workspace_mb = None, None
            self._workspace = new_workspace(_tt_bits(mb))
            self._workspace_mb = mb
        state = self.position.state.copy()
        self._thread = threading.Thread(target=self._run, args=(state, depth, nodes, stop, hold, done), daemon=True)
        self._thread.start()
        if ms is not None:
            self._arm_timer(ms)

    def _clock_time(self, limits) -> int | None:
        """Move time (ms) from the clock fields of ``go``, None if there are none."""
        if not any(k in limits for k in ("btime", "wtime", "byoyomi", "binc", "winc")):
            return None
        side = "b" if self.position.turn == "sente" else "w"
        remaining = limits.get(f"{side}time", 0)
        inc = limits.get(f"{side}inc", 0)
        byoyomi = limits.get("byoyomi", 0)
        t = min(byoyomi + inc + remaining // 20, remaining + inc + byoyomi) - _SAFETY_MS
        return max(10, t)

    def _arm_timer(self, ms: int) -> None:
        stop = self._stop
        timer = threading.Timer(ms / 1000.0, stop.stop)
        timer.daemon = True
        self._timer = timer
        timer.start()

    def _ponderhit(self, args):
        """The opponent played the expected move: the ponder search becomes a normal one."""
        if self.searching and self._hold is not None and not self._hold.is_set():
            if self._ponder_ms is not None:
                self._arm_timer(self._ponder_ms)
                self._ponder_ms = None
            if not self._infinite:
                self._hold.set()

    def _stop_search(self, args):
        if self._stop is not None:
            self._stop.stop()
        if self._hold is not None:
            self._hold.set()
        if self._thread is not None:
            self._thread.join()
        if self._timer is not None:
            self._timer.cancel()
        self._thread = self._stop = self._timer = self._hold = self._done = None

    def _run(self, state, depth, nodes, stop, hold, done):
        t0 = time.perf_counter()

        def report(r: SearchResult):
            ms = max(1, int((time.perf_counter() - t0) * 1000))
            pv = " ".join(format_usi(int(m)) for m in r.pv)
            self.send(
                f"info depth {max(r.depth, 1)} seldepth {max(r.seldepth, 1)} score {score_text(r.score)} "
                f"nodes {r.nodes} nps {int(r.nodes * 1000 / ms)} time {ms}" + (f" pv {pv}" if pv else "")
            )

        try:
            res = search(
                state,
                self.theta,
                self.kind,
                depth,
                nodes,
                self.options["qdepth"].value,
                self.options["noisestd"].value,
                self.options["seed"].value,
                max_plies=self.options["maxplies"].value,
                workspace=self._workspace,
                stop=stop,
                on_iteration=report,
            )
        except Exception as err:  # noqa: BLE001 - report, answer, keep running
            self.error(f"search failed: {_short(str(err), 200)}")
            res = None
        if res is not None and res.move >= 0 and (res.partial or res.depth == 0):
            report(res)
        hold.wait()
        done.set()
        if res is None or res.move < 0:
            self.send("bestmove resign")
            return
        reply = _expected_reply(state, res) if self.options["usi_ponder"].value else None
        self.send(f"bestmove {format_usi(res.move)}" + (f" ponder {format_usi(reply)}" if reply is not None else ""))


def _expected_reply(state, res: SearchResult) -> int | None:
    """The principal variation's reply to the best move, if it has one and it is legal."""
    pv = [int(m) for m in res.pv]
    if len(pv) < 2 or pv[0] != res.move:
        return None
    s = state.copy()
    if s.shape[0] < core.HIST + core.HIST_STRIDE * (int(s[core.PLY]) + 3):
        s = np.concatenate([s, np.zeros(2 * core.HIST_STRIDE, dtype=np.int64)])
    core.make_move(s, res.move)
    buf = np.empty(core.MAX_MOVES, dtype=np.int32)
    return pv[1] if core.is_legal(s, pv[1], buf, 0) else None


def _short(text: str, limit: int = 40) -> str:
    return text if len(text) <= limit else text[:limit] + "..."


_GO_INT = ("nodes", "depth", "movetime", "btime", "wtime", "byoyomi", "binc", "winc", "mate")
_GO_FLAG = ("infinite", "ponder")


def _parse_go(args) -> dict:
    """The limits of a ``go`` command; ValueError names a bad or missing value."""
    out: dict = {}
    i = 0
    while i < len(args):
        key = args[i]
        if key in _GO_FLAG:
            out[key] = True
            i += 1
            continue
        if key not in _GO_INT:
            raise ValueError(f"unknown go parameter {_short(key)!r}")
        if i + 1 >= len(args):
            raise ValueError(f"go {key} needs a value")
        text = args[i + 1]
        if key == "mate" and text == "infinite":
            out[key] = 0
            i += 2
            continue
        try:
            v = int(text)
        except ValueError:
            raise ValueError(f"go {key} needs an integer, got {_short(text)!r}") from None
        if key in ("nodes", "depth") and v < 1:
            raise ValueError(f"go {key} must be at least 1, got {v}")
        if v < 0:
            raise ValueError(f"go {key} must not be negative, got {v}")
        out[key] = min(v, _MAX_BUDGET if key == "nodes" else _MAX_MS)
        i += 2
    return out


def main(argv: list[str] | None = None) -> int:
    """Run the engine on stdin/stdout until ``quit`` or the end of input (it takes no
    arguments: a GUI or :mod:`gamelib.play.engine_match` sets its options by USI ``setoption``)."""
    from gamelib.runtime import cli

    cli.ArgumentParser(prog="python -m gamelib.play.usi", description=main.__doc__.split("\n")[0]
                       ).parse_args(sys.argv[1:] if argv is None else argv)
    engine = Engine()
    stdin = sys.stdin.buffer
    try:
        for raw in stdin:
            line = raw.decode("utf-8", errors="replace").strip()
            if not engine.handle(line):
                break
        else:
            engine._stop_search([])
    except (BrokenPipeError, KeyboardInterrupt):
        return 0
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
