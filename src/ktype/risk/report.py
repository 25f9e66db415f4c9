"""One JSON-able risk report of an input table or a release (what ``ktype risk`` prints)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from ..data.dataset import Dataset
from ..release import Release
from .drivers import risk_drivers
from .hipaa import identifier_hints
from .individual import individual_risk
from .reidentification import PopulationLike, reidentification_risk
from .suda import suda
from .uniqueness import population_uniqueness

__all__ = ["risk_report"]


def _finite(x: Any) -> Any:
    if isinstance(x, dict):
        return {k: _finite(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_finite(v) for v in x]
    if isinstance(x, (float, np.floating)):
        return None if not np.isfinite(x) else float(x)
    if isinstance(x, np.integer):
        return int(x)
    return x


def risk_report(
    data: Dataset | Release,
    *,
    population: PopulationLike | None = None,
    sampling_fraction: float | None = None,
    population_size: int | None = None,
    threshold: float = 0.2,
    posterior: str = "uniform",
    suda_max_size: int = 0,
    weights: str | None = None,
    drivers: bool = True,
    hints_frame: pd.DataFrame | None = None,
) -> dict[str, Any]:
    """Everything :mod:`ktype.risk` knows about ``data``, as one JSON-able dict.

    For a release: ``"release"`` (its re-identification risk) and ``"input"`` (the same for
    the original QIs published unchanged, for comparison). For an input table: ``"input"``
    and, if ``drivers``, ``"drivers"``. Population uniqueness when population information is
    given; individual risk when ``weights`` or a sampling fraction is; SUDA when
    ``suda_max_size > 0``; HIPAA hints on ``hints_frame`` (default: the input table).
    """
    pop_kw = {"population": population, "sampling_fraction": sampling_fraction, "population_size": population_size}
    ds = data.dataset if isinstance(data, Release) else data
    out: dict[str, Any] = {"mode": "release" if isinstance(data, Release) else "input", "threshold": threshold}
    if isinstance(data, Release):
        out["release"] = reidentification_risk(data, threshold=threshold, posterior=posterior, **pop_kw).summary()
    out["input"] = reidentification_risk(ds, threshold=threshold, **pop_kw).summary()
    if population is not None or sampling_fraction is not None or population_size is not None:
        pu = population_uniqueness(ds, population=population, sampling_fraction=sampling_fraction,
                                   population_size=population_size)
        out["population_uniqueness"] = pu.to_dict()
    if weights is not None or sampling_fraction is not None:
        subject = data if isinstance(data, Release) and data.recoding not in ("local", "freeform") else ds
        ir = individual_risk(subject, weights=weights, sampling_fraction=None if weights is not None else sampling_fraction,
                             threshold=threshold)
        out["individual_risk"] = {"of": "release" if subject is data and isinstance(data, Release) else "input", **ir.to_dict()}
    if suda_max_size:
        subject = data if isinstance(data, Release) else ds
        out["suda"] = suda(subject, max_size=suda_max_size).summary()
    if drivers and not isinstance(data, Release):
        d = risk_drivers(ds, threshold=threshold)
        out["drivers"] = {"baseline": d.attrs["baseline"], "attributes": d.reset_index().to_dict(orient="records")}
    frame = ds.data if hints_frame is None else hints_frame
    declared = set(ds.identifiers)  # already removed from every release
    out["identifier_hints"] = [
        {"column": h.column, "category": h.category, "evidence": h.evidence, "reason": h.reason}
        for h in identifier_hints(frame) if h.column not in declared
    ]
    return _finite(out)
