"""numba kernels of the k-type local-recoding algorithms (no Python loops over rows).

Length: the compiled kernels of every local-recoding algorithm (Tassa, Mazza & Gionis, Algorithms
2-7; the clustering pipelines) share small ``@njit`` helpers (interval costs, closures, expansions)
that numba compiles into their callers; one module keeps one home for compiled local-recoding code.
"""

from __future__ import annotations

import numpy as np
from numba import prange

from ..._grouping import unique_rows
from ..._jit import njit
from ._core import _close, _fcost, consistent_pair, plus_box, plus_table


@njit
def _score(X, j, tab, aorder, mins, best):
    """Partial sum of tab over attributes in ``aorder`` with branch-and-bound: returns the
    full sum, or +inf as soon as the partial sum plus the remaining minimum exceeds best."""
    s = 0.0
    r = aorder.shape[0]
    for t in range(r):
        a = aorder[t]
        s += tab[a, X[j, a]]
        if s + mins[t + 1] > best:
            return np.inf
    return s


@njit
def expand_row(
    X,
    XT,
    i,
    k,
    anc,
    nlo,
    nhi,
    tree,
    m,
    measure,
    pn,
    ps,
    mark,
    picked,
    lexorder,
    lexpos,
    window,
    cand,
    part,
    acc,
    seed,
    sperm,
):
    """Algorithm 2 for one row: grow ``S_i = {i}`` greedily to k indices.

    ``dist(S, R_j) = d(S ∪ {R_j}) - d(S)`` is evaluated for every j not in S through a
    per-attribute table over the domain (the closure changes only along ancestor chains).
    Exact speed-ups: the best candidate is first seeded from the records that improved the
    best during the previous full pass and from the ``window`` neighbours of i in
    lexicographic order; if one of them attains the lower bound ``Σ_a min_v tab[a, v]``
    of every candidate (for LM: a record inside the current closure), it is an argmin and
    is taken at once (ties inside the window: lowest index). Under LM, the records inside
    the current box are exactly the zero-delta ones; when the box's narrowest attribute
    interval holds at most n/2 records, those records are scanned (``sperm``: per attribute,
    the records sorted by value) and the lowest-index one inside the box is taken -- the
    same record the full pass would choose. Otherwise a full pass runs:
    partial sums over the two costliest attributes for all records (contiguous columns),
    then the survivors finish with branch-and-bound; ties go to the lowest index. ``mark`` is scratch (left all False); ``picked``
    receives the k chosen indices (``picked[0] = i``). Returns the closure box.
    """
    n, r = X.shape
    lo = X[i].copy()
    hi = X[i].copy()
    mark[i] = True
    picked[0] = i
    exp_cost = np.empty(r)
    nseed = 0
    for step in range(1, k):
        tab = plus_table(lo, hi, anc, nlo, nhi, tree, m, measure, pn, ps)
        for a in range(r):
            e = 0.0
            for v in range(m[a]):
                e += tab[a, v] * (pn[a, v + 1] - pn[a, v])
            exp_cost[a] = -e
        aorder = np.argsort(exp_cost)
        mins = np.zeros(r + 1)
        for t in range(r - 1, -1, -1):
            a = aorder[t]
            mn = 0.0
            for v in range(m[a]):
                if tab[a, v] < mn:
                    mn = tab[a, v]
            mins[t] = mins[t + 1] + mn
        floor = mins[0]
        best = np.inf
        bj = n
        # seed from the best records of the previous full pass (still close to the box)
        for t in range(min(nseed, seed.shape[0])):
            j = seed[t]
            if mark[j]:
                continue
            sj = _score(X, j, tab, aorder, mins, best)
            if sj < best or (sj == best and j < bj):
                best = sj
                bj = j
        # and from lexicographic neighbours
        p0 = lexpos[i]
        for d in range(-window, window + 1):
            q = p0 + d
            if q < 0 or q >= n:
                continue
            j = lexorder[q]
            if mark[j]:
                continue
            s = _score(X, j, tab, aorder, mins, best)
            if s < best or (s == best and j < bj):
                best = s
                bj = j
        if best <= floor:
            # a window record already reaches the lower bound of every candidate, so it is
            # an exact argmin: take it (ties inside the window -> lowest index) and skip the
            # full pass
            mark[bj] = True
            picked[step] = bj
            lo, hi = plus_box(X[bj], lo, hi, anc, nlo, nhi, tree)
            continue
        if measure == 0:
            # LM: the records inside the box are exactly those with delta 0 = floor, so the
            # lowest-index unpicked one among them is the argmin the full pass would return.
            # Find it by scanning the records whose value on the attribute with the
            # narrowest box interval (fewest records) lies in that interval.
            ax = 0
            few = n + 1.0
            for a in range(r):
                w = pn[a, hi[a] + 1] - pn[a, lo[a]]
                if w < few:
                    few = w
                    ax = a
            if few <= n // 2:
                inside = n
                base = int(pn[ax, lo[ax]])
                for t in range(base, base + int(few)):
                    y = sperm[ax, t]
                    if mark[y] or y >= inside:
                        continue
                    ok = True
                    for a in range(r):
                        v = X[y, a]
                        if v < lo[a] or v > hi[a]:
                            ok = False
                            break
                    if ok:
                        inside = y
                if inside < n:
                    mark[inside] = True
                    picked[step] = inside
                    lo, hi = plus_box(X[inside], lo, hi, anc, nlo, nhi, tree)
                    continue
        # stage 1 (branch-free, contiguous columns): partial sums over the T costliest
        # attributes for every record, then keep the survivors of the bound
        T = min(r, 2)
        for j in range(n):
            acc[j] = 0.0
        for u in range(T):
            a = aorder[u]
            col = XT[a]
            for j in range(n):
                acc[j] += tab[a, col[j]]
        c = 0
        bound = best - mins[T]
        for j in range(n):
            cand[c] = j
            part[c] = acc[j]
            c += 1 if acc[j] <= bound else 0
        # stage 2: the remaining attributes on the survivors, in index order
        for t in range(c):
            j = cand[t]
            s = part[t]
            ok = True
            for u in range(T, r):
                a = aorder[u]
                s += tab[a, X[j, a]]
                if s + mins[u + 1] > best:
                    ok = False
                    break
            if mark[j]:
                continue
            if ok and (s < best or (s == best and j < bj)):
                best = s
                bj = j
                seed[nseed % seed.shape[0]] = j
                nseed += 1
            if best <= floor and bj <= j:
                break
        mark[bj] = True
        picked[step] = bj
        lo, hi = plus_box(X[bj], lo, hi, anc, nlo, nhi, tree)
    for t in range(k):
        mark[picked[t]] = False
    return lo, hi


