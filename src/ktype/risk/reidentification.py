"""Re-identification risk under the prosecutor, journalist and marketer attacker models.

Definitions of El Emam & Dankar [1]_ and El Emam [2]_ (ch. 18–20), as implemented by ARX
(``RiskModelSampleSummary``). Let the sample (the input, or the published rows of a
release) fall into equivalence classes ``j`` of sizes ``f_j``, ``J`` classes and ``n``
records, and let ``F_j`` be the number of *population* units that match class ``j``.

* **Prosecutor** (the attacker knows the target is in the sample): record risk
  ``1 / f_j``; highest ``1 / min f_j``; average ``J / n``.
* **Journalist** (the attacker does not know; links against a population register):
  record risk ``1 / F_j``; highest ``1 / min F_j``; average
  ``max(J / Σ_j F_j, (1/n) Σ_j f_j / F_j)`` (El Emam's two bounds, as in ARX).
* **Marketer** (re-identify as many records as possible): expected share of records
  re-identified ``(1/n) Σ_j f_j / F_j``.

Without population information the population is the sample (``F_j = f_j``: journalist
= prosecutor, marketer = ``J / n``), as in ARX. A **population table** gives ``F_j``
exactly (its records matching the class). A **sampling fraction** ``π`` (or a population
size ``N``, ``π = n / N``) gives an estimate: the record risk is the Benedetti–Franconi
posterior mean ``E[1/F_j | f_j]`` with weights ``1/π`` (:mod:`ktype.risk.individual`),
the two average bounds use ``Σ F_j ≈ n / π``.

Releases
--------
* Full-domain and multidimensional recodings: classes are the published boxes; suppressed
  records are excluded (ARX ignores outliers too); ``F_j`` counts the population records
  inside box ``j``.
* Local recodings and k-concealment (``recoding="local"``/``"freeform"``): records do not
  form classes. The prosecutor risk of original record ``i`` is ``1 / #matches(i)``
  (uniform over the released rows it may be, Tassa et al. §5.2) or, with
  ``posterior="exact"``, the exact largest posterior of :func:`ktype.attacks.match_posteriors`
  (components too large for exact posteriors fall back to ``1/#matches``, which is a lower
  bound of it, and are counted). Journalist risk with a population table is per released
  row: ``1 / (population records inside its box)``; with a sampling fraction it is the
  Benedetti–Franconi estimate with ``f = #matches``.

References
----------
.. [1] K. El Emam, F. K. Dankar. Protecting privacy using k-anonymity. J. American Medical
   Informatics Association 15(5):627–637, 2008 (prosecutor, journalist re-identification).
.. [2] K. El Emam. Guide to the De-Identification of Personal Health Information. CRC
   Press, 2013 (prosecutor, journalist, marketer risk; averages and maxima).
.. [3] F. Prasser, F. Kohlmayer et al. ARX — a comprehensive tool for anonymizing
   biomedical data. AMIA Annual Symposium 2014 (risk analysis view).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from .._grouping import group_ids, group_rows
from .._validation import Interval, Options, check_params
from ..data.dataset import Dataset
from ..exceptions import DataError
from ..release import Release
from ._common import RiskData, class_sizes, coded, encode_like, read_population, summarize

__all__ = ["AttackerRisk", "ReidentificationRisk", "reidentification_risk", "PopulationLike"]

PopulationLike = pd.DataFrame | Dataset | str | Path


@dataclass(frozen=True)
class AttackerRisk:
    """Risk under one attacker model.

    ``per_record`` holds one risk per record (see :func:`reidentification_risk` for
    which records); ``highest``/``average``/``share_above_threshold`` follow El Emam's
    definitions (the journalist ``average`` is the larger of his two bounds).
    """

    model: str
    per_record: np.ndarray
    highest: float
    average: float
    records_above_threshold: int
    share_above_threshold: float
    threshold: float

    def to_dict(self) -> dict[str, Any]:
        return {"highest": self.highest, "average": self.average,
                "records_above_threshold": self.records_above_threshold,
                "share_above_threshold": self.share_above_threshold, "threshold": self.threshold}


@dataclass(frozen=True)
class ReidentificationRisk:
    """Result of :func:`reidentification_risk`."""

    prosecutor: AttackerRisk
    journalist: AttackerRisk
    marketer: float
    basis: str
    population: str
    records: int
    classes: int | None
    sample_uniques: int
    suppressed: int = 0
    extra: dict[str, Any] = field(default_factory=dict)

    def summary(self) -> dict[str, Any]:
        """JSON-able summary."""
        return {
            "basis": self.basis,
            "population": self.population,
            "records": self.records,
            "classes": self.classes,
            "sample_uniques": self.sample_uniques,
            "suppressed": self.suppressed,
            "prosecutor": self.prosecutor.to_dict(),
            "journalist": self.journalist.to_dict(),
            "marketer": self.marketer,
            "records_violating_k_anonymity": self.k_anonymity_violations(),
            "prosecutor_risk_distribution": self.risk_distribution(),
            **self.extra,
        }

    def k_anonymity_violations(self, ks: tuple[int, ...] = (2, 3, 5, 10)) -> dict[int, int]:
        """Records whose prosecutor risk exceeds ``1/k`` (in a class smaller than ``k``, or with
        fewer than ``k`` matches), for each ``k``: sdcMicro's "observations violating
        k-anonymity"."""
        r = self.prosecutor.per_record
        return {int(k): int((r > 1.0 / k + 1e-12).sum()) for k in ks}

    def risk_distribution(self, model: str = "prosecutor") -> dict[str, float]:
        """Share of records per risk interval ``(a, b]`` (ARX's risk distribution view)."""
        r = getattr(self, model).per_record
        n = max(len(r), 1)
        idx = np.searchsorted(RISK_BINS, r, side="left")  # r in (RISK_BINS[i-1], RISK_BINS[i]] -> i
        counts = np.bincount(idx, minlength=len(RISK_BINS))
        out = {f"<= {RISK_BINS[0]:g}": float(counts[0] / n)}
        for i in range(1, len(RISK_BINS)):
            out[f"({RISK_BINS[i - 1]:g}, {RISK_BINS[i]:g}]"] = float(counts[i] / n)
        return out


