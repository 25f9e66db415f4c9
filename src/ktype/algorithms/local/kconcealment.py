"""k-type local recoding: (k,1), (1,k), (k,k) and k-concealment (Tassa, Mazza & Gionis).

Algorithms of T. Tassa, A. Mazza, A. Gionis, "k-Concealment: An Alternative Model of
k-Type Anonymity", Transactions on Data Privacy 5 (2012) 189-222 (section numbers are the
paper's):

* :func:`optimal_k1` -- Algorithm 1, optimal (k,1)-anonymization (test oracle; O(n^k));
* :func:`k1_expansion` -- Algorithm 2, greedy (k,1) by expansion (O(k n^2 r), numba);
* :func:`randomized_k1` -- Algorithm 6, randomized (k,1) (bounded retries, fallback);
* :func:`one_k_completion` -- Algorithm 3, (1,k) completion (→ (k,k) after Alg 2/6);
* :func:`k_conceal` -- Algorithm 5, (k,k) → k-concealment, with a *correct* dynamic
  SCC update (every newly consistent record is a new source, not only the one arc that
  §6.2.2 adds) or full recomputation;
* :func:`p_sensitize` -- Algorithm 7 (match-based p-sensitivity);
* :func:`l_diversify` -- its ℓ-diversity variant, repeated to a fixed point (§8.2; one pass
  can break earlier rows).

Every function works on boxes ``(LO, HI)`` of leaf ranks, row i generalizing record i.
Ties are broken by the lowest index; randomized variants visit rows in random orders.
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from ... import _progress
from ..._grouping import unique_rows
from ..._jit import njit
from ...exceptions import InfeasibleError, InternalError, InvalidParameterError
from ._core import Problem, plus_box, plus_cost_delta, unique_boxes
from ._kernels import alg2_all, alg3_run, closures_of_sets, degrees_indexed, pair_knn_distinct, scan_index, trie_order
from ._matching import MatchGraph, _relabel, initial_order, ordered_merge

__all__ = [
    "optimal_k1",
    "k1_expansion",
    "randomized_k1",
    "one_k_completion",
    "k_conceal",
    "p_sensitize",
    "l_diversify",
]

#: Algorithm 1 refuses inputs with more candidate subsets than this
MAX_ALG1_SUBSETS = 2_000_000


def _check_k(n: int, k: int) -> None:
    if k > n:
        raise InvalidParameterError(f"k={k} exceeds the number of rows ({n}) in the table.")


# ---------------------------------------------------------------------------- Algorithm 1
def optimal_k1(problem: Problem, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Algorithm 1: an optimal (k,1)-anonymization (Prop. 8), for tests only.

    Every row independently takes the cheapest closure of itself and k-1 other records
    (by index). Cost ``O(n · C(n-1, k-1) · k r)``; refuses inputs with more than
    ``MAX_ALG1_SUBSETS`` subsets per row.

    Raises
    ------
    InvalidParameterError
        If the input is too large for exhaustive search.
    """
    n = problem.n
    _check_k(n, k)
    per_row = math.comb(n - 1, k - 1)
    if per_row * n > MAX_ALG1_SUBSETS:
        raise InvalidParameterError(
            f"optimal_k1 (Algorithm 1) is exhaustive: n={n}, k={k} needs {per_row * n:,} closures, "
            f"above the limit {MAX_ALG1_SUBSETS:,}. Use k1_expansion (Algorithm 2) instead."
        )
    LO = np.empty((n, problem.r), dtype=np.int32)
    HI = np.empty((n, problem.r), dtype=np.int32)
    for i in range(n):  # test oracle on tiny inputs only
        others = [j for j in range(n) if j != i]
        sets = np.array([(i,) + c for c in itertools.combinations(others, k - 1)], dtype=np.int64).reshape(-1, k)
        lo, hi = closures_of_sets(problem.X, sets, problem.anc, problem.nlo, problem.nhi, problem.tree)
        cost = problem.record_costs(lo, hi)
        b = int(np.argmin(cost))
        LO[i], HI[i] = lo[b], hi[b]
    return LO, HI


