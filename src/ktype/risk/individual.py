"""Individual risk with sampling weights (Benedetti & Franconi; sdcMicro's ``measure_risk``).

A sample record in key (equivalence class) ``k`` is re-identified by an intruder who
links it to one of the ``F_k`` population units sharing its key, at random: the risk is
``1 / F_k``. ``F_k`` is unknown; Benedetti & Franconi [1]_ (and Franconi & Polettini [2]_)
model it, given the sample frequency ``f_k``, as negative binomial

    P(F_k = h | f_k) = C(h-1, f_k-1) p_k^f_k (1-p_k)^(h-f_k),   h >= f_k,

with ``p_k = f_k / Σ_{i in k} w_i`` estimated from the sampling weights ``w_i`` (the
Horvitz–Thompson estimate of ``F_k`` is the weight sum). The individual risk is the
posterior mean

    r_k = E[1/F_k | f_k] = p_k^f_k ∫_0^1 t^(f_k-1) (1 - (1-p_k) t)^(-f_k) dt
        = (p_k / f_k) · 2F1(1, 1; f_k + 1; 1 - p_k)

(``1/h = ∫ t^(h-1) dt`` under the sum, then Euler's transformation of the Gauss
hypergeometric function). For ``f_k = 1`` this is ``p/(1-p) · log(1/p)`` and for
``f_k = 2`` ``p/(1-p)^2 · (p log p + 1 - p)``, the closed forms sdcMicro uses; for
``f_k >= 3`` sdcMicro uses an approximation, ktype the exact expression above
(deviation, documented). With all weights 1 (the sample is the population) ``r_k = 1/f_k``,
the prosecutor risk.

References
----------
.. [1] R. Benedetti, L. Franconi. Statistical and technological solutions for controlled
   data dissemination. Pre-proceedings of New Techniques and Technologies for Statistics,
   1998, vol. 1, pp. 225–232.
.. [2] L. Franconi, S. Polettini. Individual risk estimation in μ-Argus: a review. PSD
   2004, LNCS 3050, pp. 262–272 (§2, eq. (3)).
.. [3] M. Templ, A. Kowarik, B. Meindl. Statistical disclosure control for micro-data
   using the R package sdcMicro. J. Statistical Software 67(4), 2015 (§3.3, ``indivRisk``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from .._validation import Interval, check_params
from ..data.dataset import Dataset
from ..exceptions import DataError
from ._common import RiskData, class_sizes, coded, summarize

__all__ = ["IndividualRisk", "individual_risk", "expected_inverse_frequency"]


_RECURRENCE_MAX_F = 256  # forward recurrence for f below this (and p <= 1/2); series otherwise
_SERIES_TERMS = 64  # ratio of consecutive terms below max(q, (j+1)/(f+j+1)): 2^-64 or less


def expected_inverse_frequency(f: np.ndarray, p: np.ndarray) -> np.ndarray:
    """``E[1/F | f]`` under the Benedetti–Franconi negative binomial posterior (vectorized).

    ``f``: sample frequencies (>= 1); ``p``: ``f / F_hat`` in ``(0, 1]``.

    Evaluated without a hypergeometric library (so that a risk command does not import
    ``scipy.special``): with ``q = 1 - p``, ``r = p · I_f`` where
    ``I_f = ∫_0^1 v^(f-1) / (p + q v) dv`` (substitute ``v = p t / (1 - q t)`` in the
    integral of the module docstring), and

    * ``I_1 = -log(p) / q`` and ``q I_(f+1) + p I_f = 1/f`` (integrate ``v^(f-1)``): the
      forward recurrence, used for ``p <= 1/2`` (each step multiplies an error by
      ``p/q <= 1``) and ``f < 256``;
    * ``I_f = Σ_j q^j j! (f-1)! / (f+j)!`` (expand ``1/(1 - q(1-v))``, Beta integrals), the
      term ratio ``q (j+1)/(f+j+1)`` being below ``1/2`` for ``p > 1/2`` and below
      ``(j+1)/(f+j+1)`` for ``f >= 256``: 64 terms leave a relative tail under 2^-60.

    Non-integer ``f`` falls back to ``scipy.special.hyp2f1``.
    """
    f = np.asarray(f, dtype=float)
    p = np.clip(np.asarray(p, dtype=float), np.finfo(float).tiny, 1.0)
    f, p = np.broadcast_arrays(f, p)
    if f.size == 0:
        return np.zeros(f.shape)
    # one evaluation per distinct (f, p): class sizes repeat a lot
    vf, fi = np.unique(f.ravel(), return_inverse=True)
    vp, pj = np.unique(p.ravel(), return_inverse=True)
    key = fi.ravel().astype(np.int64) * len(vp) + pj.ravel()
    uk, inv = np.unique(key, return_inverse=True)
    uf, up = vf[uk // len(vp)], vp[uk % len(vp)]
    if not np.array_equal(uf, np.rint(uf)):
        from scipy.special import hyp2f1  # non-integer frequencies only

        val = (up / uf) * hyp2f1(1.0, 1.0, uf + 1.0, 1.0 - up)
    else:
        val = up * _inverse_frequency_integral(uf, up)
    return val[inv.ravel()].reshape(f.shape)


def _inverse_frequency_integral(f: np.ndarray, p: np.ndarray) -> np.ndarray:
    """``I_f = ∫_0^1 v^(f-1) / (p + (1-p) v) dv`` for integer ``f >= 1``, ``p`` in (0, 1]."""
    q = 1.0 - p
    out = np.empty(len(f))
    one = q == 0.0
    out[one] = 1.0 / f[one]  # F = f surely
    rec = ~one & (p <= 0.5) & (f < _RECURRENCE_MAX_F)
    if rec.any():
        fr, pr, qr = f[rec], p[rec], q[rec]
        cur = -np.log(pr) / qr  # I_1
        res = cur.copy()
        for m in range(1, int(fr.max())):  # at most 255 vector steps over the distinct pairs
            cur = (1.0 / m - pr * cur) / qr  # I_(m+1)
            res = np.where(fr == m + 1, cur, res)
        out[rec] = res
    ser = ~one & ~rec
    if ser.any():
        fs, qs = f[ser], q[ser]
        term = 1.0 / fs  # j = 0: (f-1)!/f!
        total = term.copy()
        for j in range(_SERIES_TERMS):
            term = term * qs * (j + 1) / (fs + j + 1)
            total += term
        out[ser] = total
    return out


@dataclass(frozen=True)
class IndividualRisk:
    """Result of :func:`individual_risk`.

    Attributes
    ----------
    per_record : ndarray of float
        ``E[1/F_k | f_k]`` of each record's key.
    frequency : ndarray of int
        Sample frequency ``f_k`` of each record's key.
    population_estimate : ndarray of float
        ``F_hat_k`` (sum of the weights of the key) of each record.
    expected_reidentifications : float
        ``Σ_i r_i``: expected number of correctly re-identified records (sdcMicro's
        global risk, ``ER``).
    global_risk : float
        ``ER / n`` (sdcMicro's ``global_risk``).
    summary : dict
        Highest, average, records above the threshold.
    """

    per_record: np.ndarray
    frequency: np.ndarray
    population_estimate: np.ndarray
    expected_reidentifications: float
    global_risk: float
    summary: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {**self.summary, "expected_reidentifications": self.expected_reidentifications,
                "global_risk": self.global_risk}


def individual_risk(
    data: RiskData,
    *,
    quasi_identifiers: Sequence[str] | None = None,
    weights: str | np.ndarray | Sequence[float] | None = None,
    sampling_fraction: float | None = None,
    threshold: float = 0.2,
) -> IndividualRisk:
    """Individual re-identification risk of each record, with sampling weights.

    Parameters
    ----------
    data : Dataset, DataFrame or Release
        The sample (for a release: its published, non-suppressed rows, keyed by their
        generalized values).
    quasi_identifiers : sequence of str, optional
        Key variables (required for a DataFrame; default all QIs of a Dataset/Release).
    weights : str or array, optional
        Sampling weight of each record (how many population units it stands for, >= 1):
        a column name or an array. Give this or ``sampling_fraction``.
    sampling_fraction : float, optional
        Simple random sampling: every weight is ``1 / sampling_fraction``.
    threshold : float, default 0.2
        Records whose risk is strictly above it are counted.

    Returns
    -------
    IndividualRisk

    Notes
    -----
    Benedetti & Franconi (1998); Franconi & Polettini (2004) eq. (3); sdcMicro's
    ``indivRisk``. Exact posterior mean for every ``f_k`` (see the module docstring).
    Cost ``O(n)`` plus one hypergeometric evaluation per distinct ``(f_k, p_k)``.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"sex": ["m", "m", "f"], "w": [10.0, 10.0, 5.0]})
    >>> r = individual_risk(df, quasi_identifiers=["sex"], weights="w")
    >>> [round(float(x), 4) for x in r.per_record]
    [0.0827, 0.0827, 0.4024]
    """
    check_params("individual_risk", {"sampling_fraction": sampling_fraction, "threshold": threshold},
                 {"sampling_fraction": [None, Interval(float, 0, 1, closed="right")],
                  "threshold": [Interval(float, 0, 1, closed="both")]})
    c = coded(data, quasi_identifiers)
    if (weights is None) == (sampling_fraction is None):
        raise DataError("individual_risk needs sampling weights: give weights=... (a column or an array) or sampling_fraction=....")
    if sampling_fraction is not None:
        w = np.full(c.n, 1.0 / float(sampling_fraction))
    else:
        w = _weights(data, weights, c.rows)
    gid, g = c.class_ids()
    f = class_sizes(gid, g)
    F_hat = np.bincount(gid, weights=w, minlength=g)
    p = np.minimum(f / np.maximum(F_hat, 1e-300), 1.0)
    risk_cls = expected_inverse_frequency(np.maximum(f, 1), p)
    risk = risk_cls[gid]
    er = float(risk.sum())
    return IndividualRisk(risk, f[gid], F_hat[gid], er, er / max(c.n, 1), summarize(risk, threshold))


def _weights(data: RiskData, weights: str | np.ndarray | Sequence[float], rows: np.ndarray) -> np.ndarray:
    if isinstance(weights, str):
        frame = data.data if isinstance(data, Dataset) else data if isinstance(data, pd.DataFrame) else None
        if frame is None:
            if data.source is None:  # type: ignore[union-attr]
                raise DataError(f"The rows of a release read from a file are not linked to input rows, so the weight column "
                                f"{weights!r} cannot be used; pass the weights of the published rows as an array.")
            frame = data.dataset.data  # type: ignore[union-attr]
            rows = data.source[rows]  # type: ignore[union-attr]
        if weights not in frame.columns:
            raise DataError(f"Weight column {weights!r} is not in the table.")
        w = pd.to_numeric(frame[weights], errors="coerce").to_numpy(dtype=float)[rows]
    else:
        w = np.asarray(weights, dtype=float)
        if w.shape != (len(rows),):
            raise DataError(f"weights has {w.size} values for {len(rows)} records.")
    if np.isnan(w).any():
        raise DataError("Sampling weights must be numbers; some are missing or not numeric.")
    if (w < 1.0).any():
        bad = int(np.flatnonzero(w < 1.0)[0])
        raise DataError(f"Sampling weights must be >= 1 (a sampled record stands for itself at least); record {bad} has {w[bad]:g}.")
    return w
