"""``@kernel``: the numba decorator of the hot loops that allocate nothing.

It is ``@njit(cache=True)`` compiled without numba's reference counting (its private ``_nrt=False``
option). With it, numba increments and decrements an atomic reference count for every array a
function receives, at every call: in the recursive search (six to eight arrays per node, through
``qsearch``/``pvs``/``make_move``/``evaluate``) that bookkeeping took a quarter of the time of a
PGLeaf self-play move and a third of a TD(λ) move. A function compiled without it borrows its
arguments from the caller, which holds them for the whole call, so nothing changes but the
time; such a function cannot allocate an array (numba refuses to compile ``np.empty`` there),
which is why only kernels that work in buffers they are given use it.

The option is inherited by callees compiled on behalf of such a function; every non-inline
function the hot loops call is therefore marked itself, so that the code does not depend on
which caller compiled a callee first.
"""

from __future__ import annotations

from numba import njit

__all__ = ["kernel"]


def kernel(func=None, **options):
    """``@kernel`` or ``@kernel(nogil=True, ...)``: ``njit(cache=True, **options)`` without
    reference counting (see the module doc). The function must not allocate arrays."""
    decorate = njit(cache=True, _nrt=False, **options)
    return decorate if func is None else decorate(func)
