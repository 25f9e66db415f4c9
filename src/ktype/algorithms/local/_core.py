"""Shared primitives of the local-recoding algorithms: packed hierarchies, closures and costs.

A generalized record is a box ``lo <= x <= hi`` of leaf ranks (one interval per QI).
``R + R̄`` of Tassa, Mazza & Gionis (§6.1.2) and the closure of a set of records
(Def. 3, §4.1) are both "the smallest allowed interval containing an interval", i.e. the lowest
common ancestor in a tree hierarchy (:meth:`ktype.data.hierarchy.Hierarchy.closure`) or the
interval itself for an ordered attribute.

Costs are per generalized record and additive (Eq. 2 of the k-concealment paper):

* ``loss_metric`` -- the Loss Metric, ``(1/r) Σ_j (|R̄(j)| - 1) / (|A_j| - 1)`` (Eq. 1);
* ``entropy`` -- the basic entropy measure of Gionis & Tassa (Def. 4.1),
  ``(1/r) Σ_j H(X_j | R̄(j))`` with empirical frequencies of the whole original table
  and log base 2. EM is **not monotone** (Gionis & Tassa §4.2.2): cost deltas can be negative and
  are never clamped.

Both are computed in O(1) per cell from prefix sums over leaf ranks (every allowed value
is a contiguous rank interval). All hot loops are numba kernels over packed arrays, so no
Python loop runs over rows or pairs of rows.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..._grouping import unique_rows
from ..._jit import njit
from ..._validation import renamed_hint
from ...data.dataset import Dataset
from ...exceptions import InvalidParameterError

__all__ = ["Problem", "MEASURES"]

#: the registry names (``ktype.measures.MEASURES``) of the two costs the kernels evaluate
MEASURES = ("loss_metric", "entropy")

#: largest closure-cost table (entries) built by :meth:`Problem.closure_cost_table`
MAX_TABLE = 20_000_000


@dataclass
class Problem:
    """A dataset packed for the numba kernels, with one cost measure.

    Attributes
    ----------
    X : ndarray (n, r) int32
        Leaf ranks of the original records.
    anc : ndarray (r, M, H+1) int32
        Per attribute, ancestors of each leaf rank, deepest first, padded with the root.
    nlo, nhi : ndarray (r, NN) int32
        Leaf-rank interval of every node (padded).
    tree : ndarray (r,) bool
        Whether the attribute has a tree hierarchy (else any interval is allowed).
    m : ndarray (r,) int64
        Domain sizes.
    measure : int
        0 = LM, 1 = EM.
    pn, ps : ndarray (r, M+1) float64
        Prefix sums of value counts ``N(a)`` and of ``N(a) log2 N(a)`` (EM only).
    """

    X: np.ndarray
    anc: np.ndarray
    nlo: np.ndarray
    nhi: np.ndarray
    tree: np.ndarray
    m: np.ndarray
    measure: int
    pn: np.ndarray
    ps: np.ndarray
    measure_name: str

    @classmethod
    def from_dataset(cls, dataset: Dataset, measure: str = "loss_metric") -> Problem:
        if measure not in MEASURES:
            raise InvalidParameterError(
                f"The 'measure' parameter must be one of {MEASURES}. Got {measure!r} instead.{renamed_hint(measure, MEASURES)}"
            )
        X = np.ascontiguousarray(dataset.X, dtype=np.int32)
        hs = dataset.hierarchies
        r = len(hs)
        M = max(h.size for h in hs)
        H = max((h.height if h.is_tree else 0) for h in hs)
        NN = max((len(h.node_lo) if h.is_tree else 1) for h in hs)
        anc = np.zeros((r, M, H + 1), dtype=np.int32)
        nlo = np.zeros((r, NN), dtype=np.int32)
        nhi = np.zeros((r, NN), dtype=np.int32)
        tree = np.zeros(r, dtype=np.bool_)
        m = np.zeros(r, dtype=np.int64)
        pn = np.zeros((r, M + 1))
        ps = np.zeros((r, M + 1))
        for a, h in enumerate(hs):  # loop over attributes
            m[a] = h.size
            if h.is_tree:
                tree[a] = True
                anc[a, : h.size, : h.height + 1] = h.arrays().anc
                anc[a, : h.size, h.height + 1 :] = 0
                nlo[a, : len(h.node_lo)] = h.node_lo
                nhi[a, : len(h.node_hi)] = h.node_hi
            cnt = np.bincount(X[:, a], minlength=h.size).astype(float) if len(X) else np.zeros(h.size)
            nlog = cnt * np.log2(np.maximum(cnt, 1.0))  # 0 where cnt is 0 (log2 of 1)
            pn[a, 1 : h.size + 1] = np.cumsum(cnt)
            ps[a, 1 : h.size + 1] = np.cumsum(nlog)
        return cls(X, anc, nlo, nhi, tree, m, 0 if measure == "loss_metric" else 1, pn, ps, measure)

    @property
    def n(self) -> int:
        return int(self.X.shape[0])

    @property
    def r(self) -> int:
        return int(self.X.shape[1])

    @property
    def args(self) -> tuple:
        """The packed arrays in kernel argument order."""
        return (self.anc, self.nlo, self.nhi, self.tree, self.m, self.measure, self.pn, self.ps)

    def closure_cost_table(self) -> np.ndarray:
        """``T[a, lo, hi] = f_a(closure([lo, hi]))`` for every interval of leaf ranks (cached).

        Makes the cost of the closure of a union of boxes O(r) table lookups instead of
        ancestor walks. Its size is ``r · M²`` (M the largest domain); when that exceeds
        ``MAX_TABLE`` entries an empty (r, 0, 0) table is returned and callers fall back to
        the walks.
        """
        cached = getattr(self, "_ctab", None)
        if cached is None:
            M = int(self.m.max()) if len(self.m) else 0
            if self.r * M * M > MAX_TABLE:
                cached = np.zeros((self.r, 0, 0))
            else:
                cached = _closure_cost_table(M, *self.args)
            self._ctab = cached
        return cached

    def record_costs(self, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
        """Cost ``c(R̄)`` of each generalized record (mean over attributes)."""
        return box_costs(np.ascontiguousarray(lo, dtype=np.int32), np.ascontiguousarray(hi, dtype=np.int32), *self.args)

    def table_cost(self, lo: np.ndarray, hi: np.ndarray) -> float:
        """``Π(D, g(D))``: the average record cost (Eq. 2)."""
        if len(lo) == 0:
            return 0.0
        return float(self.record_costs(lo, hi).mean())

    def closure_of(self, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Closure (Def. 3) of a set of record indices: one box (lo, hi) of length r."""
        rows = np.asarray(rows, dtype=np.int64)
        lo = self.X[rows].min(axis=0).astype(np.int32)
        hi = self.X[rows].max(axis=0).astype(np.int32)
        close_box(lo, hi, self.anc, self.nlo, self.nhi, self.tree)
        return lo, hi

    def d(self, rows: np.ndarray) -> float:
        """``d(S) = c(closure(S))``."""
        lo, hi = self.closure_of(rows)
        return float(self.record_costs(lo[None], hi[None])[0])


