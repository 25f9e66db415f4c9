"""Population uniqueness estimated from a sample: Pitman, Zayatz, SNB, Dankar's rule.

A record that is unique in its sample is a risk only if it is also unique in the
population. Given the sample's equivalence class sizes (their frequency of frequencies
``c_i`` = number of classes of size ``i``, ``K = Σ c_i`` classes, ``n`` records) and the
population size ``N`` (sampling fraction ``π = n / N``), each model estimates the number
``U`` of population uniques; ktype reports ``U`` and the share ``U / N`` of population
records that are unique, as ARX does.

* :func:`pitman_uniques` — Hoshino [1]_: the class partition is a Pitman (two-parameter
  Ewens) partition; ``(θ, α)`` by maximum likelihood on the sample (Pitman's sampling
  formula is consistent under simple random sampling, so the same parameters describe
  the population); ``U = N · Γ(θ+1) Γ(θ+α+N-1) / (Γ(θ+α) Γ(θ+N))``, the exact expected
  number of singletons of a Pitman partition of ``N`` (Hoshino and ARX use its large-``N``
  form ``Γ(θ+1)/Γ(θ+α) · N^α``; the two agree to ``O(1/N)``).
* :func:`zayatz_uniques` — Zayatz [2]_: population class sizes are assumed distributed
  like the sample's; the probability that a sample unique is a population unique is
  ``(c_1/K) h(1|1) / Σ_i (c_i/K) h(1|i)`` with ``h(1|i)`` the hypergeometric
  probability that a population class of size ``i`` leaves exactly one record in the
  sample; ``U = c_1 · P / π``.
* :func:`snb_uniques` — Chen & Keller-McNulty [3]_: population class sizes ``F`` follow a
  slide negative binomial (``F - 1 ~ NB(α, β)``) over ``K_pop`` non-empty classes, with
  Bernoulli sampling at rate ``π``. ``(α, β)`` solve the moment equations
  ``E[c_1] = c_1``, ``E[c_2] = c_2`` (derived from the probability generating function:
  ``P(f=1) = π (β/D)^α (1 + α d/D)``, ``P(f=2) = π² α (1-β) β^α (2 - (1-α) d) / (2 D^(α+2))``,
  ``d = (1-π)(1-β)``, ``D = 1 - d``); ``K_pop`` by Shlosser's estimator [4]_;
  ``U = K_pop · β^α``. (ARX multiplies by ``D^(α+2)`` in the second equation; our
  derivation divides — deviation, documented.)
* :func:`dankar_uniques` — Dankar et al.'s decision rule [5]_ as in ARX: ``π <= 0.1``:
  Pitman (Zayatz if Pitman fails); otherwise the smaller of Zayatz and SNB (Zayatz if SNB
  fails).

With no sample uniques every estimate is 0. An estimator that cannot be computed (no
classes of size 2 for SNB, a failed fit) returns ``nan``; :func:`population_uniqueness`
runs each estimator on its own, so one that fails (or raises) is reported as unavailable
with its reason (``PopulationUniqueness.unavailable``) and never takes the others down, and
Dankar's rule picks among those available.

SNB is computed in log space (``log p1``, ``log p2``, ``log U``; an overflow-free log-sigmoid
and ``log1p``): with ``π = n / N`` down to ``10⁻⁶`` the terms ``β^α`` and ``D^(α+2)``
underflow in floating point (``D**(alpha+2)`` became 0 and raised ``ZeroDivisionError``
for the Adult sample with ``N = 317,238,626``), their logarithms do not.

Accuracy (measured, ``tests/test_risk_uniqueness.py`` and docs/risk.md): on simulated
populations (independent CENSUS-schema attributes) the estimates are compared with the
true number of population uniques; the documented bounds are what those tests assert.

References
----------
.. [1] N. Hoshino. Applying Pitman's sampling formula to microdata disclosure risk
   assessment. J. Official Statistics 17(4):499–520, 2001.
.. [2] L. Zayatz. Estimation of the percent of unique population elements on a microdata
   file using the sample. Statistical Research Division Report 91/08, US Census Bureau, 1991.
.. [3] G. Chen, S. Keller-McNulty. Estimation of identification disclosure risk in
   microdata. J. Official Statistics 14(1):79–95, 1998.
.. [4] P. J. Haas, J. F. Naughton, S. Seshadri, L. Stokes. Sampling-based estimation of
   the number of distinct values of an attribute. VLDB 1995 (Shlosser's estimator, eq. 9).
.. [5] F. K. Dankar, K. El Emam, A. Neisa, T. Roffey. Estimating the re-identification risk
   of clinical data sets. BMC Medical Informatics and Decision Making 12:66, 2012.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .._validation import Interval, Options, check_params
from ..exceptions import DataError
from ..release import Release
from ._common import RiskData, class_sizes, coded, read_population
from ._lm import levenberg_marquardt as _levenberg_marquardt
from ._special import digamma, gammaln, log_expit, trigamma

__all__ = [
    "PopulationUniqueness",
    "population_uniqueness",
    "pitman_uniques",
    "zayatz_uniques",
    "snb_uniques",
    "dankar_uniques",
    "frequency_of_frequencies",
    "EstimatorUnavailable",
    "MODELS",
]

MODELS = ("pitman", "zayatz", "snb", "dankar")


def frequency_of_frequencies(sizes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Distinct class sizes ``i`` and the number ``c_i`` of classes of each size."""
    sizes = np.asarray(sizes, dtype=np.int64)
    sizes = sizes[sizes > 0]
    i, c = np.unique(sizes, return_counts=True)
    return i, c.astype(np.int64)


