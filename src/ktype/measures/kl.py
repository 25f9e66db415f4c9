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
def _box_mass(points: np.ndarray, blo: np.ndarray, bhi: np.ndarray, w: np.ndarray, c1: int, m1: int, c2: int,
              m2: int) -> np.ndarray:  # pragma: no cover - compiled
    """For each point, the sum of ``w[b]`` over the boxes ``b`` containing it.

    Boxes are indexed by the cells ``(v1, v2)`` of two columns ``c1``, ``c2`` (``c2 = -1``,
    ``m2 = 1``: by the values of ``c1`` alone): CSR lists, in box order, of the boxes covering
    each cell, so each point only tests the boxes that contain it on those columns. The
    points are independent (one thread each); each sums its boxes in box order.
    """
    u, r = points.shape
    nb = blo.shape[0]
    ptr = np.zeros(m1 * m2 + 1, dtype=np.int64)
    for b in range(nb):
        for v1 in range(blo[b, c1], bhi[b, c1] + 1):
            if c2 < 0:
                ptr[v1 + 1] += 1
            else:
                for v2 in range(blo[b, c2], bhi[b, c2] + 1):
                    ptr[v1 * m2 + v2 + 1] += 1
    for v in range(m1 * m2):
        ptr[v + 1] += ptr[v]
    fill = ptr[:-1].copy()
    idx = np.empty(ptr[m1 * m2], dtype=np.int64)
    for b in range(nb):
        for v1 in range(blo[b, c1], bhi[b, c1] + 1):
            if c2 < 0:
                idx[fill[v1]] = b
                fill[v1] += 1
            else:
                for v2 in range(blo[b, c2], bhi[b, c2] + 1):
                    cell = v1 * m2 + v2
                    idx[fill[cell]] = b
                    fill[cell] += 1
    out = np.zeros(u)
    for i in prange(u):
        s = 0.0
        cell = points[i, c1] if c2 < 0 else points[i, c1] * m2 + points[i, c2]
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


#: an index over two columns is used while its lists hold at most this many box entries
_MAX_PAIR_ENTRIES = 20_000_000


def _index_columns(points: np.ndarray, blo: np.ndarray, bhi: np.ndarray, sizes: np.ndarray) -> tuple[int, int]:
    """The column, or the pair of columns, whose index gives the fewest box tests over all
    points (an index entry counted as one test), ``(c, -1)`` for a single column."""
    best, best_cost = (0, -1), np.inf
    for j, m in enumerate(sizes):  # loop over attributes
        cover = np.zeros(int(m) + 1, dtype=np.int64)
        np.add.at(cover, blo[:, j], 1)
        np.add.at(cover, bhi[:, j] + 1, -1)
        cover = np.cumsum(cover)[:-1]
        cost = float(cover[points[:, j]].sum()) + float((bhi[:, j] - blo[:, j] + 1).sum())
        if cost < best_cost:
            best, best_cost = (j, -1), cost
    for j1 in range(len(sizes)):  # loop over pairs of attributes
        for j2 in range(j1 + 1, len(sizes)):
            m1, m2 = int(sizes[j1]), int(sizes[j2])
            entries = float(((bhi[:, j1] - blo[:, j1] + 1) * (bhi[:, j2] - blo[:, j2] + 1)).sum())
            if m1 * m2 > _MAX_PAIR_ENTRIES or entries > _MAX_PAIR_ENTRIES:
                continue
            cover = np.zeros((m1 + 1, m2 + 1), dtype=np.int64)  # 2-d difference array of the boxes
            np.add.at(cover, (blo[:, j1], blo[:, j2]), 1)
            np.add.at(cover, (bhi[:, j1] + 1, blo[:, j2]), -1)
            np.add.at(cover, (blo[:, j1], bhi[:, j2] + 1), -1)
            np.add.at(cover, (bhi[:, j1] + 1, bhi[:, j2] + 1), 1)
            cover = cover.cumsum(axis=0).cumsum(axis=1)
            cost = float(cover[points[:, j1], points[:, j2]].sum()) + entries
            if cost < best_cost:
                best, best_cost = (j1, j2), cost
    return best


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
    weights containing each tuple, testing only the boxes that cover the tuple on the most
    selective column (O(#distinct tuples · #distinct boxes · r) in the worst case).

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
    c1, c2 = _index_columns(points, blo, bhi, sizes)
    q = _box_mass(points, blo, bhi, w, c1, int(sizes[c1]), c2, int(sizes[c2]) if c2 >= 0 else 1)
    if (q <= 0).any():
        return float("inf")
    kl = float((p * (np.log(p) - np.log(q))).sum()) / np.log(base)
    return max(kl, 0.0)
