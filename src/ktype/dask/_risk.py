"""Re-identification risk of a distributed table or release from its class sizes."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..exceptions import InvalidParameterError
from ._table import DaskRelease, DaskTable, _release, class_keys

__all__ = ["risk"]


def risk(release: DaskTable | DaskRelease, *, threshold: float = 0.2, sampling_fraction: float | None = None) -> dict[str, Any]:
    """Prosecutor, journalist and marketer re-identification risk (El Emam) from the
    distributed class sizes: the summary figures of :func:`ktype.risk.reidentification_risk`
    (highest, average, records above ``threshold``; sample uniques; classes), without the
    per-record arrays. ``sampling_fraction``: journalist risk estimated as in memory
    (Benedetti–Franconi, ``expected_inverse_frequency``); otherwise the sample is its own
    population (journalist = prosecutor)."""
    from ..risk.individual import expected_inverse_frequency

    if not (isinstance(threshold, (int, float)) and 0 <= threshold <= 1):
        raise InvalidParameterError(f"The 'threshold' parameter of risk must be a float in [0, 1]. Got {threshold!r} instead.")
    if sampling_fraction is not None and not (isinstance(sampling_fraction, (int, float)) and 0 < sampling_fraction <= 1):
        raise InvalidParameterError(
            f"The 'sampling_fraction' parameter of risk must be a float in (0, 1]. Got {sampling_fraction!r} instead.")
    rel = _release(release)
    t = rel.table
    keyed, keys = class_keys(rel)
    freq = t.engine.size_frequencies(keyed, keys)
    f = freq.index.to_numpy(np.int64)  # class sizes present
    c = freq.to_numpy(np.int64)  # classes of each size
    records = int((f * c).sum())
    g = int(c.sum())

    def summary(per_size: np.ndarray, average: float | None = None) -> dict[str, Any]:
        if records == 0:
            return {"highest": 0.0, "average": 0.0, "records_above_threshold": 0, "share_above_threshold": 0.0,
                    "threshold": float(threshold)}
        above = int((f * c)[per_size > threshold].sum())
        avg = float((f * c * per_size).sum() / records) if average is None else float(average)
        return {"highest": float(per_size.max()), "average": avg, "records_above_threshold": above,
                "share_above_threshold": above / records, "threshold": float(threshold)}

    pros = summary(1.0 / np.maximum(f, 1))
    if sampling_fraction is not None:
        rc = expected_inverse_frequency(np.maximum(f, 1), np.full(len(f), float(sampling_fraction)))
        jr_mean = float((f * c * rc).sum() / records) if records else 0.0
        jour = summary(rc, max(g * sampling_fraction / max(records, 1), jr_mean) if records else 0.0)
        marketer = jr_mean
        population = f"estimated from sampling fraction {sampling_fraction:.6g} (Benedetti-Franconi)"
    else:
        jour, marketer = dict(pros), pros["average"]
        population = "the sample itself (no population information)"
    violating = {str(k): int((f * c)[f < k].sum()) for k in (2, 3, 5, 10)}
    return {"records": records, "classes": g, "sample_uniques": int(c[f == 1].sum()), "suppressed": rel.n_suppressed,
            "records_violating_k_anonymity": violating,
            "prosecutor": pros, "journalist": jour, "marketer": marketer, "population": population}