def _counts(sizes: np.ndarray) -> tuple[np.ndarray, np.ndarray, int, int, int]:
    i, c = frequency_of_frequencies(sizes)
    n = int((i * c).sum())
    K = int(c.sum())
    c1 = int(c[i == 1].sum())
    return i, c, n, K, c1


# ---------------------------------------------------------------------- Pitman (Hoshino 2001)
def _pitman_negloglik(x: np.ndarray, i: np.ndarray, c: np.ndarray, n: int, K: int, cum: np.ndarray) -> float:
    """Negative log-likelihood of Pitman's sampling formula at ``x = (α, log(θ + α))``."""
    return _pitman_newton_terms(float(x[0]), float(x[1]), n, K, cum, order=0)[0]


def _pitman_newton_terms(alpha: float, s: float, n: int, K: int, cum: np.ndarray, order: int = 2,
                         closed: bool | None = None) -> tuple[float, np.ndarray, np.ndarray]:
    """Negative log-likelihood ``f``, its gradient and Hessian in ``u = (α, s)``, ``θ = e^s − α``.

    ``log L = Σ_{l<K} log(θ + lα) − Σ_{l<n} log(θ + l) + Σ_l g_l log(l − α)`` with ``g_l`` the
    number of classes larger than ``l`` (``cum``). The sums over ``l < K`` use the digamma
    and trigamma closed forms when ``θ/α`` is moderate, else explicit sums (``closed`` forces
    one or the other, for tests).
    """
    e = math.exp(s)
    theta = e - alpha
    ls = np.arange(1, len(cum) + 1, dtype=float)
    gap = ls - alpha
    t3 = float((cum * np.log(gap)).sum())
    t2 = gammaln(theta + n) - gammaln(theta + 1)
    if closed is None:
        closed = alpha > 1e-9 and theta / alpha < 1e12
    if closed:
        r = theta / alpha
        t1 = (K - 1) * math.log(alpha) + (gammaln(r + K) - gammaln(r + 1))
    else:
        terms = theta + alpha * np.arange(1, K, dtype=float)
        t1 = float(np.log(terms).sum()) if K > 1 else 0.0
    f = -(t1 - t2 + t3)
    if order == 0:
        return f, np.zeros(2), np.zeros((2, 2))
    # derivatives of log L in (θ, α)
    if closed:
        a0 = (digamma(r + K) - digamma(r + 1)) / alpha  # Σ 1/(θ+lα)
        b0 = (trigamma(r + 1) - trigamma(r + K)) / alpha**2  # Σ 1/(θ+lα)²
        a1 = ((K - 1) - theta * a0) / alpha  # Σ l/(θ+lα)
        b1 = (a0 - theta * b0) / alpha  # Σ l/(θ+lα)²
        b2 = ((K - 1) - 2 * theta * a0 + theta**2 * b0) / alpha**2  # Σ l²/(θ+lα)²
    else:
        lk = np.arange(1, K, dtype=float)
        inv = 1.0 / (theta + alpha * lk)
        a0, a1 = float(inv.sum()), float((lk * inv).sum())
        inv2 = inv * inv
        b0, b1, b2 = float(inv2.sum()), float((lk * inv2).sum()), float((lk * lk * inv2).sum())
    d_t = a0 - (digamma(theta + n) - digamma(theta + 1))
    d_a = a1 - float((cum / gap).sum())
    d_tt = -b0 - (trigamma(theta + n) - trigamma(theta + 1))
    d_ta = -b1
    d_aa = -b2 - float((cum / gap**2).sum())
    # chain rule to u = (α, s): ∂θ/∂α = −1, ∂θ/∂s = e^s; negated for f = −log L
    grad = -np.array([d_a - d_t, d_t * e])
    hess = -np.array([
        [d_aa - 2 * d_ta + d_tt, e * (d_ta - d_tt)],
        [e * (d_ta - d_tt), d_tt * e * e + d_t * e],
    ])
    return f, grad, hess


