"""Individual risk (Benedetti-Franconi) against term-by-term negative-binomial sums."""

from decimal import Decimal, getcontext
from math import comb

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

import ktype
from ktype.exceptions import DataError
from ktype.risk import expected_inverse_frequency, individual_risk


def _bruteforce(f: int, p: float) -> float:
    """Σ_h (1/h) P(F = h | f), F - f ~ NB(f, p): summed until the tail is below 1e-13."""
    if p >= 1:
        return 1.0 / f
    x = np.arange(0, int(stats.nbinom.ppf(1 - 1e-13, f, p)) + 50)
    return float((stats.nbinom.pmf(x, f, p) / (f + x)).sum())


@settings(max_examples=80, deadline=None)
@given(st.integers(1, 60), st.floats(0.002, 1.0))
def test_closed_form_equals_series(f, p):
    assert expected_inverse_frequency(np.array([f]), np.array([p]))[0] == pytest.approx(_bruteforce(f, p), rel=1e-7, abs=1e-12)


@pytest.mark.parametrize("p", [0.01, 0.2, 0.7])
def test_sdcmicro_closed_forms_for_f1_f2(p):
    r1 = p / (1 - p) * np.log(1 / p)
    r2 = p / (1 - p) ** 2 * (p * np.log(p) + 1 - p)
    got = expected_inverse_frequency(np.array([1, 2]), np.array([p, p]))
    assert got == pytest.approx([r1, r2], rel=1e-10)


def test_weights_per_key_from_column_and_array():
    df = pd.DataFrame({"sex": ["m", "m", "f", "f", "f", "x"], "w": [10.0, 30.0, 2.0, 2.0, 4.0, 1.0]})
    r = individual_risk(df, quasi_identifiers=["sex"], weights="w", threshold=0.3)
    g = df.groupby("sex")
    f = g["w"].transform("size").to_numpy()
    F = g["w"].transform("sum").to_numpy()
    expect = np.array([_bruteforce(int(a), a / b) for a, b in zip(f, F)])
    assert np.allclose(r.per_record, expect, rtol=1e-8)
    assert r.expected_reidentifications == pytest.approx(expect.sum())
    assert r.global_risk == pytest.approx(expect.mean())
    assert r.summary["records_above_threshold"] == int((expect > 0.3).sum())
    r2 = individual_risk(df, quasi_identifiers=["sex"], weights=df["w"].to_numpy())
    assert np.allclose(r2.per_record, r.per_record)


def test_unit_weights_give_prosecutor_risk():
    ds = ktype.load_adult(n=1500)
    r = individual_risk(ds, sampling_fraction=1.0)
    size = ds.data.groupby(ds.quasi_identifiers)[ds.quasi_identifiers[0]].transform("size").to_numpy()
    assert np.allclose(r.per_record, 1.0 / size)


def test_errors():
    df = pd.DataFrame({"a": [1, 2], "w": [0.5, 3.0]})
    with pytest.raises(DataError, match="needs sampling weights"):
        individual_risk(df, quasi_identifiers=["a"])
    with pytest.raises(DataError, match=">= 1"):
        individual_risk(df, quasi_identifiers=["a"], weights="w")
    with pytest.raises(DataError, match="not in the table"):
        individual_risk(df, quasi_identifiers=["a"], weights="nope")
    with pytest.raises(DataError, match="3 values for 2 records"):
        individual_risk(df, quasi_identifiers=["a"], weights=[1, 2, 3])


