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


def _published_hints(release: Release) -> list[Any]:
    """Identifier hints on what ``release`` publishes: its QI labels (released rows) and the
    columns it publishes unchanged (their input values, which a release read from a file
    cannot link to its rows, but which are the same values)."""
    ds = release.dataset
    lo, hi = np.asarray(release.lo), np.asarray(release.hi)
    shown = ~np.asarray(release.suppressed, dtype=bool)
    qi = pd.DataFrame({c: h.labels(lo[shown, j], hi[shown, j], level=None if release.levels is None
                                   else int(release.levels[j]))
                       for j, (c, h) in enumerate(zip(ds.quasi_identifiers, ds.hierarchies))})
    unchanged = [c for c in ds.data.columns if c in set(ds.sensitive) | set(ds.insensitive)]
    hints = identifier_hints(qi) + identifier_hints(ds.data[unchanged])
    order = {c: i for i, c in enumerate(ds.data.columns)}
    return sorted(hints, key=lambda h: order.get(h.column, len(order)))


def risk_report(  # noqa: PLR0913
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
    progress: Any = None,
) -> dict[str, Any]:
    """Everything :mod:`ktype.risk` knows about ``data``, as one JSON-able dict.

    For a release: ``"release"`` (its re-identification risk) and ``"input"`` (the same for
    the original QIs published unchanged, for comparison). For an input table: ``"input"``
    and, if ``drivers``, ``"drivers"``. Population uniqueness when population information is
    given; individual risk when ``weights`` or a sampling fraction is; SUDA when
    ``suda_max_size > 0``; HIPAA hints on ``hints_frame`` (default: for a release its
    published values, :meth:`~ktype.Release.to_pandas`, so a column released as ``*`` gets
    no advice; for an input table the table).

    ``progress`` (None, True, ``"auto"`` or a callable taking a
    :class:`~ktype._progress.ProgressEvent`, as in :mod:`ktype._progress`): a stage
    ``"risk"`` counting the report's steps (its ``detail`` names the step), with SUDA's
    own stage ``"suda"`` counting attribute subsets inside it.
    """
    from .._progress import reporting

    with reporting(progress):
        return _report(data, population=population, sampling_fraction=sampling_fraction,
                       population_size=population_size, threshold=threshold, posterior=posterior,
                       suda_max_size=suda_max_size, weights=weights, drivers=drivers, hints_frame=hints_frame)


def _report(data: Dataset | Release, *, population: Any, sampling_fraction: float | None, population_size: int | None,
            threshold: float, posterior: str, suda_max_size: int, weights: str | None, drivers: bool,
            hints_frame: pd.DataFrame | None) -> dict[str, Any]:
    from .._progress import stage

    pop_kw = {"population": population, "sampling_fraction": sampling_fraction, "population_size": population_size}
    is_release = isinstance(data, Release)
    ds = data.dataset if is_release else data
    has_pop = population is not None or sampling_fraction is not None or population_size is not None
    steps = [name for name, wanted in (
        ("release risk", is_release), ("input risk", True), ("population uniqueness", has_pop),
        ("individual risk", weights is not None or sampling_fraction is not None), ("suda", bool(suda_max_size)),
        ("risk drivers", drivers and not is_release), ("identifier hints", True)) if wanted]
    out: dict[str, Any] = {"mode": "release" if is_release else "input", "threshold": threshold}
    with stage("risk", total=len(steps)) as st:
        def step(name: str) -> None:
            st.update(steps.index(name), detail=name, force=True)

        if is_release:
            step("release risk")
            out["release"] = reidentification_risk(data, threshold=threshold, posterior=posterior, **pop_kw).summary()
        step("input risk")
        out["input"] = reidentification_risk(ds, threshold=threshold, **pop_kw).summary()
        if has_pop:
            step("population uniqueness")
            pu = population_uniqueness(ds, population=population, sampling_fraction=sampling_fraction,
                                       population_size=population_size)
            out["population_uniqueness"] = pu.to_dict()
        if weights is not None or sampling_fraction is not None:
            step("individual risk")
            subject = data if is_release and data.recoding not in ("local", "freeform") else ds
            ir = individual_risk(subject, weights=weights,
                                 sampling_fraction=None if weights is not None else sampling_fraction,
                                 threshold=threshold)
            out["individual_risk"] = {"of": "release" if subject is data and is_release else "input", **ir.to_dict()}
        if suda_max_size:
            step("suda")
            out["suda"] = suda(data if is_release else ds, max_size=suda_max_size).summary()
        if drivers and not is_release:
            step("risk drivers")
            d = risk_drivers(ds, threshold=threshold)
            out["drivers"] = {"baseline": d.attrs["baseline"], "attributes": d.reset_index().to_dict(orient="records")}
        step("identifier hints")
        if hints_frame is not None:
            hints = identifier_hints(hints_frame)
        elif is_release:  # what is published: a column released as '*' needs no advice
            hints = _published_hints(data)
        else:
            hints = identifier_hints(ds.data)
        declared = set(ds.identifiers)  # already removed from every release
        out["identifier_hints"] = [
            {"column": h.column, "category": h.category, "evidence": h.evidence, "reason": h.reason}
            for h in hints if h.column not in declared
        ]
    return _finite(out)
