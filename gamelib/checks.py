"""Argument checks shared by the public APIs: one clear ``ValueError`` naming the field.

Integers are range-checked here before they reach numba, where an out-of-range value would
otherwise fail as a numba ``TypingError``, overflow, or wrap around silently.
"""

from __future__ import annotations

import numbers

__all__ = ["check_int"]


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