def test_release_weights_follow_the_published_rows():
    ds = ktype.load_adult(n=1200)
    w = np.linspace(1, 50, ds.n)
    data = ds.data.assign(w=w)
    ds2 = ktype.Dataset(data, quasi_identifiers=ds.quasi_identifiers, insensitive=["salary-class", "w"],
                        hierarchies=dict(zip(ds.quasi_identifiers, ds.hierarchies)))
    rel = ktype.anonymize(ds2, k=5)
    r = individual_risk(rel, weights="w")
    pub = rel.to_pandas()
    g = pub.groupby(ds.quasi_identifiers)["w"]
    f, F = g.transform("size").to_numpy(), g.transform("sum").to_numpy()
    expect = np.array([_bruteforce(int(a), a / b) for a, b in zip(f, F)])
    assert np.allclose(np.sort(r.per_record), np.sort(expect), rtol=1e-7)
    from ktype.api import parse_release

    read_back = parse_release(ds2, pub)
    with pytest.raises(DataError, match="not linked to input rows"):
        individual_risk(read_back, weights="w")


def _exact(f: int, p: float) -> float:
    """``E[1/F | f] = p/q^f ∫_p^1 (x-p)^(f-1)/x dx`` (``x = p + q v``), the binomial expansion
    summed in 400-digit decimal arithmetic: a formula and an arithmetic the code does not use."""
    getcontext().prec = 400
    pd_ = Decimal(p)
    q = 1 - pd_
    s = (-pd_) ** (f - 1) * (-(pd_.ln()))
    for i in range(1, f):
        s += comb(f - 1, i) * (-pd_) ** (f - 1 - i) * (1 - pd_**i) / i
    return float(pd_ * s / q**f)


@pytest.mark.parametrize("f", [1, 2, 3, 7, 40, 99, 100, 101, 180, 255])
def test_against_exact_decimal_expansion(f):
    ps = [1e-14, 1e-9, 1e-4, 0.01, 0.2, 0.4999, 0.5, 0.5001, 0.8] + ([0.99, 0.999] if f <= 80 else [])
    got = expected_inverse_frequency(np.full(len(ps), f), np.array(ps))
    assert got == pytest.approx([_exact(f, p) for p in ps], rel=1e-12)


@pytest.mark.parametrize("f", [100, 256, 257, 1000, 20000])
@pytest.mark.parametrize("p", [0.01, 0.05, 0.3, 0.7])
def test_large_frequencies_against_series(f, p):
    """Frequencies of 100 and more at small sampling fractions, where scipy's ``hyp2f1(1, 1,
    f + 1, 1 - p)`` returns nan/inf (scipy 1.17): the risk must stay the posterior mean."""
    got = expected_inverse_frequency(np.array([f]), np.array([p]))[0]
    assert got == pytest.approx(_bruteforce(f, p), rel=1e-9)


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 10**6), st.floats(1e-300, 1.0))
def test_bounds_jensen_and_support(f, p):
    """``f <= F`` gives ``E[1/F] <= 1/f``; Jensen gives ``E[1/F] >= 1/E[F] = p/f``."""
    r = expected_inverse_frequency(np.array([f]), np.array([p]))[0]
    assert np.isfinite(r)
    assert p / f * (1 - 1e-12) <= r <= 1 / f * (1 + 1e-12)


def test_individual_risk_with_large_classes_is_finite():
    ds = ktype.load_adult(n=3000)
    r = individual_risk(ds, quasi_identifiers=["sex", "race"], sampling_fraction=0.01)
    f = ds.data.groupby(["sex", "race"])["sex"].transform("size").to_numpy()
    assert f.max() >= 100
    assert np.isfinite(r.per_record).all()
    big = np.flatnonzero(f == f.max())[0]
    assert r.per_record[big] == pytest.approx(_bruteforce(int(f[big]), 0.01), rel=1e-9)


def test_a_risk_that_is_not_a_number_is_never_summarized():
    """A nan per-record risk made every comparison false: 'records above threshold: 0'. The
    summary refuses instead of reporting it."""
    from ktype.exceptions import KtypeError
    from ktype.risk._common import summarize

    with pytest.raises(KtypeError, match="not finite"):
        summarize(np.array([0.1, np.nan, 0.9]), 0.2)
    assert summarize(np.array([0.1, 0.5]), 0.2)["records_above_threshold"] == 1