#: box of the fit in u = (α, log(θ + α)): 0 ≤ α < 1, 1e-9 ≤ θ + α ≤ 1e12
_PITMAN_LO = np.array([0.0, math.log(1e-9)])
_PITMAN_HI = np.array([1.0 - 1e-9, math.log(1e12)])


def _pitman_newton(u: np.ndarray, n: int, K: int, cum: np.ndarray, max_iter: int = 100) -> tuple[np.ndarray, float]:
    """Projected Newton descent with backtracking on the negative log-likelihood.

    A coordinate held at its bound with the gradient pushing outward is frozen for the step;
    where the Hessian of the free coordinates is not positive definite, the step is the
    Newton step of the Hessian shifted to be positive definite. Stops when the predicted
    decrease ``-g·step`` is below rounding or a step moves u by less than 1e-12."""
    u = np.clip(u, _PITMAN_LO, _PITMAN_HI)
    f, g, h = _pitman_newton_terms(u[0], u[1], n, K, cum)
    for _ in range(max_iter):
        free = ~(((u <= _PITMAN_LO) & (g > 0)) | ((u >= _PITMAN_HI) & (g < 0)))
        if not free.any():
            break
        step = np.zeros(2)
        hf = h[np.ix_(free, free)]
        gf = g[free]
        eig = np.linalg.eigvalsh(hf)
        if eig[0] <= 1e-12 * max(1.0, abs(eig[-1])):  # not convex here: shift the spectrum (Levenberg)
            hf = hf + (1e-6 * max(1.0, abs(eig[-1])) - eig[0]) * np.eye(len(gf))
        step[free] = -np.linalg.solve(hf, gf)
        if -float(g @ step) < 1e-12 * (1.0 + abs(f)):
            break  # Newton decrement below rounding: converged
        t = 1.0
        while True:
            cand = np.clip(u + t * step, _PITMAN_LO, _PITMAN_HI)
            fc = _pitman_newton_terms(cand[0], cand[1], n, K, cum, order=0)[0]
            if np.isfinite(fc) and fc <= f + 1e-12 * abs(f):
                break
            t *= 0.5
            if t < 1e-12:
                return u, f
        moved = float(np.abs(cand - u).max())
        u = cand
        f, g, h = _pitman_newton_terms(u[0], u[1], n, K, cum)
        if moved < 1e-12:
            break
    return u, f


def pitman_fit(sizes: np.ndarray) -> tuple[float, float]:
    """Maximum-likelihood ``(θ, α)`` of Pitman's sampling formula for the class sizes.

    Projected Newton descent with analytic gradient and Hessian (digamma/trigamma closed
    forms) from three starts; the best end point wins.
    """
    i, c, n, K, _ = _counts(sizes)
    maxs = int(i.max())
    # cum[l-1] = number of classes with size > l, l = 1..max-1
    cnt = np.zeros(maxs + 1, dtype=np.int64)
    cnt[i] = c
    greater = (K - np.cumsum(cnt))[1:maxs].astype(float)
    best: tuple[np.ndarray, float] | None = None
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        for a0, th0 in ((0.1, float(K)), (0.5, float(K) / 10), (0.9, 1.0)):
            u, f = _pitman_newton(np.array([a0, math.log(th0 + a0)]), n, K, greater)
            if np.isfinite(f) and (best is None or f < best[1]):
                best = (u, f)
    if best is None:
        return float("nan"), float("nan")
    alpha = float(best[0][0])
    return math.exp(float(best[0][1])) - alpha, alpha


