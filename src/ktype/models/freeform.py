"""k-anonymity by a k-regular generalization graph (freeform generalization).

Doka, Xue, Tsoumakos, Karras [1]_ §2-3 (after Wong et al. [2]_): a published table
satisfies k-anonymity when every original record matches at least ``k`` published boxes and
each of them is its true match with equal probability. The sufficient condition the paper
builds on: the **generalization graph** E (original ``i`` → box ``j`` whenever ``j`` was
built to cover ``i``) is **k-regular** — the union of k disjoint perfect matchings — and the
true assignment α is one of them, drawn uniformly with secret randomness (Theorem 2.3,
§2.2). Then every edge of E has marginal probability exactly ``1/k`` of being the true one.

What this checker verifies (independently of any algorithm):

* **Always** (also on a release read back from a file): every original record is
  consistent with at least ``k`` published boxes lying on perfect matchings of the
  consistency graph (k-concealment's condition, computed set-aware by
  :mod:`ktype.models._graph`; freeform value sets count exactly, not by their hull).
  Skipped above ``graph_limit`` records when the witness below is present, because the
  witness already proves it (every edge of a k-regular E ⊆ consistency graph lies on a
  perfect matching of E, Lemma 2.2, hence of the consistency graph).
* **When the release carries its private witness** (``FreeformRelease.preimages``, the
  edges of E per box; in memory only): E is regular of degree ``>= k`` (each box has
  distinct preimages; each original is a preimage of exactly that many boxes), every
  preimage lies inside its box (ranges and value sets), and the true record of each row
  (``source``) is one of its preimages (α ⊆ E, so the published data are truthful).
* **Without the witness** (a release read back from a file, whose generalization graph is
  private): the consistency graph contains a k-regular spanning subgraph — a *k-factor*,
  decided by one maximum flow (:meth:`ConsistencyGraph.k_factor`) — so that some k-regular
  E could have produced the boxes. Match counts alone do not imply it: on four records
  A, B, C, D the boxes ``{A,D}``, ``{B,D}``, ``{C,D}``, ``*`` give every record two matches,
  yet ``*`` is the only other box of A, B and C (degree 3 on a row that a 2-regular E
  gives 2 edges), and A lies in row 1 in 3 of the 4 perfect matchings: an adversary
  guesses its row with probability 3/4, not 1/2. Summary key ``k_regular_subgraph``:
  whether such a graph is established (by the witness in memory, by the flow otherwise).

It cannot verify that α was drawn uniformly with secret randomness — a property of the
process, not of the output (§2.2: one of k randomly regenerated disjoint assignments, chosen
uniformly); the algorithms document how they draw it.

Containment may add candidates beyond E (in the paper's Table 1, §1, four records fall inside
a fourth box: t1, t2, t6, t7); that only helps privacy, and the degree check above uses containment.

References
----------
.. [1] K. Doka, M. Xue, D. Tsoumakos, P. Karras. k-Anonymization by Freeform
   Generalization. ASIA CCS 2015. §2.1-2.2 (Lemma 2.1, 2.2, Theorem 2.3), §3 (Def. 1-3).
.. [2] W. K. Wong, N. Mamoulis, D. W. Cheung. Non-homogeneous generalization in privacy
   preserving data publishing. SIGMOD 2010.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from .._validation import Interval
from ..exceptions import DataError, InvalidParameterError
from ..release import Release
from ._base import CheckResult, PrivacyModel
from ._graph import consistency_graph

__all__ = ["FreeformKAnonymity"]


@dataclass(frozen=True)
class FreeformKAnonymity(PrivacyModel):
    """k-anonymity through a k-regular generalization graph (Doka et al. Def. 1-3, §2.2).

    Parameters
    ----------
    k : int
        Number of equiprobable candidates per record, ``k >= 1``.
    graph_limit : int, default 20000
        With a witness, the (costlier) consistency-graph match count is computed only up
        to this many records; without a witness it is always computed.
    """

    public_name: ClassVar[str | None] = "freeform-k-anonymity"
    #: judged per original record over the generalization graph, whatever the recoding
    graph_scope: ClassVar[bool] = True

    k: int
    graph_limit: int = 20000
    _parameter_constraints: ClassVar[dict] = {
        "k": [Interval(int, 1, None, closed="left")],
        "graph_limit": [Interval(int, 0, None, closed="left")],
    }
    per_class: ClassVar[bool] = False
    monotone: ClassVar[bool] = False  # enlarging one box may break regularity of the witness
    monotone_in_k: ClassVar[bool] = True
    per: ClassVar[str] = "original"

    def __str__(self) -> str:
        return f"FreeformKAnonymity(k={self.k})"

    def check(self, release: Release) -> CheckResult:
        ds = release.dataset
        n = ds.n
        ok = np.ones(n, dtype=bool)
        summary: dict[str, Any] = {"per": "original"}
        pre = getattr(release, "preimages", None)
        witness = pre is not None and release.source is not None
        if witness:
            ok &= self._check_witness(release, np.asarray(pre, dtype=np.int64), summary)
        graph = None
        factor: tuple[bool, np.ndarray] | InvalidParameterError | None = None
        if not witness:
            # without the witness, the k-regular generalization graph it would hold must at
            # least exist inside the consistency graph (a k-factor, one maximum flow); decided
            # first, because a k-factor flow also serves the match counts below (one flow)
            graph = consistency_graph(release)
            try:
                factor = graph.k_factor(self.k)
            except InvalidParameterError as e:  # too large to decide: reported below
                factor = e
        if not witness or n <= self.graph_limit:
            try:
                cnt = (graph or consistency_graph(release)).match_counts()
            except DataError as e:  # some row does not cover its record: no perfect matching
                summary["not_a_generalization"] = str(e)
                ok &= False
            else:
                ok &= cnt >= self.k
                summary["min_matches"] = int(cnt.min()) if n else 0
        if not witness:
            if isinstance(factor, InvalidParameterError):  # too large to decide: not verified, so not passed
                exists, short = False, np.ones(n, dtype=bool)
                summary["basis"] = f"the {self.k}-factor cannot be decided: {factor}"
            else:
                assert factor is not None
                exists, short = factor
                if not exists:
                    summary["basis"] = (f"no {self.k}-regular generalization graph fits these boxes (the consistency "
                                        f"graph has no {self.k}-factor), so the candidates cannot all be equiprobable")
            summary["k_regular_subgraph"] = exists
            if not exists:
                ok &= ~short if short.any() else np.zeros(n, dtype=bool)
        summary["failing_records"] = int((~ok).sum())
        return CheckResult(str(self), bool(ok.all()), ok, summary)

    def _check_witness(self, release: Release, pre: np.ndarray, summary: dict[str, Any]) -> np.ndarray:
        ds = release.dataset
        n, N = ds.n, release.n
        src = np.asarray(release.source, dtype=np.int64)
        if pre.ndim != 2 or pre.shape[0] != N or (pre.size and (pre.min() < 0 or pre.max() >= n)):
            summary["witness"] = "malformed"
            return np.zeros(n, dtype=bool)
        d = pre.shape[1]
        lo, hi, sets = release.cells()
        distinct, inside = _witness_edges(ds, pre, lo, hi, sets)
        truthful = (pre == src[:, None]).any(axis=1)
        deg = np.bincount(pre.ravel(), minlength=n)
        good = np.bincount(pre[inside & distinct[:, None]].ravel(), minlength=n)
        regular = bool((deg == d).all() and distinct.all())
        summary.update(
            {
                "witness": "checked",
                "graph_degree": int(d),
                "regular": regular,
                "edges_outside_box": int((~inside).sum()),
                "untruthful_rows": int((~truthful).sum()),
                # a d-regular E (d >= k) inside the boxes is a union of d perfect matchings, so k of
                # them form a k-factor of the consistency graph: what the file check decides by a flow
                "k_regular_subgraph": bool(regular and d >= self.k and inside.all()),
            }
        )
        ok = (good >= self.k) & (deg == d)
        if not (regular and truthful.all() and d >= self.k):
            ok &= False
        return ok


def _witness_edges(ds, pre: np.ndarray, lo: np.ndarray, hi: np.ndarray, sets: dict[int, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """Per box whether its preimages are distinct, and per edge ``(t, s)`` whether record
    ``pre[t, s]`` lies inside box ``t`` (its range on every column and, on a set column, its
    value set). ``pre`` is valid (``0 <= pre < n``): compiled passes
    (:mod:`._witness_kernels`); a value set not of its column's width puts every edge outside."""
    from . import _witness_kernels as _W

    # the records' leaf ranks in the narrowest integer type: each edge reads a random record, so
    # the smaller the table, the more of it stays in cache (CENSUS: 8 bytes per record, not 32)
    X = np.ascontiguousarray(ds.X, dtype=np.min_scalar_type(max(max(ds.domain_sizes, default=1) - 1, 0)))
    pre = np.ascontiguousarray(pre, dtype=np.int64)
    distinct = _W.distinct_rows(pre)
    inside = np.zeros(pre.shape, dtype=bool)
    cols = sorted(int(j) for j in sets)
    widths = [ds.hierarchies[j].size for j in cols]
    if any(np.shape(sets[j]) != (pre.shape[0], w) for j, w in zip(cols, widths)):  # pragma: no cover
        return distinct, inside  # FreeformRelease checks the shapes: every edge outside
    members = np.empty((pre.shape[0], sum(widths)), dtype=bool)  # the value sets side by side
    offsets = np.cumsum([0, *widths])[:-1].astype(np.int64)
    for j, o, w in zip(cols, offsets, widths):  # loop over set columns
        members[:, o:o + w] = sets[j]
    _W.edges_inside(X, pre, np.ascontiguousarray(lo), np.ascontiguousarray(hi), np.asarray(cols, dtype=np.int64),
                    offsets, members, inside)
    return distinct, inside
