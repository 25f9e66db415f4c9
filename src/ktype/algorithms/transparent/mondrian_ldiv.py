"""An ℓ-diverse strict Mondrian: the non-transparent Mondrian baseline of Xiao, Tao & Koudas
(TODS 2010, §4.1, one of the "two l-diversity generalization algorithms" they compare;
LeFevre, DeWitt & Ramakrishnan, "Mondrian multidimensional k-anonymity", ICDE 2006).

The paper does not say how Mondrian is made ℓ-diverse; ktype fixes one precise rule
(:func:`mondrian_ldiv`; docs/transparent.md, "Baselines"), and this module implements
exactly that rule (for any frequency ℓ), so the utility experiments and the
reverse-engineering attack (:func:`ktype.attacks.transparent.attack` with
``"mondrian_ldiv"``) use the same algorithm.

It is not ``mondrian`` with an ℓ-diversity model: the accept test is the same rule predicate
(:mod:`ktype.algorithms._rules`), but the dimension order (value coordinates over the input's
extents) and the cut (the lower median only) differ, and so do the releases on any table with two
or more quasi-identifiers (docs/design/rules.md, "Mondrian"; benchmarks/results/mondrian_backends.md).
"""

from __future__ import annotations

import numpy as np

from ..._grouping import group_rows
from ...data.dataset import Dataset
from ...exceptions import InfeasibleError
from ...models._base import PrivacyModel
from ...release import Release
from .._registry import register
from .._rules import all_ok, pack
from . import _kernels as K
from ._common import perimeter_coordinates

__all__ = ["mondrian_ldiv"]


def _models() -> tuple[type, ...]:
    from ...models.ldiversity import FrequencyLDiversity

    return (FrequencyLDiversity,)


@register(
    "mondrian_ldiv",
    models=_models,
    recoding="multidimensional",
    combinable=False,
    description="ℓ-diverse strict Mondrian (docs/transparent.md): lower-median splits accepted when both halves are ℓ-diverse (NOT transparent).",
    reference="LeFevre et al., ICDE 2006; Xiao, Tao, Koudas TODS 2010 §4.1",
)
def mondrian_ldiv(dataset: Dataset, models: tuple[PrivacyModel, ...]) -> Release:
    """ℓ-diverse strict Mondrian, in the precise form ktype fixes (the paper gives none).

    Recursive strict (median) Mondrian. At each node the QIs are tried in decreasing order of
    normalized width ``(max − min)/ext_i`` (``ext_i`` = the whole input's extent; ties by
    the QI's index); on QI i, ``med`` is the *lower* median of the node's values,
    ``L = {t: t[A_i] ≤ med}``, ``R = {t: t[A_i] > med}``; the first QI where both halves are
    non-empty and frequency ℓ-diverse (``max count · ℓ ≤ |half|``, exact integers) splits the
    node, and both halves recurse; a node where no QI works is a leaf and publishes its MBR.

    Guarantee: frequency ℓ-diversity of every group. **Not transparent**: the accept test
    reads the halves' sensitive values, so a split that did *not* happen tells an
    algorithm-aware adversary something (docs/design/transparency.md R1: on ktype's
    five-person fixture one individual's risk is 3/5 > 1/2, reproduced by
    :func:`ktype.attacks.transparent.attack` with ``"mondrian_ldiv"``).
    Deterministic and independent of the input order (decisions read QI values and the
    sensitive multisets of the halves only). Complexity O(d·n·log² n) for balanced splits
    (numba). Raises ``InfeasibleError`` when the table is not ℓ-eligible (the paper's ∅).
    """
    (m,) = models
    spec = m.rule_spec(dataset)  # type: ignore[attr-defined]
    col = spec.column
    rules = pack([spec])
    s = np.ascontiguousarray(dataset.sensitive_codes[col], dtype=np.int64)
    nv = len(dataset.sensitive_values[col])
    counts = np.bincount(s, minlength=nv).astype(np.int64)
    if dataset.n and not all_ok(rules, counts, dataset.n):
        v = int(counts.argmax())
        raise InfeasibleError(
            f"The table is not {m.l:g}-eligible: value {dataset.sensitive_values[col][v]!r} of {col!r} occurs "  # type: ignore[attr-defined]
            f"{int(counts[v])} times, more than n/ℓ; no ℓ-diverse anonymization exists. Lower ℓ."
        )
    X = np.ascontiguousarray(dataset.X, dtype=np.int32)
    W, M = perimeter_coordinates(dataset, X)
    group, g = K.strict_mondrian_kernel(X, W, M, s, nv, 1, rules)
    lo, hi = K.group_boxes(X, group, g)
    for j, h in enumerate(dataset.hierarchies):
        if h.is_tree:
            lo[:, j], hi[:, j] = h.closure(lo[:, j], hi[:, j])
    box_id, _ = group_rows(lo, hi)
    return Release.build(dataset, lo[group], hi[group], recoding="multidimensional", classes=box_id[group],
                         provenance={"algorithm": "mondrian_ldiv", "l": float(m.l), "groups": int(g)})  # type: ignore[attr-defined]
