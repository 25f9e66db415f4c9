"""Optimal freeform generalization by mixed-integer programming (Doka et al. §4, Eqs. 4-11).

The network-flow view of §4: the complete bipartite graph from originals to recast
records, each supplying / demanding ``k`` units on binary edges (Eq. 10), with GCP as the
objective. GCP needs the max / min of each recast box, hence real variables ``u, l`` per
numeric attribute (Eqs. 4-7) and one-hot maxima ``u^h`` per categorical value (Eqs. 8-9);
the objective (Eq. 11) is GCP × d × n. Solved with ``scipy.optimize.milp`` (HiGHS) instead
of the paper's CPLEX 12.4.

Deviations / choices (ktype's, not the paper's): auxiliary one-hot variables exist only for
values that occur in the data (the others are 0 at the optimum; the denominator still uses
the full ``|A_j|``); constraint (8) is written only where it binds (``q_ℓ`` has value ``h``
and ``q_i`` has not: ``u_i^h >= x(ℓ, i)``); the self-edge ``x(i, i)`` is free as in the
paper unless ``fix_identity=True`` (never worse on the instances tested, see
:func:`freeform_mip`). The box of ``q'_i`` covers ``q_i`` and its ``k`` pre-images
(Eqs. 5, 7, 9).
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations
from math import comb

import numpy as np
from scipy import sparse
from scipy.optimize import Bounds, LinearConstraint, milp

from ..._validation import Interval, Options
from ...data.dataset import Dataset
from ...exceptions import InvalidParameterError, KtypeError
from ...models._base import PrivacyModel
from ...release import Release
from .._registry import register
from ._prep import Problem, model_k, publish
from .heuristics import _MODELS, REFERENCE

__all__ = ["freeform_mip", "solve_mip", "solve_sets", "MAX_RECORDS"]

#: largest table the MIP accepts (n² binaries in Eqs. 4-11)
MAX_RECORDS = 30
#: largest set formulation (``n · C(n, k)`` binaries) chosen by ``formulation="auto"``
SET_COLUMN_LIMIT = 200_000


class SolverError(KtypeError):
    """The MIP solver stopped without a proven optimum."""


def solve_mip(p: Problem, k: int, *, fix_identity: bool = False, time_limit: float = 60.0) -> tuple[np.ndarray, float]:  # noqa: PLR0915
    """Solve Eqs. 4-11 on an encoded problem.

    Returns ``(pre, objective)``: ``pre`` (n, k) the pre-images of each recast record
    (sorted positions) and the optimal objective (GCP × d × n).
    """
    n = p.n
    k = int(k)
    xn, xc = p.xnum, p.xcat
    dn, dc = xn.shape[1], xc.shape[1]
    nx = n * n  # x(l, i) at l * n + i
    # variable blocks
    off_u = nx
    off_l = off_u + n * dn
    hvals = [np.unique(xc[:, c]) for c in range(dc)]
    off_h = []
    pos = off_l + n * dn
    for c in range(dc):
        off_h.append(pos)
        pos += n * len(hvals[c])
    nv = pos

    lb = np.zeros(nv)
    ub = np.ones(nv)
    integrality = np.zeros(nv)
    integrality[:nx] = 1
    if fix_identity:
        lb[np.arange(n) * n + np.arange(n)] = 1
    obj = np.zeros(nv)
    if dn:
        vmin, vmax = xn.min(axis=0), xn.max(axis=0)
        u_idx = off_u + np.arange(n)[:, None] * dn + np.arange(dn)[None, :]
        l_idx = off_l + np.arange(n)[:, None] * dn + np.arange(dn)[None, :]
        lb[u_idx] = xn  # (5)
        ub[u_idx] = np.broadcast_to(vmax, (n, dn))
        lb[l_idx] = np.broadcast_to(vmin, (n, dn))
        ub[l_idx] = xn  # (7)
        obj[u_idx] = 1.0
        obj[l_idx] = -1.0
    for c in range(dc):
        H = len(hvals[c])
        hidx = off_h[c] + np.arange(n)[:, None] * H + np.arange(H)[None, :]
        own = np.searchsorted(hvals[c], xc[:, c])
        lb[hidx[np.arange(n), own]] = 1.0  # (9)
        obj[hidx] = p.wcat[c]
    const = -float(p.wcat.sum()) * n  # the "-1" of Eq. 11 per categorical cell

    rows, cols, vals, lo_c, hi_c = [], [], [], [], []
    r0 = 0
    LL, RI = np.meshgrid(np.arange(n), np.arange(n), indexing="ij")
    LL, RI = LL.ravel(), RI.ravel()
    xid = LL * n + RI
    for a in range(dn):  # (4) and (6), only where q_l differs from q_i
        diff = xn[LL, a] - xn[RI, a]
        for sign, off in ((1, off_u), (-1, off_l)):
            sel = sign * diff > 0
            m = int(sel.sum())
            rr = r0 + np.arange(m)
            # u_i - (q_l - q_i) x >= q_i   /   l_i - (q_l - q_i) x <= q_i
            rows += [rr, rr]
            cols += [off + RI[sel] * dn + a, xid[sel]]
            vals += [np.ones(m), -diff[sel]]
            q = xn[RI[sel], a]
            lo_c.append(q if sign > 0 else np.full(m, -np.inf))
            hi_c.append(np.full(m, np.inf) if sign > 0 else q)
            r0 += m
    for c in range(dc):  # (8): u_i^h >= x(l, i) where q_l has h and q_i has not
        H = len(hvals[c])
        hl = np.searchsorted(hvals[c], xc[LL, c])
        sel = xc[LL, c] != xc[RI, c]
        m = int(sel.sum())
        rr = r0 + np.arange(m)
        rows += [rr, rr]
        cols += [off_h[c] + RI[sel] * H + hl[sel], xid[sel]]
        vals += [np.ones(m), -np.ones(m)]
        lo_c.append(np.zeros(m))
        hi_c.append(np.full(m, np.inf))
        r0 += m
    # (10): out-degree and in-degree k
    rr = r0 + LL
    rows.append(rr)
    cols.append(xid)
    vals.append(np.ones(nx))
    rr = r0 + n + RI
    rows.append(rr)
    cols.append(xid)
    vals.append(np.ones(nx))
    lo_c.append(np.full(2 * n, float(k)))
    hi_c.append(np.full(2 * n, float(k)))
    r0 += 2 * n
    A = sparse.csr_array((np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))), shape=(r0, nv))
    res = milp(
        obj,
        integrality=integrality,
        bounds=Bounds(lb, ub),
        constraints=LinearConstraint(A, np.concatenate(lo_c), np.concatenate(hi_c)),
        options={"time_limit": float(time_limit), "disp": False},
    )
    if res.status != 0 or res.x is None:
        raise SolverError(
            f"freeform_mip: HiGHS found no proven optimum within {time_limit:g} s for n={n}, k={k} "
            f"(status {res.status}: {res.message}). Use a smaller table, a larger time_limit, or freeform_hungarian."
        )
    x = np.rint(res.x[:nx]).reshape(n, n).astype(bool)  # x[l, i]
    pre = np.argsort(~x.T, axis=1, kind="stable")[:, :k]  # originals l of each recast i
    return pre.astype(np.int64), float(res.fun + const)


def _set_costs(p: Problem, i: int, combos: np.ndarray) -> np.ndarray:
    """NCP sum of the box covering ``q_i`` and each pre-image set (rows of ``combos``)."""
    cost = np.zeros(len(combos))
    for a in range(p.xnum.shape[1]):  # loop over numeric columns
        v = p.xnum[combos, a]
        cost += np.maximum(v.max(axis=1), p.xnum[i, a]) - np.minimum(v.min(axis=1), p.xnum[i, a])
    for c in range(p.xcat.shape[1]):  # loop over categorical columns
        codes = np.concatenate([p.xcat[combos, c], np.full((len(combos), 1), p.xcat[i, c])], axis=1)
        codes.sort(axis=1)
        distinct = 1 + (codes[:, 1:] != codes[:, :-1]).sum(axis=1)
        cost += (distinct - 1) * p.wcat[c]
    return cost


def n_set_columns(n: int, k: int, fix_identity: bool) -> int:
    """Columns of the set formulation: ``n · C(n, k)`` (``n · C(n−1, k−1)`` with the identity)."""
    return n * (comb(n - 1, k - 1) if fix_identity else comb(n, k))


def solve_sets(p: Problem, k: int, *, fix_identity: bool = False, time_limit: float = 60.0) -> tuple[np.ndarray, float]:
    """The same optimum as Eqs. 4-11 from the equivalent **set formulation**.

    Each recast record ``i`` chooses one pre-image set ``S`` of ``k`` originals (binary
    ``y[i, S]``, ``Σ_S y[i, S] = 1``) at its exact cost (the NCP sum of the box covering
    ``S ∪ {q_i}``, as Eqs. 4-9 make it); every original lies in exactly ``k`` chosen sets
    (Eq. 10, in-degree). Feasible points correspond one-to-one to those of Eqs. 4-11 with
    tight ``u, l``, so the optimum is identical; the LP relaxation is far stronger (the
    box costs are exact instead of linearized by Eqs. 4-9), which is what makes the
    paper's 14-tuple instances solvable in seconds with HiGHS. Not in the paper.
    """
    n = p.n
    if fix_identity:
        others = [np.array(c, dtype=np.int64) for c in combinations(range(n - 1), k - 1)]
        base = np.array(others).reshape(len(others), k - 1)
    else:
        base = np.array(list(combinations(range(n), k)), dtype=np.int64).reshape(-1, k)
    M = len(base)
    sets = np.empty((n, M, k), dtype=np.int64)
    costs = np.empty((n, M))
    for i in range(n):  # loop over recast records (vectorized over their M candidate sets)
        if fix_identity:
            oth = base + (base >= i)  # skip i, then add it
            S = np.concatenate([np.full((M, 1), i), oth], axis=1)
        else:
            S = base
        sets[i] = S
        costs[i] = _set_costs(p, i, S)
    nv = n * M
    col = np.arange(nv)
    rows_a = np.repeat(np.arange(n), M)  # one set per recast record
    rows_b = n + sets.reshape(nv, k)  # each original in k sets
    A = sparse.csr_array(
        (np.ones(nv + nv * k), (np.concatenate([rows_a, rows_b.ravel()]), np.concatenate([col, np.repeat(col, k)]))),
        shape=(2 * n, nv),
    )
    b = np.concatenate([np.ones(n), np.full(n, float(k))])
    res = milp(
        costs.ravel(),
        integrality=np.ones(nv),
        bounds=Bounds(0, 1),
        constraints=LinearConstraint(A, b, b),
        options={"time_limit": float(time_limit), "disp": False},
    )
    if res.status != 0 or res.x is None:
        raise SolverError(
            f"freeform_mip: HiGHS found no proven optimum within {time_limit:g} s for n={n}, k={k} "
            f"(status {res.status}: {res.message}). Use a smaller table, a larger time_limit, or freeform_hungarian."
        )
    y = np.rint(res.x).reshape(n, M).astype(bool)
    chosen = np.argmax(y, axis=1)
    pre = np.sort(sets[np.arange(n), chosen], axis=1)
    return pre, float(res.fun)


@register(
    "freeform_mip",
    models=_MODELS,
    recoding="freeform",
    randomized=True,
    constraints={
        "fix_identity": [bool],
        "time_limit": [Interval(float, 0, None, closed="neither")],
        "formulation": [Options(("auto", "sets", "paper"))],
    },
    description="freeform generalization: optimal GCP by MIP (Eqs. 4-11, HiGHS); tiny tables only",
    reference=REFERENCE + ", §4 Eqs. 4-11",
)
def freeform_mip(
    dataset: Dataset,
    models: Sequence[PrivacyModel],
    *,
    fix_identity: bool = True,
    time_limit: float = 60.0,
    formulation: str = "auto",
    rng: np.random.Generator,
) -> Release:
    """GCP-optimal freeform k-anonymization (Doka et al. §4) for tables of at most 30 rows.

    ``fix_identity=True`` (default) adds ``x(i, i) = 1``: the optimum over graphs that
    contain the identity — the search space of Greedy, SortGreedy and Hungarian. The paper
    leaves ``x(i, i)`` free (``fix_identity=False``); an exhaustive comparison on 520 random
    small instances (n = 5-7, k = 2-3, every k-regular 0/1 matrix enumerated; run while
    the MIP was designed, not part of the test suite) and ktype's tests on Table 1 never
    found the free optimum lower, and the fixed model solves
    several times faster (24 rows, k = 3: 1 s instead of over 60 s).
    ``formulation="paper"`` solves Eqs. 4-11 as printed; ``"sets"`` solves the equivalent
    set formulation (:func:`solve_sets`: same optimum, much stronger relaxation); ``"auto"``
    (default) takes ``"sets"`` while it has at most 200,000 columns (n · C(n, k)).

    The oracle for the heuristics (the paper's 14-tuple experiment, Fig. 7). The problem
    has n² binary variables; larger tables are refused with a message, and a run that
    does not prove optimality within ``time_limit`` seconds raises instead of returning a
    sub-optimal graph. ``provenance["freeform"]["objective"]`` holds the optimal GCP.
    """
    k = model_k(models, "freeform_mip")
    if dataset.n > MAX_RECORDS:
        raise InvalidParameterError(
            f"freeform_mip solves tables of at most {MAX_RECORDS} rows (n^2 binary variables); this one has "
            f"{dataset.n}. Use freeform_hungarian (optimal per iteration) or sample the table."
        )
    p = Problem.from_dataset(dataset)
    if formulation == "auto":
        formulation = "sets" if n_set_columns(p.n, k, fix_identity) <= SET_COLUMN_LIMIT else "paper"
    if formulation == "sets":
        if n_set_columns(p.n, k, fix_identity) > SET_COLUMN_LIMIT:
            raise InvalidParameterError(
                f"freeform_mip: the set formulation would need {n_set_columns(p.n, k, fix_identity):,} columns for "
                f"n={p.n}, k={k} (limit {SET_COLUMN_LIMIT:,}); use formulation='paper' or fix_identity=True."
            )
        pre, obj = solve_sets(p, k, fix_identity=fix_identity, time_limit=time_limit)
    else:
        pre, obj = solve_mip(p, k, fix_identity=fix_identity, time_limit=time_limit)
    d, n = p.d, p.n
    info = {"method": "mip", "formulation": formulation, "k": k, "fix_identity": fix_identity, "objective": obj / (d * n) if d and n else 0.0}
    return publish(p, pre, rng, info, include_self=True)
