"""Vectorized grouping of rows by equal keys (equivalence classes)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

__all__ = ["group_ids", "group_rows"]


def group_ids(columns: Sequence[np.ndarray]) -> tuple[np.ndarray, int]:
    """Label rows by the combination of values in ``columns``.

    Returns ``(ids, n_groups)`` with ``ids[i]`` in ``0..n_groups-1``; groups are numbered in
    sorted key order, so the labelling does not depend on row order.
    """
    cols = [np.asarray(c) for c in columns]
    if not cols:
        raise ValueError("group_ids needs at least one column")
    n = len(cols[0])
    if n == 0:
        return np.zeros(0, dtype=np.int64), 0
    order = np.lexsort(cols[::-1])
    change = np.zeros(n, dtype=bool)
    change[0] = True
    for c in cols:
        sc = c[order]
        change[1:] |= sc[1:] != sc[:-1]
    gid_sorted = np.cumsum(change) - 1
    ids = np.empty(n, dtype=np.int64)
    ids[order] = gid_sorted
    return ids, int(gid_sorted[-1] + 1)


def group_rows(*matrices: np.ndarray) -> tuple[np.ndarray, int]:
    """Group rows of one or more 2-D arrays (stacked column-wise)."""
    cols: list[np.ndarray] = []
    for m in matrices:
        m = np.asarray(m)
        if m.ndim == 1:
            cols.append(m)
        else:
            cols.extend(m[:, j] for j in range(m.shape[1]))
    return group_ids(cols)
