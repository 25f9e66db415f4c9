"""Mondrian multidimensional partitioning (LeFevre, DeWitt & Ramakrishnan, ICDE 2006).

Survey: Ciriani et al., "k-Anonymity", 2007, §6 ("Multidimensional k-Anonymity"), which only
sketches the approach; the median-split recursion and the relaxed variant follow LeFevre et al.

One partitioning rule, two backends: this compiled core (every model) and the numpy partitioner
(``_mondrian_numpy.py``: k-anonymity alone on small tables, no compilation on a cold start); a
change of the rule is made in both (docs/design/rules.md, "Mondrian"; ``test_mondrian_parallel.py``).
The ℓ-diverse baseline ``mondrian_ldiv`` is a different rule (its dimension order and cut), kept
apart on purpose (same section).

Length: Mondrian's driver, its compiled partitioner (median cuts, the shared rule predicate per
part) and the release it builds are one algorithm.
"""

from __future__ import annotations

import numpy as np
from numba import prange

from .._grouping import lexsort_rows
from .._jit import njit, threads
from .._validation import Options
from ..data.dataset import Dataset
from ..exceptions import InfeasibleError, UnsupportedModelError
from ..models._base import PrivacyModel
from ..models._rulespec import MIN_SIZE
from ..models.kanonymity import KAnonymity
from ..plan import BoxPlan
from ..release import Release
from ._mondrian_numpy import partition_numpy
from ._registry import register
from ._rules import all_ok, pack, specs_of
from ._runs import boxes_by_run

__all__ = ["mondrian"]

#: below this many rows the compiled core runs on one thread (threads cost more than they save)
_PARALLEL_MIN_ROWS = 200_000
#: k-anonymity alone on at most this many rows runs the numpy partitioner (no compilation)
_NUMPY_MAX_ROWS = 200_000


def _supported_models() -> tuple[type, ...]:
    from ..models import ldiversity as ld
    from ..models.tcloseness import TCloseness

    return (
        KAnonymity,
        ld.DistinctLDiversity,
        ld.EntropyLDiversity,
        ld.RecursiveCLDiversity,
        ld.FrequencyLDiversity,
        ld.PSensitivity,
        TCloseness,
    )