# ---------------------------------------------------------------------------- kernels
@njit
def _close(a, lo, hi, anc, nlo, nhi, tree):
    """Smallest allowed interval of attribute ``a`` containing [lo, hi]."""
    if not tree[a]:
        return lo, hi
    H1 = anc.shape[2]
    for t in range(H1):
        nd = anc[a, lo, t]
        if nhi[a, nd] >= hi and nlo[a, nd] <= lo:
            return nlo[a, nd], nhi[a, nd]
    return nlo[a, 0], nhi[a, 0]


@njit
def _fcost(a, lo, hi, m, measure, pn, ps):
    """Per-attribute cost of the interval [lo, hi] (not divided by r)."""
    if measure == 0:
        if m[a] <= 1:
            return 0.0
        return (hi - lo) / (m[a] - 1.0)
    nb = pn[a, hi + 1] - pn[a, lo]
    if nb <= 0.0:
        return 0.0
    sb = ps[a, hi + 1] - ps[a, lo]
    v = np.log2(nb) - sb / nb
    if v < 0.0:
        v = 0.0
    return v


@njit
def _closure_cost_table(M, anc, nlo, nhi, tree, m, measure, pn, ps):
    r = m.shape[0]
    out = np.zeros((r, M, M))
    for a in range(r):
        for lo in range(m[a]):
            for hi in range(lo, m[a]):
                l2, h2 = _close(a, lo, hi, anc, nlo, nhi, tree)
                out[a, lo, hi] = _fcost(a, l2, h2, m, measure, pn, ps)
    return out


