"""Argument checks shared by the public APIs and the experiments' sizes: one clear
``ValueError`` naming the field and what it must be.

Integers are range-checked here before they reach numba, where an out-of-range value would
otherwise fail as a numba ``TypingError``, overflow, or wrap around silently.
"""

from __future__ import annotations

import numbers

__all__ = ["check_int", "check_integer", "check_number", "check_seed", "SEED_MAX"]

#: The largest run seed: seeds reach numba and numpy as signed 64-bit integers.
SEED_MAX = 2**63 - 1


def check_int(name: str, value, lo: int, hi: int) -> int:
    """``value`` as a Python ``int`` if it is an integer (not a bool) in ``[lo, hi]``.

    Raises
    ------
    ValueError
        ``"<name> must be an integer in [lo, hi], got <value>"``.
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or not lo <= int(value) <= hi:
        shown = repr(value) if len(repr(value)) <= 60 else repr(value)[:60] + "..."
        raise ValueError(f"{name} must be an integer in [{lo}, {hi}], got {shown}")
    return int(value)


def check_seed(value, name: str = "seed") -> int:
    """A run seed as a Python ``int``: an integer in ``[0, SEED_MAX]`` (else ``ValueError``)."""
    return check_int(name, value, 0, SEED_MAX)


def check_integer(name: str, value, low: int = 1) -> int:
    """``value`` as a Python ``int`` if it is an integer (not a bool; numpy's integers count)
    >= ``low``; else ``ValueError`` naming it."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < low:
        wanted = {0: "a non-negative integer", 1: "a positive integer"}.get(
            low, f"an integer >= {low}")
        raise ValueError(f"{name} must be {wanted}, got {value!r}")
    return int(value)


def check_number(name: str, value, low: float | None = None, high: float | None = None, *,
                 low_open: bool = False, high_open: bool = False) -> float:
    """``value`` if it is a real number (not a bool) in the given range; else ``ValueError``
    naming it and the range (``low_open``/``high_open``: the bound itself is excluded)."""
    ok = not isinstance(value, bool) and isinstance(value, (int, float)) and value == value
    if ok and low is not None:
        ok = value > low if low_open else value >= low
    if ok and high is not None:
        ok = value < high if high_open else value <= high
    if not ok:
        if low == 0 and low_open and high is None:
            wanted = "a positive number"
        else:
            lo = "(" if low_open else "["
            hi = ")" if high_open else "]"
            lo_text = "-inf" if low is None else f"{low:g}"
            hi_text = "inf" if high is None else f"{high:g}"
            wanted = f"a number in {lo}{lo_text}, {hi_text}{hi}"
        raise ValueError(f"{name} must be {wanted}, got {value!r}")
    return float(value)