@register(
    "mondrian",
    models=_supported_models,
    recoding="multidimensional",
    optimal=False,
    randomized=False,
    order_invariant=True,
    constraints={"mode": [Options(("strict", "relaxed"))]},
    description="Greedy median partitioning into multidimensional regions (strict or relaxed).",
    reference="LeFevre, DeWitt, Ramakrishnan, Mondrian multidimensional k-anonymity, ICDE 2006; survey §6",
)
def mondrian(dataset: Dataset, models: tuple[PrivacyModel, ...], *, mode: str = "strict") -> Release:
    """Partition records by median splits while every part still satisfies the models.

    Parameters
    ----------
    dataset : Dataset
        The table; each QI's hierarchy decides how it is split (see Notes).
    models : KAnonymity, optionally ℓ-diversity / p-sensitivity / t-closeness models
        ``KAnonymity(k)`` bounds every partition's size from below; ℓ-diversity models
        (distinct, entropy, recursive (c,ℓ), frequency 1/ℓ, p-sensitivity, and their
        subclasses such as ``ProtectedLDiversity``) and t-closeness models (equal, ordered or
        hierarchical ground distance), all on one sensitive attribute and evaluated on the
        partition's sensitive values by the shared rule predicate
        (:mod:`ktype.algorithms._rules`), are extra split conditions.
    mode : {"strict", "relaxed"}
        Strict: records with the median value stay together, so partitions are disjoint
        regions. Relaxed: ties at the median are divided so both halves get half the
        records (regions may overlap on the split attribute).

    Returns
    -------
    Release
        Multidimensional recoding: each partition publishes, per QI, the tightest allowed
        value containing its records (``[min-max]`` for ordered attributes, the lowest
        common ancestor for hierarchies).

    Raises
    ------
    InfeasibleError
        If the whole table does not satisfy an ℓ-diversity model (no partition can).

    Notes
    -----
    * Dimension choice: the widest *normalized* span, measured in leaf ranks (number of
      distinct domain values spanned divided by the domain size), ties by column order.
    * Ordered attributes (``Hierarchy.ordered``) split at the median into two ranges.
      Hierarchy attributes split into the children of the partition's lowest common
      ancestor (LeFevre's categorical rule); when that multi-way split is not allowed, the
      children are grouped into two contiguous runs at the median (a deviation from the
      paper that lets a partition separate on this attribute where a multi-way split fails;
      published values are still hierarchy nodes).
    * Complexity O(n log n · r). The parts of one depth are independent: the compiled
      (numba) core handles each depth as a parallel pass over its parts, rows kept column by
      column in part order; k-anonymity alone on at most 200,000 rows runs the same rules in
      numpy (:mod:`ktype.algorithms._mondrian_numpy`, no compilation on a cold start). Both
      give the release of the earlier sequential core; no Python loop over rows. Tuple
      suppression is not used: the output keeps every record.
    * Relaxed ties are divided by a canonical order of the records (by content), so the
      release does not depend on the input row order.

    References
    ----------
    .. [1] K. LeFevre, D. J. DeWitt, R. Ramakrishnan. Mondrian multidimensional
       k-anonymity. ICDE 2006. doi:10.1109/ICDE.2006.101

    Examples
    --------
    >>> import ktype
    >>> from ktype.models.kanonymity import KAnonymity
    >>> ds = ktype.load_adult(n=2000)
    >>> rel = ktype.algorithms.run("mondrian", ds, KAnonymity(10))
    >>> bool(KAnonymity(10).check(rel))
    True
    """
    k, sens, s, n_s, cond = _conditions(dataset, models)
    n = dataset.n
    X = np.ascontiguousarray(dataset.X, dtype=np.int32)
    needs_canon = mode == "relaxed" and not all(h.is_tree for h in dataset.hierarchies)
    canon = _canonical_rank(X, s) if needs_canon else np.zeros(1, dtype=np.int64)
    whole = np.bincount(s, minlength=n_s).astype(np.int64)
    if n < k or (len(cond[0]) and not _allowed(whole, n, k, cond)):  # k-anonymity alone: nothing to compile
        raise InfeasibleError(
            f"The whole table ({n} rows) does not satisfy {[str(m) for m in models]}; no partition can. "
            "Lower l (or p), or check the sensitive column's distribution."
        )
    compiled = not (sens is None and n <= _NUMPY_MAX_ROWS)
    if not compiled:
        # k-anonymity alone on a small table: numpy, nothing to compile (cold start)
        rows, start, box_lo, box_hi = partition_numpy(dataset, k, mode == "strict", canon)
    else:
        tables = _hierarchy_tables(dataset)
        with threads(None if n >= _PARALLEL_MIN_ROWS else 1):  # small tables: no thread start-up
            rows, box_lo, box_hi, start = _mondrian_core(X, s, n_s, canon, k, mode == "strict", cond,
                                                            sens is not None, needs_canon, *tables)
    # number the parts by their final row position (children in child order inside their
    # parent's range): distinct parts may publish the same box, and this numbering then
    # orders their rows in the release (Release.build's ``classes`` hint)
    by_pos = np.argsort(start)
    start = start[by_pos]
    box_lo = box_lo[by_pos]
    box_hi = box_hi[by_pos]
    size = np.diff(np.append(start, n))
    # hand the rows over class by class in the release's canonical class order (box, then
    # part number), each class's rows in input order: the canonical sort in Release.build
    # then finds them in order (same release, without random gathers of 10^7 rows)
    cols = [np.zeros(len(start), dtype=np.int8)]
    for j in range(X.shape[1]):
        cols += [box_lo[:, j], box_hi[:, j]]
    corder = lexsort_rows(cols)
    csize = size[corder]
    cls = np.repeat(np.arange(len(corder)), csize)
    if compiled:  # numba is loaded already: one pass each, the boxes written by both threads
        source = _runs_in_order(rows, start[corder], csize)
        lo, hi = boxes_by_run(box_lo[corder], box_hi[corder], csize, n)
    else:  # the numpy partitioner's cold start stays free of numba
        source = rows[np.repeat(start[corder] - (np.cumsum(csize) - csize), csize) + np.arange(n)]
        # the plan (ktype.plan): a box per class, applied to the class of each row
        lo, hi = BoxPlan(box_lo[corder], box_hi[corder]).apply(cls)
    return Release.build(
        dataset,
        lo,
        hi,
        source=source,
        recoding="multidimensional",
        provenance={"partitions": int(len(start)), "mode": mode},
        classes=cls,
        copy=False,
    )


