"""Loss-driven refinement of a k-anonymous partition: move records between classes.

A partition publishes, for each class ``C``, the closure of its records; its total loss is
``Σ_C |C|·d(C)`` with ``d(C)`` the LM (or EM) cost of the closure. Moving record ``x`` from
class ``A`` (``|A| > k``) to class ``B`` changes the total by

    Δ = [(|B|+1)·d(B ∪ x) − |B|·d(B)] − [|A|·d(A) − (|A|−1)·d(A \\ x)]

(insertion cost minus removal gain). :func:`refine_moves` repeats rounds: for every record
whose removal gain is positive (it is an extreme value of its class on some attribute), the
best target over *all* classes is found in parallel on a snapshot; the moves are then
applied one by one, each re-evaluated on the current state and kept only if Δ is still
negative and ``|A| > k``. The total loss strictly decreases with every applied move and
every class keeps ``>= k`` records, so the result is k-anonymous and never worse than the
seed. This is the local-search step of clustering-based k-anonymization (the loss-increase
distance of Byun et al.'s k-member clustering [1]_, used as a move criterion as in the
"adjustment" phase of Xu et al.'s local recoding [2]_).

Cost per round: O(c·n_cand·r) for ``n_cand`` records with positive removal gain and ``c``
classes (numba, parallel over records), plus O(|A|·r) per applied move.

References
----------
.. [1] J.-W. Byun, A. Kamra, E. Bertino, N. Li. Efficient k-Anonymization Using Clustering
   Techniques. DASFAA 2007, §4 (k-member clustering, information-loss increase as distance).
.. [2] J. Xu, W. Wang, J. Pei, X. Wang, B. Shi, A. W.-C. Fu. Utility-Based Anonymization
   Using Local Recoding. KDD 2006, §4.
"""

from __future__ import annotations

import numpy as np
from numba import prange

from ..._jit import njit
from ._core import Problem

__all__ = ["refine_moves"]


@njit
def _boxcost(ctab, lo, hi):  # pragma: no cover - compiled
    c = 0.0
    for a in range(lo.shape[0]):
        c += ctab[a, lo[a], hi[a]]
    return c


@njit
def _widen(X, x, lo, hi):  # pragma: no cover - compiled
    """Grow the box ``[lo, hi]`` (one cluster's rows of ``rlo``/``rhi``) to cover record ``x``."""
    for a in range(X.shape[1]):
        v = X[x, a]
        if v < lo[a]:
            lo[a] = v
        if v > hi[a]:
            hi[a] = v


@njit
def _removal(X, x, A, rlo, rhi, head, nxt, nlo, nhi):  # pragma: no cover - compiled
    """Raw box of class A without record x into (nlo, nhi) (members rescanned only on the
    attributes where x holds an extreme value)."""
    r = X.shape[1]
    for a in range(r):
        nlo[a] = rlo[A, a]
        nhi[a] = rhi[A, a]
        v = X[x, a]
        if v == rlo[A, a] or v == rhi[A, a]:
            lo2 = 1 << 30
            hi2 = -1
            y = head[A]
            while y >= 0:
                if y != x:
                    w = X[y, a]
                    if w < lo2:
                        lo2 = w
                    if w > hi2:
                        hi2 = w
                y = nxt[y]
            nlo[a] = lo2
            nhi[a] = hi2


@njit
def _insert_cost(X, x, B, rlo, rhi, ctab, size, cst):  # pragma: no cover - compiled
    c = 0.0
    for a in range(X.shape[1]):
        v = X[x, a]
        c += ctab[a, min(rlo[B, a], v), max(rhi[B, a], v)]
    return (size[B] + 1) * c - size[B] * cst[B]


@njit
def _cheapest(X, x, skip, best, by_cost, bound, alive, rlo, rhi, ctab, size, cst):  # pragma: no cover - compiled  # noqa: PLR0913
    """(class, cost) of the cheapest insertion of record x below ``best`` (class -1 if none),
    scanning classes in ascending ``bound`` (a lower bound of the insertion cost) and
    stopping at the first bound reaching the best cost found."""
    bb = -1
    for q in range(by_cost.shape[0]):
        B = by_cost[q]
        if bound[B] >= best:
            break
        if B == skip or not alive[B]:
            continue
        d = _insert_cost(X, x, B, rlo, rhi, ctab, size, cst)
        if d < best:
            best = d
            bb = B
    return bb, best


@njit
def _unlink(x, A, head, nxt, prv):  # pragma: no cover - compiled
    if prv[x] >= 0:
        nxt[prv[x]] = nxt[x]
    else:
        head[A] = nxt[x]
    if nxt[x] >= 0:
        prv[nxt[x]] = prv[x]


@njit
def _link(x, B, head, nxt, prv):  # pragma: no cover - compiled
    prv[x] = -1
    nxt[x] = head[B]
    if head[B] >= 0:
        prv[head[B]] = x
    head[B] = x


