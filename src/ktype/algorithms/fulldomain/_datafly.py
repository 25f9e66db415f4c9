"""Sweeney's Datafly heuristic (mentioned in survey §3)."""

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
from ._lattice import LatticeResult, build_release
from ._sparse import SparseSearch

__all__ = ["datafly"]


def datafly_search(enc: Encoded) -> LatticeResult:
    """Greedy climb: while too many records fail, raise the QI with the most distinct values.

    Visits at most ``Σh_j + 1`` nodes and never builds the lattice (:class:`SparseSearch`).
    """
    t0 = time.perf_counter()
    search = SparseSearch(enc)
    lv = np.zeros(enc.r, dtype=np.int64)
    steps = []
    while True:
        ev = search.evaluate(lv)
        if ev.feasible:
            break
        # distinct generalized values per attribute in the current (unsuppressed) table
        tab = enc.table(ev.fs)  # type: ignore[arg-type]
        distinct = np.array([len(np.unique(tab[:, j])) for j in range(enc.r)])
        distinct[lv >= enc.heights] = -1
        if (distinct < 0).all():
            raise InfeasibleError(
                f"datafly: even the top node needs {int(ev.suppressed)} suppressed records, above the limit "
                f"{enc.limit} (max_suppression={enc.max_suppression:g}). Raise max_suppression or relax the model."
            )
        j = int(np.argmax(distinct))  # ties: the first QI
        steps.append({"attribute": enc.dataset.quasi_identifiers[j], "distinct": int(distinct[j]), "suppression_needed": int(ev.suppressed)})
        lv = lv.copy()
        lv[j] += 1
    search.value(lv)
    return search.result(
        "datafly",
        lv,
        lv[None, :],
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
    reference="Ciriani et al., k-Anonymity (2007), §3 (Sweeney 1997/2002)",
)
def datafly(dataset: Dataset, models: tuple[PrivacyModel, ...], *, max_suppression: float | None = None) -> Release:
    """Datafly (Sweeney): greedy full-domain generalization with a final suppression step.

    While the records in failing classes exceed the suppression budget, generalize one
    level the quasi-identifier with the most distinct values in the current table (ties:
    the first in ``quasi_identifiers`` order); then suppress the remaining outliers (the
    *final suppression step*; suppressed records are removed, so no all-``*`` class needs
    ``k`` members: a generalized table with tuple suppression has fewer tuples, survey
    §2.2 Definition 3). The budget ``max_suppression=None`` is
    Sweeney's: at most ``k`` records (``k`` of the k-anonymity model, 1 without one); a
    float is a fraction of the records. No minimality guarantee (survey §3); at most
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