# ---------------------------------------------------------------------------- Algorithm 2
def k1_expansion(problem: Problem, k: int, *, return_sets: bool = False, reference: bool = False):
    """Algorithm 2: (k,1)-anonymization by greedy expansion.

    For each record ``R_i``, start from ``S_i = {i}`` and add, k-1 times, the record that
    increases ``d(S_i)`` least; ``R̄_i = closure(S_i)``. Ties go to the lowest index.
    Under LM (monotone, sub-additive) the cost is at most ``(k-1)`` times the optimum
    (Prop. 13); under EM no ratio holds (EM is not monotone). O(k n^2 r) worst case with
    per-attribute domain tables and branch-and-bound (numba).

    The greedy runs by *expansions* (:func:`~._kernels.expand_row_greedy`): records inside
    the current closure cost nothing and leave it unchanged, so the search for the
    cheapest record runs only when the closure grows, and then reads only the records
    that can beat a known candidate (per-attribute value lists). ``reference=True`` runs
    the previous implementation (a search at every one of the k-1 steps). Both give the
    same boxes under LM (proved in the kernel's docstring and tested); under EM they
    differ only if two records tie at the lower bound of the scores, which the tests
    check does not happen on random tables and Adult samples. The index sets may differ
    in which records *inside* the final closure were taken.

    Identical records get identical boxes (the kernel's docstring proves it, barring an
    exact zero-score tie that the kernel flags), so the greedy runs once per distinct
    record and the rows of a flagged record run one by one. A duplicate's index set is its
    representative's with the two indices swapped: k distinct records whose closure is the
    same box. ``reference`` runs every row.

    Returns ``(LO, HI)`` (and the (n, k) index sets ``S`` when ``return_sets``).
    """
    n = problem.n
    _check_k(n, k)
    lexorder = np.lexsort(problem.X.T[::-1]).astype(np.int64)
    lexpos = np.empty_like(lexorder)
    lexpos[lexorder] = np.arange(len(lexorder))
    args = (problem.X, int(k), *problem.args, lexorder, lexpos, *trie_order(problem.X))
    if reference:
        LO, HI, S, _ = alg2_all(*args, np.arange(n, dtype=np.int64), True)
        return (LO, HI, S) if return_sets else (LO, HI)
    _, first, inverse, _ = unique_rows(problem.X)
    rep = first[inverse].astype(np.int64)  # each row's representative (first occurrence)
    LOd, HId, Sd, tie = alg2_all(*args, first.astype(np.int64), False)
    LO, HI, S = LOd[inverse], HId[inverse], Sd[inverse]
    dup = np.flatnonzero(rep != np.arange(n))
    if len(dup):
        # σ = (rep dup): the representative's set with the two indices swapped
        Sdup, d, r = S[dup], dup[:, None], rep[dup, None]
        S[dup] = np.where(Sdup == r, d, np.where(Sdup == d, r, Sdup))
    redo = dup[tie[inverse[dup]]]
    if len(redo):  # an exact zero-score tie: these rows may differ from their representative
        LO[redo], HI[redo], S[redo], _ = alg2_all(*args, redo.astype(np.int64), False)
    return (LO, HI, S) if return_sets else (LO, HI)


