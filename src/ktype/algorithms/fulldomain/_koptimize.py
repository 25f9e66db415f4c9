"""Bayardo & Agrawal's k-Optimize (survey §4.2): optimal ordered-interval generalization for DM."""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from ..._grouping import group_rows
from ...data.dataset import Dataset
from ...exceptions import InfeasibleError
from ...models._base import PrivacyModel
from ...models.kanonymity import KAnonymity
from ...release import Release
from .._registry import register
from ._api import SUPPRESSION_OPTION
from ._engine import suppression_limit
from ._kernels import _rollup_kernel

__all__ = ["k_optimize", "k_optimize_search"]


class _Space:
    """Split-index encoding of Fig. 12: per QI, the leaf ranks at which an interval may start."""

    def __init__(self, dataset: Dataset) -> None:
        X = dataset.X
        self.dataset = dataset
        self.n = dataset.n
        self.r = dataset.r
        ones = np.ones(self.n, dtype=np.int64)
        ident = np.concatenate([np.arange(m, dtype=np.int32) for m in dataset.domain_sizes])
        self.offs = np.concatenate([[0], np.cumsum(dataset.domain_sizes)[:-1]]).astype(np.int64)
        self.tab, self.cnt, self.inv = _rollup_kernel(np.ascontiguousarray(X, dtype=np.int32), ones, ident, self.offs)
        # candidate split points: observed values that are not the least observed value of
        # their QI (splits at unobserved values never change a class: "useless values")
        self.items: list[tuple[int, int]] = []  # (column, leaf rank), in index order
        self.paper_index: list[int] = []  # Fig. 12 numbering (1-based over all leaves)
        for j, m in enumerate(dataset.domain_sizes):
            obs = np.flatnonzero(np.bincount(X[:, j], minlength=int(m)))
            for v in obs[1:]:
                self.items.append((j, int(v)))
                self.paper_index.append(int(self.offs[j] + v + 1))

    def classes(self, splits: list[int]) -> tuple[np.ndarray, np.ndarray]:
        """Class of each distinct tuple and class sizes when intervals start at ``splits``."""
        maps = []
        for j, m in enumerate(self.dataset.domain_sizes):
            start = np.zeros(int(m), dtype=np.int32)
            for it in splits:
                c, v = self.items[it]
                if c == j:
                    start[v] = 1
            maps.append(np.cumsum(start).astype(np.int32))
        _, cnt, inv = _rollup_kernel(self.tab, self.cnt, np.concatenate(maps), self.offs)
        return inv, cnt


def k_optimize_search(dataset: Dataset, k: int, max_suppression: float = 1.0) -> dict[str, Any]:
    """Set-enumeration search with the discernibility lower bound (Bayardo & Agrawal 2005).

    Returns a dict with ``splits`` (item positions), ``indexes`` (Fig. 12 numbering),
    ``cost`` (DM), ``suppressed`` and ``nodes`` (nodes whose cost was computed).
    """
    sp = _Space(dataset)
    n = sp.n
    limit = suppression_limit(max_suppression, n)
    best = {"cost": np.inf, "splits": None, "suppressed": None}
    stats = {"nodes": 0, "bounds": 0}

    def cost(H: list[int]) -> tuple[float, np.ndarray, np.ndarray]:
        inv, cnt = sp.classes(H)
        stats["nodes"] += 1
        small = cnt < k
        sup = int(cnt[small].sum())
        c = float((cnt[~small].astype(float) ** 2).sum() + float(n) * sup)
        if sup > limit:
            c = np.inf
        elif c < best["cost"]:
            best.update(cost=c, splits=list(H), suppressed=sup)
        return c, inv, small

    def bound(sup_rows: np.ndarray, A: list[int]) -> float:
        """LB of every node between H and A: suppressed-by-H rows cost n; others max(k, |E_A|)."""
        stats["bounds"] += 1
        inv, cnt = sp.classes(A)
        size = cnt[inv].astype(float)
        per = np.where(sup_rows, float(n), np.maximum(size, k))
        return float((per * sp.cnt).sum())

    def visit(H: list[int], T: list[int]) -> None:
        _, hinv, hsmall = cost(H)
        if not T:
            return
        A = sorted(H + T)
        if bound(hsmall[hinv], A) >= best["cost"]:
            return
        # tail pruning: drop v when no node containing H ∪ {v} (all lie below H ∪ T) can win
        keep = []
        for v in T:
            vinv, vcnt = sp.classes(H + [v])
            if bound((vcnt < k)[vinv], A) < best["cost"]:
                keep.append(v)
        for i, v in enumerate(keep):
            visit(H + [v], keep[i + 1 :])

    t0 = time.perf_counter()
    visit([], list(range(len(sp.items))))
    if best["splits"] is None:
        raise InfeasibleError(
            f"k_optimize: no ordered-interval generalization is {k}-anonymous within max_suppression="
            f"{max_suppression:g} ({limit} records)."
        )
    # ties: refine greedily with every split that keeps the optimal cost and suppresses no more
    # records (a finer partition publishes more; with k = 1 this yields the identity release).
    # A split that keeps the cost by suppressing more (n per record instead of |E| per record
    # of a class of size n) publishes less and is refused.
    splits = list(best["splits"])
    for v in range(len(sp.items)):
        if v in splits:
            continue
        inv, cnt = sp.classes(splits + [v])
        small = cnt < k
        sup = int(cnt[small].sum())
        c = float((cnt[~small].astype(float) ** 2).sum() + float(n) * sup)
        if sup <= limit and c <= best["cost"] and sup <= best["suppressed"]:
            splits = sorted(splits + [v])
            best["suppressed"] = sup
    return {
        "splits": splits,
        "indexes": sorted(sp.paper_index[i] for i in splits),
        "cost": best["cost"],
        "suppressed": best["suppressed"],
        "nodes": stats["nodes"],
        "bounds": stats["bounds"],
        "time_s": time.perf_counter() - t0,
        "space": sp,
    }


