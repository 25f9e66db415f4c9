"""Transparent ℓ-diversity algorithms: Tailor, Ace and Hybrid (Xiao, Tao & Koudas,
"Transparent anonymization: thwarting adversaries who know the algorithm", ACM TODS 35(2),
2010, §3-4).

All three publish the MBR of each group (the paper's generalization function f) and are
**transparent**: an adversary who knows the algorithm, ℓ and the external source still has
posterior risk ≤ 1/ℓ on every individual (Theorems 1-3; checked exactly on tiny tables by
:class:`ktype.models.transparent.TransparentLDiversity` with ``method="exact"``).

Shared conventions (the perimeter of §3, Eq. 4; the rules that keep them transparent are in
docs/design/transparency.md):

* **Perimeter** ``h_p(G) = |G|·Σ_i (max−min)/ext_i`` with the extents of the *whole input*
  (also inside Hybrid's per-leaf Ace calls). Numeric integer QIs use their values, other
  QIs their leaf ranks. Compared exactly (integers scaled by Π ext_i) whenever
  ``n·d·Π ext_i < 2^62``, else in floating point.
* **Public tie-break key A^id**: the identifier column(s), sorted; rows with equal (or no)
  identifiers are ordered by a *secret* uniformly random permutation drawn from ``rng``
  (never the input row order: rule R4). A mixture of transparent algorithms over
  data-independent random orders is transparent, so this keeps the guarantee when the
  table has no identifier. With distinct identifiers Tailor is deterministic.
* **Assign's draws** use a second, independent secret permutation (uniform draws without
  replacement, independent of QIs: rule R2); value ties follow the sorted value domain
  (R6).
* **Output**: rows in canonical order (sorted by box, then sensitive value; R5);
  hierarchical QIs publish the lowest common ancestor of the group's values (a QI-only
  function, so transparency is kept). The release is labelled ``multidimensional``
  (partition-based: each published box is one group's MBR; boxes may coincide or overlap,
  as in relaxed Mondrian), so ℓ-diversity models check it per equivalence class.
* The paper returns ∅ for a table that is not ℓ-eligible; ktype raises
  :class:`~ktype.exceptions.InfeasibleError` naming the most frequent value instead.
"""

from __future__ import annotations

from typing import Any

import numba
import numpy as np

from ..._grouping import group_rows, lexsort_rows
from ...data.dataset import Dataset
from ...exceptions import InfeasibleError
from ...models._base import PrivacyModel
from ...release import Release, _sort_codes
from .._registry import register
from .._runs import boxes_by_run
from . import _kernels as K
from ._common import _canonical_order, integer_distinct, perimeter_coordinates

__all__ = ["tailor", "ace", "hybrid", "prepare", "tailor_groups", "ace_groups"]


def _models() -> tuple[type, ...]:
    from ...models.transparent import TransparentLDiversity

    return (TransparentLDiversity,)


def _ell(dataset: Dataset, models: tuple[PrivacyModel, ...], name: str) -> tuple[int, str]:
    """The integer ℓ and the sensitive column of the (single) TransparentLDiversity model."""
    (m,) = models
    return int(m.l), dataset.sensitive_column(getattr(m, "sensitive", None))  # type: ignore[attr-defined]


class Prepared:
    """Everything the kernels read, computed once from the input (QIs, ids, coordinates)."""

    def __init__(self, dataset: Dataset, sensitive: str, l: int, rng: np.random.Generator) -> None:  # noqa: E741
        n, d = dataset.n, dataset.r
        self.n, self.d, self.l = n, d, l
        self.X = np.ascontiguousarray(dataset.X, dtype=np.int32)
        self.s = np.ascontiguousarray(dataset.sensitive_codes[sensitive], dtype=np.int64)
        self.n_values = len(dataset.sensitive_values[sensitive])
        counts = np.bincount(self.s, minlength=self.n_values)
        if counts.max() * l > n:
            v = int(counts.argmax())
            raise InfeasibleError(
                f"The table is not {l}-eligible: value {dataset.sensitive_values[sensitive][v]!r} of {sensitive!r} occurs "
                f"{int(counts[v])} times, more than n/ℓ = {n / l:.4g}; no {l}-diverse anonymization exists. Lower ℓ."
            )
        self.W, self.M = perimeter_coordinates(dataset, self.X)
        self.exact = self.W.dtype == np.int64
        # secret permutations over a canonical content order (never the input order)
        # an integer identifier's distinct values serve both orders below (one sort, not two)
        distinct = {c: integer_distinct(dataset, c) for c in dataset.identifiers}
        canon = _canonical_order(dataset, self.s, distinct)
        tie = np.empty(n, dtype=np.int64)
        tie[canon] = rng.permutation(n)
        if dataset.identifiers:
            # an identifier may have empty cells (it is removed anyway): missing values sort last
            # (an integer column has none: its codes are its ranks among the distinct values)
            idcols = [_sort_codes(dataset.data[c].to_numpy()).astype(np.int64) if distinct[c] is None
                      else distinct[c][1].astype(np.int64) for c in dataset.identifiers]
            order = lexsort_rows(idcols + [tie])
        else:
            order = np.argsort(tie, kind="stable")
        self.key = np.empty(n, dtype=np.int64)
        self.key[order] = np.arange(n, dtype=np.int64)
        self.draw = np.empty(n, dtype=np.int64)
        self.draw[canon] = rng.permutation(n)

    def sorted_orders(self) -> np.ndarray:
        """Rows sorted by (A_i, key), one row of the result per QI."""
        dt = np.int32 if self.n < 2**31 else np.int64
        ords = np.empty((self.d, self.n), dtype=dt)
        # ``key`` is a permutation: the rows in key order are its inverse, and a stable sort of
        # those rows by X[:, i] alone gives the (X[:, i], key) order (numpy sorts 16-bit keys
        # stably by radix, in linear time)
        by_key = np.empty(self.n, dtype=np.int64)
        by_key[self.key] = np.arange(self.n, dtype=np.int64)
        for i in range(self.d):
            x = self.X[:, i].take(by_key)
            if x.size and 0 <= x.min() and x.max() < 2**15:
                x = x.astype(np.int16)
            ords[i] = by_key[np.argsort(x, kind="stable")]
        return ords