class EstimatorUnavailable(ArithmeticError):
    """An estimator that cannot be computed on this sample; the message says why."""


def _or_nan(fn: Any, sizes: np.ndarray, population_size: int, **kw: Any) -> float:
    try:
        return fn(sizes, population_size, **kw)
    except EstimatorUnavailable:
        return float("nan")


def _pitman(sizes: np.ndarray, population_size: int) -> float:
    i, c, n, K, c1 = _counts(sizes)
    if c1 == 0:
        return 0.0
    theta, alpha = pitman_fit(sizes)
    if not (np.isfinite(theta) and np.isfinite(alpha)):
        raise EstimatorUnavailable("the maximum-likelihood fit of (θ, α) failed")
    N = float(population_size)
    u = N * math.exp(gammaln(theta + 1) + gammaln(theta + alpha + N - 1) - gammaln(theta + alpha) - gammaln(theta + N))
    if not 0 <= u <= N * (1 + 1e-9):  # rounding at α → 1 may overshoot N by a few ulps
        raise EstimatorUnavailable(f"the estimate {u:.4g} is outside [0, N]")
    return float(min(u, N))


def pitman_uniques(sizes: np.ndarray, population_size: int) -> float:
    """Estimated number of population uniques, Pitman model (Hoshino 2001, §3–4).

    ``N Γ(θ+1) Γ(θ+α+N-1) / (Γ(θ+α) Γ(θ+N))`` with the ML estimates of ``(θ, α)``;
    ``nan`` when the fit fails.
    """
    return _or_nan(_pitman, sizes, population_size)


# ---------------------------------------------------------------------- Zayatz (1991)
def hypergeom_pmf_one(population_size: int, marked: np.ndarray | int, drawn: int) -> np.ndarray:
    """``P(X = 1)`` for ``X`` hypergeometric: ``drawn`` records sampled without replacement from
    ``population_size`` records of which ``marked`` (an array) are marked — what
    ``scipy.stats.hypergeom.pmf(1, N, marked, drawn)`` gives, without importing ``scipy.stats``
    (most of ``ktype risk``'s start-up).

    ``P = (m n / N) Π_{j=0}^{m-2} (1 - (n-1) / (N-1-j))``, summed as ``log1p`` terms (one
    cumulative sum up to the largest ``m``): no difference of large log-factorials, so the
    relative error stays near ``m`` ulps even for ``N`` in the millions."""
    N, n = int(population_size), int(drawn)
    m = np.asarray(marked, dtype=np.int64)
    ok = (m >= 1) & (m <= N) & (N - m >= n - 1) & (n >= 1)
    top = int(m[ok].max()) if ok.any() else 1
    terms = np.log1p(-(n - 1) / (N - 1 - np.arange(max(top - 1, 0), dtype=float)))
    prefix = np.concatenate(([0.0], np.cumsum(terms)))  # prefix[m-1] = Σ_{j<m-1} terms
    idx = np.where(ok, m - 1, 0)
    out = np.exp(np.log(np.where(ok, m, 1) * (n / N)) + prefix[idx])
    return np.where(ok, out, 0.0)


def _zayatz(sizes: np.ndarray, population_size: int) -> float:
    i, c, n, K, c1 = _counts(sizes)
    if c1 == 0:
        return 0.0
    N = int(population_size)
    pi = n / N
    h = hypergeom_pmf_one(N, i, n)  # P(one of the i class members is sampled)
    den = float(((c / K) * h).sum())
    if not den > 0:
        raise EstimatorUnavailable("no class size has a positive probability of leaving one record in the sample")
    p_cond = (c1 / K) * float(hypergeom_pmf_one(N, 1, n)) / den
    u = c1 * p_cond / pi
    if not np.isfinite(u):
        raise EstimatorUnavailable(f"the estimate is not finite ({u})")
    return float(u)


