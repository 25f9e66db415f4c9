"""Samarati's binary search on lattice height (survey §4.1)."""

from __future__ import annotations

import time

import numpy as np

from ...data.dataset import Dataset
from ...exceptions import InfeasibleError
from ...models._base import PrivacyModel
from ...models.kanonymity import KAnonymity
from ...release import Release
from .._registry import register
from ._api import MEASURE_OPTION, SUPPRESSION_OPTION
from ._engine import Encoded, require_levels
from ._lattice import LatticeResult, build_release, too_large
from ._sparse import SparseSearch

__all__ = ["samarati", "tuple_distance_vectors"]

#: above this many VT entries (outliers x distinct tuples x QIs) SATISFIES uses roll-up counts
_VT_MAX = 20_000_000


def tuple_distance_vectors(enc: Encoded, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Distance vectors ``V_{x,y}`` between bottom tuples (survey §4.1).

    ``a`` and ``b`` are ``(p, r)`` / ``(q, r)`` matrices of leaf ranks; the result
    ``(p, q, r)`` holds, per attribute, the lowest level at which the two values generalize
    to the same value. The two paths to the common ancestor have equal length (survey
    §4.1) because every level of a domain generalization hierarchy is a whole domain
    (§2.1): hierarchies must be uniform-depth.
    """
    a = np.asarray(a)
    b = np.asarray(b)
    out = np.empty((len(a), len(b), enc.r), dtype=np.int8)
    for j in range(enc.r):
        h = int(enc.heights[j])
        v = np.full((len(a), len(b)), h, dtype=np.int8)
        for lev in range(h - 1, -1, -1):
            g = enc.gmap[j][lev]
            v[g[a[:, j]][:, None] == g[b[:, j]][None, :]] = lev
        out[:, :, j] = v
    return out


#: refuse when a height layer Samarati may scan holds more nodes than this
MAX_LAYER_NODES = 2_000_000


def layer_sizes(heights: np.ndarray) -> list[int]:
    """Number of lattice nodes at each height ``0..Σh_j``: the coefficients of
    ``Π_j (1 + x + … + x^{h_j})`` (exact Python ints)."""
    poly = [1]
    for h in heights:
        out = [0] * (len(poly) + int(h))
        for i, c in enumerate(poly):
            for d in range(int(h) + 1):
                out[i + d] += c
        poly = out
    return poly


def layer(heights: np.ndarray, t: int) -> np.ndarray:
    """All level vectors of height ``t``, in lexicographic order (``(m, r)`` int64)."""
    r = len(heights)
    cap = np.concatenate([np.cumsum(np.asarray(heights, dtype=np.int64)[::-1])[::-1], [0]])  # levels left from j
    part = np.zeros((1, 0), dtype=np.int64)
    tot = np.zeros(1, dtype=np.int64)
    for j in range(r):
        blocks, sums, src = [], [], []
        for v in range(int(heights[j]) + 1):
            s = tot + v
            idx = np.flatnonzero((s <= t) & (s + cap[j + 1] >= t))
            blocks.append(np.column_stack([part[idx], np.full(len(idx), v, dtype=np.int64)]))
            sums.append(s[idx])
            src.append(idx * (int(heights[j]) + 1) + v)  # (parent row, v): lexicographic
        order = np.argsort(np.concatenate(src), kind="stable")
        part = np.concatenate(blocks)[order]
        tot = np.concatenate(sums)[order]
    return part


def samarati_search(enc: Encoded) -> LatticeResult:
    """Binary search on height for the lowest height holding a solution; all solutions there.

    SATISFIES(vec) follows the survey's preprocessing: only the bottom outliers (distinct
    tuples occurring fewer than k times) can be outliers at any node; the size of outlier
    ``x``'s class at ``vec`` is ``Σ_{y: VT[x,y] ≤ vec} count(y)``. When the VT matrix would
    exceed ``_VT_MAX`` entries the same counts come from the roll-up evaluator. Height
    layers are generated one at a time (:func:`layer`), never the whole lattice; a lattice
    whose widest layer exceeds :data:`MAX_LAYER_NODES` is refused up front.
    """
    t0 = time.perf_counter()
    widest = max(layer_sizes(enc.heights))
    if widest > MAX_LAYER_NODES:
        per = 8 * enc.r + 64
        raise too_large("samarati", enc.heights, f"scanning its widest height layer ({widest:,} nodes)", widest * per, MAX_LAYER_NODES * per)
    search = SparseSearch(enc)
    k = enc.k
    tab, cnt = enc.bottom.tab.astype(np.int64), enc.bottom.cnt
    out = np.flatnonzero(cnt < k)
    use_vt = len(out) * len(cnt) * enc.r <= _VT_MAX
    VT = tuple_distance_vectors(enc, tab[out], tab) if use_vt else None

    def satisfies(vec: np.ndarray) -> bool:
        st = search.state(vec)
        if st:
            return st == 1
        if VT is None:
            return search.evaluate(vec).feasible
        within = (VT <= vec[None, None, :]).all(axis=2)
        cx = within.astype(np.int64) @ cnt
        req = int(cnt[out][cx < k].sum())
        ok = req <= enc.limit
        search.classify(vec, ok, req)
        return ok

    top = enc.heights.astype(np.int64)
    low, high = 0, int(top.sum())
    trace = []
    if not satisfies(top):
        least = int(search.suppressed(top))
        raise InfeasibleError(
            f"samarati: even the top node needs {least} suppressed records, above the limit {enc.limit} "
            f"(max_suppression={enc.max_suppression:g}). Raise max_suppression."
        )
    while low < high:
        tr = (low + high) // 2
        found = False
        for vec in layer(enc.heights, tr):
            if satisfies(vec):
                found = True
                break
        trace.append({"height": tr, "found": found})
        if found:
            high = tr
        else:
            low = tr + 1
    sols = np.array([v for v in layer(enc.heights, low) if satisfies(v)], dtype=np.int64).reshape(-1, enc.r)
    best = search.pick(sols)
    return search.result(
        "samarati",
        best,
        sols,
        t0,
        monotone_feasibility=True,
        monotone_measure=enc.measure_monotone(),
        extra={"binary_search": trace, "vt_matrix": bool(use_vt), "outliers": int(cnt[out].sum()), "min_height": low},
    )


@register(
    "samarati",
    models=(KAnonymity,),
    recoding="full-domain",
    combinable=False,
    constraints={"measure": MEASURE_OPTION, "max_suppression": SUPPRESSION_OPTION},
    description="Samarati's binary search on lattice height (k-minimal of minimum absolute distance)",
    reference="Ciriani et al., k-Anonymity (2007), §4.1 (Samarati 2001)",
)
def samarati(dataset: Dataset, models: tuple[PrivacyModel, ...], *, measure: str = "height", max_suppression: float = 0.0) -> Release:
    """Samarati's algorithm: a k-minimal generalization of minimum height (survey §4.1).

    Binary search over heights ``0..Σh_j`` for the lowest height holding a node whose
    required suppression is within ``max_suppression * n``; correct because required
    suppression only decreases upward and every lower node lies below some node of the
    tested height (the lattice is a product of chains, survey §2.1; the argument of the
    binary search is in §4.1). Every solution at that
    height is k-minimal; ``measure`` breaks the tie among them (default ``"height"`` = the
    lowest lexicographic level vector). The solutions are in
    ``provenance["lattice"]["k_minimal"]``. Not optimal for other measures: k-minimal
    nodes at greater heights are not examined. Cost: ``O(log Σh)`` heights, each up to
    all its nodes; SATISFIES is ``O(|outliers|·|distinct|·r)`` with the VT matrix.
    """
    require_levels(dataset, "samarati")
    enc = Encoded(dataset, models, max_suppression, measure)
    return build_release(enc, samarati_search(enc), "samarati")
