"""KL divergence between the original data and the release's maximum-entropy estimate."""

from __future__ import annotations

import numpy as np
from numba import prange

from .._grouping import group_rows
from .._jit import njit
from ..exceptions import InvalidParameterError
from ..release import Release
from ._base import measure

__all__ = ["kl_divergence"]


@njit(parallel=True)
def _box_mass(points: np.ndarray, blo: np.ndarray, bhi: np.ndarray, w: np.ndarray, cols: np.ndarray,
              dims: np.ndarray) -> np.ndarray:  # pragma: no cover - compiled
    """For each point, the sum of ``w[b]`` over the boxes ``b`` containing it.

    Boxes are indexed by the cells of the columns ``cols`` (domain sizes ``dims``): CSR lists,
    in box order, of the boxes covering each cell, so each point only tests the boxes that
    contain it on those columns. The points are independent (one thread each); each sums its
    boxes in box order.
    """
    u, r = points.shape
    nb = blo.shape[0]
    d = cols.shape[0]
    stride = np.ones(d, dtype=np.int64)
    for k in range(d - 2, -1, -1):
        stride[k] = stride[k + 1] * dims[k + 1]
    ncell = stride[0] * dims[0]
    ptr = np.zeros(ncell + 1, dtype=np.int64)
    idx = np.empty(0, dtype=np.int64)
    fill = np.empty(0, dtype=np.int64)
    cur = np.empty(d, dtype=np.int64)
    for rnd in range(2):  # count the entries of each cell, then list them (box order)
        if rnd == 1:
            for v in range(ncell):
                ptr[v + 1] += ptr[v]
            fill = ptr[:-1].copy()
            idx = np.empty(ptr[ncell], dtype=np.int64)
        for b in range(nb):
            for k in range(d):
                cur[k] = blo[b, cols[k]]
            while True:  # every cell of the box (an odometer over its ranges)
                cell = 0
                for k in range(d):
                    cell += cur[k] * stride[k]
                if rnd == 0:
                    ptr[cell + 1] += 1
                else:
                    idx[fill[cell]] = b
                    fill[cell] += 1
                k = d - 1
                while k >= 0:
                    cur[k] += 1
                    if cur[k] <= bhi[b, cols[k]]:
                        break
                    cur[k] = blo[b, cols[k]]
                    k -= 1
                if k < 0:
                    break
    out = np.zeros(u)
    for i in prange(u):
        s = 0.0
        cell = 0
        for k in range(d):
            cell += points[i, cols[k]] * stride[k]
        for t in range(ptr[cell], ptr[cell + 1]):
            b = idx[t]
            inside = True
            for j in range(r):
                v = points[i, j]
                if v < blo[b, j] or v > bhi[b, j]:
                    inside = False
                    break
            if inside:
                s += w[b]
        out[i] = s
    return out


#: an index is used while its cells and its lists stay below these sizes (int64 each)
_MAX_CELLS = 4_000_000
_MAX_ENTRIES = 20_000_000
_MAX_INDEX_COLUMNS = 4


def _cover(points: np.ndarray, blo: np.ndarray, bhi: np.ndarray, cols: list[int], dims: list[int]) -> np.ndarray:
    """For each point, the number of boxes covering it on the columns ``cols`` (a
    ``len(cols)``-dimensional difference array of the boxes, summed along every axis)."""
    cover = np.zeros([m + 1 for m in dims], dtype=np.int64)
    for corner in range(1 << len(cols)):  # loop over the 2^d corners of every box
        at = tuple(bhi[:, c] + 1 if corner >> k & 1 else blo[:, c] for k, c in enumerate(cols))
        np.add.at(cover, at, -1 if bin(corner).count("1") % 2 else 1)
    for axis in range(len(cols)):  # loop over the index's dimensions
        cover = np.cumsum(cover, axis=axis)
    return cover[tuple(points[:, c] for c in cols)]