@njit(parallel=True)
def _best_targets(X, cand, gain, lab, rlo, rhi, ctab, size, cst, alive, by_cost, out_b, out_d):  # pragma: no cover  # noqa: PLR0913
    """For each candidate record, the class minimizing the insertion cost (snapshot).

    Classes are scanned in ascending ``d(B)``; the insertion cost is at least ``d(B)``
    (``(|B|+1)·d(B ∪ x) − |B|·d(B) >= d(B ∪ x) >= d(B)``), so the scan stops at the first
    class whose ``d(B)`` reaches the best cost found (or the removal gain)."""
    for t in prange(cand.shape[0]):
        x = cand[t]
        bb, best = _cheapest(X, x, lab[x], gain[t], by_cost, cst, alive, rlo, rhi, ctab, size, cst)
        out_b[t] = bb
        out_d[t] = best


@njit
def _refine(X, lab, nc, k, ctab, max_rounds, max_outer):  # pragma: no cover - compiled
    """Rounds of improving moves (see the module docstring). Returns (labels, moves, rounds)."""
    n, r = X.shape
    size = np.zeros(nc, dtype=np.int64)
    rlo = np.full((nc, r), 1 << 30, dtype=np.int64)
    rhi = np.full((nc, r), -1, dtype=np.int64)
    head = np.full(nc, -1, dtype=np.int64)
    nxt = np.full(n, -1, dtype=np.int64)
    prv = np.full(n, -1, dtype=np.int64)
    for x in range(n):
        c = lab[x]
        size[c] += 1
        _widen(X, x, rlo[c], rhi[c])
        _link(x, c, head, nxt, prv)
    cst = np.zeros(nc)
    alive = size > 0
    for c in range(nc):
        if alive[c]:
            cst[c] = _boxcost(ctab, rlo[c], rhi[c])
    nlo = np.empty(r, dtype=np.int64)
    nhi = np.empty(r, dtype=np.int64)
    moves = 0
    rounds = 0
    dissolved = 0
    for _ in range(max_outer):
        m, rd = _move_rounds(X, lab, k, ctab, max_rounds, size, rlo, rhi, head, nxt, prv, cst, nlo, nhi)
        moves += m
        rounds += rd
        d = _dissolve(X, lab, k, ctab, size, rlo, rhi, head, nxt, prv, cst, alive)
        dissolved += d
        if d == 0:
            break
    return lab, moves, rounds, dissolved


@njit
def _move_rounds(X, lab, k, ctab, max_rounds, size, rlo, rhi, head, nxt, prv, cst, nlo, nhi):  # pragma: no cover  # noqa: PLR0913
    """Rounds of improving single-record moves; returns (moves, rounds)."""
    n, r = X.shape
    alive = size > 0
    moves = 0
    rounds = 0
    eps = 1e-9
    for _ in range(max_rounds):
        rounds += 1
        # candidates: records of classes larger than k whose removal lowers the class's loss
        gain_all = np.zeros(n)
        ncand = 0
        for x in range(n):
            A = lab[x]
            if size[A] <= k:
                continue
            _removal(X, x, A, rlo, rhi, head, nxt, nlo, nhi)
            g = size[A] * cst[A] - (size[A] - 1) * _boxcost(ctab, nlo, nhi)
            if g > eps:
                gain_all[x] = g
                ncand += 1
        if ncand == 0:
            break
        cand = np.empty(ncand, dtype=np.int64)
        gain = np.empty(ncand)
        q = 0
        for x in range(n):
            if gain_all[x] > 0.0:
                cand[q] = x
                gain[q] = gain_all[x]
                q += 1
        out_b = np.full(ncand, -1, dtype=np.int64)
        out_d = np.zeros(ncand)
        by_cost = np.argsort(cst, kind="mergesort")
        _best_targets(X, cand, gain, lab, rlo, rhi, ctab, size, cst, alive, by_cost, out_b, out_d)
        applied = 0
        # apply the most profitable moves first, each re-checked on the current state
        prof = np.empty(ncand)
        for t in range(ncand):
            prof[t] = out_d[t] - gain[t] if out_b[t] >= 0 else 0.0
        order = np.argsort(prof, kind="mergesort")
        for t in order:
            B = out_b[t]
            if B < 0:
                continue
            x = cand[t]
            A = lab[x]
            if size[A] <= k or A == B:
                continue
            _removal(X, x, A, rlo, rhi, head, nxt, nlo, nhi)
            cA = _boxcost(ctab, nlo, nhi)
            g = size[A] * cst[A] - (size[A] - 1) * cA
            d = _insert_cost(X, x, B, rlo, rhi, ctab, size, cst)
            if d - g >= -eps:
                continue
            _unlink(x, A, head, nxt, prv)
            size[A] -= 1
            for a in range(r):
                rlo[A, a] = nlo[a]
                rhi[A, a] = nhi[a]
            cst[A] = cA
            lab[x] = B
            _link(x, B, head, nxt, prv)
            size[B] += 1
            _widen(X, x, rlo[B], rhi[B])
            cst[B] = _boxcost(ctab, rlo[B], rhi[B])
            applied += 1
        moves += applied
        if applied == 0:
            break
    return moves, rounds