def zayatz_uniques(sizes: np.ndarray, population_size: int) -> float:
    """Estimated number of population uniques, Zayatz (1991); ``nan`` if not computable."""
    return _or_nan(_zayatz, sizes, population_size)


# ---------------------------------------------------------------------- SNB (Chen & Keller-McNulty 1998)
def shlosser_classes(sizes: np.ndarray, sampling_fraction: float) -> float:
    """Shlosser's estimate of the number of non-empty population classes (Haas et al. 1995)."""
    i, c, n, K, c1 = _counts(sizes)
    q = float(sampling_fraction)
    num = float((((1 - q) ** i) * c).sum())
    den = float((i * q * ((1 - q) ** (i - 1)) * c).sum())
    return K + c1 * num / den if den > 0 else float(K)


def _snb_log_probabilities(alpha: float, log_beta: float, log1m_beta: float, pi: float) -> tuple[float, float]:
    """``(log P(f=1), log P(f=2))`` of the SNB model, in log space.

    With ``d = (1-π)(1-β)``, ``D = 1 - d = β (1 + r)``, ``r = π (1-β) / β``:
    ``log p1 = log π - α log1p(r) + log1p(α d/D)`` and
    ``log p2 = 2 log π + log α + log(1-β) + α log β - (α+2) log D + log(2 - (1-α) d) - log 2``.
    Each term is finite for ``π`` down to ``10⁻⁶`` and any ``α`` or ``β`` in floating
    point; ``β``, ``1 - β`` come in as logarithms so that neither rounds to 0 or 1.
    """
    log_pi = math.log(pi)
    log_r = log_pi + log1m_beta - log_beta
    l1p_r = float(np.logaddexp(0.0, log_r))  # log1p(r) without forming r
    log_D = log_beta + l1p_r
    log_d = math.log1p(-pi) + log1m_beta
    d_over_D = math.exp(log_d - log_D)  # in [0, 1]
    d = math.exp(log_d)
    log_p1 = log_pi - alpha * l1p_r + math.log1p(alpha * d_over_D)
    log_p2 = (2 * log_pi + math.log(alpha) + log1m_beta + alpha * log_beta - (alpha + 2) * log_D
              + math.log(2 - (1 - alpha) * d) - math.log(2))
    return log_p1, log_p2


def _snb_probabilities(alpha: float, beta: float, pi: float) -> tuple[float, float]:
    """``(P(f=1), P(f=2))`` of the SNB model (from :func:`_snb_log_probabilities`)."""
    lp1, lp2 = _snb_log_probabilities(alpha, math.log(beta), math.log1p(-beta), pi)
    return math.exp(lp1), math.exp(lp2)


#: the SNB solver's search box in (log α, logit β): α in [e^-40, e^40], β in (0, 1)
_SNB_X_LIMIT = (40.0, 60.0)


def _snb(sizes: np.ndarray, population_size: int, *, n_classes: float | None = None) -> float:
    i, c, n, K, c1 = _counts(sizes)
    if c1 == 0:
        return 0.0
    c2 = int(c[i == 2].sum())
    if c2 == 0:
        raise EstimatorUnavailable("no sample class of size 2 (the moment equations need c_2 > 0)")
    pi = n / float(population_size)
    Kp = shlosser_classes(sizes, pi) if n_classes is None else float(n_classes)
    log_Kp, log_c1, log_c2 = math.log(Kp), math.log(c1), math.log(c2)
    ax, bx = _SNB_X_LIMIT

    def resid(x: np.ndarray) -> np.ndarray:
        a = math.exp(min(max(float(x[0]), -ax), ax))
        b = min(max(float(x[1]), -bx), bx)
        lp1, lp2 = _snb_log_probabilities(a, log_expit(b), log_expit(-b), pi)
        return np.array([log_Kp + lp1 - log_c1, log_Kp + lp2 - log_c2])

    best: tuple[np.ndarray, float] | None = None
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        for a0 in (-2.0, 0.0, 2.0):
            for b0 in (-4.0, 0.0, 4.0):
                x, cost = _levenberg_marquardt(resid, np.array([a0, b0]))
                if np.isfinite(cost) and (best is None or cost < best[1]):
                    best = (x, cost)
    if best is None or best[1] > 1e-8:
        cost_text = "none" if best is None else f"{best[1]:.3g}"
        raise EstimatorUnavailable(
            f"the moment equations E[c_1] = c_1, E[c_2] = c_2 have no solution (least-squares cost {cost_text})")
    a = math.exp(min(max(float(best[0][0]), -ax), ax))
    b = min(max(float(best[0][1]), -bx), bx)
    u = math.exp(log_Kp + a * log_expit(b))  # K_pop β^α
    if not 0 <= u <= population_size:
        raise EstimatorUnavailable(f"the estimate {u:.4g} is outside [0, N]")
    return float(u)


