"""Mask (Wong, Fu, Wang, Pei, "Minimality attack in privacy preserving data publishing",
VLDB 2007), the non-transparent baseline of Xiao, Tao & Koudas (TODS 2010, §4.1 with
``k = l`` as its footnote 6 says, and the electronic appendix's attack on it).

Mask defeats the *minimality* attack but not an adversary who knows Mask itself (the
appendix's attack, reproduced in :mod:`ktype.attacks.transparent`: risk 7/12 > 1/2).
"""

from __future__ import annotations

import math

import numpy as np

from ..._validation import Interval
from ...data.dataset import Dataset
from ...exceptions import InfeasibleError, UnsupportedModelError
from ...models._base import PrivacyModel
from ...models._rulespec import FREQUENCY
from ...release import Release
from .._registry import register
from .._rules import pack, rule_verdicts
from . import _kernels as K
from ._common import _canonical_order, perimeter_coordinates

__all__ = ["mask"]


def _models() -> tuple[type, ...]:
    from ...models.ldiversity import FrequencyLDiversity
    from ...models.transparent import ProtectedLDiversity

    return (FrequencyLDiversity, ProtectedLDiversity)


def scaled_counts(hist: np.ndarray, size: int) -> np.ndarray:
    """Each row's distribution scaled to ``size`` tuples: floors, then +1 to the largest
    remainders, ties to the smaller value code (vectorized over rows)."""
    tot = hist.sum(axis=1, keepdims=True)
    prod = hist * size
    base = prod // tot
    rem_v = prod % tot
    need = size - base.sum(axis=1)
    nv = hist.shape[1]
    order = np.argsort(-rem_v, axis=1, kind="stable")  # stable: ties keep the value order
    rank = np.empty_like(order)
    np.put_along_axis(rank, order, np.arange(nv)[None, :].repeat(len(hist), 0), axis=1)
    return base + (rank < need[:, None])


def capped_counts(pooled: np.ndarray, size: int, cap: int) -> np.ndarray | None:
    """``pooled`` scaled to ``size`` with at most ``cap`` per value: scaled counts clipped at
    the cap, then the deficit filled one by one over the values by descending pooled count
    (ties: value order) that are below the cap; None if ``cap · #values < size``."""
    nz = np.flatnonzero(pooled)
    if cap * len(nz) < size or cap <= 0:
        return None
    base = np.minimum(scaled_counts(pooled[None, :], size)[0], cap)
    order = nz[np.argsort(-pooled[nz], kind="stable")]
    while base.sum() < size:  # at most #values passes over the (<= a few hundred) values
        for v in order:
            if base.sum() == size:
                break
            if base[v] < cap:
                base[v] += 1
    return base