@njit
def _runs_in_order(rows, starts, sizes):
    """``rows[starts[0]:starts[0] + sizes[0]]``, then the next run, ...: one sequential pass."""
    out = np.empty(rows.shape[0], dtype=rows.dtype)
    p = 0
    for c in range(starts.shape[0]):
        a = starts[c]
        for t in range(sizes[c]):
            out[p] = rows[a + t]
            p += 1
    return out


def _conditions(dataset: Dataset, models: tuple[PrivacyModel, ...]) -> tuple[int, str | None, np.ndarray, int, tuple]:
    """The job as the compiled core reads it: ``(k, sensitive column or None, its codes (zeros
    when none), number of its values, packed rules)``.

    Every model contributes its declared rule (``rule_spec``, :mod:`ktype.algorithms._rules`):
    the minimum-size rules give ``k`` (which also bounds the candidate cuts), the others are
    packed into one conjunction that every published part must pass."""
    k = 1
    sens = None
    specs = []
    for m, spec in specs_of(models, dataset):
        if spec is None:
            raise UnsupportedModelError(f"mondrian does not support {type(m).__name__}: it declares no per-class rule (rule_spec).")
        if spec.code == MIN_SIZE:
            k = max(k, int(spec.ints[0]))
            continue
        if spec.column is not None:
            if sens is not None and spec.column != sens:
                raise UnsupportedModelError("mondrian's extra conditions must all concern the same sensitive attribute.")
            sens = spec.column
        specs.append(spec)
    if sens is not None:
        s = np.ascontiguousarray(dataset.sensitive_codes[sens], dtype=np.int64)
        n_s = len(dataset.sensitive_values[sens])
    else:
        s = np.zeros(dataset.n, dtype=np.int64)
        n_s = 1
    return k, sens, s, n_s, pack(specs)


def _canonical_rank(X: np.ndarray, s: np.ndarray) -> np.ndarray:
    """Rank of each row in content order (identical rows are interchangeable)."""
    order = lexsort_rows([X[:, j] for j in range(X.shape[1])] + [s])
    canon = np.empty(len(order), dtype=np.int64)
    canon[order] = np.arange(len(order))
    return canon


def _hierarchy_tables(dataset: Dataset) -> tuple[np.ndarray, ...]:
    """Flatten all hierarchies into arrays the compiled core can read."""
    is_tree = np.array([h.is_tree for h in dataset.hierarchies], dtype=np.bool_)
    sizes = np.array([h.size for h in dataset.hierarchies], dtype=np.int64)
    anc_parts, anc_off, anc_w = [], [0], []
    nlo_parts, nhi_parts, node_off = [], [], [0]
    cptr_parts, cptr_off, ch_parts, ch_off = [], [0], [], [0]
    for h in dataset.hierarchies:
        if h.is_tree:
            ha = h.arrays()
            anc = ha.anc.astype(np.int64)
            nodes_lo = ha.node_lo.astype(np.int64)
            nodes_hi = ha.node_hi.astype(np.int64)
            ptr = ha.child_ptr
            ch = ha.child
        else:
            anc = np.zeros((1, 1), dtype=np.int64)
            nodes_lo = nodes_hi = np.zeros(1, dtype=np.int64)
            ptr = np.zeros(2, dtype=np.int64)
            ch = np.zeros(0, dtype=np.int64)
        anc_parts.append(anc.ravel())
        anc_off.append(anc_off[-1] + anc.size)
        anc_w.append(anc.shape[1])
        nlo_parts.append(nodes_lo)
        nhi_parts.append(nodes_hi)
        node_off.append(node_off[-1] + len(nodes_lo))
        cptr_parts.append(ptr)
        cptr_off.append(cptr_off[-1] + len(ptr))
        ch_parts.append(ch)
        ch_off.append(ch_off[-1] + len(ch))
    cat = np.concatenate
    return (
        is_tree,
        sizes,
        cat(anc_parts),
        np.array(anc_off, dtype=np.int64),
        np.array(anc_w, dtype=np.int64),
        cat(nlo_parts),
        cat(nhi_parts),
        np.array(node_off, dtype=np.int64),
        cat(cptr_parts),
        np.array(cptr_off, dtype=np.int64),
        cat(ch_parts) if ch_parts else np.zeros(0, dtype=np.int64),
        np.array(ch_off, dtype=np.int64),
    )