def snb_uniques(sizes: np.ndarray, population_size: int, *, n_classes: float | None = None) -> float:
    """Estimated number of population uniques, slide negative binomial (Chen & Keller-McNulty 1998).

    ``n_classes``: the number of non-empty population classes if known; by default
    Shlosser's estimate (which is where most of the estimator's error comes from: on an
    SNB population with the true ``n_classes`` the estimate is within 2 %, with Shlosser's
    +35 %, see tests/test_risk_uniqueness.py). Computed in log space; ``nan`` when the
    moment equations have no solution (or there is no class of size 2).
    """
    return _or_nan(_snb, sizes, population_size, n_classes=n_classes)


# ---------------------------------------------------------------------- Dankar et al. (2012)
_ESTIMATORS = {"pitman": _pitman, "zayatz": _zayatz, "snb": _snb}


def _attempt(name: str, sizes: np.ndarray, population_size: int) -> tuple[float, str | None]:
    """``(estimate, None)`` or ``(nan, reason)``: an estimator that fails, whatever the
    failure, is reported, never propagated."""
    try:
        u = _ESTIMATORS[name](sizes, population_size)
    except EstimatorUnavailable as e:
        return float("nan"), str(e)
    except Exception as e:  # noqa: BLE001 - one estimator must not take the others down
        return float("nan"), f"{type(e).__name__}: {e}"
    return u, None


def _dankar(sizes: np.ndarray, population_size: int, results: dict[str, tuple[float, str | None]]
            ) -> tuple[float, str, str | None]:
    """Dankar's rule over the estimates in ``results`` (computed here when missing):
    ``(estimate, model used, reason when none is available)``."""
    i, c, n, K, c1 = _counts(sizes)
    if c1 == 0:
        return 0.0, "none (no sample uniques)", None

    def get(m: str) -> float:
        if m not in results:
            results[m] = _attempt(m, sizes, population_size)
        return results[m][0]

    pi = n / float(population_size)
    if pi <= 0.1:
        u = get("pitman")
        if np.isfinite(u) and u > 0:
            return u, "pitman", None
        z = get("zayatz")
        if np.isfinite(z):
            return z, "zayatz", None
        return float("nan"), "none", "neither Pitman nor Zayatz is available (π <= 0.1)"
    z, s = get("zayatz"), get("snb")
    if np.isfinite(s) and s > 0:
        if np.isfinite(z) and z < s:
            return z, "zayatz", None
        return s, "snb", None
    if np.isfinite(z):
        return z, "zayatz", None
    return float("nan"), "none", "neither Zayatz nor SNB is available (π > 0.1)"


def dankar_uniques(sizes: np.ndarray, population_size: int) -> tuple[float, str]:
    """Dankar et al.'s decision rule; returns ``(estimate, model used)`` (``nan`` and
    ``"none"`` when no estimator it may use is available). An estimator that fails is
    skipped, never propagated."""
    u, model, _ = _dankar(sizes, population_size, {})
    return u, model