#: upper bounds of the risk intervals of :meth:`ReidentificationRisk.risk_distribution` (ARX's)
RISK_BINS = np.array([1e-6, 1e-5, 1e-4, 1e-3, 0.01, 0.02, 0.03, 0.04, 0.05, 0.06, 0.07, 0.08, 0.09, 0.1,
                      0.12, 0.14, 0.16, 0.2, 0.25, 0.334, 0.5, 1.0])


def _attacker(model: str, risk: np.ndarray, threshold: float, average: float | None = None) -> AttackerRisk:
    s = summarize(risk, threshold)
    return AttackerRisk(model, risk, s["highest"], s["average"] if average is None else float(average),
                        s["records_above_threshold"], s["share_above_threshold"], float(threshold))


def reidentification_risk(
    data: RiskData,
    *,
    quasi_identifiers: Sequence[str] | None = None,
    population: PopulationLike | None = None,
    sampling_fraction: float | None = None,
    population_size: int | None = None,
    threshold: float = 0.2,
    posterior: str = "uniform",
    max_component: int = 20,
) -> ReidentificationRisk:
    """Prosecutor, journalist and marketer re-identification risk of a table or a release.

    Parameters
    ----------
    data : Dataset, DataFrame or Release
        The input (QIs published unchanged) or a release.
    quasi_identifiers : sequence of str, optional
        Required for a DataFrame; a Dataset/Release uses its QIs.
    population : DataFrame, Dataset or path, optional
        The population the sample was drawn from (it must contain the sample's records),
        with the same QI columns: gives ``F_j`` exactly.
    sampling_fraction : float, optional
        ``n / N``: ``F_j`` is estimated (Benedetti–Franconi). Alternatively
        ``population_size`` ``N``.
    threshold : float, default 0.2
        Records whose risk is strictly above it are "at risk" (ARX's default is 0.2 too).
    posterior : {"uniform", "exact"}
        Local recodings only: prosecutor risk ``1/#matches`` or the exact matching
        posterior (components up to ``max_component`` records).

    Returns
    -------
    ReidentificationRisk
        ``per_record`` arrays follow the input rows (Dataset/DataFrame), the published
        non-suppressed rows in release order (class-based releases), or the original
        records in dataset order (local recodings; journalist with a population table:
        the published rows).

    Raises
    ------
    DataError
        The population does not contain the sample (some ``F_j < f_j``), columns missing,
        or population information given twice.

    Notes
    -----
    See the module docstring for definitions and references. Cost: one grouping of the
    ``n`` records (``O(n log n)``), plus one of the population; a release's boxes are
    matched against the distinct population tuples by a compiled scan
    (``O(#boxes · #tuples · r)``).

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"age": [30, 30, 41, 41, 41, 52]})
    >>> r = reidentification_risk(df, quasi_identifiers=["age"])
    >>> r.prosecutor.highest, round(r.prosecutor.average, 3), r.sample_uniques
    (1.0, 0.5, 1)
    """
    check_params("reidentification_risk",
                 {"threshold": threshold, "sampling_fraction": sampling_fraction, "population_size": population_size,
                  "posterior": posterior, "max_component": max_component},
                 {"threshold": [Interval(float, 0, 1, closed="both")],
                  "sampling_fraction": [None, Interval(float, 0, 1, closed="right")],
                  "population_size": [None, Interval(int, 1, None, closed="left")],
                  "posterior": [Options(("uniform", "exact"))],
                  "max_component": [Interval(int, 1, 20, closed="both")]})
    given = sum(x is not None for x in (population, sampling_fraction, population_size))
    if given > 1:
        raise DataError("Give at most one of population=, sampling_fraction= and population_size=.")
    if isinstance(data, Release) and data.recoding in ("local", "freeform"):
        return _local_release_risk(data, quasi_identifiers, population, sampling_fraction, population_size,
                                   threshold, posterior, max_component)
    c = coded(data, quasi_identifiers)
    gid, g = c.class_ids()
    f = class_sizes(gid, g)
    n = c.n
    pros = _attacker("prosecutor", 1.0 / f[gid] if n else np.zeros(0), threshold)
    uniques = int((f == 1).sum())
    basis = "equivalence classes of the release" if isinstance(data, Release) else "equivalence classes of the input"
    pi = _fraction(sampling_fraction, population_size, data.dataset.n if isinstance(data, Release) else n)
    if population is not None:
        F = _population_class_sizes(c, data, gid, g, read_population(population))
        _check_contains(f, F)
        jr = 1.0 / F[gid]
        jour = _attacker("journalist", jr, threshold, max(g / F.sum(), jr.mean()) if n else 0.0)
        marketer = float(jr.mean()) if n else 0.0
        pop_desc = f"population table ({int(F.sum()):,} matching records)"
    elif pi is not None:
        from .individual import expected_inverse_frequency

        rc = expected_inverse_frequency(np.maximum(f, 1), np.full(g, pi))
        jr = rc[gid]
        jour = _attacker("journalist", jr, threshold, max(g * pi / max(n, 1), jr.mean()) if n else 0.0)
        marketer = float(jr.mean()) if n else 0.0
        pop_desc = f"estimated from sampling fraction {pi:.6g} (Benedetti-Franconi)"
    else:
        jour = _attacker("journalist", pros.per_record, threshold)
        marketer = pros.average
        pop_desc = "the sample itself (no population information)"
    return ReidentificationRisk(pros, jour, marketer, basis, pop_desc, n, g, uniques, c.n_suppressed)