def prepare(dataset: Dataset, sensitive: str, l: int, rng: np.random.Generator) -> Prepared:  # noqa: E741
    """Shared preprocessing of Tailor, Ace and Hybrid (see :class:`Prepared`)."""
    return Prepared(dataset, sensitive, l, rng)


def tailor_groups(p: Prepared) -> tuple[np.ndarray, int]:
    """Tailor's partition: leaf id per row (Fig. 3)."""
    group, g = K.tailor_kernel(p.X, p.W, p.M, p.sorted_orders(), p.s, p.n_values, p.l, 2, numba.get_num_threads())
    return group, int(g)


def ace_groups(p: Prepared, leaf: np.ndarray | None = None) -> tuple[np.ndarray, int]:
    """Ace's final groups inside each leaf (the whole table when ``leaf`` is None)."""
    n = p.n
    if leaf is None:
        leaf = np.zeros(n, dtype=np.int64)
    n_leaves = int(leaf.max()) + 1
    # rows by (leaf, value, secret draw): ``draw`` is a permutation, so the rows taken in draw
    # order and then counting-sorted (stably) by (leaf, value) are the argsort of that key
    by_draw = np.empty(n, dtype=np.int64)
    by_draw[p.draw] = np.arange(n, dtype=np.int64)
    key = leaf.astype(np.int64) * p.n_values + p.s
    order, _ = K.rows_by_label(key[by_draw], n_leaves * p.n_values)
    rows = by_draw[order]
    leaf_start = np.zeros(n_leaves + 1, dtype=np.int64)
    leaf_start[1:] = np.cumsum(np.bincount(leaf, minlength=n_leaves))
    group, g = K.ace_kernel(rows, leaf_start, p.s, p.n_values, p.l, p.X, p.W, p.M, p.key, numba.get_num_threads())
    if g < 0:  # pragma: no cover - every leaf is l-eligible by construction
        raise InfeasibleError("Assign found a leaf that is not ℓ-eligible.")
    return group, int(g)


def _release(dataset: Dataset, p: Prepared, group: np.ndarray, n_groups: int, name: str, extra: dict[str, Any]) -> Release:
    lo, hi = K.group_boxes(p.X, group, n_groups)
    for j, h in enumerate(dataset.hierarchies):
        if h.is_tree:
            lo[:, j], hi[:, j] = h.closure(lo[:, j], hi[:, j])
    # one class id per distinct published box: groups that share a box must not stay
    # apart in the row order (the group structure is not part of T*; docs/design/transparency.md R5)
    box_id, n_boxes = group_rows(lo, hi)
    # hand the rows over box by box (input order inside a box): each box then fills its run of
    # rows (boxes_by_run) instead of being gathered row by row, and the canonical sort works on
    # runs of whole boxes. It breaks ties within a box by the input order either way, so the
    # release is the same.
    order, start = K.rows_by_label(box_id[group], n_boxes)
    first = np.empty(n_boxes, dtype=np.int64)
    first[box_id] = np.arange(n_groups, dtype=np.int64)  # a group of each box
    size = np.diff(start)
    prov = {
        "algorithm": name,
        "groups": n_groups,
        "perimeter_arithmetic": "exact (integers)" if p.exact else "floating point",
        "tie_break": "identifier order, then secret random" if dataset.identifiers else "secret random order (no identifier column)",
        **extra,
    }
    box_lo, box_hi = boxes_by_run(np.ascontiguousarray(lo[first]), np.ascontiguousarray(hi[first]), size, len(order))
    return Release.build(dataset, box_lo, box_hi, source=order,
                         recoding="multidimensional", classes=np.repeat(np.arange(n_boxes, dtype=np.int64), size),
                         provenance=prov, copy=False)


