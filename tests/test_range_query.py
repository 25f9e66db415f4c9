"""Range-count query error (Xiao, Tao & Koudas, TODS 2010, §4.1) and the Mask baseline."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pandas as pd
import pytest

import ktype
from ktype.algorithms import run
from ktype.attacks import transparent as A
from ktype.exceptions import InfeasibleError, InvalidParameterError
from ktype.measures import compute, range_query_error, range_query_errors, range_query_workload
from ktype.models import FrequencyLDiversity, KAnonymity, TransparentLDiversity
from tests.test_transparent import multiset, random_tiny, table_dataset


def brute_force_errors(rel, wl):
    """Per query, a direct row-by-row evaluation (numpy over rows, no aggregation)."""
    ds = rel.dataset
    X = ds.X
    s_true = ds.sensitive_codes[wl.sensitive]
    s_pub = rel.sensitive_codes(wl.sensitive)
    out = []
    for q in range(len(wl.s_lo)):
        inq = (s_true >= wl.s_lo[q]) & (s_true <= wl.s_hi[q])
        inq &= ((X >= wl.lo[q]) & (X <= wl.hi[q])).all(axis=1)
        act = int(inq.sum())
        f = ((s_pub >= wl.s_lo[q]) & (s_pub <= wl.s_hi[q])).astype(float)
        for j in range(ds.r):
            ov = np.minimum(wl.hi[q, j], rel.hi[:, j]) - np.maximum(wl.lo[q, j], rel.lo[:, j]) + 1
            f *= np.clip(ov, 0, None) / (rel.hi[:, j] - rel.lo[:, j] + 1)
        est = f.sum()
        out.append(abs(act - est) / max(act, 0.005 * ds.n))
    return np.array(out)


@pytest.mark.parametrize("algorithm, model", [("mondrian", KAnonymity(8)), ("hybrid", TransparentLDiversity(2)),
                                              ("tailor", TransparentLDiversity(2)), ("mask", FrequencyLDiversity(1.5))])
def test_errors_equal_a_brute_force_evaluation(algorithm, model):
    ds = ktype.load_adult(n=600)
    ds = ktype.Dataset(ds.data[["age", "education", "sex", "race", "occupation"]],
                       quasi_identifiers=["age", "education", "sex", "race"], sensitive=["occupation"])
    kw = {"rng": 1} if algorithm != "mondrian" else {}
    rel = run(algorithm, ds, model, **kw)
    for qd, s in ((5, 0.06), (2, 0.02), (3, 0.1)):
        wl = range_query_workload(ds, qd=qd, selectivity=s, queries=60, seed=qd)
        np.testing.assert_allclose(range_query_errors(rel, wl), brute_force_errors(rel, wl), rtol=1e-9, atol=1e-12)


def test_workload_shape_and_determinism():
    ds = ktype.load_adult(n=500)
    wl = range_query_workload(ds, qd=3, selectivity=0.05, queries=200, seed=4)
    again = range_query_workload(ds, qd=3, selectivity=0.05, queries=200, seed=4)
    assert np.array_equal(wl.lo, again.lo) and np.array_equal(wl.s_lo, again.s_lo)
    sizes = ds.domain_sizes
    constrained = (wl.lo > 0) | (wl.hi < sizes - 1)
    assert (constrained.sum(axis=1) <= 2).all()  # qd - 1 = 2 QIs (an interval may span a whole tiny domain)
    frac = 0.05 ** (1 / 3)
    length = wl.hi - wl.lo + 1
    for q in range(200):
        for j in wl.qis[q]:
            assert length[q, j] == max(1, round(frac * sizes[j]))
    assert ((wl.s_hi - wl.s_lo + 1) == max(1, round(frac * len(ds.sensitive_values["salary-class"])))).all()
    with pytest.raises(InvalidParameterError, match="qd"):
        range_query_workload(ds, qd=ds.r + 2)
    with pytest.raises(InvalidParameterError, match="selectivity"):
        range_query_workload(ds, selectivity=1.5)


def test_identity_release_has_zero_error_and_selectivity_is_about_s():
    rng = np.random.default_rng(0)
    df = pd.DataFrame({"a": rng.integers(0, 40, 20000), "b": rng.integers(0, 30, 20000), "s": rng.integers(0, 20, 20000)})
    ds = ktype.Dataset(df, quasi_identifiers=["a", "b"], sensitive=["s"])
    rel = run("mondrian", ds, KAnonymity(1))
    assert range_query_error(rel, qd=3, selectivity=0.06) == 0.0
    wl = range_query_workload(ds, qd=3, selectivity=0.06, queries=300, seed=1)
    whole = run("mondrian", ds, KAnonymity(20000))  # one box: the estimate is n * product of fractions
    est = range_query_errors(whole, wl)
    assert est.mean() < 0.2  # uniform data: the one-box estimate is close
    X = ds.X
    sel = [((X >= wl.lo[q]) & (X <= wl.hi[q])).all(axis=1)[(ds.sensitive_codes["s"] >= wl.s_lo[q]) & (ds.sensitive_codes["s"] <= wl.s_hi[q])].sum()
           for q in range(300)]
    assert 0.04 < np.mean(sel) / ds.n < 0.08


def test_measure_is_registered_and_skips_without_sensitive():
    ds = ktype.load_adult(n=300)
    vals = compute(run("mondrian", ds, KAnonymity(5)))
    assert "range_query_error" in vals
    plain = ktype.Dataset(ds.data[["age", "sex"]], quasi_identifiers=["age", "sex"])
    res = compute(run("mondrian", plain, KAnonymity(5)))
    assert "range_query_error" in res.skipped


# ---------------------------------------------------------------------------- Mask
def test_mask_equals_its_reference_model_on_tiny_tables():
    """Production Mask's release is an output of the oracle's reference model (all values
    protected), and a table where no diverse group fits is refused by both."""
    seen = refused = 0
    for seed in range(60):
        vals, qis = random_tiny(seed, n_max=7)
        if max(Counter(vals.values()).values()) * 2 > len(vals):
            continue
        rows = A.rows_of(vals, qis)
        support = A.mask_dist(rows, 2)
        try:
            rel = run("mask", table_dataset(rows), FrequencyLDiversity(2), rng=seed)
        except InfeasibleError:
            assert support == {frozenset(): 1}
            refused += 1
            continue
        assert multiset(rel) in support
        seen += 1
    assert seen >= 10 and refused >= 1


def test_mask_publishes_altered_values_and_is_l_diverse():
    ds = ktype.load_adult(n=2000)
    ds = ktype.Dataset(ds.data[["age", "education", "sex", "occupation"]], quasi_identifiers=["age", "education", "sex"],
                       sensitive=["occupation"])
    rel = run("mask", ds, FrequencyLDiversity(3), rng=0)
    assert rel.provenance["altered_values"] > 0
    pub = rel.to_pandas()["occupation"].to_numpy()
    orig = ds.data["occupation"].to_numpy()[rel.source]
    assert (pub != orig).sum() > 0
    assert FrequencyLDiversity(3).check(rel).satisfied
    codes = rel.sensitive_codes("occupation")
    assert list(codes) == [ds.sensitive_values["occupation"].index(v) for v in pub]