@njit
def close_box(lo, hi, anc, nlo, nhi, tree):
    """Replace a box (1-D lo, hi) by its closure in place."""
    for a in range(lo.shape[0]):
        l2, h2 = _close(a, lo[a], hi[a], anc, nlo, nhi, tree)
        lo[a] = l2
        hi[a] = h2


@njit
def box_costs(lo, hi, anc, nlo, nhi, tree, m, measure, pn, ps):
    """Mean per-attribute cost of each box (rows of lo/hi)."""
    n, r = lo.shape
    out = np.zeros(n)
    for i in range(n):
        s = 0.0
        for a in range(r):
            s += _fcost(a, lo[i, a], hi[i, a], m, measure, pn, ps)
        out[i] = s / r
    return out


@njit
def plus_box(x, lo, hi, anc, nlo, nhi, tree):
    """``R + R̄``: the closure of box (lo, hi) extended by record x (returns new arrays)."""
    r = lo.shape[0]
    nl = np.empty(r, dtype=np.int32)
    nh = np.empty(r, dtype=np.int32)
    for a in range(r):
        l0 = min(lo[a], x[a])
        h0 = max(hi[a], x[a])
        if l0 == lo[a] and h0 == hi[a]:
            nl[a] = l0
            nh[a] = h0
        else:
            l2, h2 = _close(a, l0, h0, anc, nlo, nhi, tree)
            nl[a] = l2
            nh[a] = h2
    return nl, nh


@njit
def plus_cost_delta(x, lo, hi, anc, nlo, nhi, tree, m, measure, pn, ps):  # noqa: PLR0913
    """``c(R + R̄) - c(R̄)`` for one record x and one box (mean over attributes)."""
    r = lo.shape[0]
    s = 0.0
    for a in range(r):
        if lo[a] <= x[a] and x[a] <= hi[a]:
            continue
        l2, h2 = _close(a, min(lo[a], x[a]), max(hi[a], x[a]), anc, nlo, nhi, tree)
        s += _fcost(a, l2, h2, m, measure, pn, ps) - _fcost(a, lo[a], hi[a], m, measure, pn, ps)
    return s / r


@njit
def plus_table(lo, hi, anc, nlo, nhi, tree, m, measure, pn, ps):
    """Per attribute and domain value v: ``f_a(closure(box_a ∪ v)) - f_a(box_a)``.

    Returns a (r, M) table; adding record x to the box costs ``Σ_a tab[a, x_a] / r``.
    """
    r = lo.shape[0]
    M = anc.shape[1]
    tab = np.zeros((r, M))
    for a in range(r):
        base = _fcost(a, lo[a], hi[a], m, measure, pn, ps)
        for v in range(m[a]):
            if lo[a] <= v and v <= hi[a]:
                tab[a, v] = 0.0
            else:
                l2, h2 = _close(a, min(lo[a], v), max(hi[a], v), anc, nlo, nhi, tree)
                tab[a, v] = _fcost(a, l2, h2, m, measure, pn, ps) - base
    return tab


@njit
def consistent_pair(X, i, lo, hi, j):
    """Whether record i lies inside box j (rows ``lo[j]``, ``hi[j]``): R̄_j is consistent with R_i."""
    for a in range(X.shape[1]):
        v = X[i, a]
        if v < lo[j, a] or v > hi[j, a]:
            return False
    return True


def unique_boxes(lo: np.ndarray, hi: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Distinct boxes: ``(glo, ghi, group_of_row, count)``."""
    key = np.concatenate([lo, hi], axis=1)
    uniq, _, inv, cnt = unique_rows(key)
    r = lo.shape[1]
    return (
        np.ascontiguousarray(uniq[:, :r], dtype=np.int32),
        np.ascontiguousarray(uniq[:, r:], dtype=np.int32),
        inv.ravel().astype(np.int64),
        cnt.astype(np.int64),
    )
