"""The scalar special functions of the uniqueness estimators against ``scipy.special``."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import special

from ktype.risk._special import digamma, gammaln, log_expit, trigamma

# many decades, the digamma root, the recurrence/asymptotic switch at 12, integers and halves
XS = sorted({*np.logspace(-8, 12, 241).tolist(), 1.4616321449683622, 11.999999, 12.0, 12.000001,
             *[float(i) for i in range(1, 40)], *[i + 0.5 for i in range(40)]})


@pytest.mark.parametrize("x", XS)
def test_digamma_and_trigamma_match_scipy(x):
    assert digamma(x) == pytest.approx(float(special.digamma(x)), rel=1e-13, abs=1e-14)
    assert trigamma(x) == pytest.approx(float(special.polygamma(1, x)), rel=1e-13, abs=1e-300)


@settings(max_examples=300, deadline=None)
@given(st.floats(1e-6, 1e9))
def test_recurrences(x):
    """ψ(x+1) = ψ(x) + 1/x and ψ'(x+1) = ψ'(x) − 1/x²: independent of the series used (the
    tolerance is that of the sums' own cancellation, a few ulps of ``1/x`` and ``1/x²``)."""
    assert digamma(x + 1) == pytest.approx(digamma(x) + 1 / x, rel=1e-12, abs=1e-14 * (1 + 1 / x))
    assert trigamma(x + 1) == pytest.approx(trigamma(x) - 1 / x**2, rel=1e-12, abs=1e-14 / x**2)


@pytest.mark.parametrize("x", [1e-300, 1e-8, 0.5, 1.0, 3.7, 1e5, 1e300])
def test_gammaln_matches_scipy(x):
    assert gammaln(x) == pytest.approx(float(special.gammaln(x)), rel=1e-14)


@pytest.mark.parametrize("b", [-800.0, -50.0, -1.0, 0.0, 1e-9, 2.5, 40.0, 800.0])
def test_log_expit_matches_scipy(b):
    assert log_expit(b) == pytest.approx(float(special.log_expit(b)), rel=1e-14, abs=1e-300)


def test_outside_the_domain():
    assert math.isnan(digamma(0.0)) and math.isnan(trigamma(-1.0)) and math.isnan(digamma(math.nan))
    assert gammaln(0.0) == math.inf and gammaln(-2.0) == math.inf
    assert digamma(math.inf) == math.inf and trigamma(math.inf) == 0.0