# ---------------------------------------------------------------------- public entry point
@dataclass(frozen=True)
class PopulationUniqueness:
    """Result of :func:`population_uniqueness`.

    ``estimates`` maps each model (``pitman``, ``zayatz``, ``snb``, ``dankar``) to the
    estimated number of population uniques (``nan`` if unavailable); ``share`` the same
    divided by the population size; ``dankar_model`` names the model the rule chose.
    ``unavailable`` maps each model that could not be computed to the reason.
    ``exact`` is the true number when a population table was given.
    """

    records: int
    population_size: int
    sampling_fraction: float
    sample_uniques: int
    estimates: dict[str, float]
    dankar_model: str
    exact: int | None = None
    unavailable: dict[str, str] = field(default_factory=dict)

    @property
    def share(self) -> dict[str, float]:
        return {k: v / self.population_size for k, v in self.estimates.items()}

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {
            "records": self.records, "population_size": self.population_size,
            "sampling_fraction": self.sampling_fraction, "sample_uniques": self.sample_uniques,
            "sample_uniqueness": self.sample_uniques / max(self.records, 1),
            "population_uniques": {k: (None if not np.isfinite(v) else v) for k, v in self.estimates.items()},
            "population_uniqueness": {k: (None if not np.isfinite(v) else v) for k, v in self.share.items()},
            "dankar_model": self.dankar_model,
            "unavailable": dict(self.unavailable),
        }
        if self.exact is not None:
            d["population_uniques_exact"] = self.exact
        return d


def population_uniqueness(
    data: RiskData | np.ndarray,
    *,
    quasi_identifiers: Sequence[str] | None = None,
    sampling_fraction: float | None = None,
    population_size: int | None = None,
    population: Any = None,
    models: Sequence[str] = MODELS,
) -> PopulationUniqueness:
    """Estimate how many population records are unique on the quasi-identifiers.

    Parameters
    ----------
    data : Dataset, DataFrame, Release or array of class sizes
        The sample (an array is taken as its equivalence class sizes).
    sampling_fraction, population_size : optional
        One of them is required (``π = n / N``); ``population`` (a table containing the
        sample) gives ``N`` and the exact count as well.
    models : sequence of str
        Which estimators to run (default all four).

    Returns
    -------
    PopulationUniqueness

    Examples
    --------
    >>> import numpy as np
    >>> pu = population_uniqueness(np.array([1] * 50 + [2] * 30 + [5] * 20), sampling_fraction=0.1)
    >>> pu.sample_uniques, pu.dankar_model
    (50, 'pitman')
    """
    check_params("population_uniqueness", {"sampling_fraction": sampling_fraction, "population_size": population_size},
                 {"sampling_fraction": [None, Interval(float, 0, 1, closed="right")],
                  "population_size": [None, Interval(int, 1, None, closed="left")]})
    for m in models:
        check_params("population_uniqueness", {"models": m}, {"models": [Options(MODELS)]})
    exact = None
    if isinstance(data, np.ndarray):
        sizes = np.asarray(data, dtype=np.int64)
    else:
        c = coded(data, quasi_identifiers)
        gid, g = c.class_ids()
        sizes = class_sizes(gid, g)
        if population is not None:
            if isinstance(data, Release):
                raise DataError("Exact population uniqueness of a release is not supported; use the input table.")
            pop = read_population(population)
            pc = coded(pop, c.columns)
            pgid, pg = pc.class_ids()
            exact = int((class_sizes(pgid, pg) == 1).sum())
            population_size = len(pop)
    n = int(sizes.sum())
    if sum(x is not None for x in (sampling_fraction, population_size)) != 1:
        raise DataError("population_uniqueness needs exactly one of sampling_fraction=, population_size= or population=.")
    N = int(population_size) if population_size is not None else int(round(n / float(sampling_fraction)))  # type: ignore[arg-type]
    if N < n:
        raise DataError(f"The population ({N}) is smaller than the sample ({n}).")
    results: dict[str, tuple[float, str | None]] = {}
    est: dict[str, float] = {}
    why: dict[str, str] = {}
    for m in models:
        if m in _ESTIMATORS:
            results[m] = _attempt(m, sizes, N)
    dmodel = ""
    if "dankar" in models:
        u, dmodel, reason = _dankar(sizes, N, results)
        results["dankar"] = (u, reason)
    for m in models:
        est[m], reason = results[m]
        if reason is not None:
            why[m] = reason
    return PopulationUniqueness(n, N, n / N, int((sizes == 1).sum()), est, dmodel, exact, why)
