"""Slice (Xiao, Tao & Koudas, "Transparent anonymization", ACM TODS 2010, Fig. 8) written
plainly, for tests: every node of the recursion sorts each column afresh by each dimension
(``(X[:, i], key)``) and tries every cut. It shares no code with the compiled kernel
(:func:`ktype.algorithms.transparent._kernels._slice_bucket`), which keeps the columns sorted
across the recursion instead; both must give the same groups, numbered the same way."""

from __future__ import annotations

import numpy as np


def slice_reference(columns: list[list[int]], X: np.ndarray, W: np.ndarray, M: np.ndarray, key: np.ndarray,
                    g0: int = 0) -> dict[int, int]:
    """Group id of each row of a bucket given as ``beta`` columns of ``alpha`` row ids."""
    d = X.shape[1]
    beta = len(columns)
    out: dict[int, int] = {}
    g = g0
    stack = [[list(col) for col in columns]]
    while stack:
        cols = stack.pop()
        a = len(cols[0])
        if a == 1:
            for col in cols:
                out[col[0]] = g
            g += 1
            continue
        best = None  # (p, i, k), first minimum in (i, k) order
        for i in range(d):
            srt = [sorted(col, key=lambda r, i=i: (int(X[r, i]), int(key[r]))) for col in cols]
            for k in range(1, a):
                p = 0
                for part, size in (([s[:k] for s in srt], k), ([s[k:] for s in srt], a - k)):
                    rows = [r for s in part for r in s]
                    per = sum(M[j] * (W[j, max(X[r, j] for r in rows)] - W[j, min(X[r, j] for r in rows)])
                              for j in range(d) if M[j] != 0)
                    p += size * beta * per
                if best is None or p < best[0]:
                    best = (p, i, k)
        _, i, k = best
        srt = [sorted(col, key=lambda r, i=i: (int(X[r, i]), int(key[r]))) for col in cols]
        stack.append([s[:k] for s in srt])
        stack.append([s[k:] for s in srt])
    return out
