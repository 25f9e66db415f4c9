"""Scalar special functions for the population-uniqueness estimators, without ``scipy.special``.

``import scipy.special`` costs about 0.2 s (scipy 1.17 loads its array-API layer, which
touches every lazily loaded numpy submodule): a fifth of a cold ``ktype risk`` command. The
estimators of :mod:`ktype.risk.uniqueness` need four functions at a handful of scalar
arguments per fit, so they are evaluated here (``docs/dependencies.md``):

* ``gammaln`` — :func:`math.lgamma`;
* ``digamma`` and ``trigamma`` for ``x > 0`` (``nan`` elsewhere) — the recurrences ``ψ(x) = ψ(x+1) − 1/x`` and
  ``ψ'(x) = ψ'(x+1) + 1/x²`` up to ``x >= 12``, then the asymptotic (Stirling) series with
  Bernoulli numbers (Abramowitz & Stegun, *Handbook of Mathematical Functions*, 1964,
  6.3.18 and 6.4.12), truncated where the next term is below 1e-17 relative;
* ``log_expit(b) = −log(1 + e^(−b))`` in its overflow-free forms.

``tests/test_risk_special.py`` compares each with ``scipy.special`` over many decades.
"""

from __future__ import annotations

import math

__all__ = ["digamma", "gammaln", "log_expit", "trigamma"]

_SHIFT = 12.0
# B_2k / (2k) for k = 1..6 (digamma: the next, 1/(12 x^14), is below 3e-17 relative at x >= 12)
# and B_2k for k = 1..7 (trigamma)
_DIGAMMA_COEF = (1 / 12, -1 / 120, 1 / 252, -1 / 240, 1 / 132, -691 / 32760)
_TRIGAMMA_COEF = (1 / 6, -1 / 30, 1 / 42, -1 / 30, 5 / 66, -691 / 2730, 7 / 6)


def gammaln(x: float) -> float:
    """``log |Γ(x)|`` (``inf`` at the poles ``0, −1, −2, …``, as scipy)."""
    try:
        return math.lgamma(x)
    except ValueError:
        return math.inf


def digamma(x: float) -> float:
    """``ψ(x) = Γ'(x) / Γ(x)`` for ``x > 0``."""
    if not x > 0:  # nan, or outside the domain the estimators use: nan for their finiteness checks
        return math.nan
    if math.isinf(x):
        return math.inf
    acc = 0.0
    while x < _SHIFT:
        acc -= 1.0 / x
        x += 1.0
    inv2 = 1.0 / (x * x)
    series, power = 0.0, inv2
    for c in _DIGAMMA_COEF:
        series += c * power
        power *= inv2
    return acc + math.log(x) - 0.5 / x - series


def trigamma(x: float) -> float:
    """``ψ'(x)`` for ``x > 0``."""
    if not x > 0:
        return math.nan
    if math.isinf(x):
        return 0.0
    acc = 0.0
    while x < _SHIFT:
        acc += 1.0 / (x * x)
        x += 1.0
    inv = 1.0 / x
    inv2 = inv * inv
    series, power = 0.0, inv2 * inv
    for c in _TRIGAMMA_COEF:
        series += c * power
        power *= inv2
    return acc + inv + 0.5 * inv2 + series


def log_expit(b: float) -> float:
    """``log(1 / (1 + e^(−b)))`` without overflow."""
    if b >= 0:
        return -math.log1p(math.exp(-b))
    return b - math.log1p(math.exp(b))
