"""Node evaluation for full-domain (level-vector) generalization, without materializing tables.

The lattice of a dataset with quasi-identifiers ``A_1..A_r`` whose hierarchies have heights
``h_1..h_r`` is the product of chains ``{0..h_1} x ... x {0..h_r}`` (Ciriani et al., survey
§2.1: the generalization lattice ``DGH_DT``; a node is a *distance vector* from the bottom,
§2.2, Def. 4). Node ``L`` publishes every value of ``A_j`` at level ``L_j`` of its hierarchy.

Evaluation works on **frequency sets** (Incognito's term, LeFevre et al. 2005): a table of
distinct generalized tuples (one row per equivalence class, group ids per column) and their
counts. The bottom node's frequency set is the table of distinct input tuples; a coarser
node's frequency set is obtained from any finer evaluated node's frequency set by mapping
each group id one or more levels up and merging equal rows (*roll-up*), in
``O(#rows of the finer set)`` with a numba hash kernel. Rows are bit-packed into one int64
per class when the group ids fit (one bit field per column), so a roll-up remaps only the
bit fields of the columns whose level changes — one table lookup per row for a roll-up
from a direct specialization — and the packed code itself is the hash key. Per-class
sensitive histograms roll up the same way, so every :class:`~ktype.models._base.ClassModel`
(k-anonymity, ℓ-diversity variants, t-closeness, ...) is evaluated through the rule it
declares (``rule_spec``) by the shared compiled predicate of :mod:`ktype.algorithms._rules`
(a model that declares none, through its ``class_verdicts``); with k-anonymity alone, roll-up, verdicts,
required suppression and value come from a single kernel call per node.

A node's *required suppression* is the number of records in classes that fail some model
(survey §2.2, Def. 5: the minimal suppression at a fixed distance vector is unique — remove
exactly the failing classes); the node is *feasible* when that number is at most
``floor(max_suppression * n)``.

Length: the encoded frequency set of the lattice search and the evaluation of a node from a
specialization (roll-up, verdicts through the shared rule predicate, suppression and measures) are
one data structure with its operations.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..._validation import renamed_hint
from ...data.dataset import Dataset
from ...exceptions import HierarchyError, InvalidParameterError, UnsupportedModelError
from ...models._base import ClassModel, PrivacyModel
from ...models._rulespec import DISTINCT, MIN_SIZE, RuleSpec
from ...models.kanonymity import KAnonymity
from ...models.ldiversity import DistinctLDiversity, PSensitivity
from ...models.tcloseness import TCloseness, _tree_arrays
from ...plan import FullDomainPlan
from .._rules import implied_bounds, pack, specs_of, verdicts
from ._kernels import (
    _bottom_kernel,
    _class_stats,
    _column_counts,
    _evaluate_k_kernel,
    _pack_kernel,
    _pair_counts,
    _pair_stairs,
    _rollup_kernel,
    _rollup_packed_kernel,
    _source_kernel,
    _sum_rows,
    _support_emd_kernel,
    _surcharge_packed,
    _surcharge_tab,
    _unpack_kernel,
    fast_rollup,
)

__all__ = [
    "MEASURES",
    "Encoded",
    "FrequencyCache",
    "FrequencySet",
    "NodeEval",
    "feasibility_monotone",
    "ground_distance",
    "relaxation",
    "support_conditions",
    "suppression_limit",
]

#: measures available to the lattice searches (all are losses: lower is better)
MEASURES = ("non_uniform_entropy", "loss_metric", "discernibility", "average_class_size", "precision", "height")

#: rows are bit-packed into one int64 when the columns' group ids need at most this many bits
_PACK_BITS = 62
_NEVER = np.iinfo(np.int64).max
#: :meth:`Encoded.pair_stairs` counts the pairs of columns whose tables have at most this many
#: cells, smallest first, up to ``_PAIR_TOTAL`` cells in all (32 MiB of counts)
_PAIR_CELLS = 2**16
_PAIR_TOTAL = 2**22


def suppression_limit(max_suppression: float, n: int) -> int:
    """Largest number of suppressed records allowed: ``floor(max_suppression * n)``."""
    return int(np.floor(max_suppression * n + 1e-9))


def _monotone_with_suppression(model: PrivacyModel) -> bool:
    """Whether a class failing ``model`` has only failing sub-classes (then the records a
    coarser node suppresses are suppressed at every finer node, and feasibility is monotone).

    True for k-anonymity (a sub-class is smaller; survey §2.2) and for distinct ℓ-diversity /
    p-sensitivity in class scope (a sub-class has no more distinct values): ARX's
    ``isMonotonicWithSuppression``. Other models may declare ``monotone_with_suppression``.
    """
    flag = getattr(model, "monotone_with_suppression", None)
    if flag is not None:
        return bool(flag)
    return isinstance(model, (KAnonymity, DistinctLDiversity, PSensitivity))


def _min_emd(M: int, q: np.ndarray, distance: str, tree: tuple | None) -> float:
    """Least EMD to ``q`` of any class of exactly ``M`` records (integer histograms), exact.

    Hierarchical (and equal, a one-level tree): the EMD is
    ``Σ_N w(N)·(Σ_{c child of N} |x(c)| − |x(N)|)/2`` over internal nodes ``N`` with
    ``x(N) = P(N) − Q(N)`` (``min(pos, neg) = (pos + neg − |pos − neg|)/2``), separable over
    children: a min-plus convolution of the children's tables over the number of records in
    each subtree, bottom-up. Ordered: ``Σ_i |C_i/M − Q_i|/(V−1)`` over cumulative counts
    ``C_1 ≤ … ≤ C_V = M``, a DP over ``C_i``.
    """
    idx = np.arange(M + 1)
    if distance == "ordered":
        V = len(q)
        if V <= 1:
            return 0.0
        cq = np.cumsum(q)
        f = np.abs(idx / M - cq[0]) / (V - 1)
        for i in range(1, V):
            f = np.minimum.accumulate(f) + np.abs(idx / M - cq[i]) / (V - 1)
        return float(f[M])
    assert tree is not None
    children, Q, weight, order = tree
    f: dict[int, np.ndarray] = {}
    for N in order:  # deepest first
        if not children[N]:
            f[N] = np.zeros(M + 1)
            continue
        g = np.zeros(1)
        for c in children[N]:
            hc = f.pop(c) + weight[N] / 2 * np.abs(idx / M - Q[c])
            tot = np.arange(len(g))[:, None] + idx[None, :]
            A = g[:, None] + hc[None, :]
            new = np.full(min(len(g) + M, M + 1), np.inf)
            keep = tot <= M
            np.minimum.at(new, tot[keep], A[keep])
            g = new
        f[N] = g - weight[N] / 2 * np.abs(idx[: len(g)] / M - Q[N])
    return float(f[0][M])


def tcloseness_min_size(model: TCloseness, dataset: Dataset, cap: int = 2000) -> int:
    """Smallest class size at which some class can satisfy ``model`` (t-closeness): every
    class with fewer records has an EMD above ``t`` (with a margin of 1e-9 beyond the
    checker's 1e-10 slack), whatever its values (:func:`_min_emd`). At most ``cap``."""
    q = model.table_distribution(dataset)
    tree = None
    if model.distance == "hierarchical":
        lo, hi, parent, weight = _tree_arrays(model._hierarchy(dataset))
        depth = model._hierarchy(dataset).node_depth
        nn = len(lo)
        children: list[list[int]] = [[] for _ in range(nn)]
        for c in range(1, nn):
            children[int(parent[c])].append(c)
        cq = np.concatenate([[0.0], np.cumsum(q)])
        tree = (children, cq[np.asarray(hi) + 1] - cq[np.asarray(lo)], weight, sorted(range(nn), key=lambda x: -int(depth[x])))
    elif model.distance == "equal":
        V = len(q)
        tree = ([list(range(1, V + 1))] + [[] for _ in range(V)], np.concatenate([[1.0], q]), np.concatenate([[1.0], np.zeros(V)]),
                list(range(V, -1, -1)))
    limit = float(model.t) + 1e-10 + 1e-9
    for M in range(1, min(cap, dataset.n) + 1):
        if _min_emd(M, q, model.distance, tree) <= limit:
            return M
    return min(cap, dataset.n)


def ground_distance(model: TCloseness, dataset: Dataset) -> np.ndarray:
    """``(V, V)`` ground distance of a t-closeness model between sensitive values (codes in
    leaf-rank order): equal 1 (0 on the diagonal), ordered ``|i − j|/(V − 1)``, hierarchical
    the weight ``height(N)/H`` of the lowest node ``N`` holding both (tcloseness module)."""
    V = len(model.table_distribution(dataset))
    idx = np.arange(V)
    if model.distance == "equal":
        return (idx[:, None] != idx[None, :]).astype(float)
    if model.distance == "ordered":
        return np.abs(idx[:, None] - idx[None, :]) / max(V - 1, 1)
    lo, hi, _, weight = _tree_arrays(model._hierarchy(dataset))
    d = np.full((V, V), np.inf)
    a = np.minimum(idx[:, None], idx[None, :])
    b = np.maximum(idx[:, None], idx[None, :])
    for N in range(len(lo)):
        inside = (a >= lo[N]) & (b <= hi[N])
        d[inside] = np.minimum(d[inside], weight[N])
    d[idx, idx] = 0.0
    return d


def support_conditions(models: tuple[PrivacyModel, ...], dataset: Dataset) -> list[tuple[str, np.ndarray, np.ndarray, float]]:
    """Fail-inherited conditions of the t-closeness models on a class's *set* of sensitive
    values: ``(column, ground distance, q, limit)``. A class passing ``TCloseness(t)`` has
    EMD ≤ t (+1e-10); any distribution on its value set ``D`` has EMD ≥
    ``Σ_v q_v·min_{u ∈ D} d(v, u)`` (each unit of ``q`` travels to ``D``), so that sum is
    ≤ t too; a sub-class has a subset of the values, so a larger sum: failing is inherited.
    The limit carries a margin of 1e-9 beyond the checker's slack."""
    out = []
    for m in models:
        if isinstance(m, TCloseness):
            col = m.sensitive_name(dataset)
            if col is not None:
                out.append((col, np.ascontiguousarray(ground_distance(m, dataset)), m.table_distribution(dataset),
                            float(m.t) + 1e-10 + 1e-9))
    return out


def relaxation(models: tuple[PrivacyModel, ...], dataset: Dataset) -> tuple[int, dict[str, int]]:
    """A monotone-with-suppression condition that every class passing ``models`` passes:
    ``(k', {column: d})`` = at least ``k'`` records and at least ``d`` distinct values of each
    sensitive ``column``.

    Each model's declared rule states what it implies
    (:func:`ktype.algorithms._rules.implied_bounds`: distinct ℓ-diversity and p-sensitivity
    ``ℓ`` (``p``) values, entropy ``⌈ℓ(1 − 10⁻⁹)⌉``, recursive (c, ℓ) ``ℓ``, frequency ``⌈ℓ⌉``; ``d``
    distinct values need ``d`` records); t-closeness needs at least
    :func:`tcloseness_min_size` records.
    """
    k = 1
    dist: dict[str, int] = {}
    for m, spec in specs_of(models, dataset):
        if spec is None:
            continue
        size, d = implied_bounds(spec)
        k = max(k, size)
        if isinstance(m, TCloseness):
            k = max(k, tcloseness_min_size(m, dataset))
        if d > 1 and spec.column is not None:
            dist[spec.column] = max(dist.get(spec.column, 1), d)
    return k, dist


def feasibility_monotone(models: tuple[PrivacyModel, ...], limit: int) -> bool:
    """Whether "node is feasible" is preserved by generalization for these models.

    Without suppression (``limit == 0``) that is each model's ``monotone`` flag; with
    suppression it additionally needs the model to be monotone *with suppression* (true for
    k-anonymity; other models may declare ``monotone_with_suppression``), as in ARX's
    ``isMonotonicWithSuppression``.
    """
    if not all(m.monotone for m in models):
        return False
    return limit == 0 or all(_monotone_with_suppression(m) for m in models)


@dataclass
class FrequencySet:
    """Distinct generalized tuples of one node (group ids per column), counts, histograms.

    The rows are a ``(g, r)`` table ``tab`` of group ids, or, when every column's group ids
    fit one int64 together (:attr:`Encoded.packed`), bit-packed ``codes`` (``tab`` is then
    None; :meth:`Encoded.table` decodes). The bottom node keeps both.
    """

    tab: np.ndarray | None  # (g, r) int16/int32 group ids at the node's levels
    cnt: np.ndarray  # (g,) int64
    hists: dict[str, np.ndarray] = field(default_factory=dict)  # column -> (g, V) int64
    codes: np.ndarray | None = None  # (g,) int64 bit-packed rows

    @property
    def n_rows(self) -> int:
        return int(self.cnt.shape[0])

    @property
    def nbytes(self) -> int:
        """Memory held by the set's arrays."""
        arrays = [self.tab, self.cnt, self.codes, *self.hists.values()]
        return sum(int(a.nbytes) for a in arrays if a is not None)


@dataclass
class NodeEval:
    """Result of evaluating one node."""

    n_classes: int
    suppressed: int
    feasible: bool
    value: float
    dm_bound: float
    fs: FrequencySet | None = None
    ok: np.ndarray | None = None
    inv: np.ndarray | None = None
    #: with :attr:`Encoded.relaxed`: records failing the relaxation (:func:`relaxation`), and
    #: their suppression surcharge (additive measures; unscaled)
    relaxed_sup: int = 0
    relaxed_extra: float = 0.0


class Encoded:
    """Per-dataset precomputation shared by every lattice algorithm.

    Parameters
    ----------
    dataset : Dataset
        Every quasi-identifier needs a uniform-depth tree hierarchy
        (:meth:`Hierarchy.require_levels`).
    models : tuple of ClassModel
        The privacy models (each evaluated per equivalence class).
    max_suppression : float
        Fraction of records that may be suppressed, in ``[0, 1]``.
    measure : str
        One of :data:`MEASURES`.
    weights : ndarray of int, optional
        Records per row of ``dataset.X`` (a precomputed frequency set, e.g. by a distributed
        group-by: ``ktype.dask``); ``None`` = one record per row. Only the record counts
        (``n``, leaf counts, the bottom set's counts and histograms) read it.
    """

    def __init__(
        self, dataset: Dataset, models: tuple[PrivacyModel, ...], max_suppression: float, measure: str,
        *, weights: np.ndarray | None = None,
    ) -> None:
        for m in models:
            if not isinstance(m, ClassModel):
                raise UnsupportedModelError(
                    f"Full-domain lattice search evaluates models per equivalence class; {type(m).__name__} is not a ClassModel."
                )
        if measure not in MEASURES:
            raise InvalidParameterError(
                f"Unknown lattice measure {measure!r}; use one of {', '.join(MEASURES)}.{renamed_hint(measure, MEASURES)}"
            )
        for h in dataset.hierarchies:
            h.require_levels()
        self.dataset = dataset
        self.models = tuple(models)
        self.measure = measure
        self.n = n = dataset.n if weights is None else int(np.sum(weights))
        self.r = r = dataset.r
        self.limit = suppression_limit(max_suppression, n)
        self.max_suppression = float(max_suppression)
        self.heights = np.array([h.height for h in dataset.hierarchies], dtype=np.int64)
        #: each model's declared rule (None: the model's own class_verdicts decides)
        self.specs = [spec for _, spec in specs_of(self.models, dataset)]
        self._packs = [pack([spec]) if spec is not None and spec.code != MIN_SIZE else None for spec in self.specs]
        self.k = max([int(sp.ints[0]) for sp in self.specs if sp is not None and sp.code == MIN_SIZE], default=1)
        self.monotone_feasibility = feasibility_monotone(self.models, self.limit)
        #: every rule is a minimum size (k-anonymity): a class fails iff it has fewer than ``k`` records
        self.kanon_only = all(sp is not None and sp.code == MIN_SIZE for sp in self.specs)
        X = dataset.X
        # ---- per column, per level: dense group id of each leaf rank, and group -> node
        self.gmap: list[list[np.ndarray]] = []
        self.gnode: list[list[np.ndarray]] = []
        self.ngroups: list[list[int]] = []
        # per column, per level: cost of each group for the measure (per record), column total
        self.gcost: list[list[np.ndarray]] = []
        #: per column, per level: the records of each group (``freq`` summed over its leaves)
        self.gfreq: list[list[np.ndarray]] = []
        self.colcost = np.zeros((r, int(self.heights.max()) + 1))
        self.rootcost = np.zeros(r)
        sizes = [h.size for h in dataset.hierarchies]
        foff = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
        counts = (_column_counts(X, foff, int(foff[-1])) if weights is None else
                  np.bincount((X + foff[:-1]).ravel(), np.repeat(weights, r), int(foff[-1])).astype(np.int64))
        for j, h in enumerate(dataset.hierarchies):
            freq = counts[foff[j] : foff[j + 1]]
            gm, gn, ng, gc, gf = [], [], [], [], []
            for lev in range(h.height + 1):
                nodes = h.level_nodes(lev)
                # the distinct ancestors (ascending node id) and each leaf's rank among them,
                # as np.unique(nodes, return_inverse=True) gives them, without sorting
                mark = np.zeros(len(h.node_lo), dtype=bool)
                mark[nodes] = True
                uniq = np.flatnonzero(mark)
                ids = (np.cumsum(mark, dtype=np.int32) - 1)[nodes]
                gm.append(ids)
                gn.append(uniq.astype(np.int32))
                ng.append(len(uniq))
                gfreq = np.bincount(ids, weights=freq, minlength=len(uniq))
                gf.append(gfreq)
                cost = self._group_cost(j, h, lev, uniq, gfreq)
                gc.append(cost)
                self.colcost[j, lev] = self._column_total(j, h, lev, ids, freq, gfreq, cost)
            self.gmap.append(gm)
            self.gnode.append(gn)
            self.ngroups.append(ng)
            self.gcost.append(gc)
            self.gfreq.append(gf)
            self.rootcost[j] = gc[h.height][0]
        # ---- level-up maps: group at level a -> group at level b >= a
        self._up: dict[tuple[int, int, int], np.ndarray] = {}
        self._flatten_tables()
        # ---- bottom frequency set (distinct input tuples) with per-class sensitive histograms
        ident = np.concatenate([self.gmap[j][0] for j in range(r)]).astype(np.int32)
        offs = np.concatenate([[0], np.cumsum([len(self.gmap[j][0]) for j in range(r)])[:-1]]).astype(np.int64)
        small = max(max(ng) for ng in self.ngroups) < 2**15
        self.tab_dtype = np.int16 if small else np.int32
        bottom_codes = None
        if self.packs(np.zeros(r, dtype=np.int64)):
            tab, bottom_codes, cnt, inv = _bottom_kernel(X, ident, offs, self._shifts)
            tab = tab.astype(self.tab_dtype)
        else:
            tab, cnt, inv = _rollup_kernel(np.ascontiguousarray(X, dtype=self.tab_dtype), np.ones(len(X), dtype=np.int64), ident, offs)
        if weights is not None:  # rows of X are weighted: records per distinct tuple
            cnt = np.bincount(inv, weights, len(cnt)).astype(np.int64)
        self.row_tuple = inv  # input row -> distinct tuple
        hists = {}
        self.sens_cols: list[str] = []
        for m in self.models:
            col = m.sensitive_name(dataset)
            if col is not None and col not in hists:
                V = len(dataset.sensitive_values[col])
                codes = dataset.sensitive_codes[col].astype(np.int64)
                hists[col] = np.bincount(inv * V + codes, weights, len(cnt) * V).reshape(len(cnt), V).astype(np.int64)
                self.sens_cols.append(col)
        self.bottom = FrequencySet(tab, cnt, hists, bottom_codes)
        self.model_cols = [m.sensitive_name(dataset) for m in self.models]
        #: feasibility is not monotone but suppression is allowed: evaluations also report the
        #: records failing the monotone relaxation of the models (:func:`relaxation`)
        self.relaxed = not self.monotone_feasibility and self.limit > 0
        self.relax_k, self.relax_distinct = relaxation(self.models, dataset)
        self.relax_support = support_conditions(self.models, dataset) if self.relaxed else []

    def _flatten_tables(self) -> None:
        """Per-node lookups as flat arrays for the numba kernels (no per-node Python work).

        ``_upflat[_upoff[j, a, b] + g]``: group ``g`` of column ``j`` at level ``a`` mapped to
        level ``b``; ``_costs[_coff[j, l] + g]``: the per-record surcharge
        ``rootcost_j - gcost_j(l, g)`` of suppressing a record of group ``g``. Rows are
        bit-packed (:attr:`packed`) when the columns' group ids at the levels ``pack_base`` fit
        ``_PACK_BITS`` bits together: column ``j`` in bits ``_shifts[j]..`` (``_masks[j]`` wide).
        ``pack_base`` is 0 when the level-0 ids fit; otherwise the columns with the most distinct
        values are raised (CREDITCARD: 212 bits at level 0, 62 with its twelve amount columns and
        two others at level 1), and only the frequency sets of nodes ``>= pack_base`` are packed
        (:meth:`packs`). ``_kfast`` is the ``k`` of a k-anonymity-only model set on packed rows
        (one kernel call per node), else 0.
        """
        r, H = self.r, int(self.heights.max()) + 1
        self._upoff = np.zeros((r, H, H), dtype=np.int64)
        self._coff = np.zeros((r, H), dtype=np.int64)
        ups, costs, pos, cpos = [], [], 0, 0
        for j in range(r):
            h = int(self.heights[j])
            for a in range(h + 1):
                c = self.rootcost[j] - self.gcost[j][a]
                self._coff[j, a] = cpos
                costs.append(c)
                cpos += len(c)
                for b in range(a, h + 1):
                    m = self.up(j, a, b)
                    self._upoff[j, a, b] = pos
                    ups.append(m)
                    pos += len(m)
        self._upflat = np.concatenate(ups).astype(np.int32)
        self._costs = np.concatenate(costs).astype(np.float64)
        # coarser levels have no more groups than finer ones: size each column's bit field for
        # its groups at the *packing base* level, raised (largest saving first) until the fields fit
        width = [[max(1, int(g - 1).bit_length()) for g in self.ngroups[j]] for j in range(r)]
        base = np.zeros(r, dtype=np.int64)
        bits = np.array([width[j][0] for j in range(r)], dtype=np.int64)
        while bits.sum() > _PACK_BITS:
            gain = [bits[j] - width[j][base[j] + 1] if base[j] < self.heights[j] else -1 for j in range(r)]
            j = int(np.argmax(gain))
            if gain[j] <= 0:
                break
            base[j] += 1
            bits[j] = width[j][base[j]]
        #: frequency sets of nodes ``>= pack_base`` are bit-packed (all of them when it is 0)
        self.pack_base = base
        self.packed = bool(bits.sum() <= _PACK_BITS)
        self._shifts = np.zeros(r, dtype=np.int64)
        self._shifts[:-1] = np.cumsum(bits[::-1])[::-1][1:]
        self._masks = (np.int64(1) << bits) - 1
        self._kfast = self.k if self.packed and self.kanon_only else 0
        self._surcharged = self.measure in ("non_uniform_entropy", "loss_metric", "precision")

    # ------------------------------------------------------------------ measures
    def _group_cost(self, j: int, h: Any, lev: int, nodes: np.ndarray, gfreq: np.ndarray) -> np.ndarray:
        """Per-record cost of publishing a value of column ``j`` as each group of ``lev``.

        For ``non_uniform_entropy`` the per-record cost also depends on the original value
        (``-log2 N(a)``); that part is added once per record in :meth:`_column_total` and
        cancels in the suppression surcharge, so the group cost is ``log2 N(B)``.
        """
        meas = self.measure
        if meas == "non_uniform_entropy":
            with np.errstate(divide="ignore"):
                return np.where(gfreq > 0, np.log2(np.maximum(gfreq, 1)), 0.0)
        if meas == "loss_metric":
            m = h.size
            lo = h.node_lo[nodes]
            hi = h.node_hi[nodes]
            if m <= 1:
                return np.zeros(len(nodes))
            return (hi - lo).astype(float) / (m - 1)
        if meas == "precision":
            return np.full(len(nodes), lev / h.height if h.height else 0.0)
        return np.zeros(len(nodes))

    def _column_total(self, j, h, lev, ids, freq, gfreq, cost) -> float:
        """Sum over all records of the column-``j`` cell cost at level ``lev`` (no suppression)."""
        if self.measure == "non_uniform_entropy":
            if lev == 0:  # Σ_a N(a)·log2 N(a) of the column, the same at every level
                f = freq[freq > 0].astype(float)
                self._flogf = (f * np.log2(f)).sum()
            return float((gfreq * cost).sum() - self._flogf)
        if self.measure in ("loss_metric", "precision"):
            return float((gfreq * cost).sum())
        return 0.0

    def gen_cost(self, levels: np.ndarray) -> np.ndarray:
        """Measure value of each node (rows of ``levels``) if nothing were suppressed.

        For the cell-additive measures (entropy, loss_metric, precision, height) this is a lower
        bound of the node's value and of every generalization's value, with or without
        suppression (a suppressed cell costs the root, the largest cost of its column).
        """
        levels = np.atleast_2d(levels)
        if self.measure == "height":
            return levels.sum(axis=1).astype(float)
        if self.measure in ("non_uniform_entropy", "loss_metric", "precision"):
            tot = np.zeros(len(levels))
            for j in range(self.r):
                tot += self.colcost[j, levels[:, j]]
            return self._scale(tot)
        return np.zeros(len(levels))

    def lattice_cost(self) -> np.ndarray:
        """:meth:`gen_cost` of every lattice node, by node id (mixed radix, first column most
        significant): one outer sum per column, the same additions in the same order (equal bit
        for bit), without building the level vectors."""
        if self.measure == "height":
            cols = [np.arange(int(h) + 1, dtype=float) for h in self.heights]
        elif self.measure in ("non_uniform_entropy", "loss_metric", "precision"):
            cols = [self.colcost[j, : int(self.heights[j]) + 1] for j in range(self.r)]
        else:
            return np.zeros(int(np.prod(self.heights + 1)))
        tot = np.zeros(1)
        for c in cols:
            tot = np.add.outer(tot, c).ravel()
        return tot if self.measure == "height" else self._scale(tot)

    def static_values(self) -> bool:
        """Whether a feasible node's value is exactly :meth:`gen_cost` and never decreases upward.

        True for the additive measures when no record can be suppressed (``limit == 0``: a
        feasible node suppresses nothing) and for ``height`` (which ignores suppression), provided
        each column's total ``colcost_j`` does not decrease with the level in floating point (then
        neither does the sum: rounding is monotone). Exact arithmetic guarantees it (a coarser group
        holds more leaves and records); a float tie broken the wrong way sends the search to the
        general path. Same arithmetic as :meth:`_value`, so the values agree bit for bit.
        """
        if not (self.additive and self.measure_monotone()):
            return False
        if self.measure == "height":
            return True
        rises = np.diff(self.colcost, axis=1)  # column j's levels 0..h_j, zero-padded beyond
        return bool((rises[np.arange(rises.shape[1])[None, :] < self.heights[:, None]] >= 0).all())

    def _scale(self, x):
        if self.measure in ("loss_metric", "precision"):
            return x / (self.n * self.r)
        return x

    @property
    def additive(self) -> bool:
        """Whether the measure is a sum of per-cell costs (lower-bounded by :meth:`gen_cost`)."""
        return self.measure in ("non_uniform_entropy", "loss_metric", "precision", "height")

    def column_floor(self) -> np.ndarray | None:
        """Per column ``j``, the least level ``f_j`` a node needs in column ``j`` alone to be
        feasible: every node with some ``L_j < f_j`` is infeasible (for the relaxation, when
        :attr:`relaxed`), whatever its other levels. None when a column has no such level.

        A class of node ``L`` lies inside one group of column ``j`` at level ``L_j``, so a group
        of ``1 .. relax_k − 1`` records holds only classes smaller than ``relax_k`` — the least
        size of a class passing every model (:func:`relaxation`; ``k`` for k-anonymity) — and
        all its records are suppressed: ``sup(L) ≥ S_j(L_j)``, the records of such groups.
        ``S_j`` does not increase with the level (a small group at ``l + 1`` is a union of small
        groups at ``l``), so ``f_j`` is the least level with ``S_j ≤ limit``.
        """
        t = self.relax_k
        floor = np.zeros(self.r, dtype=np.int64)
        if t <= 1:
            return floor
        for j in range(self.r):
            lev = 0
            for g in self.gfreq[j]:
                if float(g[(g > 0) & (g < t)].sum()) <= self.limit:
                    break
                lev += 1
            floor[j] = lev
        if (floor > self.heights).any():
            return None
        return floor

    def pair_stairs(self, floor: np.ndarray, src: FrequencySet | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
        """The :meth:`column_floor` argument for pairs of columns: ``(pa, pb, stairs)`` with
        ``stairs[p, la]`` the least level of column ``pb[p]`` at which a node with level ``la``
        in column ``pa[p]`` can be feasible (``heights + 1``: none). None when the top node
        itself fails this test (the search then evaluates it and reports its suppression).

        A class of node ``L`` lies inside one pair of groups of columns ``a, b`` at levels
        ``L_a, L_b``; a pair of groups with ``1 .. relax_k − 1`` records holds only failing
        classes, so ``sup(L) ≥ S_ab(L_a, L_b)``, the records of such pairs, which does not
        increase with either level (as for one column). The pair tables are counted in one pass
        over the bottom frequency set at the floor levels (pairs of at most ``_PAIR_CELLS``
        cells, smallest first, ``_PAIR_TOTAL`` in all) and rolled up per level pair
        (:func:`_pair_stairs`).
        """
        r = self.r
        G = np.array([self.ngroups[j][int(floor[j])] for j in range(r)], dtype=np.int64)
        # a column of one group adds nothing to the other's floor; at most _PAIR_TOTAL cells in
        # all (smallest tables first)
        pairs = sorted(((a, b) for a in range(r) for b in range(a + 1, r) if G[a] > 1 and G[b] > 1 and G[a] * G[b] <= _PAIR_CELLS),
                       key=lambda ab: (G[ab[0]] * G[ab[1]], ab))
        keep = np.cumsum([G[a] * G[b] for a, b in pairs]) <= _PAIR_TOTAL
        pairs = sorted(ab for ab, ok in zip(pairs, keep) if ok)
        if not pairs:
            return None
        pa = np.array([a for a, _ in pairs], dtype=np.int64)
        pb = np.array([b for _, b in pairs], dtype=np.int64)
        sizes = G[pa] * G[pb]
        poff = np.zeros(len(pairs), dtype=np.int64)
        poff[1:] = np.cumsum(sizes)[:-1]
        if src is None:
            src, src_levels = self.bottom, np.zeros(r, dtype=np.int64)
        else:
            src_levels = floor
        base = np.array([self._upoff[j, int(src_levels[j]), int(floor[j])] for j in range(r)], dtype=np.int64)
        counts = _pair_counts(self.table(src), src.cnt, self._upflat, base, G, pa, pb, poff, int(sizes.sum()))
        H = int(self.heights.max()) + 1
        ng = np.zeros((r, H), dtype=np.int64)
        for j in range(r):
            ng[j, : len(self.ngroups[j])] = self.ngroups[j]
        stairs = _pair_stairs(counts, self._upflat, self._upoff, floor, self.heights, ng, G, pa, pb, poff,
                              int(self.relax_k), int(self.limit))
        if (stairs[np.arange(len(pairs)), self.heights[pa]] > self.heights[pb]).any():
            return None
        return pa, pb, stairs

    def measure_monotone(self) -> bool:
        """Whether the measure can only grow under generalization in this setting."""
        return self.measure == "height" or self.limit == 0

    # ------------------------------------------------------------------ evaluation
    def up(self, j: int, a: int, b: int) -> np.ndarray:
        key = (j, a, b)
        m = self._up.get(key)
        if m is None:
            ga = self.gmap[j][a]
            rep = np.zeros(self.ngroups[j][a], dtype=np.int64)
            rep[ga] = np.arange(len(ga))  # a leaf of each group (any)
            m = self.gmap[j][b][rep].astype(np.int32)
            self._up[key] = m
        return m

    def packs(self, levels: np.ndarray) -> bool:
        """Whether the frequency set of node ``levels`` is bit-packed (``levels >= pack_base``)."""
        return self.packed and bool((np.asarray(levels) >= self.pack_base).all())

    def table(self, fs: FrequencySet) -> np.ndarray:
        """The ``(g, r)`` group-id table of a frequency set (decoded when bit-packed)."""
        if fs.tab is not None:
            return fs.tab
        return _unpack_kernel(fs.codes, self._shifts, self._masks).astype(self.tab_dtype)

    def rollup(self, src: FrequencySet, src_levels, dst_levels, cols=None, need_inv: bool = False):
        """Frequency set of ``dst_levels`` from a finer node's frequency set (on ``cols``).

        Returns ``(fs, inv)``; ``inv`` (the output row of each source row) is computed when
        ``need_inv`` or when histograms must be summed, else it is an empty array.
        """
        want_inv = need_inv or bool(src.hists)
        if cols is None and src.codes is not None:
            codes, cnt, inv = _rollup_packed_kernel(
                src.codes,
                src.cnt,
                self._upflat,
                self._upoff,
                self._shifts,
                self._masks,
                np.asarray(src_levels, dtype=np.int64),
                np.asarray(dst_levels, dtype=np.int64),
                want_inv,
            )
            tab = None
        else:
            whole = cols is None
            cols = range(self.r) if cols is None else cols
            maps = [self.up(j, int(a), int(b)) for j, a, b in zip(cols, src_levels, dst_levels)]
            offs = np.zeros(len(maps), dtype=np.int64)
            if len(maps) > 1:
                offs[1:] = np.cumsum([len(x) for x in maps])[:-1]
            radix = [self.ngroups[j][int(b)] for j, b in zip(cols, dst_levels)]
            tab, cnt, inv = fast_rollup(self.table(src), src.cnt, maps, offs, radix)
            codes = None
            if whole and self.packs(dst_levels):
                # a roll-up from below the packing base (the bottom) into the packed region
                codes, tab = _pack_kernel(tab, self._shifts), None
        hists = {c: _sum_rows(inv, hsrc, len(cnt)) for c, hsrc in src.hists.items()}
        return FrequencySet(tab, cnt, hists, codes), inv

    def verdicts(self, fs: FrequencySet) -> np.ndarray:
        """Whether each class passes every model: its declared rule decided by the shared
        predicate (:func:`ktype.algorithms._rules.verdicts`); a model that declares no rule by
        its own ``class_verdicts``."""
        if self._kfast:
            return fs.cnt >= self._kfast
        ok = np.ones(fs.n_rows, dtype=bool)
        for m, spec, rules, col in zip(self.models, self.specs, self._packs, self.model_cols):
            hist = fs.hists.get(col) if col else None
            if spec is not None and spec.code == MIN_SIZE:
                ok &= fs.cnt >= spec.ints[0]
            elif rules is not None and hist is not None:
                ok &= verdicts(rules, hist, fs.cnt)
            else:  # a model that declares no rule: its own per-class verdicts
                ok &= np.asarray(m.class_verdicts(fs.cnt, hist, self.dataset), dtype=bool)
        return ok

    def evaluate(
        self, src: FrequencySet, src_levels, levels, *, keep: bool = True, need_inv: bool = False, always_value: bool = False
    ) -> NodeEval:
        """Evaluate node ``levels`` by rolling up ``src`` (the frequency set of ``src_levels``).

        With k-anonymity as the only model, roll-up, verdicts, required suppression, the
        discernibility bound and the suppression surcharge of the value come from one numba
        call (:func:`_evaluate_k_kernel`); otherwise the models' rules (:meth:`verdicts`) run on
        the rolled-up sizes and histograms.
        """
        levels = np.asarray(levels, dtype=np.int64)
        if self._kfast and src.codes is not None and not src.hists:
            # the surcharge is only needed for the value of a feasible node (or always_value)
            codes, cnt, inv, ok, n_ok, sup, sq, dm, extra = _evaluate_k_kernel(
                src.codes,
                src.cnt,
                self._upflat,
                self._upoff,
                self._shifts,
                self._masks,
                np.asarray(src_levels, dtype=np.int64),
                levels,
                self._kfast,
                self._costs,
                self._coff,
                self.limit if self._surcharged else -1,
                always_value and self._surcharged,
                need_inv,
            )
            fs = FrequencySet(None, cnt, {}, codes)
        else:
            fs, inv = self.rollup(src, src_levels, levels, need_inv=need_inv)
            ok = self.verdicts(fs)
            n_ok, sup, sq, dm = _class_stats(fs.cnt, ok, self.k)
            extra = self._surcharge(fs, ok, levels) if sup and (sup <= self.limit or always_value) else 0.0
        feasible = sup <= self.limit
        # the value of an infeasible node is never used (only its bound, for discernibility)
        value = self._value(levels, n_ok, sup, sq, extra) if (feasible or always_value) else np.nan
        dm_bound = dm if self.measure == "discernibility" else 0.0
        ev = NodeEval(n_ok, sup, feasible, value, dm_bound, fs if keep else None, ok, inv if need_inv else None)
        if self.relaxed:
            ok2 = fs.cnt >= self.relax_k
            for col, d in self.relax_distinct.items():
                ok2 &= verdicts(pack([RuleSpec(DISTINCT, (d,), column=col)]), fs.hists[col], fs.cnt)
            for col, dist, q, lim in self.relax_support:
                ok2 &= _support_emd_kernel(fs.hists[col], dist, q) <= lim
            _, ev.relaxed_sup, _, _ = _class_stats(fs.cnt, ok2, self.k)
            if ev.relaxed_sup:
                ev.relaxed_extra = self._surcharge(fs, ok2, levels)
        return ev

    def _surcharge(self, fs: FrequencySet, ok: np.ndarray, levels: np.ndarray) -> float:
        """Extra cost of the failing classes' records published as the root (additive measures)."""
        if not self._surcharged:
            return 0.0
        if fs.tab is None:
            return float(_surcharge_packed(fs.codes, fs.cnt, ok, self._costs, self._coff, levels, self._shifts, self._masks))
        return float(_surcharge_tab(fs.tab, fs.cnt, ok, self._costs, self._coff, levels))

    def _value(self, levels: np.ndarray, n_ok: int, sup: int, sq: float, extra: float) -> float:
        """The measure of a node from its class statistics (:func:`_class_stats`; see docs/fulldomain.md).

        Discernibility ``Σ_ok |E|² + n·sup``; average class size ``(n − sup)/#classes/k``;
        the additive measures ``Σ_j colcost_j(L_j)`` (no suppression) plus the surcharge of
        the suppressed records, which pay, per cell, the root's cost minus their group's cost.
        """
        meas = self.measure
        n = self.n
        if meas == "height":
            return float(levels.sum())
        if meas == "discernibility":
            return float(sq + float(sup) * n)
        if meas == "average_class_size":
            return float(n - sup) / n_ok / self.k if n_ok else float("inf")
        base = float(sum(self.colcost[j, levels[j]] for j in range(self.r)))
        if sup:
            base += extra
        return float(self._scale(base))

    # ------------------------------------------------------------------ release
    def release_arrays(self, levels: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, NodeEval]:
        """``lo, hi, suppressed`` per input row for node ``levels``."""
        levels = np.asarray(levels, dtype=np.int64)
        ev = self.evaluate(self.bottom, np.zeros(self.r, dtype=np.int64), levels, need_inv=True)
        X = self.dataset.X
        # the plan ktype.dask applies partition by partition (ktype.plan)
        lo, hi = FullDomainPlan(tuple(levels)).apply(self.dataset.hierarchies, [X[:, j] for j in range(X.shape[1])])
        suppressed = ~ev.ok[ev.inv[self.row_tuple]]
        return lo, hi, suppressed, ev


class FrequencyCache:
    """Frequency sets of evaluated nodes kept as roll-up sources, within ``budget`` bytes.

    The bottom node's set (key ``0``; ``bottom``, by default ``enc.bottom``) is always kept; beyond the budget the oldest entries
    (in a bottom-up search: the lowest, largest sets) are evicted first. Keys are any
    hashable node names (node ids, level-vector bytes).
    """

    def __init__(self, enc: Encoded, budget: int, bottom: FrequencySet | None = None) -> None:
        self.budget = budget
        self._sets: dict[Any, FrequencySet] = {}
        self._keys: list[Any] = []
        self._bytes = 0
        self._n = 0
        self._evict_next = 0
        self._rows = np.zeros(64, dtype=np.int64)
        self._levels = np.zeros((64, enc.r), dtype=np.int64)
        self.put(0, np.zeros(enc.r, dtype=np.int64), enc.bottom if bottom is None else bottom)

    def __contains__(self, key: Any) -> bool:
        return key in self._sets

    def get(self, key: Any) -> FrequencySet:
        return self._sets[key]

    def put(self, key: Any, levels: np.ndarray, fs: FrequencySet) -> None:
        """Cache ``fs`` (the frequency set of ``levels``) under ``key``."""
        size = fs.nbytes
        if key in self._sets or (size > self.budget and self._n):
            return
        while self._bytes + size > self.budget and self._evict_next < self._n:
            i = self._evict_next
            self._evict_next += 1
            old = self._keys[i]
            if i == 0 or self._rows[i] == _NEVER:
                continue
            self._bytes -= self._sets.pop(old).nbytes
            self._rows[i] = _NEVER
        k = self._n
        if k == len(self._rows):
            self._rows = np.concatenate([self._rows, np.zeros(k, dtype=np.int64)])
            self._levels = np.concatenate([self._levels, np.zeros_like(self._levels)])
        self._sets[key] = fs
        self._keys.append(key)
        self._rows[k] = fs.n_rows
        self._levels[k] = levels
        self._n = k + 1
        self._bytes += size

    def source(self, levels: np.ndarray) -> tuple[Any, np.ndarray, FrequencySet]:
        """The cached node below ``levels`` (itself included) with the fewest rows:
        ``(key, its levels, its set)``."""
        i = int(_source_kernel(self._levels, self._rows, self._n, np.asarray(levels, dtype=np.int64)))
        key = self._keys[i]
        return key, self._levels[i], self._sets[key]


def require_levels(dataset: Dataset, algorithm: str) -> None:
    """Raise a HierarchyError naming the algorithm when a QI has no uniform levels."""
    for h in dataset.hierarchies:
        try:
            h.require_levels()
        except HierarchyError as e:
            raise HierarchyError(f"{algorithm} uses full-domain recoding: {e}") from None
