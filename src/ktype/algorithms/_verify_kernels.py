"""Compiled pass of the registry's release verification for large releases.

:func:`ktype.algorithms._registry.verify_release` checks that every released cell covers
its record's value and is an allowed value of its hierarchy. On millions of rows the numpy
form of these checks gathers the table in release order and builds several ``n × r``
temporaries; this kernel reads each row once, in parallel, and collects the distinct
intervals each column publishes (each is then asked of its hierarchy once). It shares no
code with any algorithm; the registry uses it from ``_COMPILED_MIN_ROWS`` rows on and the
numpy form below that (no compilation on a cold start for a small table).
"""

from __future__ import annotations

from numba import prange

from .._jit import njit

__all__ = ["count_uncovered", "mark_intervals"]


@njit(parallel=True)
def count_uncovered(X, source, lo, hi):
    """The number of cells whose record's value ``X[source[i], j]`` lies outside
    ``[lo[i, j], hi[i, j]]`` (suppressed rows included: their cells cover the whole domain)."""
    n, r = lo.shape
    uncovered = 0
    for i in prange(n):
        src = source[i]
        bad = 0
        for j in range(r):
            x = X[src, j]
            if x < lo[i, j] or x > hi[i, j]:
                bad += 1
        uncovered += bad  # the reduction once per row, outside any branch (see mark_intervals)
    return uncovered


@njit(parallel=True)
def mark_intervals(lo, hi, sup, sizes, offsets, seen):
    """Mark in ``seen[offsets[j] + lo * sizes[j] + hi]`` every interval an unsuppressed row
    publishes in column ``j``; return the number of unsuppressed cells outside their
    column's domain (not marked). (Two kernels, not one loop doing both: numba compiled the
    fused loop about six times slower.)

    The count is summed into a per-row local and added to the reduction once per row,
    outside any branch: numba 0.68 compiled ``outside += 1`` inside the ``if``/``else`` of the
    inner loop into a reduction that always returned 0 (``tests/test_verify_cells.py`` caught it)."""
    n, r = lo.shape
    outside = 0
    for i in prange(n):
        bad = 0
        if not sup[i]:
            for j in range(r):
                a = lo[i, j]
                b = hi[i, j]
                size = sizes[j]
                if a < 0 or b >= size or a > b:
                    bad += 1
                else:
                    at = offsets[j] + a * size + b
                    if seen[at] == 0:  # write once: the threads share these cache lines
                        seen[at] = 1
        outside += bad
    return outside
