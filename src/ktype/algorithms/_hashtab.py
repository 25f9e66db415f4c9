"""The one open-addressing hash table of the compiled kernels (group-by on integer keys).

Three kernels group rows by a key inside numba, where no ``dict`` of arrays is fast enough:
the lattice engine's roll-ups (``fulldomain/_kernels.py``: whole rows, and packed ``int64``
codes) and ``iterative_local``'s per-node sweep (``local/iterative.py``). They share this
table:

* **capacity**: a power of two ``size ≥ 2·n + 2`` slots for ``n`` keys (load factor ≤ ½, so
  a probe sequence is short and always ends at an empty slot);
* **Fibonacci hashing** of a key: the top ``log2(size)`` bits of ``key × 0x9E3779B97F4A7C15``
  (Knuth, *The Art of Computer Programming* vol. 3, §6.4), which spreads consecutive keys —
  the usual case for mixed-radix group codes — over the whole table;
* **linear probing**: the next slot, wrapping at the end.

A slot holds a key (``EMPTY`` = −1: keys are non-negative) and, in the caller's own arrays,
whatever the caller counts. The grouping a caller returns never depends on the slot order:
every caller numbers groups by first appearance in its input, so the hash function can change
without changing a release (``tests/test_hashtab.py`` checks the table against a ``dict``).

All functions are inlined into their callers (``inline="always"``): a probe costs no call.
"""

from __future__ import annotations

import numpy as np

from .._jit import njit

__all__ = ["EMPTY", "ROW_SEED", "capacity", "find_or_insert", "home_slot", "next_slot", "row_hash"]

#: the key of an empty slot (real keys are non-negative)
EMPTY = -1
_FIB = np.uint64(0x9E3779B97F4A7C15)


@njit(inline="always")
def capacity(n):  # pragma: no cover - compiled
    """``(size, shift)``: a power of two ``size ≥ 2n + 2`` and ``64 − log2(size)``."""
    size = 2
    shift = np.uint64(63)
    while size < 2 * n + 2:
        size *= 2
        shift -= np.uint64(1)
    return size, shift


@njit(inline="always")
def home_slot(h, shift):  # pragma: no cover - compiled
    """The first slot of a 64-bit value ``h`` (Fibonacci hashing: its top bits after the multiply)."""
    return np.int64((np.uint64(h) * _FIB) >> shift)


@njit(inline="always")
def next_slot(s, size):  # pragma: no cover - compiled
    """The slot after ``s`` (linear probing, wrapping)."""
    return (s + 1) & (size - 1)


@njit(inline="always")
def find_or_insert(skey, key, shift):  # pragma: no cover - compiled
    """The slot of the non-negative ``key`` in the key array ``skey`` (inserted if absent)
    and whether it was inserted."""
    size = skey.shape[0]
    s = home_slot(key, shift)
    while True:
        e = skey[s]
        if e == key:
            return s, False
        if e == EMPTY:
            skey[s] = key
            return s, True
        s = next_slot(s, size)


@njit(inline="always")
def row_hash(h, v):  # pragma: no cover - compiled
    """Fold the value ``v`` into the running 64-bit row hash ``h`` (FNV-style xor-multiply);
    start from :data:`ROW_SEED` and finish with :func:`home_slot`."""
    return (np.uint64(h) ^ np.uint64(v)) * _FIB


#: the start value of :func:`row_hash`
ROW_SEED = np.uint64(0x84222325CBF29CE4)