# ---------------------------------------------------------------------------- Algorithm 6
def randomized_k1(
    problem: Problem, k: int, *, q: int | None = None, rng: np.random.Generator, max_trials: int = 10
) -> tuple[np.ndarray, np.ndarray, dict]:
    """Algorithm 6: randomized (k,1)-anonymization (§7).

    For each record: ``R̃_0`` is Algorithm 2's generalization; ``R̃_1`` is the closure of
    ``R_i`` and k-1 records drawn uniformly from its ``q`` nearest neighbours (by
    ``d({R_i, R_j})``, ties by index); a fair coin picks one of them.

    Fixes of the paper's step 6 (§7): the redraw "until ``R̃_1 != R̃_0``" is
    capped at ``max_trials``; rows still equal then use the documented fallback "a random
    generalization of ``R̃_0``": one attribute chosen uniformly among those that are not
    at the root is lifted to its parent node (``R̃_0`` is kept when it is all-root). Both
    candidates cover ``R_i`` and at least k-1 other records, so the output is (k,1).
    This also terminates for k = 1 and on tables with many duplicates.

    ``q`` defaults to ``2(k-1)`` (the paper's experiments) and must satisfy
    ``k-1 <= q <= n-1``. The nearest-neighbour lists cost O(n q) memory (never the n x n
    distance matrix of the paper's step 1) and are found by branch-and-bound over a trie
    of the records, once per distinct record (:func:`~._kernels.pair_knn_distinct`, the same
    lists as the O(n^2 r) scan :func:`~._kernels.pair_knn`).
    """
    n = problem.n
    _check_k(n, k)
    if q is None:
        q = 2 * (k - 1)
    elif q < k - 1:
        raise InvalidParameterError(
            f"Algorithm 6 needs q >= k-1 nearest neighbours to draw k-1 of them; got q={q}, k={k}."
        )
    q = int(min(max(q, k - 1), n - 1))
    LO0, HI0 = k1_expansion(problem, k)
    stats = {"trials": 0, "fallback_rows": 0}
    if k == 1 or q == 0:
        return LO0, HI0, stats
    idx, _ = pair_knn_distinct(problem.X, q, *problem.args, *trie_order(problem.X))
    LO1 = LO0.copy()
    HI1 = HI0.copy()
    todo = np.arange(n)
    for _t in range(max_trials):
        if len(todo) == 0:
            break
        stats["trials"] += 1
        keys = rng.random((len(todo), q))
        pick = np.argpartition(keys, k - 2, axis=1)[:, : k - 1] if k - 1 < q else np.tile(np.arange(q), (len(todo), 1))
        sets = np.concatenate([todo[:, None], np.take_along_axis(idx[todo], pick, axis=1)], axis=1)
        lo, hi = closures_of_sets(problem.X, sets, problem.anc, problem.nlo, problem.nhi, problem.tree)
        LO1[todo], HI1[todo] = lo, hi
        same = (lo == LO0[todo]).all(axis=1) & (hi == HI0[todo]).all(axis=1)
        todo = todo[same]
    if len(todo):
        stats["fallback_rows"] = int(len(todo))
        _lift_random_attribute(problem, LO1, HI1, todo, rng)
    coin = rng.integers(0, 2, size=n).astype(bool)
    LO = np.where(coin[:, None], LO1, LO0).astype(np.int32)
    HI = np.where(coin[:, None], HI1, HI0).astype(np.int32)
    return LO, HI, stats


def _lift_random_attribute(
    problem: Problem, LO: np.ndarray, HI: np.ndarray, rows: np.ndarray, rng: np.random.Generator
) -> None:
    """Fallback of Alg 6: lift one uniformly chosen non-root attribute of each row to its parent."""
    m = problem.m
    lo, hi = LO[rows], HI[rows]
    nonroot = ~((lo == 0) & (hi == (m - 1)[None, :]))
    keys = np.where(nonroot, rng.random(lo.shape), -1.0)
    col = keys.argmax(axis=1)
    has = nonroot.any(axis=1)
    for a in np.unique(col[has]):  # loop over attributes
        sel = np.flatnonzero(has & (col == a))
        lo_a, hi_a = lo[sel, a], hi[sel, a]
        if problem.tree[a]:
            # the parent node: the smallest node strictly containing the interval
            nodes_lo, nodes_hi = _parent_interval(problem, int(a), lo_a, hi_a)
        else:
            nodes_lo, nodes_hi = np.maximum(lo_a - 1, 0), np.minimum(hi_a + 1, m[a] - 1)
        lo[sel, a], hi[sel, a] = nodes_lo, nodes_hi
    LO[rows], HI[rows] = lo, hi


