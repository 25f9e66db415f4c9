"""Vectorized grouping of rows by equal keys (equivalence classes)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .exceptions import InvalidParameterError

__all__ = ["group_ids", "group_rows", "pack_keys", "lexsort_rows", "run_starts", "sort_order", "unique_rows"]

_LIMIT = np.iinfo(np.int64).max


def pack_keys(columns: Sequence[np.ndarray]) -> list[np.ndarray]:
    """Pack non-negative integer columns into as few int64 keys as possible.

    Consecutive columns are combined by mixed radix (radix = column max + 1) while the
    product fits in int64; the lexicographic order of the packed keys equals the
    lexicographic order of the original columns.
    """
    keys: list[np.ndarray] = []
    cur: np.ndarray | None = None
    span = 1
    for c in columns:
        c = np.asarray(c)
        if c.size and c.min() < 0:
            raise InvalidParameterError("pack_keys needs non-negative integers")
        radix = int(c.max()) + 1 if c.size else 1
        if cur is not None and span * radix < _LIMIT // 2:
            cur = cur * radix + c.astype(np.int64)
            span *= radix
        else:
            if cur is not None:
                keys.append(cur)
            cur = np.asarray(c, dtype=np.int64)  # no copy when already int64 (never written to)
            span = radix
    if cur is not None:
        keys.append(cur)
    return keys


def _key_order(keys: Sequence[np.ndarray]) -> np.ndarray:
    """Stable lexicographic order of rows by packed ``keys`` (first key primary)."""
    if len(keys) == 1:
        return np.argsort(keys[0], kind="stable")
    return np.lexsort(keys[::-1])


def run_starts(keys: Sequence[np.ndarray], order: np.ndarray) -> np.ndarray:
    """For rows taken in ``order``: whether each starts a new run of equal ``keys``
    (the first row always does)."""
    change = np.zeros(len(order), dtype=bool)
    change[:1] = True
    for c in keys:
        sc = c[order]
        change[1:] |= sc[1:] != sc[:-1]
    return change


def lexsort_rows(columns: Sequence[np.ndarray]) -> np.ndarray:
    """Stable order of rows sorted lexicographically by ``columns`` (first column primary)."""
    return _key_order(pack_keys(columns))


def sort_order(columns: Sequence[np.ndarray]) -> np.ndarray | None:
    """:func:`lexsort_rows`, or ``None`` when the rows are already in that order (an O(n)
    check per packed key instead of a sort, and no gather for the caller)."""
    keys = pack_keys(columns)
    if not keys or _is_sorted(keys):
        return None
    return _key_order(keys)


def unique_rows(matrix: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``np.unique(matrix, axis=0, return_index=True, return_inverse=True, return_counts=True)``
    for a 2-D array of non-negative integers: ``(rows, first_index, inverse, counts)``, rows in
    lexicographic order, ``first_index`` the first occurrence of each. The same answer, on
    packed int64 keys instead of numpy's row-as-bytes sort (5-10x faster)."""
    m = np.asarray(matrix)
    n = len(m)
    if n == 0:
        return m[:0], np.zeros(0, dtype=np.intp), np.zeros(0, dtype=np.intp), np.zeros(0, dtype=np.intp)
    keys = pack_keys([m[:, j] for j in range(m.shape[1])]) if m.shape[1] else [np.zeros(n, dtype=np.int64)]
    order = _key_order(keys)
    change = run_starts(keys, order)
    first = np.flatnonzero(change)
    inverse = np.empty(n, dtype=np.intp)
    inverse[order] = np.cumsum(change) - 1
    index = order[first].astype(np.intp)
    return m.take(index, axis=0), index, inverse, np.diff(np.append(first, n)).astype(np.intp)


def group_ids(columns: Sequence[np.ndarray]) -> tuple[np.ndarray, int]:
    """Label rows by the combination of values in ``columns``.

    Returns ``(ids, n_groups)`` with ``ids[i]`` in ``0..n_groups-1``; groups are numbered in
    sorted key order, so the labelling does not depend on row order.
    """
    cols = [np.asarray(c) for c in columns]
    if not cols:
        raise InvalidParameterError("group_ids needs at least one column")
    n = len(cols[0])
    if n == 0:
        return np.zeros(0, dtype=np.int64), 0
    keys = pack_keys(cols)
    if _is_sorted(keys):  # e.g. a release, already in canonical order: no sort needed
        order = np.arange(n)
    elif len(keys) == 1:
        uniq, inv = np.unique(keys[0], return_inverse=True)
        return inv.astype(np.int64).ravel(), int(len(uniq))
    else:
        order = np.lexsort(keys[::-1])
    gid_sorted = np.cumsum(run_starts(keys, order)) - 1
    ids = np.empty(n, dtype=np.int64)
    ids[order] = gid_sorted
    return ids, int(gid_sorted[-1] + 1)


def _is_sorted(keys: Sequence[np.ndarray]) -> bool:
    """Whether rows are already in lexicographic order of ``keys`` (O(n) per key)."""
    n = len(keys[0])
    if n < 2:
        return True
    if len(keys) == 1:
        return bool((keys[0][1:] >= keys[0][:-1]).all())
    undecided = np.ones(n - 1, dtype=bool)
    for k in keys:
        d = np.sign(k[1:] - k[:-1])
        if (undecided & (d < 0)).any():
            return False
        undecided &= d == 0
    return True


def group_rows(*matrices: np.ndarray) -> tuple[np.ndarray, int]:
    """Group rows of one or more 2-D arrays (stacked column-wise).

    Same result as :func:`group_ids` on all the columns. When equal rows mostly sit next to
    each other (a release in its canonical order: rows of a class are consecutive), only
    the first row of every run of equal consecutive rows is grouped, and the runs inherit
    its group: no sort of all the rows. Any row order stays correct (equal rows in separate
    runs are grouped together by the representatives' grouping).
    """
    mats = [np.asarray(m) for m in matrices]
    cols: list[np.ndarray] = []
    for m in mats:
        if m.ndim == 1:
            cols.append(m)
        else:
            cols.extend(m[:, j] for j in range(m.shape[1]))
    n = len(cols[0]) if cols else 0
    if n >= _RUNS_MIN_ROWS:
        change = np.empty(n, dtype=bool)
        change[0] = True
        change[1:] = False
        for m in mats:
            if m.ndim == 1:
                change[1:] |= m[1:] != m[:-1]
                continue
            if m.dtype.itemsize == 4 and m.shape[1] % 2 == 0 and m.flags.c_contiguous:
                m = m.view(np.int64)  # two int32 cells per comparison: equal pairs iff equal cells
            for j in range(m.shape[1]):  # column by column: no n x r temporary (3x faster than any(axis=1))
                c = m[:, j]
                change[1:] |= c[1:] != c[:-1]
        first = np.flatnonzero(change)
        if len(first) <= n // 2:  # runs are long enough to be worth it
            reps: list[np.ndarray] = []  # the first row of every run, gathered row-wise (whole rows)
            for m in mats:
                sub = m[first] if m.ndim == 1 else m.take(first, axis=0)
                reps.extend([sub] if sub.ndim == 1 else [sub[:, j] for j in range(sub.shape[1])])
            rep, g = group_ids(reps)
            return rep[np.cumsum(change) - 1], g
    return group_ids(cols)


#: below this many rows :func:`group_rows` does not look for runs
_RUNS_MIN_ROWS = 4096