def _fraction(sampling_fraction: float | None, population_size: int | None, n: int) -> float | None:
    if sampling_fraction is not None:
        return float(sampling_fraction)
    if population_size is not None:
        if population_size < n:
            raise DataError(f"population_size={population_size} is smaller than the sample ({n} records).")
        return n / population_size
    return None


def _check_contains(f: np.ndarray, F: np.ndarray) -> None:
    bad = F < f
    if bad.any():
        j = int(np.flatnonzero(bad)[0])
        raise DataError(
            f"The population has fewer records than the sample in {int(bad.sum())} class(es) "
            f"(e.g. {int(F[j])} < {int(f[j])}); the sample must be drawn from the population table."
        )


def _population_class_sizes(c: Any, data: RiskData, gid: np.ndarray, g: int, pop: pd.DataFrame) -> np.ndarray:
    """``F_j``: population records matching each sample class."""
    if isinstance(data, pd.DataFrame):
        names = [str(x) for x in pop.columns]
        missing = [q for q in c.columns if q not in names]
        if missing:
            raise DataError(f"The population table lacks quasi-identifier column(s) {missing}.")
        pop = pop.copy(deep=False)
        pop.columns = names
        frame = data.copy(deep=False)
        frame.columns = [str(x) for x in frame.columns]
        cols = []
        for q in c.columns:
            both = pd.concat([frame[q], pop[q]], ignore_index=True)
            codes, _ = pd.factorize(both, use_na_sentinel=False)
            cols.append(codes)
        ids, _ = group_ids(cols)
        return _join_counts(gid, g, ids[: c.n], ids[c.n:])
    if isinstance(data, Dataset):
        P = encode_like(c, pop) + 1  # unknown values (-1) become 0, never equal to a sample code
        ids, _ = group_rows(np.vstack([c.codes + 1, P]))
        return _join_counts(gid, g, ids[: c.n], ids[c.n:])
    # class-based release: count population tuples inside each class box
    rel: Release = data  # type: ignore[assignment]
    P = encode_like(c, pop)
    idx = [rel.dataset.quasi_identifiers.index(q) for q in c.columns]
    first = np.full(g, -1, dtype=np.int64)
    first[gid[::-1]] = np.arange(len(gid))[::-1]
    rows = c.rows[first]
    lo = np.ascontiguousarray(rel.lo[rows][:, idx]).astype(np.int64)
    hi = np.ascontiguousarray(rel.hi[rows][:, idx]).astype(np.int64)
    return count_in_boxes(lo, hi, rel.dataset.domain_sizes[idx], P)