def _parent_interval(problem: Problem, a: int, lo: np.ndarray, hi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    anc, nlo, nhi = problem.anc[a], problem.nlo[a], problem.nhi[a]
    cand = anc[lo]  # (s, H+1) ancestors of leaf lo, deepest first
    strictly = (
        (nlo[cand] <= lo[:, None])
        & (nhi[cand] >= hi[:, None])
        & ((nlo[cand] < lo[:, None]) | (nhi[cand] > hi[:, None]))
    )
    first = np.argmax(strictly, axis=1)
    node = cand[np.arange(len(lo)), first]
    return nlo[node], nhi[node]


# ---------------------------------------------------------------------------- Algorithm 3
def one_k_completion(
    problem: Problem, LO: np.ndarray, HI: np.ndarray, k: int, *, order: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Algorithm 3: further generalize other rows until every record has degree >= k.

    For record ``R_i`` with ``ℓ < k`` consistent generalized records, the ``k - ℓ`` rows j
    not consistent with it that minimize ``c(R_i + R̄_j) - c(R̄_j)`` are replaced by
    ``R_i + R̄_j`` (ties: lowest index). Rows only grow, so an input that was (k,1) stays
    (k,1): Alg 2 → Alg 3 is a (k,k)-anonymizer. ``order`` is the visiting order
    (a random permutation in the randomized pipeline). O(k n^2 r) worst case.
    """
    n = problem.n
    _check_k(n, k)
    LO = np.ascontiguousarray(LO, dtype=np.int32).copy()
    HI = np.ascontiguousarray(HI, dtype=np.int32).copy()
    glo, ghi, _, cnt = unique_boxes(LO, HI)
    deg = degrees_indexed(*scan_index(problem.X), glo, ghi, cnt)
    order = np.arange(n, dtype=np.int64) if order is None else np.asarray(order, dtype=np.int64)
    alg3_run(problem.X, LO, HI, int(k), order, *problem.args, deg)
    return LO, HI


# ---------------------------------------------------------------------------- Algorithm 5
@njit
def _deltas_into(X, cand, lo, hi, anc, nlo, nhi, tree, m, measure, pn, ps):  # noqa: PLR0913
    """``c(R_j + R̄_i) - c(R̄_i)`` for every candidate j."""
    out = np.empty(cand.shape[0])
    for t in range(cand.shape[0]):
        out[t] = plus_cost_delta(X[cand[t]], lo, hi, anc, nlo, nhi, tree, m, measure, pn, ps)
    return out


class _Concealer:
    """State shared by Algorithms 5 and 7: boxes, the grouped match graph and SCC labels.

    With ``scc_update="incremental"`` the SCC labels come with a topological order of their
    condensation (``pos``), maintained by :func:`~._matching.ordered_merge` after every
    upgrade, so an update only searches the part of the graph between the component of the
    upgraded row and the furthest new source (a correction of §6.2.2, which adds only the arc
    from ``R_{j*}``: every newly consistent record is a new source).
    """

    def __init__(self, problem: Problem, LO: np.ndarray, HI: np.ndarray, scc_update: str) -> None:
        if scc_update not in ("incremental", "full"):
            raise InvalidParameterError(
                f"The 'scc_update' parameter must be 'incremental' or 'full'. Got {scc_update!r} instead."
            )
        self.p = problem
        self.X = problem.X
        self.LO = np.ascontiguousarray(LO, dtype=np.int32).copy()
        self.HI = np.ascontiguousarray(HI, dtype=np.int32).copy()
        self.scc_update = scc_update
        self.graph = MatchGraph(self.X, self.LO, self.HI)
        if scc_update == "incremental":
            self.comp, self.pos, self.size = initial_order(self.graph)
            self._lstamp = np.zeros(len(self.pos), dtype=np.int64)
        else:
            self.comp = self.graph.components()
        self.upgrades = 0
        self.scc_updates = 0

    def matches(self, i: int) -> np.ndarray:
        """Indices j with (R_i, R̄_j) a match (includes i)."""
        Q = self.graph.neighbours(i)
        return Q[self.comp[Q] == self.comp[i]]

    def upgrade(self, i: int, x: int) -> None:
        """``R̄_i <- R_x + R̄_i`` and update the SCC labels (every newly consistent record is a new source)."""
        olo, ohi = self.LO[i].copy(), self.HI[i].copy()
        nlo, nhi = plus_box(self.X[x], olo, ohi, self.p.anc, self.p.nlo, self.p.nhi, self.p.tree)
        if (nlo == olo).all() and (nhi == ohi).all():
            return
        self.upgrades += 1
        inside_new = self.graph.members(nlo, nhi)
        was = ((self.X[inside_new] >= olo) & (self.X[inside_new] <= ohi)).all(axis=1)
        new_src = inside_new[~was]
        self.LO[i], self.HI[i] = nlo, nhi
        self.graph.set_row(i, nlo, nhi, inside_new)
        if self.scc_update == "full":
            self.comp = self.graph.components()
            return
        if len(new_src) == 0 or (self.comp[new_src] == self.comp[i]).all():
            return  # every new arc x -> i stays inside SCC(i): no component changes
        g = self.graph
        g.stamp += 3
        changed = ordered_merge(
            i,
            new_src,
            self.comp,
            self.pos,
            self.size,
            g.out_head,
            g.arc_next,
            g.arc_g,
            g.mem_head,
            g.mem_next,
            g.ustamp,
            g.gstamp,
            self._lstamp,
            g.stamp,
        )
        self.scc_updates += int(changed >= 0)

    def canonical_comp(self) -> np.ndarray:
        return _relabel(self.comp)

    def check_order(self) -> None:
        """Assert the invariants of the incremental state (tests): labels equal the SCCs and
        every arc between different components goes forward in ``pos``."""
        full = self.graph.components()
        assert (_relabel(self.comp) == full).all(), "SCC labels differ from a full recomputation"
        A = self.graph.csr().tocoo()
        n = self.p.n
        # record-level arcs y -> j through groups: y -> g (A rows < n), g -> j (rows >= n)
        ys, gs = A.row[A.row < n], A.col[A.row < n] - n
        gsrc, js = A.row[A.row >= n] - n, A.col[A.row >= n]
        order = np.argsort(gsrc, kind="stable")
        gsrc, js = gsrc[order], js[order]
        start = np.searchsorted(gsrc, gs, side="left")
        stop = np.searchsorted(gsrc, gs, side="right")
        for y, a, b in zip(ys, start, stop, strict=True):  # test helper only
            cy = self.comp[y]
            cj = self.comp[js[a:b]]
            diff = cj != cy
            assert (self.pos[cy] < self.pos[cj[diff]]).all(), "topological order violated"
        assert (self.size[np.unique(self.comp)] == np.bincount(self.comp)[np.unique(self.comp)]).all()


def k_conceal(
    problem: Problem,
    LO: np.ndarray,
    HI: np.ndarray,
    k: int,
    *,
    order: np.ndarray | None = None,
    scc_update: str = "incremental",
    return_state: bool = False,
):
    """Algorithm 5: turn a (1,k) generalization into a k-concealment.

    For each record (in ``order``): while it has fewer than k matches, pick the
    neighbour ``j* ∈ Q \\ P`` (consistent, not a match) minimizing
    ``c(R_{j*} + R̄_i) - c(R̄_i)`` and set ``R̄_i <- R_{j*} + R̄_i``; the edges
    ``(u_i, v_{j*})`` and ``(u_{j*}, v_i)`` then form a 2-bicycle, so ``R̄_{j*}`` becomes a
    match. Matches only grow, so earlier rows stay k-concealed and (k,k) is preserved.

    ``scc_update="incremental"`` updates the SCCs with every newly consistent source (the
    single-arc update of §6.2.2 misses the others); ``scc_update="full"`` recomputes them after
    every upgrade. Both give identical outputs.

    Raises
    ------
    InfeasibleError
        If some record has fewer than k neighbours (the input is not (1,k)).
    """
    _check_k(problem.n, k)
    st = _Concealer(problem, LO, HI, scc_update)
    n = problem.n
    order = np.arange(n, dtype=np.int64) if order is None else np.asarray(order, dtype=np.int64)
    # Matches only grow (boxes only widen, SCCs only merge), so a record with k matches now
    # has them at its turn: only the others are visited (the rest would stop at once).
    g = st.graph
    short = g.match_counts(st.comp) < k
    for t in np.flatnonzero(short[order]):  # sequential by nature: each upgrade changes later rows' matches
        _progress.update("k-concealment", int(t), n, "records")
        i = int(order[t])
        Q = st.graph.neighbours(i)  # fixed while row i is processed: step 8 widens only R̄_i, which R_i already matches
        if len(Q) < k:
            raise InfeasibleError(
                f"Record {i} is consistent with only {len(Q)} generalized records (< k={k}); run Algorithm 3 first."
            )
        while True:
            inP = st.comp[Q] == st.comp[i]
            if inP.sum() >= k:
                break
            cand = Q[~inP]
            d = _deltas_into(st.X, cand, st.LO[i], st.HI[i], *problem.args)
            st.upgrade(i, int(cand[int(np.argmin(d))]))
    if return_state:
        return st.LO, st.HI, st
    return st.LO, st.HI


# ---------------------------------------------------------------------------- Algorithm 7
def _two_bracket(st: _Concealer, i: int, cand: np.ndarray) -> np.ndarray:
    p = st.p
    a = _deltas_into(st.X, cand, st.LO[i], st.HI[i], *p.args)  # c(R_j + R̄_i) - c(R̄_i)
    b = _deltas_from(st.X, i, cand, st.LO, st.HI, *p.args)  # c(R_i + R̄_j) - c(R̄_j)
    return a + b


@njit
def _deltas_from(X, i, cand, LO, HI, anc, nlo, nhi, tree, m, measure, pn, ps):  # noqa: PLR0913
    out = np.empty(cand.shape[0])
    for t in range(cand.shape[0]):
        j = cand[t]
        out[t] = plus_cost_delta(X[i], LO[j], HI[j], anc, nlo, nhi, tree, m, measure, pn, ps)
    return out


def _bicycle(st: _Concealer, i: int, j: int) -> None:
    """Make ``R̄_j`` a match of ``R_i`` with a 2-bicycle (both rows gain arcs; two updates)."""
    st.upgrade(j, i)
    st.upgrade(i, j)


def p_sensitize(
    problem: Problem,
    LO: np.ndarray,
    HI: np.ndarray,
    s: np.ndarray,
    p: int,
    *,
    order: np.ndarray | None = None,
    scc_update: str = "incremental",
) -> tuple[np.ndarray, np.ndarray]:
    """Algorithm 7: match-based p-sensitivity of a k-concealed generalization (§8.1).

    While the multiset ``S_i`` of sensitive values over the matches of ``R_i`` has fewer
    than p distinct values, the record ``j`` outside the matches with an unseen value that
    minimizes ``[c(R_i + R̄_j) - c(R̄_j)] + [c(R_j + R̄_i) - c(R̄_i)]`` is made a match
    through a 2-bicycle. Matches only grow, so one pass suffices and k-concealment is kept.

    Raises
    ------
    InfeasibleError
        If ``p`` exceeds the number of distinct sensitive values.
    """
    s = np.asarray(s, dtype=np.int64)
    nd = len(np.unique(s))
    if p > nd:
        raise InfeasibleError(
            f"p={p} exceeds the number of distinct sensitive values ({nd}); no release can be {p}-sensitive."
        )
    st = _Concealer(problem, LO, HI, scc_update)
    order = np.arange(problem.n, dtype=np.int64) if order is None else np.asarray(order, dtype=np.int64)
    for i in order:
        i = int(i)
        while True:
            M = st.matches(i)
            seen = np.unique(s[M])
            if len(seen) >= p:
                break
            out = np.ones(problem.n, dtype=bool)
            out[M] = False
            cand = np.flatnonzero(out & ~np.isin(s, seen))
            j = int(cand[int(np.argmin(_two_bracket(st, i, cand)))])
            _bicycle(st, i, j)
    return st.LO, st.HI


def l_diversify(
    problem: Problem,
    LO: np.ndarray,
    HI: np.ndarray,
    s: np.ndarray,
    l: float,  # noqa: E741
    *,
    order: np.ndarray | None = None,
    scc_update: str = "incremental",
    max_passes: int = 1000,
) -> tuple[np.ndarray, np.ndarray]:
    """ℓ-diversity variant of Algorithm 7 (§8.2), run to a fixed point.

    Row i is ℓ-diverse when ``|S_i| / f_max(S_i) >= l`` (exact rational test, ``l`` read as
    a fraction). While it is not, a record outside its matches whose sensitive value is
    *not among the modes* of ``S_i`` (ties for the mode handled) is made a match by a
    2-bicycle (same cost as Algorithm 7). Adding matches can break earlier rows (their new
    matches may carry their mode), so whole passes repeat until one changes nothing.
    Terminates because matches only grow (each step adds at least one).

    Raises
    ------
    InfeasibleError
        If the whole table has diversity ``n / f_max < l`` (then no release is ℓ-diverse).
    """
    from .._rules import all_ok, frequency_rule, pack

    s = np.asarray(s, dtype=np.int64)
    rules = pack([frequency_rule(l)])
    counts = np.bincount(s).astype(np.int64)
    n = problem.n
    if not all_ok(rules, counts, n):
        raise InfeasibleError(
            f"l={l} exceeds the diversity of the whole table (n / f_max = {n}/{counts.max()} = {n / counts.max():.4g}); "
            "no release can be l-diverse."
        )
    st = _Concealer(problem, LO, HI, scc_update)
    order = np.arange(n, dtype=np.int64) if order is None else np.asarray(order, dtype=np.int64)
    for _pass in range(max_passes):
        changed = False
        for i in order:
            i = int(i)
            while True:
                M = st.matches(i)
                h = np.bincount(s[M], minlength=len(counts)).astype(np.int64)
                if all_ok(rules, h, len(M)):
                    break
                f = h.max()
                modes = np.flatnonzero(h == f)
                out = np.ones(n, dtype=bool)
                out[M] = False
                cand = np.flatnonzero(out & ~np.isin(s, modes))
                j = int(cand[int(np.argmin(_two_bracket(st, i, cand)))])
                _bicycle(st, i, j)
                changed = True
        if not changed:
            return st.LO, st.HI
    raise InternalError(f"l_diversify did not reach a fixed point in {max_passes} passes")  # pragma: no cover
