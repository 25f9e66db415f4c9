"""Approximation algorithms of Gionis & Tassa, "k-Anonymization with Minimal Loss of
Information", IEEE TKDE 21(2), 2009.

* :func:`setcover_clusters` -- Algorithm A (§6.2-6.3): greedy weighted set cover over the
  record subsets of sizes ``[k, 2k-1]`` (Phase 1, weight ``d(S)``, *not* ``|S|·d(S)``:
  the bound of Theorems 6.5-6.6 is for the unweighted cover cost of Eq. (16); weighting by
  ``|S|`` would be a different, unanalysed algorithm), then cover → partition (Phase 2).
  ``Π <= 2(1 + ln 2k)·OPT`` for monotone measures on proper hierarchies (LM here; EM only when entropy-monotone).
  Phase 1 runs in one of two exact forms of the greedy:

  - ``"subsets"``: lazy greedy (a heap of stale ratios; ratios never decrease) over all
    ``Σ_{s=k}^{2k-1} C(n, s)`` subsets -- only for tiny inputs;
  - ``"boxes"``: a hierarchy-box greedy (ktype's, not in the paper): candidates are the boxes
    ``C ∈ Ā_1 × … × Ā_r`` holding >= k records, ratio ``d_C / min(2k-1, u_C)``; the same
    bound holds: it is the exact greedy over the pairs (box ``C``, subset of its records),
    whose cheapest cover costs what Phase 1's cheapest cover does (``d(S) <= d_C`` by
    monotonicity, and every ``S`` occurs with its closure as ``C``). Needs ``Π_j |Ā_j|`` boxes.

  Inputs too large for both raise :class:`InvalidParameterError` naming the sizes.
* Algorithm B (§6.4, ``Π <= max(2k-1, 3k-3)·OPT``) is
  :func:`ktype.algorithms.local.clustering.forest_clusters`.
"""

from __future__ import annotations

import heapq
import itertools
import math

import numpy as np

from ..._jit import njit
from ...exceptions import InvalidParameterError
from ._core import Problem, consistent_pair
from ._kernels import closures_of_sets

__all__ = ["setcover_clusters", "phase2_partition", "MAX_SUBSETS", "MAX_BOXES"]

MAX_SUBSETS = 300_000
MAX_BOXES = 200_000


def _n_subsets(n: int, k: int) -> int:
    return sum(math.comb(n, s) for s in range(k, min(2 * k - 1, n) + 1))


def _allowed_values(problem: Problem, a: int) -> tuple[np.ndarray, np.ndarray]:
    m = int(problem.m[a])
    if problem.tree[a]:
        nl, nh = problem.nlo[a], problem.nhi[a]
        # the packed node arrays are padded; keep the real nodes (unique intervals)
        pairs = np.unique(np.stack([nl, nh], axis=1), axis=0)
        pairs = pairs[(pairs[:, 0] <= pairs[:, 1]) & (pairs[:, 1] < m)]
        return pairs[:, 0].astype(np.int32), pairs[:, 1].astype(np.int32)
    lo, hi = np.triu_indices(m)
    return lo.astype(np.int32), hi.astype(np.int32)


def setcover_clusters(problem: Problem, k: int, *, method: str = "auto") -> np.ndarray:
    """Cluster labels of Gionis & Tassa's Algorithm A (every cluster in ``[k, 2k-1]``).

    Raises
    ------
    InvalidParameterError
        When neither form of Phase 1 fits the limits (``MAX_SUBSETS`` subsets or
        ``MAX_BOXES`` boxes); the message gives the counts and suggests ``gt_forest``.
    """
    n = problem.n
    if k > n:
        raise InvalidParameterError(f"k={k} exceeds the number of rows ({n}) in the table.")
    if k == 1:
        return np.arange(n, dtype=np.int64)
    n_sub = _n_subsets(n, k)
    n_box = 1
    for a in range(problem.r):
        n_box *= len(_allowed_values(problem, a)[0])
        if n_box > 10**12:
            break
    if method == "auto":
        method = "subsets" if n_sub <= MAX_SUBSETS else "boxes"
    if method == "subsets" and n_sub > MAX_SUBSETS:
        raise InvalidParameterError(
            f"gt_setcover: {n_sub:,} candidate subsets for n={n}, k={k} exceed the limit {MAX_SUBSETS:,}; "
            "use method='boxes' or the O(k) algorithm gt_forest."
        )
    if method == "boxes" and n_box > MAX_BOXES:
        raise InvalidParameterError(
            f"gt_setcover cannot run in reasonable time: {n_sub:,} subsets (limit {MAX_SUBSETS:,}) and "
            f"{n_box:,} hierarchy boxes (limit {MAX_BOXES:,}) for n={n}, k={k}, r={problem.r}. "
            "Use the polynomial O(k)-approximation gt_forest instead."
        )
    cover = _phase1_subsets(problem, k) if method == "subsets" else _phase1_boxes(problem, k)
    parts = phase2_partition(cover, k)
    labels = np.empty(n, dtype=np.int64)
    for c, S in enumerate(parts):  # loop over clusters
        labels[list(S)] = c
    return labels