@njit
def _allowed(hist: np.ndarray, size: int, k: int, cond) -> bool:
    """Whether a part with sensitive histogram ``hist`` may be published: at least ``k``
    records and every packed rule of ``cond`` (:func:`ktype.algorithms._rules.all_ok`)."""
    return size >= k and all_ok(cond, hist, size)


@njit
def _order_desc(w):
    """Indexes of ``w`` by decreasing value, ties by index (a stable insertion sort of the
    ``r`` attribute widths; numba's sorts cost seconds of compile time on a cold start)."""
    r = w.shape[0]
    order = np.arange(r)
    for i in range(1, r):
        cur = order[i]
        j = i - 1
        while j >= 0 and w[order[j]] < w[cur]:
            order[j + 1] = order[j]
            j -= 1
        order[j + 1] = cur
    return order


@njit
def _kth_smallest(a, kth):
    """The ``kth`` smallest (0-based) of distinct int64 values ``a`` (in place; quickselect)."""
    lo, hi = 0, a.shape[0] - 1
    while lo < hi:
        pivot = a[(lo + hi) // 2]
        i, j = lo, hi
        while i <= j:
            while a[i] < pivot:
                i += 1
            while a[j] > pivot:
                j -= 1
            if i <= j:
                a[i], a[j] = a[j], a[i]
                i += 1
                j -= 1
        if kth <= j:
            hi = j
        elif kth >= i:
            lo = i
        else:
            return a[kth]
    return a[kth]


@njit
def _lca(lo: int, hi: int, d: int, anc_flat, anc_off, anc_w, nhi_flat, node_off) -> int:
    w = anc_w[d]
    base = anc_off[d] + lo * w
    for t in range(w):
        node = anc_flat[base + t]
        if nhi_flat[node_off[d] + node] >= hi:
            return node
    return 0


@njit
def _mondrian_core(X, s, n_s, canon, k, strict, cond, move_s, move_canon,  # noqa: PLR0913
                   is_tree, sizes, anc_flat, anc_off, anc_w, nlo_flat, nhi_flat, node_off,
                   cptr_flat, cptr_off, ch_flat, ch_off):
    """Partition the rows level by level; return the rows in final order and the published parts' boxes and starts.

    The parts of one depth are independent, so each depth is two parallel passes over its
    parts (``prange``): :func:`_decide` chooses every part's split, :func:`_apply` publishes
    the parts that are not split and scatters the rows of the others. Rows live column by
    column in the order of their part (each part a contiguous run of every column), so every
    pass reads and writes sequentially; a split scatters its rows into the other buffer
    (stable, child by child) and the buffers swap. ``move_s`` / ``move_canon``: whether the
    sensitive codes / canonical ranks are read at all (when not, the untouched all-zero /
    unused arrays are read at any position).
    """
    n, r = X.shape
    cur = np.empty((r, n), dtype=np.int32)  # column-major working copies, double-buffered
    nxt = np.empty((r, n), dtype=np.int32)
    _transpose(X, cur)
    idx = np.arange(n)
    idx2 = np.empty(n, dtype=np.int64)
    sv = s.copy() if move_s else s
    sv2 = np.empty(n if move_s else 1, dtype=np.int64)
    cv = canon.copy() if move_canon else canon
    cv2 = np.empty(n if move_canon else 1, dtype=np.int64)
    part = np.empty(n, dtype=np.int64)  # child id of each row; then the children's starts
    rows = np.empty(n, dtype=np.int64)  # input rows by final position: part by part, increasing inside
    cap = n // max(k, 1) + 1  # every published part has >= k rows
    box_lo = np.empty((cap, r), dtype=np.int32)
    box_hi = np.empty((cap, r), dtype=np.int32)
    start = np.empty(cap, dtype=np.int64)  # first row position of each published part
    n_final = 0
    seg = np.empty((1, 2), dtype=np.int64)
    seg[0, 0] = 0
    seg[0, 1] = n
    while seg.shape[0] > 0:
        m = seg.shape[0]
        nparts, mn, mx = _decide(cur, sv, n_s, cv, seg, k, strict, cond, is_tree, sizes, anc_flat, anc_off, anc_w,
                                 nlo_flat, nhi_flat, node_off, cptr_flat, cptr_off, ch_flat, ch_off, part)
        # published parts get consecutive ids (in part order: the numbering is free)
        fid = np.empty(m, dtype=np.int64)
        n_child = 0
        for t in range(m):
            if nparts[t] == 0:
                fid[t] = n_final
                start[n_final] = seg[t, 0]
                n_final += 1
            else:
                n_child += nparts[t]
        _apply(cur, nxt, idx, idx2, sv, sv2, cv, cv2, move_s, move_canon, seg, nparts, fid, mn, mx, part, rows,
               box_lo, box_hi, is_tree, anc_flat, anc_off, anc_w, nlo_flat, nhi_flat, node_off)
        # the next depth's parts: part[a + c] holds the start of child c of the part at a
        nseg = np.empty((n_child, 2), dtype=np.int64)
        j = 0
        for t in range(m):
            q = nparts[t]
            for c in range(q):
                nseg[j, 0] = part[seg[t, 0] + c]
                nseg[j, 1] = part[seg[t, 0] + c + 1] if c + 1 < q else seg[t, 1]
                j += 1
        seg = nseg
        cur, nxt = nxt, cur
        idx, idx2 = idx2, idx
        if move_s:
            sv, sv2 = sv2, sv
        if move_canon:
            cv, cv2 = cv2, cv
    return rows, box_lo[:n_final], box_hi[:n_final], start[:n_final]


@njit(parallel=True)
def _transpose(X, out):
    n, r = X.shape
    for i in prange(n):
        for d in range(r):
            out[d, i] = X[i, d]


@njit(parallel=True)
def _decide(cur, sv, n_s, cv, seg, k, strict, cond, is_tree, sizes, anc_flat, anc_off, anc_w,  # noqa: PLR0913
            nlo_flat, nhi_flat, node_off, cptr_flat, cptr_off, ch_flat, ch_off, part):
    """Per part ``seg[t]``: tight ranges ``mn/mx[t]`` and the number of children (0 = publish);
    child ids of a split part's rows in ``part``."""
    m = seg.shape[0]
    r = cur.shape[0]
    nparts = np.zeros(m, dtype=np.int64)
    mn = np.empty((m, r), dtype=np.int64)
    mx = np.empty((m, r), dtype=np.int64)
    for t in prange(m):
        a = seg[t, 0]
        b = seg[t, 1]
        for d in range(r):
            col = cur[d]
            lo = col[a]
            hi = lo
            for p in range(a + 1, b):
                v = col[p]
                if v < lo:
                    lo = v
                elif v > hi:
                    hi = v
            mn[t, d] = lo
            mx[t, d] = hi
        if b - a >= 2 * k:
            width = np.empty(r, dtype=np.float64)
            for d in range(r):
                if is_tree[d]:
                    node = _lca(mn[t, d], mx[t, d], d, anc_flat, anc_off, anc_w, nhi_flat, node_off)
                    span = nhi_flat[node_off[d] + node] - nlo_flat[node_off[d] + node]
                else:
                    span = mx[t, d] - mn[t, d]
                width[d] = span / max(sizes[d] - 1, 1)
            order = _order_desc(width)
            for oi in range(r):
                d = order[oi]
                if width[d] <= 0.0:
                    break
                got = _choose_split(cur[d], sv, n_s, cv, a, b, k, strict, cond, is_tree[d], d, mn[t, d], mx[t, d],
                                    anc_flat, anc_off, anc_w, nlo_flat, nhi_flat, node_off,
                                    cptr_flat, cptr_off, ch_flat, ch_off, part)
                if got >= 2:
                    nparts[t] = got
                    break
    return nparts, mn, mx


@njit(parallel=True)
def _apply(cur, nxt, idx, idx2, sv, sv2, cv, cv2, move_s, move_canon, seg, nparts, fid, mn, mx, part, rows,  # noqa: PLR0913
           box_lo, box_hi, is_tree, anc_flat, anc_off, anc_w, nlo_flat, nhi_flat, node_off):
    """Publish the parts that are not split (rows in ``rows`` at their final positions,
    box); scatter the rows of the others
    into ``nxt`` / ``idx2`` / ``sv2`` / ``cv2`` child by child; leave in ``part[a + c]`` the start
    of child ``c`` of the part starting at ``a``."""
    m = seg.shape[0]
    r = cur.shape[0]
    for t in prange(m):
        a = seg[t, 0]
        b = seg[t, 1]
        q = nparts[t]
        if q == 0:
            f = fid[t]
            for d in range(r):
                lo = mn[t, d]
                hi = mx[t, d]
                if is_tree[d]:
                    node = _lca(lo, hi, d, anc_flat, anc_off, anc_w, nhi_flat, node_off)
                    lo = nlo_flat[node_off[d] + node]
                    hi = nhi_flat[node_off[d] + node]
                box_lo[f, d] = lo
                box_hi[f, d] = hi
            for p in range(a, b):
                rows[p] = idx[p]
        else:
            # stable counting sort of the rows by child id
            pos = np.zeros(q + 1, dtype=np.int64)
            for p in range(a, b):
                pos[part[p] + 1] += 1
            for c in range(q):
                pos[c + 1] += pos[c]
            for p in range(a, b):
                c = part[p]
                dst = a + pos[c]
                pos[c] += 1
                idx2[dst] = idx[p]
                if move_s:
                    sv2[dst] = sv[p]
                if move_canon:
                    cv2[dst] = cv[p]
                part[p] = dst  # the row's new place, for the columns below
            for d in range(r):
                src = cur[d]
                out = nxt[d]
                for p in range(a, b):
                    out[part[p]] = src[p]
            # children's starts: pos[c] is now the end of child c
            part[a] = a
            for c in range(1, q):
                part[a + c] = a + pos[c - 1]


@njit
def _choose_split(xd, sv, n_s, cv, a, b, k, strict, cond, tree, d, lo, hi,  # noqa: C901, PLR0912, PLR0913, PLR0915
                  anc_flat, anc_off, anc_w, nlo_flat, nhi_flat, node_off, cptr_flat, cptr_off, ch_flat, ch_off,
                  part):
    """Split rows ``a:b`` (values ``xd``, sensitive codes ``sv``, canonical ranks ``cv``, all in
    row position order) on attribute ``d``: write child ids to ``part[a:b]`` and return the
    number of children (0 = no allowed split)."""
    size = b - a
    span = hi - lo + 1
    # histogram of values on dimension d
    cnt = np.zeros(span, dtype=np.int64)
    for p in range(a, b):
        cnt[xd[p] - lo] += 1
    if tree:
        node = _lca(lo, hi, d, anc_flat, anc_off, anc_w, nhi_flat, node_off)
        base = cptr_off[d]
        c0 = cptr_flat[base + node]
        c1 = cptr_flat[base + node + 1]
        nch = c1 - c0
        if nch >= 2:
            # multi-way split into the children of the LCA
            bounds = np.empty(nch, dtype=np.int64)  # hi rank of each child
            for c in range(nch):
                child = ch_flat[ch_off[d] + c0 + c]
                bounds[c] = nhi_flat[node_off[d] + child]
            child_of = np.empty(span, dtype=np.int64)
            c = 0
            for v in range(span):
                while bounds[c] < v + lo:
                    c += 1
                child_of[v] = c
            ok = True
            hist = np.zeros((nch, n_s), dtype=np.int64)
            csize = np.zeros(nch, dtype=np.int64)
            for v in range(span):
                csize[child_of[v]] += cnt[v]
            if n_s > 1:
                for p in range(a, b):
                    hist[child_of[xd[p] - lo], sv[p]] += 1
            else:
                for c in range(nch):
                    hist[c, 0] = csize[c]
            # relabel non-empty children densely
            dense = np.full(nch, -1, dtype=np.int64)
            nd = 0
            for c in range(nch):
                if csize[c] > 0:
                    if not _allowed(hist[c], csize[c], k, cond):
                        ok = False
                    dense[c] = nd
                    nd += 1
            if ok and nd >= 2:
                for p in range(a, b):
                    part[p] = dense[child_of[xd[p] - lo]]
                return nd
            # binary grouping of children at the median (contiguous runs)
            cum = 0
            best_c = -1
            best_gap = size + 1
            for c in range(nch - 1):
                cum += csize[c]
                if cum >= k and size - cum >= k:
                    gap = abs(2 * cum - size)
                    if gap < best_gap:
                        best_gap = gap
                        best_c = c
            if best_c < 0:
                return 0
            return _binary_by_value(xd, sv, n_s, a, b, bounds[best_c], k, cond, part)
        return 0
    # ordered attribute: median split
    half = size // 2
    cum = 0
    med = 0
    for v in range(span):
        cum += cnt[v]
        if cum >= half:
            med = v
            break
    if strict:
        # candidate cuts (left = values <= cut): the median, or just below it (ties go right);
        # the more balanced allowed one wins
        left_med = cum
        left_prev = left_med - cnt[med]
        first = med
        second = med - 1
        if abs(2 * left_prev - size) < abs(2 * left_med - size):
            first = med - 1
            second = med
        for cand in (first, second):
            nl = left_med if cand == med else left_prev
            if nl >= k and size - nl >= k:
                if _binary_by_value(xd, sv, n_s, a, b, cand + lo, k, cond, part) == 2:
                    return 2
        return 0
    # relaxed: exactly half the records go left; ties at the median by canonical order
    below = 0
    for v in range(med):
        below += cnt[v]
    need = half - below  # records with value med that go left
    medval = med + lo
    ties = np.empty(cnt[med], dtype=np.int64)
    t = 0
    for p in range(a, b):
        if xd[p] == medval:
            ties[t] = cv[p]
            t += 1
    thresh = _kth_smallest(ties, need - 1) if need > 0 else -1
    hl = np.zeros(n_s, dtype=np.int64)
    hr = np.zeros(n_s, dtype=np.int64)
    for p in range(a, b):
        v = xd[p]
        if v < medval or (v == medval and cv[p] <= thresh):
            part[p] = 0
            hl[sv[p]] += 1
        else:
            part[p] = 1
            hr[sv[p]] += 1
    if _allowed(hl, half, k, cond) and _allowed(hr, size - half, k, cond):
        return 2
    return 0


@njit
def _binary_by_value(xd, sv, n_s, a, b, cut, k, cond, part):
    hl = np.zeros(n_s, dtype=np.int64)
    hr = np.zeros(n_s, dtype=np.int64)
    nl = 0
    for p in range(a, b):
        if xd[p] <= cut:
            part[p] = 0
            hl[sv[p]] += 1
            nl += 1
        else:
            part[p] = 1
            hr[sv[p]] += 1
    if _allowed(hl, nl, k, cond) and _allowed(hr, b - a - nl, k, cond):
        return 2
    return 0