@register(
    "k_optimize",
    models=(KAnonymity,),
    recoding="full-domain",
    combinable=False,
    constraints={"max_suppression": SUPPRESSION_OPTION},
    description="Bayardo-Agrawal k-Optimize: optimal ordered-interval generalization for discernibility",
    reference="Ciriani et al., k-Anonymity (2007), §4.2 (Bayardo & Agrawal 2005)",
)
def k_optimize(dataset: Dataset, models: tuple[PrivacyModel, ...], *, max_suppression: float = 1.0) -> Release:
    """k-Optimize: the discernibility-optimal single-dimensional *interval* generalization.

    Searches a different space from the lattice algorithms (survey §4.2), so its optimum
    is not comparable with the k-minimal nodes of a hierarchy lattice:
    each QI's domain, in leaf-rank order (the hierarchy's leaf order; the sorted domain for
    ordered attributes), is cut into contiguous intervals, chosen independently of the
    hierarchy's levels. Set-enumeration over split indexes with Bayardo–Agrawal's DM lower
    bound ``Σ_{suppressed by H} n + Σ_{others} max(k, |E_{H∪T}|)`` and tail pruning; classes
    smaller than ``k`` are suppressed and cost ``n`` per record. ``max_suppression``
    (default 1: unbounded, as in the paper) makes nodes suppressing more infeasible.

    Each interval is published as the range of the values it holds; for a QI with a
    *tree* hierarchy, which allows only its nodes, as the closure of that range (the
    smallest node containing it), which can merge classes (k-anonymity is kept; the
    published DM, ``provenance["k_optimize"]["published_discernibility"]``, can then exceed
    the searched optimum ``cost``). With ``"ordered"`` hierarchies the release is exactly
    Bayardo–Agrawal's. ``release.levels`` is None; the chosen interval starts
    are in ``provenance["k_optimize"]``. Worst case ``2^|I|`` nodes, ``|I| = Σ_j(|A_j|-1)``.
    """
    k = models[0].k  # type: ignore[attr-defined]
    res = k_optimize_search(dataset, k, max_suppression)
    sp = res.pop("space")
    splits = res["splits"]
    X = dataset.X
    lo = np.empty(X.shape, dtype=np.int32)
    hi = np.empty(X.shape, dtype=np.int32)
    starts: dict[str, list] = {}
    for j, h in enumerate(dataset.hierarchies):
        m = int(dataset.domain_sizes[j])
        st = sorted({0} | {sp.items[i][1] for i in splits if sp.items[i][0] == j})
        starts[h.name] = [h.leaves[v] for v in st]
        ends = st[1:] + [m]
        iv = np.zeros(m, dtype=np.int64)
        for q, s0 in enumerate(st):
            iv[s0:ends[q]] = q
        # publish each interval as the tight range of the values it holds in the data
        # (the same partition; k=1 then gives the identity release)
        cls = iv[X[:, j]]
        tlo = np.full(len(st), m, dtype=np.int64)
        thi = np.full(len(st), -1, dtype=np.int64)
        np.minimum.at(tlo, cls, X[:, j])
        np.maximum.at(thi, cls, X[:, j])
        lo[:, j] = tlo[cls]
        hi[:, j] = thi[cls]
        if h.is_tree:
            # a tree hierarchy allows only its nodes: publish each interval's closure
            # (smallest node containing its values); classes can only merge
            lo[:, j], hi[:, j] = h.closure(lo[:, j], hi[:, j])
    inv, cnt = sp.classes(splits)
    suppressed = (cnt < k)[inv][sp.inv]
    info = {k2: v for k2, v in res.items() if k2 != "splits"}
    info["interval_starts"] = starts
    keep = ~suppressed
    sizes = np.bincount(group_rows(lo[keep], hi[keep])[0]).astype(float) if keep.any() else np.zeros(0)
    info["published_discernibility"] = float((sizes**2).sum() + float(dataset.n) * int(suppressed.sum()))
    return Release.build(
        dataset,
        lo,
        hi,
        suppressed=suppressed,
        recoding="full-domain",
        provenance={
            "k_optimize": info,
            "objective": info["published_discernibility"],
            "objective_measure": "discernibility",
            "lattice": {"algorithm": "k_optimize", "measure": "discernibility", "nodes_evaluated": res["nodes"], "value": res["cost"], "time_s": round(res["time_s"], 6)},
        },
    )