def _join_counts(gid: np.ndarray, g: int, sample_ids: np.ndarray, pop_ids: np.ndarray) -> np.ndarray:
    """Population count of each sample class (joint group ids of sample and population)."""
    m = int(max(sample_ids.max(initial=0), pop_ids.max(initial=0))) + 1
    counts = np.bincount(pop_ids, minlength=m)
    F = np.zeros(g, dtype=np.int64)
    F[gid] = counts[sample_ids]
    return F


def count_in_boxes(lo: np.ndarray, hi: np.ndarray, domain_sizes: np.ndarray, points: np.ndarray) -> np.ndarray:
    """Number of ``points`` rows inside each box ``[lo, hi]`` (a point code ``-1``, a value
    unknown to the hierarchy, lies only inside a whole-domain cell)."""
    if len(points) == 0 or len(lo) == 0:
        return np.zeros(len(lo), dtype=np.int64)
    pid, t = group_rows(points + 1)
    mult = np.bincount(pid, minlength=t).astype(np.int64)
    first = np.full(t, -1, dtype=np.int64)
    first[pid[::-1]] = np.arange(len(pid))[::-1]
    pts = np.ascontiguousarray(points[first]).astype(np.int64)
    full = (lo == 0) & (hi == (np.asarray(domain_sizes, dtype=np.int64) - 1)[None, :])
    from ._kernels import _count_in_boxes  # numba loads only for local recodings

    out = np.zeros(len(lo), dtype=np.int64)
    _count_in_boxes(np.ascontiguousarray(lo), np.ascontiguousarray(hi), np.ascontiguousarray(full), pts, mult, out)
    return out


def _local_release_risk(rel: Release, quasi_identifiers: Sequence[str] | None, population: PopulationLike | None,
                        sampling_fraction: float | None, population_size: int | None, threshold: float,
                        posterior: str, max_component: int) -> ReidentificationRisk:
    from ..models._graph import consistency_graph

    if quasi_identifiers and list(quasi_identifiers) != rel.dataset.quasi_identifiers:
        raise DataError("The risk of a local recoding is computed over all its quasi-identifiers; drop quasi_identifiers=.")
    graph = consistency_graph(rel)
    m = graph.match_counts().astype(np.int64)
    risk = 1.0 / np.maximum(m, 1)
    extra: dict[str, Any] = {}
    basis = "matches per original record (uniform posterior, Tassa et al. 5.2)"
    if posterior == "exact":
        from ..attacks.matching import match_posteriors

        mp = match_posteriors(rel, max_component, graph=graph)
        exact = ~np.isnan(mp.max_posterior)
        risk = np.where(exact, mp.max_posterior, risk)
        extra["records_uniform_fallback"] = int((~exact).sum())
        basis = f"exact matching posterior (components <= {max_component} records; larger ones 1/#matches)"
    n = len(risk)
    pros = _attacker("prosecutor", risk, threshold)
    pi = _fraction(sampling_fraction, population_size, rel.dataset.n)
    if population is not None:
        c = coded(rel)
        P = encode_like(c, read_population(population))
        keep = c.rows
        lo = rel.lo[keep].astype(np.int64)
        hi = rel.hi[keep].astype(np.int64)
        bid, nb = group_rows(lo, hi)
        first = np.full(nb, -1, dtype=np.int64)
        first[bid[::-1]] = np.arange(len(bid))[::-1]
        F = count_in_boxes(lo[first], hi[first], rel.dataset.domain_sizes, P)
        if (F < 1).any():
            raise DataError("Some released rows cover no population record; the sample must be drawn from the population table.")
        jr = 1.0 / F[bid]
        jour = _attacker("journalist", jr, threshold, max(nb / F.sum(), jr.mean()))
        marketer = float(jr.mean())
        pop_desc = "population table (journalist risk per released row: 1 / population records in its box)"
    elif pi is not None:
        from .individual import expected_inverse_frequency

        jr = expected_inverse_frequency(np.maximum(m, 1), np.full(n, pi))
        jour = _attacker("journalist", jr, threshold)
        marketer = float(jr.mean())
        pop_desc = f"estimated from sampling fraction {pi:.6g} (Benedetti-Franconi, f = #matches)"
    else:
        jour = _attacker("journalist", risk, threshold)
        marketer = pros.average
        pop_desc = "the sample itself (no population information)"
    return ReidentificationRisk(pros, jour, marketer, basis, pop_desc, n, None, int((risk >= 1.0).sum()),
                                rel.n_suppressed, extra)