#: the bound of each search in :func:`expand_row_greedy` comes from a pool of the last
#: POOL_SIZE records next (within POOL_WINDOW positions in the trie order) to a picked one
POOL_WINDOW = 3
POOL_SIZE = 24

#: slack of the pruning bounds of :func:`_trie_search` (float rounding of the sums)
PRUNE_MARGIN = 1e-9


def trie_order(X: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The records as a trie for :func:`_trie_search`: ``(attrs, perm, nxt)``.

    ``attrs`` orders the attributes by number of distinct values (fewest first, so the
    top of the trie is narrow); ``perm`` sorts the records lexicographically by them
    (ties by index); ``nxt[t, p]`` is the first position after p whose record differs
    from ``perm[p]`` on one of ``attrs[: t + 1]`` (the end of p's node at depth t + 1).
    """
    n, r = X.shape
    card = np.array([len(np.unique(X[:, a])) for a in range(r)], dtype=np.int64)
    attrs = np.argsort(card, kind="stable").astype(np.int64)
    perm = np.lexsort([np.arange(n)] + [X[:, a] for a in attrs[::-1]]).astype(np.int64)
    Xs = X[perm][:, attrs]
    nxt = np.empty((r, n), dtype=np.int64)
    change = np.zeros(n, dtype=bool)  # change[p]: record p+1 differs from p on attrs[:t+1]
    if n:
        change[-1] = True
    for t in range(r):  # loop over attributes
        change[:-1] |= Xs[1:, t] != Xs[:-1, t]
        ends = np.flatnonzero(change) + 1  # run ends
        nxt[t] = ends[np.searchsorted(ends, np.arange(n), side="right")]
    return attrs, perm, nxt


@njit
def _tab_row(a, lo, hi, tab, amin, expc, anc, nlo, nhi, tree, m, measure, pn, ps):
    """Row a of :func:`~._core.plus_table` for the box (lo, hi), with its minimum (at most
    0) and the negated expected cost ``-Σ_v tab[a, v] N(v)`` used to order the attributes."""
    base = _fcost(a, lo[a], hi[a], m, measure, pn, ps)
    mn = 0.0
    e = 0.0
    for v in range(m[a]):
        if lo[a] <= v and v <= hi[a]:
            t = 0.0
        else:
            l2, h2 = _close(a, min(lo[a], v), max(hi[a], v), anc, nlo, nhi, tree)
            t = _fcost(a, l2, h2, m, measure, pn, ps) - base
        tab[a, v] = t
        if t < mn:
            mn = t
        e += t * (pn[a, v + 1] - pn[a, v])
    amin[a] = mn
    expc[a] = -e


@njit
def _inside(X, y, lo, hi):
    for a in range(X.shape[1]):
        v = X[y, a]
        if v < lo[a] or v > hi[a]:
            return False
    return True


@njit
def _sum_score(X, y, tab, aorder):
    """``Σ_a tab[a, x_a]`` summed in ``aorder`` (the float operations of :func:`_score`)."""
    s = 0.0
    for t in range(aorder.shape[0]):
        a = aorder[t]
        s += tab[a, X[y, a]]
    return s


@njit
def _push_children(X, perm, nxt, tab, a, t, p, e, part, bound, stack_t, stack_s, stack_p, sp):
    """Push the children of the trie node ``[p, e)`` at depth t (runs of equal value of
    attribute a) whose partial sum ``part + tab[a, v]`` is at most ``bound``, ordered so
    that the cheapest is popped first (ties: the smaller value); returns the new stack size.

    Cheapest first finds good candidates early, so the bound tightens sooner and more of
    the trie is cut (the searches' results do not depend on the order: every node whose
    partial sum can reach the bound is still visited).
    """
    first = sp
    q = p
    while q < e:
        cp = part + tab[a, X[perm[q], a]]
        if cp <= bound:
            # insertion into stack[first:sp], kept by partial sum descending (the top is
            # the cheapest); equal sums keep the larger value below
            z = sp
            while z > first and stack_p[z - 1] <= cp:
                stack_t[z] = stack_t[z - 1]
                stack_s[z] = stack_s[z - 1]
                stack_p[z] = stack_p[z - 1]
                z -= 1
            stack_t[z] = t + 1
            stack_s[z] = q
            stack_p[z] = cp
            sp += 1
        q = nxt[t, q]
    return sp


@njit
def _trie_search(X, tab, amin, aorder, lo, hi, mark, attrs, perm, nxt, best, outside, ins, stack_t, stack_s, stack_p):
    """Branch-and-bound over the record trie for the box (lo, hi).

    Returns ``(best, bj, nin)``: the least ``(score, index)`` over unmarked records outside
    the box whose score is ``<= best`` on entry (``bj = n`` if none; with
    ``outside=False`` outside records are not scored), and writes the unmarked records
    inside the box (score 0) to ``ins[:nin]`` in ascending index order. A trie node is
    cut when its partial sum plus the minima of the attributes below it exceeds
    ``max(best, 0)`` (+ a 1e-9 margin): no record below can then beat ``best`` or score 0.
    Scores of surviving records are recomputed in ``aorder`` so ties compare exactly as
    in :func:`expand_row`.
    """
    n, r = X.shape
    rest = np.zeros(r + 1)
    for t in range(r - 1, -1, -1):
        rest[t] = rest[t + 1] + amin[attrs[t]]
    bj = n
    nin = 0
    stack_t[0] = 0
    stack_s[0] = 0
    stack_p[0] = 0.0
    sp = 1
    while sp > 0:
        sp -= 1
        t = stack_t[sp]
        p = stack_s[sp]
        part = stack_p[sp]
        bound = max(best, 0.0)
        bound += PRUNE_MARGIN * (1.0 + abs(bound))
        if t == r:
            # a leaf: identical records perm[p : nxt[r-1, p]], ascending index
            e = nxt[r - 1, p]
            y0 = perm[p]
            if _inside(X, y0, lo, hi):
                for q in range(p, e):
                    y = perm[q]
                    if not mark[y]:
                        ins[nin] = y
                        nin += 1
            elif outside:
                for q in range(p, e):
                    y = perm[q]
                    if mark[y]:
                        continue
                    s = _sum_score(X, y, tab, aorder)
                    if s < best or (s == best and y < bj):
                        best = s
                        bj = y
                    break  # the others are the same record with a larger index
            continue
        e = nxt[t - 1, p] if t > 0 else n
        sp = _push_children(
            X, perm, nxt, tab, attrs[t], t, p, e, part, bound - rest[t + 1], stack_t, stack_s, stack_p, sp
        )
    ins[:nin].sort()
    return best, bj, nin


@njit
def expand_row_greedy(
    X,
    i,
    k,
    anc,
    nlo,
    nhi,
    tree,
    m,
    measure,
    pn,
    ps,
    mark,
    picked,
    tpos,
    attrs,
    perm,
    nxt,
    window,
    ins,
    pool,
    stack_t,
    stack_s,
    stack_p,
):
    """Algorithm 2 for one row by expansions: the same boxes as :func:`expand_row`.

    Every step of Algorithm 2 adds the unpicked record of least ``(score, index)``, the
    score being ``d(S ∪ {R_j}) - d(S) = Σ_a tab[a, x_ja]`` (per-attribute domain tables of
    the current box, summed in the attribute order of :func:`expand_row`, so the floats are
    the same). A record inside the box scores exactly 0 and leaves the box unchanged. So
    the box only changes at an *expansion*, and between two expansions the steps just take
    the records inside the box in index order, with no search:

    * at box B, find the records inside B and the least-scoring record outside B (with
      its index) by a branch-and-bound search of the record trie (:func:`_trie_search`),
      started from the best score among a pool of candidates (the records next to ``R_i``
      and to every record added so far in the trie order);
    * take the inside records (lowest index first) while they are ahead of the outside
      one in ``(score, index)`` order -- under LM always, as every outside score is > 0;
      under EM an outside record can score below 0 and go first;
    * if picks remain, take the outside record: the box grows, and only the table rows of
      the attributes whose interval changed are recomputed.

    This is the exact greedy with ties to the lowest index. :func:`expand_row` (the
    previous implementation, kept as the reference) differs only in *which* zero-score
    record it takes when several exist (it prefers its seeds and window); under LM those
    are all inside the box, so the boxes are identical (tested); under EM they can differ
    only when an outside record scores exactly the floor ``Σ_a min_v tab[a, v]`` as well.
    ``picked`` receives the k indices (``picked[0] = i``); ``mark`` is left all False.

    Returns ``(lo, hi, tie)``. ``tie`` says an outside record scored exactly 0 while inside
    records were left: then how many inside records precede it depends on the indices, so a
    record identical to ``R_i`` may get another box. Without such a tie the boxes depend
    only on ``R_i``'s values: the outside search never sees ``i`` or its duplicates (they
    are inside every box), and the number of inside records taken before each expansion
    is the same for all of them.
    """
    n, r = X.shape
    M = anc.shape[1]
    tie = False
    lo = X[i].copy()
    hi = X[i].copy()
    tab = np.zeros((r, M))
    amin = np.zeros(r)
    expc = np.zeros(r)
    for a in range(r):
        _tab_row(a, lo, hi, tab, amin, expc, anc, nlo, nhi, tree, m, measure, pn, ps)
    mark[i] = True
    picked[0] = i
    npk = 1
    cap = pool.shape[0]
    npool = 0
    p0 = tpos[i]
    for d in range(-window, window + 1):
        q = p0 + d
        if d != 0 and q >= 0 and q < n:
            pool[npool % cap] = perm[q]
            npool += 1
    while npk < k:
        aorder = np.argsort(expc)
        # ---- bound: the best outside record of the pool
        tau = np.inf
        for t in range(min(npool, cap)):
            y = pool[t]
            if mark[y] or _inside(X, y, lo, hi):
                continue
            s = _sum_score(X, y, tab, aorder)
            if s < tau:
                tau = s
        best, bj, nin = _trie_search(
            X, tab, amin, aorder, lo, hi, mark, attrs, perm, nxt, tau, True, ins, stack_t, stack_s, stack_p
        )
        # ---- inside records while they precede the outside record in (score, index)
        if bj < n and best == 0.0 and nin > 0:
            tie = True
        t = 0
        while npk < k and t < nin:
            y = ins[t]
            if bj < n and (best < 0.0 or (best == 0.0 and bj < y)):
                break
            mark[y] = True
            picked[npk] = y
            npk += 1
            t += 1
        if npk >= k:
            break
        # ---- expansion by the outside record
        mark[bj] = True
        picked[npk] = bj
        npk += 1
        p0 = tpos[bj]
        for d in range(-window, window + 1):
            q = p0 + d
            if q >= 0 and q < n:
                pool[npool % cap] = perm[q]
                npool += 1
        for a in range(r):
            v = X[bj, a]
            if v < lo[a] or v > hi[a]:
                l2, h2 = _close(a, min(lo[a], v), max(hi[a], v), anc, nlo, nhi, tree)
                lo[a] = l2
                hi[a] = h2
                _tab_row(a, lo, hi, tab, amin, expc, anc, nlo, nhi, tree, m, measure, pn, ps)
    for t in range(k):
        mark[picked[t]] = False
    return lo, hi, tie


@njit(parallel=True)
def alg2_all(X, k, anc, nlo, nhi, tree, m, measure, pn, ps, lexorder, lexpos, attrs, perm, nxt, rows, reference=False):
    """Algorithm 2 for the given rows: (len(rows), r) boxes, the (len(rows), k) chosen index
    sets and a flag per row.

    Rows are independent, so they run in parallel chunks (numba ``prange``), each chunk
    with its own scratch arrays; the output does not depend on the number of threads.
    Each row runs :func:`expand_row_greedy`, or with ``reference`` the previous
    implementation :func:`expand_row` (same boxes; kept for the equivalence tests).
    ``tie[t]`` is True when the greedy of ``rows[t]`` met an outside record scoring exactly
    0 while records inside the box were left: only then can two identical records get
    different boxes (see :func:`expand_row_greedy`); always False with ``reference``.
    """
    n, r = X.shape
    nr = rows.shape[0]
    LO = np.empty((nr, r), dtype=np.int32)
    HI = np.empty((nr, r), dtype=np.int32)
    S = np.empty((nr, k), dtype=np.int64)
    tie = np.zeros(nr, dtype=np.bool_)
    window = 2 * k + 2
    XT = np.ascontiguousarray(X.T)
    # per attribute, the records sorted by value (stable): the records with values in
    # [lo, hi] are sperm[a, pn[a, lo] : pn[a, hi + 1]] (pn = prefix counts)
    sperm = np.empty((r, n), dtype=np.int64)
    for a in range(r):
        sperm[a] = np.argsort(XT[a], kind="mergesort")
    M = anc.shape[1]
    tpos = np.empty(n, dtype=np.int64)
    for t in range(n):
        tpos[perm[t]] = t
    nchunks = min(nr, 64)
    for c in prange(nchunks):
        mark = np.zeros(n, dtype=np.bool_)
        picked = np.empty(k, dtype=np.int64)
        cand = np.empty(n, dtype=np.int64)
        part = np.empty(n)
        acc = np.empty(n)
        seed = np.empty(2 * k + 2, dtype=np.int64)
        pool = np.empty(POOL_SIZE, dtype=np.int64)
        ins = np.empty(n, dtype=np.int64)
        stack_t = np.empty(r * (M + 1) + 1, dtype=np.int64)
        stack_s = np.empty(r * (M + 1) + 1, dtype=np.int64)
        stack_p = np.empty(r * (M + 1) + 1)
        for t in range(c * nr // nchunks, (c + 1) * nr // nchunks):
            i = rows[t]
            if reference:
                lo, hi = expand_row(
                    X,
                    XT,
                    i,
                    k,
                    anc,
                    nlo,
                    nhi,
                    tree,
                    m,
                    measure,
                    pn,
                    ps,
                    mark,
                    picked,
                    lexorder,
                    lexpos,
                    window,
                    cand,
                    part,
                    acc,
                    seed,
                    sperm,
                )
            else:
                lo, hi, tie[t] = expand_row_greedy(
                    X,
                    i,
                    k,
                    anc,
                    nlo,
                    nhi,
                    tree,
                    m,
                    measure,
                    pn,
                    ps,
                    mark,
                    picked,
                    tpos,
                    attrs,
                    perm,
                    nxt,
                    POOL_WINDOW,
                    ins,
                    pool,
                    stack_t,
                    stack_s,
                    stack_p,
                )
            LO[t] = lo
            HI[t] = hi
            S[t] = picked
    return LO, HI, S, tie


@njit
def alg3_run(X, LO, HI, k, order, anc, nlo, nhi, tree, m, measure, pn, ps, deg):
    """Algorithm 3 ((1,k) completion) in place on LO/HI, visiting rows in ``order``.

    ``deg[i]`` (number of generalized records consistent with R_i) must be exact on entry
    and is maintained: when R̄_j grows, every record newly inside it gains one.
    Returns the number of generalized cells changed.
    """
    n, r = X.shape
    changes = 0
    for t in range(n):
        i = order[t]
        if deg[i] >= k:
            continue
        need = k - deg[i]
        # candidates: rows j whose R̄_j is not consistent with R_i; keep the ``need``
        # smallest deltas in a sorted buffer (ties -> lowest index)
        bw = np.full(need, np.inf)
        bj = np.full(need, n, dtype=np.int64)
        for j in range(n):
            if consistent_pair(X, i, LO, HI, j):
                continue
            # c(R_i + R̄_j) - c(R̄_j), with early exit for LM (every term >= 0)
            worst = bw[need - 1]
            sd = 0.0
            pruned = False
            for a in range(r):
                v = X[i, a]
                if LO[j, a] <= v and v <= HI[j, a]:
                    continue
                l2, h2 = _close(a, min(LO[j, a], v), max(HI[j, a], v), anc, nlo, nhi, tree)
                sd += _fcost(a, l2, h2, m, measure, pn, ps) - _fcost(a, LO[j, a], HI[j, a], m, measure, pn, ps)
                if measure == 0 and sd / r >= worst:
                    pruned = True
                    break
            if pruned:
                continue
            dj = sd / r
            if dj >= worst:
                continue
            p = need - 1
            while p > 0 and bw[p - 1] > dj:
                bw[p] = bw[p - 1]
                bj[p] = bj[p - 1]
                p -= 1
            bw[p] = dj
            bj[p] = j
        sel = bj[bj < n]
        for j in sel:
            olo = LO[j].copy()
            ohi = HI[j].copy()
            nl, nh = plus_box(X[i], olo, ohi, anc, nlo, nhi, tree)
            LO[j] = nl
            HI[j] = nh
            changes += 1
            for y in range(n):
                inn = True
                ino = True
                for a in range(r):
                    v = X[y, a]
                    if v < nl[a] or v > nh[a]:
                        inn = False
                        break
                    if v < olo[a] or v > ohi[a]:
                        ino = False
                if inn and not ino:
                    deg[y] += 1
    return changes


def scan_index(X: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The index of box-membership scans: ``(U, perm, vals, dptr, didx)``.

    ``U`` holds the distinct records (equal records are inside the same boxes, so a scan
    checks each distinct record once); ``perm[a]`` sorts them by attribute a (stable) and
    ``vals[a] = U[perm[a], a]``; the records equal to ``U[d]`` are
    ``didx[dptr[d]:dptr[d + 1]]`` (ascending). A scan (:func:`_scan_box`) picks, per box, the
    attribute whose interval holds the fewest distinct records (two binary searches per
    attribute) and checks only those, instead of all n records or one attribute fixed for
    every box.
    """
    n, r = X.shape
    if n == 0:
        U, inv = X[:0], np.zeros(0, dtype=np.int64)
    else:
        U, _, inv, _ = unique_rows(X)
    inv = inv.reshape(-1)
    didx = np.argsort(inv, kind="stable").astype(np.int64)
    dptr = np.zeros(len(U) + 1, dtype=np.int64)
    dptr[1:] = np.cumsum(np.bincount(inv, minlength=len(U)))
    U = np.ascontiguousarray(U)
    perm = np.empty((r, len(U)), dtype=np.int64)
    vals = np.empty((r, len(U)), dtype=X.dtype)
    for a in range(r):  # loop over attributes
        perm[a] = np.argsort(U[:, a], kind="stable")
        vals[a] = U[perm[a], a]
    return U, perm, vals, dptr, didx


@njit
def _scan_range(vals, lo, hi):
    """``(axis, s, e)``: the attribute whose interval ``[lo[a], hi[a]]`` holds the fewest
    records and their positions ``s:e`` in its sorted order (ties: the lowest attribute)."""
    best_a, best_s, best_e = 0, 0, vals.shape[1]
    for a in range(vals.shape[0]):
        s = np.searchsorted(vals[a], lo[a], side="left")
        e = np.searchsorted(vals[a], hi[a], side="right")
        if e - s < best_e - best_s:
            best_a, best_s, best_e = a, s, e
    return best_a, best_s, best_e


@njit
def _scan_box(U, perm, vals, lo, hi, out):
    """Write into ``out`` the distinct records (indices into ``U``) inside the box, scanning
    only those in the box's narrowest attribute range (:func:`_scan_range`); returns how
    many (in that attribute's sorted order, not ascending)."""
    r = U.shape[1]
    axis, s, e = _scan_range(vals, lo, hi)
    p = perm[axis]
    c = 0
    for t in range(s, e):
        y = p[t]
        ok = True
        for a in range(r):
            v = U[y, a]
            if v < lo[a] or v > hi[a]:
                ok = False
                break
        if ok:
            out[c] = y
            c += 1
    return c


@njit
def _expand(dist, c, dptr, didx, out):
    """Write the records equal to the distinct records ``dist[:c]`` into ``out``; returns how many."""
    z = 0
    for t in range(c):
        d = dist[t]
        for u in range(dptr[d], dptr[d + 1]):
            out[z] = didx[u]
            z += 1
    return z


@njit
def _expanded_size(dist, c, dptr):
    z = 0
    for t in range(c):
        z += dptr[dist[t] + 1] - dptr[dist[t]]
    return z


@njit
def box_members_indexed(U, perm, vals, dptr, didx, lo, hi):
    """Indices y (ascending) with X_y inside the box (:func:`_scan_box` over :func:`scan_index`)."""
    _, s, e = _scan_range(vals, lo, hi)
    buf = np.empty(max(e - s, 0), dtype=np.int64)
    c = _scan_box(U, perm, vals, lo, hi, buf)
    out = np.empty(_expanded_size(buf, c, dptr), dtype=np.int64)
    _expand(buf, c, dptr, didx, out)
    out.sort()
    return out


@njit(parallel=True)
def degrees_indexed(U, perm, vals, dptr, didx, glo, ghi, gcount):
    """For each record y: Σ over distinct generalized records g containing X_y of count(g).

    The boxes are scanned in parallel chunks, each adding into its own row of counts
    (integers: the sum does not depend on the chunking).
    """
    nu = U.shape[0]
    G = glo.shape[0]
    nchunks = min(G, 16)
    part = np.zeros((max(nchunks, 1), nu), dtype=np.int64)
    for c in prange(nchunks):
        buf = np.empty(nu, dtype=np.int64)
        for g in range(c * G // nchunks, (c + 1) * G // nchunks):
            h = _scan_box(U, perm, vals, glo[g], ghi[g], buf)
            for t in range(h):
                part[c, buf[t]] += gcount[g]
    degd = np.zeros(nu, dtype=np.int64)
    for c in range(nchunks):
        for d in range(nu):
            degd[d] += part[c, d]
    deg = np.empty(dptr[nu], dtype=np.int64)
    for d in range(nu):
        for u in range(dptr[d], dptr[d + 1]):
            deg[didx[u]] = degd[d]
    return deg


#: entries of the candidate buffer :func:`box_members_csr` scans into at once (32 MB)
SCAN_BLOCK = 1 << 22


@njit
def _keep_hits(dl, used, hits, off, nd, dstart, g0, g1):
    """Append the hits of boxes ``g0:g1`` (``hits[off[g]:off[g] + nd[g]]``) to ``dl[:used]``,
    growing it (outside the parallel kernel: numba's array analysis rejects the rebinding)."""
    need = used
    for g in range(g0, g1):
        need += nd[g]
    if need > dl.shape[0]:
        grown = np.empty(max(2 * dl.shape[0], need), dtype=np.int64)
        grown[:used] = dl[:used]
        dl = grown
    for g in range(g0, g1):
        dstart[g] = used
        dl[used : used + nd[g]] = hits[off[g] : off[g] + nd[g]]
        used += nd[g]
    return dl, used


@njit(parallel=True)
def box_members_csr(U, perm, vals, dptr, didx, glo, ghi, room, block):
    """The records inside each distinct box g, as CSR: ``idx[ptr[g]:ptr[g + 1]]`` and
    ``grp[t]`` the box of entry t.

    Each box is scanned once, in parallel, along its narrowest attribute over the distinct
    records (:func:`scan_index`, :func:`_scan_box`), in blocks of boxes whose candidate
    ranges fit ``block`` entries (:data:`SCAN_BLOCK`; a larger box is a block of its own);
    the distinct records found are kept, then expanded to their records. A segment lists
    its distinct records in the scan's order, each with its records ascending: it is a
    set, not sorted (its callers use it as one; sorting the segments cost more than the
    scan). ``idx`` and ``grp`` have room for ``room * E + 16`` entries (E filled),
    for a caller that appends.
    """
    G = glo.shape[0]
    rs = np.empty(G, dtype=np.int64)  # candidates of each box's scan
    for g in prange(G):
        _, s, e = _scan_range(vals, glo[g], ghi[g])
        rs[g] = max(e - s, 0)
    nd = np.zeros(G, dtype=np.int64)  # distinct records inside box g ...
    dstart = np.zeros(G, dtype=np.int64)  # ... at dl[dstart[g]:dstart[g] + nd[g]]
    dl = np.empty(max(block, 16), dtype=np.int64)
    used = 0
    hits = np.empty(max(block, rs.max() if G else 0, 1), dtype=np.int64)
    off = np.zeros(G + 1, dtype=np.int64)  # within the block
    g0 = 0
    while g0 < G:
        g1 = g0 + 1
        off[g1] = rs[g0]
        while g1 < G and off[g1] + rs[g1] <= hits.shape[0]:
            off[g1 + 1] = off[g1] + rs[g1]
            g1 += 1
        for g in prange(g0, g1):
            nd[g] = _scan_box(U, perm, vals, glo[g], ghi[g], hits[off[g] : off[g + 1]])
        dl, used = _keep_hits(dl, used, hits, off, nd, dstart, g0, g1)
        if g1 < G:
            off[g1] = 0
        g0 = g1
    ptr = np.zeros(G + 1, dtype=np.int64)
    for g in prange(G):
        ptr[g + 1] = _expanded_size(dl[dstart[g] :], nd[g], dptr)
    for g in range(G):
        ptr[g + 1] += ptr[g]
    idx = np.empty(room * ptr[G] + 16, dtype=np.int64)
    grp = np.empty(room * ptr[G] + 16, dtype=np.int64)
    for g in prange(G):
        _expand(dl[dstart[g] :], nd[g], dptr, didx, idx[ptr[g] : ptr[g + 1]])
        grp[ptr[g] : ptr[g + 1]] = g
    return ptr, idx, grp


@njit(parallel=True)
def pair_knn(X, q, anc, nlo, nhi, tree, m, measure, pn, ps):
    """For every i, the q indices j != i with smallest ``d({R_i, R_j})`` (ties: lowest j).

    Returns ``(idx, w)`` of shape (n, q), sorted by (w, j). O(n^2 r) time, O(n q) memory
    (never an n x n matrix). Uses per-row domain tables: ``d({R_i, x}) = Σ_a f_a(lca(x_ia, x_a)) / r``.
    """
    n, r = X.shape
    idx = np.empty((n, q), dtype=np.int64)
    w = np.empty((n, q))
    for i in prange(n):
        lo = X[i].copy()
        hi = X[i].copy()
        tab = plus_table(lo, hi, anc, nlo, nhi, tree, m, measure, pn, ps)
        bw = np.full(q, np.inf)
        bj = np.full(q, n, dtype=np.int64)
        for j in range(n):
            if j == i:
                continue
            s = 0.0
            ok = True
            worst = bw[q - 1]
            for a in range(r):
                s += tab[a, X[j, a]]
                if s > worst:  # measure values per attribute are >= 0 for pair closures? (EM may be < 0 only
                    # relative to the box; here the base box is a single record with cost 0, so all terms >= 0)
                    ok = False
                    break
            if not ok:
                continue
            if s == worst and j > bj[q - 1]:
                continue
            # insert (s, j) into the sorted buffer
            p = q - 1
            while p > 0 and (bw[p - 1] > s or (bw[p - 1] == s and bj[p - 1] > j)):
                bw[p] = bw[p - 1]
                bj[p] = bj[p - 1]
                p -= 1
            bw[p] = s
            bj[p] = j
        for t in range(q):
            idx[i, t] = bj[t]
            w[i, t] = bw[t] / r
    return idx, w


def pair_knn_trie(X, q, anc, nlo, nhi, tree, m, measure, pn, ps, attrs, perm, nxt):  # noqa: PLR0913
    """:func:`pair_knn` by branch-and-bound over the record trie (:func:`trie_order`).

    Same output (the q least ``(d({R_i, R_j}), j)``, scores summed over the attributes in
    column order as :func:`pair_knn` does), but a trie node is cut as soon as its partial
    sum exceeds the current q-th best score (every term is >= 0: the box of one record
    costs 0), so far fewer than n records are scored per row.
    """
    rows = np.arange(X.shape[0], dtype=np.int64)
    return _knn_trie_rows(X, rows, q, True, anc, nlo, nhi, tree, m, measure, pn, ps, attrs, perm, nxt)


def pair_knn_distinct(X, q, anc, nlo, nhi, tree, m, measure, pn, ps, attrs, perm, nxt):  # noqa: PLR0913
    """:func:`pair_knn_trie`'s output, searched once per *distinct* record.

    Equal records have equal score tables, so their lists differ only in which record is
    left out as "self": the search runs once per distinct record for its q + 1 least
    ``(score, j)`` over all records (itself included), and each record i then drops itself
    from that list if it is there, else the last entry. Both give the q least ``(score, j)``
    over ``j != i``, ties by index, as the per-record search does.
    """
    n = X.shape[0]
    if n == 0:
        return np.empty((0, q), dtype=np.int64), np.empty((0, q))
    _, rep, inv, _ = unique_rows(X)
    idx1, w1 = _knn_trie_rows(X, rep.astype(np.int64), q + 1, False, anc, nlo, nhi, tree, m, measure, pn, ps,
                              attrs, perm, nxt)
    inv = inv.reshape(-1)
    big_i, big_w = idx1[inv], w1[inv]  # (n, q + 1) per record
    keep = big_i != np.arange(n)[:, None]
    keep[keep.all(axis=1), q] = False  # self not in the list: drop the (q+1)-th
    return big_i[keep].reshape(n, q), big_w[keep].reshape(n, q)


@njit(parallel=True)
def _knn_trie_rows(X, rows, q, skip_self, anc, nlo, nhi, tree, m, measure, pn, ps, attrs, perm, nxt):  # noqa: PLR0913
    """The search of :func:`pair_knn_trie` for the records ``rows`` (output row t for record
    ``rows[t]``); ``skip_self=False`` keeps the record itself among the candidates."""
    n, r = X.shape
    M = anc.shape[1]
    nr = rows.shape[0]
    idx = np.empty((nr, q), dtype=np.int64)
    w = np.empty((nr, q))
    nchunks = min(nr, 64)
    for c in prange(nchunks):
        stack_t = np.empty(r * (M + 1) + 1, dtype=np.int64)
        stack_s = np.empty(r * (M + 1) + 1, dtype=np.int64)
        stack_p = np.empty(r * (M + 1) + 1)
        for ti in range(c * nr // nchunks, (c + 1) * nr // nchunks):
            i = rows[ti]
            lo = X[i].copy()
            hi = X[i].copy()
            tab = plus_table(lo, hi, anc, nlo, nhi, tree, m, measure, pn, ps)
            bw = np.full(q, np.inf)
            bj = np.full(q, n, dtype=np.int64)
            stack_t[0] = 0
            stack_s[0] = 0
            stack_p[0] = 0.0
            sp = 1
            while sp > 0:
                sp -= 1
                t = stack_t[sp]
                p = stack_s[sp]
                part = stack_p[sp]
                worst = bw[q - 1]
                bound = worst + PRUNE_MARGIN * (1.0 + abs(worst))
                if part > bound:
                    continue  # the bound tightened since the push
                if t == r:
                    for u in range(p, nxt[r - 1, p]):
                        j = perm[u]
                        if skip_self and j == i:
                            continue
                        s = 0.0
                        for a in range(r):
                            s += tab[a, X[j, a]]
                        worst = bw[q - 1]
                        if s > worst or (s == worst and j > bj[q - 1]):
                            continue
                        z = q - 1
                        while z > 0 and (bw[z - 1] > s or (bw[z - 1] == s and bj[z - 1] > j)):
                            bw[z] = bw[z - 1]
                            bj[z] = bj[z - 1]
                            z -= 1
                        bw[z] = s
                        bj[z] = j
                    continue
                e = nxt[t - 1, p] if t > 0 else n
                sp = _push_children(X, perm, nxt, tab, attrs[t], t, p, e, part, bound, stack_t, stack_s, stack_p, sp)
            for t in range(q):
                idx[ti, t] = bj[t]
                w[ti, t] = bw[t] / r
    return idx, w


@njit
def closures_of_sets(X, S, anc, nlo, nhi, tree):
    """Closure box of each index set (rows of S; entries < 0 are ignored)."""
    n, k = S.shape
    r = X.shape[1]
    LO = np.empty((n, r), dtype=np.int32)
    HI = np.empty((n, r), dtype=np.int32)
    for t in range(n):
        for a in range(r):
            lo = 1 << 30
            hi = -1
            for s in range(k):
                j = S[t, s]
                if j < 0:
                    continue
                v = X[j, a]
                if v < lo:
                    lo = v
                if v > hi:
                    hi = v
            l2, h2 = _close(a, lo, hi, anc, nlo, nhi, tree)
            LO[t, a] = l2
            HI[t, a] = h2
    return LO, HI
