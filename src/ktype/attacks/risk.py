"""Re-identification risk analysis (what ARX users expect from its risk view).

Prosecutor model (El Emam & Dankar, JAMIA 2008): the attacker knows the target is in the
release; the probability of re-identifying a record is ``1 / |class|`` where the class is
the set of released records indistinguishable from it. For k-type local recodings, where
released records do not form disjoint classes, the analogous quantity is ``1 / #matches``
(the uniform-over-matches posterior; the exact posterior is given by
:func:`ktype.attacks.matching.match_posteriors`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .._grouping import group_rows
from ..data.dataset import Dataset
from ..models._base import equivalence_classes
from ..release import Release

__all__ = ["RiskReport", "release_risk", "dataset_risk"]


@dataclass(frozen=True)
class RiskReport:
    """Per-record re-identification risks and their summary."""

    per_record: np.ndarray
    basis: str
    summary: dict[str, Any] = field(default_factory=dict)


def _summarize(risk: np.ndarray, threshold: float) -> dict[str, Any]:
    if risk.size == 0:
        return {"records": 0}
    return {
        "records": int(risk.size),
        "highest_risk": float(risk.max()),
        "average_risk": float(risk.mean()),
        "records_above_threshold": int((risk > threshold).sum()),
        "share_above_threshold": float((risk > threshold).mean()),
        "threshold": threshold,
        "unique_records": int((risk >= 1.0).sum()),
    }


def dataset_risk(dataset: Dataset, *, threshold: float = 0.2) -> RiskReport:
    """Prosecutor risk of publishing the quasi-identifiers **unchanged**.

    ``1 / (number of records sharing the QI combination)`` per record; ``unique_records``
    is the sample-uniqueness count.
    """
    gid, g = group_rows(dataset.X)
    sizes = np.bincount(gid, minlength=g)
    risk = 1.0 / sizes[gid]
    return RiskReport(risk, "classes of the original data", _summarize(risk, threshold))


def release_risk(release: Release, *, threshold: float = 0.2) -> RiskReport:
    """Prosecutor risk of a release.

    Full-domain and multidimensional releases: ``1 / |equivalence class|`` for each
    published record (suppressed records carry no risk and are excluded). Local and
    freeform recodings: ``1 / #matches`` per original record, from the consistency graph.
    """
    if release.recoding in ("local", "freeform"):
        from ..models._graph import match_counts

        m = np.asarray(match_counts(release), dtype=float)
        risk = 1.0 / np.maximum(m, 1.0)
        return RiskReport(risk, "matches per original record (uniform posterior)", _summarize(risk, threshold))
    class_of, g = equivalence_classes(release)
    sizes = np.bincount(class_of[class_of >= 0], minlength=g)
    pub = class_of >= 0
    risk = 1.0 / sizes[class_of[pub]]
    summ = _summarize(risk, threshold)
    summ["suppressed"] = release.n_suppressed
    return RiskReport(risk, "equivalence classes of the release", summ)
