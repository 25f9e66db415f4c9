"""Sweeney's Datafly heuristic (survey §5.6)."""

from __future__ import annotations

import time

import numpy as np

from ..._validation import Interval
from ...data.dataset import Dataset
from ...exceptions import InfeasibleError
from ...models._base import PrivacyModel
from ...release import Release
from .._registry import register
from ._api import CLASS_MODELS
from ._engine import Encoded, require_levels
from ._lattice import LatticeResult, LatticeSearch, build_release

__all__ = ["datafly"]


def datafly_search(enc: Encoded) -> LatticeResult:
    """Greedy climb: while too many records fail, raise the QI with the most distinct values."""
    t0 = time.perf_counter()
    search = LatticeSearch(enc)
    lat = search.lat
    node = 0
    steps = []
    while True:
        ok = search.check(node, tag=False)
        lv = lat.levels[node]
        if ok:
            break
        # distinct generalized values per attribute in the current (unsuppressed) table
        fs = search._cache.get(node)
        if fs is None:  # cache full: recompute from the bottom
            fs, _ = enc.rollup(enc.bottom, np.zeros(enc.r, dtype=np.int64), lv)
        tab = enc.table(fs)
        distinct = np.array([len(np.unique(tab[:, j])) for j in range(enc.r)])
        distinct[lv >= enc.heights] = -1
        if (distinct < 0).all():
            raise InfeasibleError(
                f"datafly: even the top node needs {int(search.sup[node])} suppressed records, above the limit "
                f"{enc.limit} (max_suppression={enc.max_suppression:g}). Raise max_suppression or relax the model."
            )
        j = int(np.argmax(distinct))  # ties: the first QI
        steps.append({"attribute": enc.dataset.quasi_identifiers[j], "distinct": int(distinct[j]), "suppression_needed": int(search.sup[node])})
        node += int(lat.strides[j])
    search.value_of(node)
    return search.result(
        "datafly",
        node,
        [node],
        t0,
        monotone_feasibility=enc.monotone_feasibility,
        monotone_measure=enc.measure_monotone(),
        extra={"steps": steps},
    )


@register(
    "datafly",
    models=CLASS_MODELS,
    recoding="full-domain",
    constraints={"max_suppression": [Interval(float, 0, 1, closed="both"), None]},
    description="Sweeney's Datafly: greedy full-domain generalization, then suppression of outliers",
    reference="Ciriani et al., k-Anonymity (2007), §5.6 (Sweeney 1997/2002)",
)
def datafly(dataset: Dataset, models: tuple[PrivacyModel, ...], *, max_suppression: float | None = None) -> Release:
    """Datafly (Sweeney): greedy full-domain generalization with a final suppression step.

    While the records in failing classes exceed the suppression budget, generalize one
    level the quasi-identifier with the most distinct values in the current table (ties:
    the first in ``quasi_identifiers`` order); then suppress the remaining outliers (the
    *final suppression step*; suppressed records are removed, so no all-``*`` class needs
    ``k`` members, survey §8 pitfall 11). The budget ``max_suppression=None`` is
    Sweeney's: at most ``k`` records (``k`` of the k-anonymity model, 1 without one); a
    float is a fraction of the records. No minimality guarantee (survey §5.6); at most
    ``Σh_j + 1`` node evaluations.
    """
    require_levels(dataset, "datafly")
    if max_suppression is None:
        k = max([getattr(m, "k", 1) or 1 for m in models])
        frac = min(1.0, k / dataset.n)
    else:
        frac = float(max_suppression)
    enc = Encoded(dataset, models, frac, "loss_metric")
    return build_release(enc, datafly_search(enc), "datafly")
