"""Individual risk (Benedetti-Franconi) against term-by-term negative-binomial sums."""

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