_REF = "Xiao, Tao, Koudas, Transparent anonymization, ACM TODS 35(2) 2010"


@register(
    "tailor",
    models=_models,
    recoding="multidimensional",
    randomized=True,
    combinable=False,
    description="Transparent ℓ-diversity by top-down canonical ℓ-cuts (kd-tree-like splitting).",
    reference=_REF + ", §3.1 Fig. 3",
)
def tailor(dataset: Dataset, models: tuple[PrivacyModel, ...], *, rng: np.random.Generator) -> Release:
    """Tailor: split every 2ℓ-diverse group by its canonical ℓ-cut (paper §3.1, Fig. 3).

    An ℓ-cut of G on A_i is a prefix of G sorted by (A_i, id) with both sides at least
    ℓ·c tuples (c = G's largest value count, the only sensitive information a decision
    reads); the canonical one has the least perimeter, ties to the smallest dimension,
    then the smallest prefix. Final groups are ℓ-diverse and not 2ℓ-diverse.

    Guarantee: transparent ℓ-diversity (Theorem 1 via Lemmas 2-3). Deterministic given
    the public identifier order; ``rng`` only orders rows without a distinct identifier
    (secretly). Complexity O(d²·n·depth) after d sorts (worst case O(n²), paper §3.1).
    Deviation: a table that is not ℓ-eligible raises ``InfeasibleError`` instead of ∅.
    """
    l_val, col = _ell(dataset, models, "tailor")
    p = prepare(dataset, col, l_val, rng)
    group, g = tailor_groups(p)
    return _release(dataset, p, group, g, "tailor", {"l": l_val})


@register(
    "ace",
    models=_models,
    recoding="multidimensional",
    randomized=True,
    combinable=False,
    description="Transparent ℓ-diversity by random bucketization (Assign) and canonical divisions (Slice).",
    reference=_REF + ", §3.2 Figs. 5-8",
)
def ace(dataset: Dataset, models: tuple[PrivacyModel, ...], *, rng: np.random.Generator) -> Release:
    """Ace = Assign + Slice (paper §3.2, Figs. 5, 6, 8).

    Assign repeatedly takes the β ≥ ℓ most frequent values (ties by the sorted value
    domain) and α uniformly random tuples of each, with the largest α that keeps the rest
    ℓ-eligible; Slice divides every bucket by canonical divisions until each column has
    one tuple, so every final group has β ≥ ℓ tuples with pairwise distinct values. Fig. 6
    as printed loops forever (its Line 9, "β = β + 1; goto Line 7", goes back to "β = l");
    ktype goes back to the α computation instead, the first of the two lines numbered 8.

    Guarantee: transparent ℓ-diversity (Theorem 2 via Lemmas 4-6). Randomized: ``rng``
    (secret OS entropy when None). Complexity O(n²·log n) worst case (paper), about
    O(d·n·log² n) for balanced divisions.
    """
    l_val, col = _ell(dataset, models, "ace")
    p = prepare(dataset, col, l_val, rng)
    group, g = ace_groups(p)
    return _release(dataset, p, group, g, "ace", {"l": l_val})


@register(
    "hybrid",
    models=_models,
    recoding="multidimensional",
    randomized=True,
    combinable=False,
    description="Transparent ℓ-diversity: Tailor's partition, then Ace inside each leaf (global normalizers).",
    reference=_REF + ", §3.3",
)
def hybrid(dataset: Dataset, models: tuple[PrivacyModel, ...], *, rng: np.random.Generator) -> Release:
    """Hybrid: Tailor's partition, then Ace inside every leaf (paper §3.3).

    Each Tailor leaf is ℓ-diverse, so each inner Ace call succeeds; the perimeter
    normalizers are the whole input's extents in every call (docs/design/transparency.md
    R7). Final groups are Ace groups (β ≥ ℓ distinct values, one tuple per column) that
    refine Tailor's partition.

    Guarantee: transparent ℓ-diversity (Theorem 3). Randomized (``rng``).
    """
    l_val, col = _ell(dataset, models, "hybrid")
    p = prepare(dataset, col, l_val, rng)
    leaf, n_leaves = tailor_groups(p)
    group, g = ace_groups(p, leaf)
    return _release(dataset, p, group, g, "hybrid", {"l": l_val, "tailor_leaves": n_leaves})
from . import mask, mondrian_ldiv  # noqa: E402,F401  (register the Mask and ℓ-diverse Mondrian baselines)