def _phase1_subsets(problem: Problem, k: int) -> list[set[int]]:
    n = problem.n
    kmax = min(2 * k - 1, n)
    subs = []
    for s in range(k, kmax + 1):
        for c in itertools.combinations(range(n), s):
            subs.append(c + (-1,) * (kmax - s))
    S = np.array(subs, dtype=np.int64)
    lo, hi = closures_of_sets(problem.X, S, problem.anc, problem.nlo, problem.nhi, problem.tree)
    d = problem.record_costs(lo, hi)
    sets = [frozenset(int(x) for x in row if x >= 0) for row in S]
    return _lazy_greedy(n, sets, d)


def _lazy_greedy(n: int, sets: list[frozenset[int]], d: np.ndarray) -> list[set[int]]:
    """Greedy weighted set cover with lazy ratio updates (ratios only grow); ties by index."""
    covered = np.zeros(n, dtype=bool)
    heap = [(float(d[t]) / len(sets[t]), t) for t in range(len(sets))]
    heapq.heapify(heap)
    out: list[set[int]] = []
    left = n
    while left:
        ratio, t = heapq.heappop(heap)
        u = sum(1 for x in sets[t] if not covered[x])
        if u == 0:
            continue
        fresh = float(d[t]) / u
        if fresh > ratio + 1e-15 * max(1.0, abs(fresh)):
            heapq.heappush(heap, (fresh, t))
            continue
        out.append(set(sets[t]))
        for x in sets[t]:
            if not covered[x]:
                covered[x] = True
                left -= 1
    return out


@njit
def _uncovered_in(X, blo, bhi, covered, alive):
    """Per alive box, the number of records inside it that are not ``covered``."""
    n = X.shape[0]
    B = blo.shape[0]
    u = np.zeros(B, dtype=np.int64)
    for b in range(B):
        if not alive[b]:
            continue
        c = 0
        for y in range(n):
            if not covered[y] and consistent_pair(X, y, blo, bhi, b):
                c += 1
        u[b] = c
    return u


def _phase1_boxes(problem: Problem, k: int) -> list[set[int]]:
    X = problem.X
    n, r = X.shape
    vals = [_allowed_values(problem, a) for a in range(r)]
    grids = np.array(list(itertools.product(*[range(len(v[0])) for v in vals])), dtype=np.int64).reshape(-1, r)
    blo = np.stack([vals[a][0][grids[:, a]] for a in range(r)], axis=1).astype(np.int32)
    bhi = np.stack([vals[a][1][grids[:, a]] for a in range(r)], axis=1).astype(np.int32)
    cnt = _uncovered_in(X, blo, bhi, np.zeros(n, dtype=np.bool_), np.ones(len(blo), dtype=np.bool_))
    keep = cnt >= k
    blo, bhi = np.ascontiguousarray(blo[keep]), np.ascontiguousarray(bhi[keep])
    dC = problem.record_costs(blo, bhi)
    covered = np.zeros(n, dtype=np.bool_)
    alive = np.ones(len(blo), dtype=np.bool_)
    out: list[set[int]] = []
    while not covered.all():
        u = _uncovered_in(X, blo, bhi, covered, alive)
        alive &= u > 0
        ratio = np.where(alive, dC / np.maximum(np.minimum(u, 2 * k - 1), 1), np.inf)
        b = int(np.argmin(ratio))
        inside = np.flatnonzero(((X >= blo[b]) & (X <= bhi[b])).all(axis=1))
        unc = inside[~covered[inside]][: 2 * k - 1]
        S = list(unc.tolist())
        if len(S) < k:
            cov = inside[covered[inside]]
            S += cov[: k - len(S)].tolist()
        covered[unc] = True
        out.append(set(S))
    return out


def phase2_partition(cover: list[set[int]], k: int) -> list[set[int]]:
    """Phase 2 of Algorithm A: turn a cover by sets of sizes ``[k, 2k-1]`` into a
    partition with the same size bounds, never increasing ``d`` (Lemma 6.3 and (11)).

    While two sets share a record R: drop R from one of them if it has more than k
    records, else (both of size k) merge them (size <= 2k-1).
    """
    sets = [set(S) for S in cover]
    alive = [True] * len(sets)
    owner: dict[int, list[int]] = {}
    for t, S in enumerate(sets):  # loop over sets
        for x in S:
            owner.setdefault(x, []).append(t)
    stack = [x for x, ts in owner.items() if len(ts) > 1]
    while stack:
        x = stack.pop()
        ts = [t for t in owner[x] if alive[t] and x in sets[t]]
        owner[x] = ts
        if len(ts) < 2:
            continue
        j, l2 = ts[0], ts[1]
        if len(sets[j]) > k:
            sets[j].discard(x)
        elif len(sets[l2]) > k:
            sets[l2].discard(x)
        else:
            for y in sets[l2]:
                if y not in sets[j]:
                    sets[j].add(y)
                    owner[y].append(j)
                    stack.append(y)
            alive[l2] = False
            sets[l2] = set()
        stack.append(x)
    return [S for t, S in enumerate(sets) if alive[t] and S]
