"""Match posteriors: what an adversary who knows the whole table learns from a k-type release.

Tassa, Mazza & Gionis [1]_ §5.2: an adversary who knows every original record (and the
algorithm) sees the consistency graph. If every perfect matching is equally likely, the
posterior that released row ``j`` belongs to record ``i`` is

    p(i, j) = #{perfect matchings containing (i, j)} / #{perfect matchings}
            = a_ij · perm(A without row i and column j) / perm(A).

Computing a permanent is #P-complete, which is the paper's argument for k-concealment.
But every match lies inside one strongly connected component of Algorithm 4 and the
number of perfect matchings factorizes over the components (a perfect matching uses only
matches, so it is one perfect matching per component; this consequence of Proposition 10
is ktype's, the paper does not draw it), so the
posterior of a record depends only on its own component: when components are small the
adversary computes it exactly. :func:`match_posteriors` does that for every component of
at most ``max_component`` records and reports larger ones as too large for exact
posteriors.

Algorithm (exact, integer)
--------------------------
Per component, rows = its original records, columns = its released rows grouped into box
types with multiplicities ``mb``. A dynamic program over the multisets of box types used
(mixed radix, ``Π (mb + 1) <= 2^m`` states; ``2^m`` when all boxes differ — the subset DP
equivalent of Ryser's inclusion–exclusion [2]_ but with non-negative terms, so no
cancellation) counts, forward, the ways ``f`` to assign the first ``t`` records to a given
multiset of types and, backward, the ways ``g`` to complete it; the number of assignments
sending record ``t`` to type ``b`` is ``Σ f(S) g(S + b)`` over states ``S`` of size ``t``.
Records of one type are interchangeable, and a type-level assignment stands for
``Π mb!`` perfect matchings, so ``p(i, j) = P(record i -> type of j) / mb``. Counts are
exact in int64 (they never exceed ``m! <= 20!``). Time ``O(states · K)`` per component.

References
----------
.. [1] T. Tassa, A. Mazza, A. Gionis. k-Concealment: an alternative model of k-type
   anonymity. Transactions on Data Privacy 5(1), 2012. §5.2 (adversary, permanents),
   Table 1 (Alice's posterior 2/3 and 1/3).
.. [2] H. J. Ryser. Combinatorial Mathematics. MAA, 1963 (permanent by inclusion–exclusion).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numba import prange
from scipy import sparse

from .._jit import njit
from .._validation import Interval, check_params
from ..models._graph import ConsistencyGraph, consistency_graph
from ..release import Release

__all__ = ["MatchPosteriors", "match_posteriors"]

#: largest component (records) for which exact posteriors may be requested
MAX_EXACT = 20

_FACT = np.array([math.factorial(i) for i in range(MAX_EXACT + 1)], dtype=np.int64)


@njit(parallel=True)
def _component_posteriors(comps, aptr, a_mult, bptr, b_mult, adj_off, adj, fact, out_prob, out_count):  # pragma: no cover  # noqa: C901, PLR0912
    """Exact type-to-type assignment probabilities per component (see module docstring).

    For component ``c``: original types ``aptr[c]:aptr[c+1]`` (multiplicities ``a_mult``),
    box types ``bptr[c]:bptr[c+1]`` (``b_mult``), dense type adjacency at
    ``adj[adj_off[c]:]`` (row-major ``A_c x K``). Writes ``out_prob[adj_off[c] + a*K + k]``
    = probability that a given record of local type ``a`` goes to (some row of) box type
    ``k``, and ``out_count[c]`` = number of perfect matchings of the component.
    """
    for q in prange(len(comps)):
        c = comps[q]
        a0 = aptr[c]
        na = aptr[c + 1] - a0
        b0 = bptr[c]
        K = bptr[c + 1] - b0
        off = adj_off[c]
        m = 0
        for a in range(na):
            m += a_mult[a0 + a]
        rt = np.empty(m, dtype=np.int64)
        t = 0
        for a in range(na):
            for _ in range(a_mult[a0 + a]):
                rt[t] = a
                t += 1
        radix = np.empty(K, dtype=np.int64)
        stride = np.empty(K, dtype=np.int64)
        S = 1
        for k in range(K):
            radix[k] = b_mult[b0 + k] + 1
            stride[k] = S
            S *= radix[k]
        f = np.zeros(S, dtype=np.int64)
        g = np.zeros(S, dtype=np.int64)
        d = np.empty(K, dtype=np.int64)
        f[0] = 1
        for s in range(1, S):
            rem = s
            t = 0
            for k in range(K):
                d[k] = rem % radix[k]
                rem //= radix[k]
                t += d[k]
            if t > m:
                continue
            row = off + rt[t - 1] * K
            acc = 0
            for k in range(K):
                if d[k] > 0 and adj[row + k]:
                    acc += f[s - stride[k]]
            f[s] = acc
        g[S - 1] = 1
        for s in range(S - 2, -1, -1):
            rem = s
            t = 0
            for k in range(K):
                d[k] = rem % radix[k]
                rem //= radix[k]
                t += d[k]
            if t >= m:
                continue
            row = off + rt[t] * K
            acc = 0
            for k in range(K):
                if d[k] < radix[k] - 1 and adj[row + k]:
                    acc += g[s + stride[k]]
            g[s] = acc
        total = f[S - 1]
        cnt = np.zeros(na * K, dtype=np.int64)
        for s in range(S - 1):
            rem = s
            t = 0
            for k in range(K):
                d[k] = rem % radix[k]
                rem //= radix[k]
                t += d[k]
            if t >= m or f[s] == 0:
                continue
            a = rt[t]
            row = off + a * K
            for k in range(K):
                if d[k] < radix[k] - 1 and adj[row + k]:
                    cnt[a * K + k] += f[s] * g[s + stride[k]]
        pm = total
        for k in range(K):
            pm *= fact[b_mult[b0 + k]]
        out_count[c] = pm
        for a in range(na):
            for k in range(K):
                if total > 0:
                    out_prob[off + a * K + k] = cnt[a * K + k] / (a_mult[a0 + a] * total)


@dataclass
class MatchPosteriors:
    """Result of :func:`match_posteriors`.

    Attributes
    ----------
    component_of : ndarray of int64, shape (dataset.n,)
        Match component (SCC of Algorithm 4) of each original record.
    component_sizes : ndarray of int64
        Records per component.
    exact : ndarray of bool
        Per component: posteriors computed (size ``<= max_component``).
    n_matchings : ndarray of int64
        Per component: number of perfect matchings (``-1`` when too large).
    posterior : scipy.sparse.csr_matrix, shape (dataset.n, release.n)
        ``posterior[i, j]`` = probability that released row ``j`` is record ``i``'s, under a
        uniform prior over perfect matchings; rows of records in too-large components are
        empty. Hidden rows (a release shorter than its dataset) have no column: their mass
        is in ``hidden``.
    max_posterior : ndarray of float, shape (dataset.n,)
        Largest single-row posterior of each record (``nan`` when too large). ``1.0`` means
        re-identified; k-concealment guarantees nothing better than ``1/k`` in general.
    hidden : ndarray of float, shape (dataset.n,)
        Posterior mass of the hidden (unpublished suppressed) rows.
    max_component : int
        The size limit used.
    """

    component_of: np.ndarray
    component_sizes: np.ndarray
    exact: np.ndarray
    n_matchings: np.ndarray
    posterior: sparse.csr_matrix
    max_posterior: np.ndarray
    hidden: np.ndarray
    max_component: int
    _extra: dict[str, Any] = field(default_factory=dict, repr=False)

    def n_perfect_matchings(self) -> int | None:
        """Exact number of perfect matchings of the whole graph (product over components),
        or ``None`` if some component is too large."""
        if not self.exact.all():
            return None
        out = 1
        for v in self.n_matchings.tolist():  # one factor per component (Python ints: exact)
            out *= int(v)
        return out

    def summary(self) -> dict[str, Any]:
        """JSON-able overview: component size distribution and posterior risk."""
        sizes = self.component_sizes
        big = ~self.exact
        mp = self.max_posterior[~np.isnan(self.max_posterior)]
        hist_sizes, hist_counts = np.unique(sizes, return_counts=True)
        return {
            "records": int(len(self.component_of)),
            "components": int(len(sizes)),
            "min_size": int(sizes.min()) if len(sizes) else 0,
            "median_size": float(np.median(sizes)) if len(sizes) else 0.0,
            "max_size": int(sizes.max()) if len(sizes) else 0,
            "size_distribution": {int(s): int(c) for s, c in zip(hist_sizes, hist_counts)},
            "max_component": self.max_component,
            "exact_components": int(self.exact.sum()),
            "too_large_components": int(big.sum()),
            "records_in_too_large_components": int(sizes[big].sum()),
            "note": (
                f"{int(big.sum())} component(s) larger than {self.max_component} records: too large for exact posteriors"
                if big.any() else "all posteriors exact"
            ),
            "max_posterior": float(mp.max()) if len(mp) else None,
            "mean_max_posterior": float(mp.mean()) if len(mp) else None,
            "records_posterior_at_least_half": int((mp >= 0.5).sum()),
            "records_reidentified": int((mp >= 1.0 - 1e-12).sum()),
        }


def match_posteriors(release: Release, max_component: int = 20, *, graph: ConsistencyGraph | None = None) -> MatchPosteriors:
    """Exact posteriors of the matching adversary, per small match component.

    Parameters
    ----------
    release : Release
        The release (its dataset holds the original records the adversary knows).
    max_component : int, default 20
        Largest component (in records) whose posteriors are computed exactly, at most 20
        (the dynamic program has up to ``2^m`` states).
    graph : ConsistencyGraph, optional
        A graph already built for this release.

    Returns
    -------
    MatchPosteriors

    Notes
    -----
    Tassa et al. §5.2 (the factorization over components is explained in the module
    docstring). The prior is uniform over perfect matchings (the
    paper's adversary); the result is exact, not sampled.
    """
    check_params("match_posteriors", {"max_component": max_component},
                 {"max_component": [Interval(int, 1, MAX_EXACT, closed="both")]})
    g = graph if graph is not None else consistency_graph(release)
    A, B = g.n_orig_types, g.n_box_types
    nc, lab = g.scc
    lab_a, lab_b = lab[:A], lab[A:]
    # record-level component sizes per SCC label
    size_scc = np.bincount(lab_a, weights=g.orig_mult, minlength=nc).astype(np.int64)
    exact_scc = (size_scc > 0) & (size_scc <= max_component)

    # local indexing of types inside their SCC
    order_a = np.argsort(lab_a, kind="stable")
    aptr = np.zeros(nc + 1, dtype=np.int64)
    np.cumsum(np.bincount(lab_a, minlength=nc), out=aptr[1:])
    la = np.empty(A, dtype=np.int64)
    la[order_a] = np.arange(A) - aptr[lab_a[order_a]]
    order_b = np.argsort(lab_b, kind="stable")
    bptr = np.zeros(nc + 1, dtype=np.int64)
    np.cumsum(np.bincount(lab_b, minlength=nc), out=bptr[1:])
    lb = np.empty(B, dtype=np.int64)
    lb[order_b] = np.arange(B) - bptr[lab_b[order_b]]
    na = np.diff(aptr)
    nk = np.diff(bptr)
    cells = np.where(exact_scc, na * nk, 0)
    adj_off = np.zeros(nc + 1, dtype=np.int64)
    np.cumsum(cells, out=adj_off[1:])

    # dense type adjacency of the exact components (match edges only)
    ea, eb = g.edge_orig, g.edge_box
    c_edge = lab_a[ea]
    sel = g.is_match & exact_scc[c_edge]
    adj = np.zeros(int(adj_off[-1]), dtype=np.bool_)
    cell = adj_off[c_edge[sel]] + la[ea[sel]] * nk[c_edge[sel]] + lb[eb[sel]]
    adj[cell] = True
    prob = np.zeros(len(adj), dtype=np.float64)
    count = np.full(nc, -1, dtype=np.int64)
    comps = np.flatnonzero(exact_scc).astype(np.int64)
    if len(comps):
        _component_posteriors(comps, aptr, g.orig_mult[order_a], bptr, g.box_mult[order_b], adj_off, adj,
                              _FACT, prob, count)

    # per type edge: probability of one given row of the box type
    vals = np.zeros(g.n_edges, dtype=np.float64)
    vals[sel] = prob[cell] / g.box_mult[eb[sel]]
    posterior = g.expand(vals, sel, dtype=np.float64)
    mp_type = np.full(A, np.nan)
    mp_type[exact_scc[lab_a]] = 0.0
    np.fmax.at(mp_type, ea[sel], vals[sel])
    hidden = np.zeros(g.n_original)
    if g.n_hidden:
        hs = sel & (eb == g.hidden_type)
        h_type = np.zeros(A)
        h_type[ea[hs]] = vals[hs] * g.n_hidden
        hidden = h_type[g.orig_type]

    labels, sizes = g.components()
    # map SCC ids to the record-level component numbering
    scc_of_label = np.empty(len(sizes), dtype=np.int64)
    scc_of_label[labels] = lab_a[g.orig_type]
    return MatchPosteriors(
        component_of=labels,
        component_sizes=sizes,
        exact=exact_scc[scc_of_label],
        n_matchings=count[scc_of_label],
        posterior=posterior,
        max_posterior=mp_type[g.orig_type],
        hidden=hidden,
        max_component=int(max_component),
    )