@register(
    "mask",
    models=_models,
    recoding="multidimensional",
    randomized=True,
    combinable=False,
    constraints={"k": [Interval(int, 1, None, closed="left"), None]},
    description="Mask baseline: k-anonymous Mondrian groups; non-ℓ-diverse groups take a random diverse group's values (NOT transparent).",
    reference="Wong et al., Minimality attack, VLDB 2007; Xiao, Tao, Koudas TODS 2010 appendix",
)
def mask(dataset: Dataset, models: tuple[PrivacyModel, ...], *, k: int | None = None, rng: np.random.Generator) -> Release:
    """Mask (Wong et al. 2007, as used by Xiao et al. with k = ℓ): **alters sensitive values**.

    1. A k-anonymous partition (the paper allows any k-anonymity algorithm): the strict
       Mondrian of :func:`._kernels.strict_mondrian_kernel` (dimensions by
       decreasing normalized width, lower median, both halves ≥ k), QI-only.
    2. Every group in which some *protected* value (the paper's V: the values of
       ``ProtectedLDiversity(l, values=V)``; every value with ``FrequencyLDiversity(l)``) occurs more than |G|/ℓ times publishes instead the value distribution of a group G+ drawn uniformly from the
       ℓ-diverse groups whose distribution, scaled to |G| (floors, then largest remainders,
       ties by value order), passes the same test for |G| (the paper is silent on unequal sizes); if
       none fits, the pooled distribution of the ℓ-diverse groups (of the whole table when
       there is none) capped at ⌊|G|/ℓ⌋ per value
       (:func:`capped_counts`; deterministic).
    3. Each group publishes its MBR; the release's sensitive column holds the published
       (possibly modified) values, and the row order is canonical.

    ``k`` defaults to ⌈ℓ⌉. V is recorded in the provenance (``"protected"``) so that
    :func:`ktype.attacks.transparent.attack` models the same algorithm. Guarantee: the model on
    the *published* values (no protected value above |G|/ℓ in any group); not
    transparent (see :func:`ktype.attacks.transparent.attack` with ``"mask"``), and the
    published sensitive values of modified groups are not the true ones. Raises
    ``InfeasibleError`` if a group needs a replacement and no diverse group qualifies.
    Complexity O(d·n·log² n) (numba).
    """
    (m,) = models
    spec = m.rule_spec(dataset)  # type: ignore[attr-defined]
    if spec is None or spec.code != FREQUENCY:
        raise UnsupportedModelError(f"mask replaces values by a frequency ℓ-diversity rule; {m} declares another rule.")
    col = spec.column
    num, den = spec.ints[0], spec.ints[1]  # l = num/den: the cap per value below
    kk = int(math.ceil(num / den)) if k is None else int(k)
    X = np.ascontiguousarray(dataset.X, dtype=np.int32)
    W, M = perimeter_coordinates(dataset, X)
    s = dataset.sensitive_codes[col].astype(np.int64)
    nv = len(dataset.sensitive_values[col])
    group, g = K.strict_mondrian_kernel(X, W, M, s, nv, kk, pack([]))  # QI-only: no diversity test
    protected = getattr(m, "values", None)  # ProtectedLDiversity: V (its rule's mask); FrequencyLDiversity: every value
    lo, hi = K.group_boxes(X, group, g)
    # canonical group numbering (by box) so that the random choices do not depend on the input order
    from ..._grouping import lexsort_rows

    gorder = lexsort_rows([lo[:, j] for j in range(dataset.r)] + [hi[:, j] for j in range(dataset.r)])
    grank = np.empty(g, dtype=np.int64)
    grank[gorder] = np.arange(g)
    group = grank[group]
    lo, hi = lo[gorder], hi[gorder]
    for j, h in enumerate(dataset.hierarchies):
        if h.is_tree:
            lo[:, j], hi[:, j] = h.closure(lo[:, j], hi[:, j])
    hist = np.zeros((g, nv), dtype=np.int64)
    np.add.at(hist, (group, s), 1)
    size = hist.sum(axis=1)
    bad = ~rule_verdicts(spec, size, hist)
    good_idx = np.flatnonzero(~bad)
    new_hist = hist.copy()
    if bad.any():
        for sz in np.unique(size[bad]):  # loop over distinct group sizes (a handful)
            if len(good_idx):
                sc = scaled_counts(hist[good_idx], int(sz))
                ok = rule_verdicts(spec, np.full(len(sc), int(sz)), sc)
            else:
                ok = np.zeros(0, dtype=bool)
            cand = good_idx[ok]
            targets = np.flatnonzero(bad & (size == sz))
            if len(cand):
                pick = cand[rng.integers(0, len(cand), size=len(targets))]
                new_hist[targets] = scaled_counts(hist[pick], int(sz))
                continue
            # no single diverse group fits this size: the pooled distribution of the diverse
            # groups (of the whole table if there is none), capped at floor(|G| num / den)
            # per value (deterministic)
            pooled = hist[good_idx].sum(axis=0) if len(good_idx) else hist.sum(axis=0)
            capped = capped_counts(pooled, int(sz), int(sz) * den // num)
            if capped is None:
                raise InfeasibleError(
                    f"mask: {len(targets)} group(s) of size {int(sz)} are not ℓ-diverse and no ℓ-diverse distribution "
                    "fits them; lower ℓ or use a transparent algorithm (hybrid)."
                )
            new_hist[targets] = capped
    # published values: each group's histogram laid out over its rows (rows of a box are
    # indistinguishable, so which row gets which value carries no information)
    canon = np.empty(dataset.n, dtype=np.int64)
    canon[_canonical_order(dataset, s)] = np.arange(dataset.n)
    rows = np.lexsort((canon, group))  # by group, then by content: never by input position
    vals = np.repeat(np.tile(np.arange(nv), g), new_hist.ravel())
    published = np.empty(dataset.n, dtype=np.int32)
    published[rows] = vals
    altered = int((np.abs(new_hist - hist).sum()) // 2)
    rel = Release.build(dataset, lo[group], hi[group], recoding="multidimensional", classes=group,
                        provenance={"algorithm": "mask", "k": kk, "groups": int(g), "modified_groups": int(bad.sum()),
                                    "altered_values": altered,
                                    "protected": None if protected is None else sorted(str(v) for v in protected)})
    # release rows are in canonical order; attach the published values, then re-sort by them
    pub = published[rel.source]
    return rel.with_published_sensitive(
        {c: (pub if c == col else dataset.sensitive_codes[c][rel.source]) for c in dataset.sensitive})