def _index_columns(points: np.ndarray, blo: np.ndarray, bhi: np.ndarray, sizes: np.ndarray) -> list[int]:
    """The columns whose cells index the boxes: grown one column at a time (at most
    :data:`_MAX_INDEX_COLUMNS`) while that lowers the work, counted as the box tests over all
    points plus the index's entries, and while the index stays below its size limits."""
    widths = bhi - blo + 1
    chosen: list[int] = []
    best_cost = np.inf
    entries = np.ones(len(blo), dtype=np.int64)
    while len(chosen) < _MAX_INDEX_COLUMNS:
        step = None
        for j in range(len(sizes)):  # loop over the columns not yet in the index
            if j in chosen:
                continue
            dims = [int(sizes[c]) for c in chosen] + [int(sizes[j])]
            grown = entries * widths[:, j]
            if chosen and (int(np.prod(dims)) > _MAX_CELLS or float(grown.sum()) > _MAX_ENTRIES):
                continue  # (one column is always possible: its index is as large as the boxes' ranges)
            cost = float(_cover(points, blo, bhi, [*chosen, j], dims).sum()) + float(grown.sum())
            if cost < best_cost:
                step, best_cost = j, cost
        if step is None:
            break
        chosen.append(step)
        entries = entries * widths[:, step]
    return chosen


def _first_rows(ids: np.ndarray, g: int) -> np.ndarray:
    first = np.full(g, len(ids), dtype=np.int64)
    np.minimum.at(first, ids, np.arange(len(ids), dtype=np.int64))
    return first


@measure(
    "kl_divergence",
    summary="KL divergence of the original QI distribution from the release's uniform-spread estimate",
    reference="Kifer & Gehrke, Injecting Utility into Anonymized Datasets (SIGMOD 2006)",
    bounds="[0, inf)",
)
def kl_divergence(release: Release, *, base: float = 2.0) -> float:
    """KL divergence ``KL(P ‖ Q)`` between the original data and the release.

    ``P`` is the empirical distribution of the original quasi-identifier tuples (all
    records of ``release.dataset``). ``Q`` is the release's maximum-entropy estimate of
    that distribution: each released row carries mass ``1/N`` (``N`` = released rows)
    spread **uniformly over the leaf tuples of its box** ``Π_j [lo_j, hi_j]``:

    .. math::  Q(x) = \\frac1N \\sum_{i : x \\in \\bar R_i} \\frac{1}{\\prod_j (hi_{ij} - lo_{ij} + 1)},
               \\qquad KL(P \\| Q) = \\sum_x P(x) \\log \\frac{P(x)}{Q(x)}

    Only the support of ``P`` matters, so the sum runs over the distinct original tuples;
    released rows are grouped into distinct boxes, and a compiled kernel sums the box
    weights containing each tuple (in parallel over the tuples), testing only the boxes that
    cover the tuple on up to four index columns, chosen to minimize the boxes tested
    (O(#distinct tuples · #distinct boxes · r) in the worst case).

    Suppressed records are charged as fully generalized: their mass is spread over the
    whole domain ``Π_j A_j``. The identity release gives 0; ``inf`` when some original
    tuple is covered by no released row (a release of a subset).

    Parameters
    ----------
    base : float, default 2
        Logarithm base (2: bits; ``numpy.e``: nats).

    Returns
    -------
    float
        Lower is better.
    """
    if not (isinstance(base, (int, float)) and not isinstance(base, bool) and base > 0 and base != 1):
        raise InvalidParameterError(f"The 'base' parameter of kl_divergence must be a positive float other than 1. Got {base!r} instead.")
    ds = release.dataset
    if release.n == 0:
        return float("inf")
    X = ds.X
    pid, pu = group_rows(X)
    p = np.bincount(pid, minlength=pu) / float(ds.n)
    points = np.ascontiguousarray(X[_first_rows(pid, pu)], dtype=np.int64)
    bid, bu = group_rows(release.lo, release.hi)
    rep = _first_rows(bid, bu)
    blo = np.ascontiguousarray(release.lo[rep], dtype=np.int64)
    bhi = np.ascontiguousarray(release.hi[rep], dtype=np.int64)
    logvol = np.log((bhi - blo + 1).astype(np.float64)).sum(axis=1)
    w = np.bincount(bid, minlength=bu) / float(release.n) * np.exp(-logvol)
    sizes = ds.domain_sizes
    cols = _index_columns(points, blo, bhi, sizes)
    q = _box_mass(points, blo, bhi, w, np.asarray(cols, dtype=np.int64), np.asarray(sizes[cols], dtype=np.int64))
    if (q <= 0).any():
        return float("inf")
    kl = float((p * (np.log(p) - np.log(q))).sum()) / np.log(base)
    return max(kl, 0.0)