@njit
def _dissolve(X, lab, k, ctab, size, rlo, rhi, head, nxt, prv, cst, alive):  # pragma: no cover - compiled  # noqa: PLR0913
    """Dissolve whole classes, most expensive per record first: every member joins its
    cheapest other class (sequentially, boxes growing as members arrive); kept only when
    the insertions cost less than the class's own loss ``|C|·d(C)``. Classes only grow,
    so every class keeps >= k records. Returns the number of classes dissolved."""
    r = X.shape[1]
    order = np.argsort(-cst, kind="mergesort")
    by_cost = np.argsort(cst, kind="mergesort")
    old = cst.copy()  # d(B) only grows here (classes only gain records): a valid lower bound
    tlo = rlo.copy()
    thi = rhi.copy()
    tsize = size.copy()
    tcst = cst.copy()
    dissolved = 0
    eps = 1e-9
    for C in order:
        if not alive[C] or cst[C] <= 0.0:
            continue
        own = size[C] * cst[C]
        total = 0.0
        # tentative: copy the state of the classes touched (tlo/thi/tsize/tcst mirror the state)
        x = head[C]
        ok = True
        ntouch = 0
        touched = np.empty(size[C], dtype=np.int64)
        target = np.empty(size[C], dtype=np.int64)
        q = 0
        while x >= 0:
            # a target costing more than what is left of the budget is useless
            bb, best = _cheapest(X, x, C, own - total, by_cost, old, alive, tlo, thi, ctab, tsize, tcst)
            if bb < 0:
                ok = False
                break
            total += best
            if total >= own - eps:
                ok = False
                break
            target[q] = bb
            q += 1
            seen = False
            for u in range(ntouch):
                if touched[u] == bb:
                    seen = True
            if not seen:
                touched[ntouch] = bb
                ntouch += 1
            tsize[bb] += 1
            _widen(X, x, tlo[bb], thi[bb])
            tcst[bb] = _boxcost(ctab, tlo[bb], thi[bb])
            x = nxt[x]
        if ok:
            # commit: move every member of C to its target
            x = head[C]
            q = 0
            while x >= 0:
                y = nxt[x]
                B = target[q]
                q += 1
                lab[x] = B
                _link(x, B, head, nxt, prv)
                x = y
            head[C] = -1
            alive[C] = False
            size[C] = 0
            for u in range(ntouch):
                B = touched[u]
                size[B] = tsize[B]
                for a in range(r):
                    rlo[B, a] = tlo[B, a]
                    rhi[B, a] = thi[B, a]
                cst[B] = tcst[B]
            tsize[C] = 0
            dissolved += 1
        else:
            # roll back the tentative state
            for u in range(ntouch):
                B = touched[u]
                tsize[B] = size[B]
                for a in range(r):
                    tlo[B, a] = rlo[B, a]
                    thi[B, a] = rhi[B, a]
                tcst[B] = cst[B]
    return dissolved


def refine_moves(
    problem: Problem, labels: np.ndarray, k: int, *, max_rounds: int = 2, max_outer: int = 2
) -> tuple[np.ndarray, dict]:
    """Improve a partition (labels ``0..c-1``, every class ``>= k``) by record moves.

    Up to ``max_outer`` times: up to ``max_rounds`` rounds of single-record moves, then one
    pass of class dissolution (most expensive classes first); stops early when a pass
    changes nothing. The defaults (2, 2) keep most of the gain at a fraction of the cost of
    running to convergence (Adult k=5: LM 0.04889 vs 0.04886, 14 s vs 33 s at load ~18).
    Returns the new labels (compacted to ``0..c'-1``: dissolved classes disappear) and
    ``{"moves", "rounds", "dissolved"}``. Needs the closure-cost table
    (:meth:`Problem.closure_cost_table`); raises ``NotImplementedError`` when the domains are
    too large for it.
    """
    ctab = problem.closure_cost_table()
    if ctab.shape[1] == 0:
        raise NotImplementedError("refine_moves needs the closure-cost table; the domains are too large for it.")
    labels = np.ascontiguousarray(labels, dtype=np.int64).copy()
    if len(labels) == 0:
        return labels, {"moves": 0, "rounds": 0, "dissolved": 0}
    nc = int(labels.max()) + 1
    X = np.ascontiguousarray(problem.X, dtype=np.int64)
    lab, moves, rounds, dissolved = _refine(X, labels, nc, int(k), ctab, int(max_rounds), int(max_outer))
    _, lab = np.unique(lab, return_inverse=True)
    return lab.ravel().astype(np.int64), {"moves": int(moves), "rounds": int(rounds), "dissolved": int(dissolved)}
