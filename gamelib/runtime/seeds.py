"""Seeds derived from a run seed and keys, identical on every platform and Python version.

A run has one seed; every random stream inside it gets its own seed derived from that seed and
keys that name the stream, e.g. ``derive_seed(run_seed, "game", 1234)`` for game 1234 or
``derive_seed(run_seed, "batch", k)`` for batch ``k``. Seeds therefore depend only on *what* is
computed, never on the order, the process or the number of workers that compute it.

Definition (version 1)
----------------------
The seed is the first ``ceil(bits / 8)`` bytes, read as a big-endian unsigned integer and shifted
right to keep ``bits`` bits, of::

    BLAKE2b(digest_size=16, person=b"gamelib-seed-v1")(
        encode(run_seed) || encode(key_1) || ... || encode(key_n))

where ``encode`` of an integer ``x`` is ``b"i"``, the length of the decimal text ``str(x)`` as 4
big-endian bytes, then that ASCII text; and ``encode`` of a string is ``b"s"``, the length of its
UTF-8 bytes as 4 big-endian bytes, then those bytes. The type tags and lengths make the encoding
injective (``("ab",)`` and ``("a", "b")``, or ``1`` and ``"1"``, give different seeds). BLAKE2b
is specified byte for byte (RFC 7693), unlike Python's ``hash`` which is salted per process.

Numba's ``np.random.seed`` keeps only the low 32 bits of its argument: when a seed is meant for
jitted code, ask for ``bits=32`` so that the number you record is the number that is used.
"""

from __future__ import annotations

import hashlib
import operator

import numpy as np

_PERSON = b"gamelib-seed-v1"


def _encode(key) -> bytes:
    if isinstance(key, str):
        data, tag = key.encode("utf-8"), b"s"
    elif isinstance(key, bool):
        raise TypeError(f"seed key {key!r}: booleans are ambiguous, use an int or a str")
    else:
        try:
            data, tag = str(operator.index(key)).encode("ascii"), b"i"
        except TypeError:
            raise TypeError(f"seed key {key!r} of type {type(key).__name__}: use int or str "
                            f"keys") from None
    return tag + len(data).to_bytes(4, "big") + data


def derive_seed(run_seed: int, *keys, bits: int = 63) -> int:
    """A seed for the stream named by ``keys`` inside the run seeded with ``run_seed``.

    Parameters
    ----------
    run_seed : int
        The run's seed (any integer).
    *keys : int or str
        Names of the stream, e.g. ``"game", 17``.
    bits : int
        Size of the result, 1 to 64. The default 63 fits a signed 64-bit integer (numpy, numba
        ``int64``); use 32 for numba's ``np.random.seed``.

    Returns
    -------
    int
        In ``[0, 2**bits)``.

    Examples
    --------
    >>> derive_seed(0, "game", 1) == derive_seed(0, "game", 1)
    True
    >>> derive_seed(0, "game", 1) != derive_seed(0, "game", 2)
    True
    """
    if isinstance(run_seed, (bool, str)) or not hasattr(run_seed, "__index__"):
        raise TypeError(f"run_seed must be an integer, got {run_seed!r}")
    bits = operator.index(bits)
    if not 1 <= bits <= 64:
        raise ValueError(f"bits must be between 1 and 64, got {bits}")
    h = hashlib.blake2b(digest_size=16, person=_PERSON)
    h.update(_encode(run_seed))
    for key in keys:
        h.update(_encode(key))
    n_bytes = (bits + 7) // 8
    return int.from_bytes(h.digest()[:n_bytes], "big") >> (8 * n_bytes - bits)


def derive_rng(run_seed: int, *keys) -> np.random.Generator:
    """``numpy.random.default_rng(derive_seed(run_seed, *keys, bits=64))`` (PCG64)."""
    return np.random.default_rng(derive_seed(run_seed, *keys, bits=64))
