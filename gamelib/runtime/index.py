"""``unsigned(i)``: an array index that numba does not test for being negative.

numba reads ``a[i]`` for a signed integer ``i`` as ``a[i + len(a)]`` when ``i < 0`` (Python's
negative indices): two or three more instructions and a register at every access, unless LLVM
can prove ``i >= 0`` (a loop counter from 0, a value masked with ``& 31``). In the evaluation's
feature scan, whose indices come from table lookups, that test took a fifth of the time. An
unsigned index has no negative case, so numba leaves it out.

Use it only where the index is known to be ≥ 0: a negative one becomes a huge one, and the
access reads or writes outside the array (numba does not check bounds).
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["unsigned"]


@njit(cache=True, inline="always")
def unsigned(i):
    """``i`` (an integer ≥ 0) as uint64, to index an array without numba's negative-index test."""
    return np.uint64(i)
