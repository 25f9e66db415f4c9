"""Re-identification risk (ktype.risk.reidentification) against independent computations:
pandas group-bys, brute-force negative-binomial sums, brute-force perfect matchings."""

import itertools

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

import ktype
from ktype.exceptions import DataError, InvalidParameterError
from ktype.models.ktype_models import KConcealment
from ktype.risk import reidentification_risk


def _frame(draw_rows):
    return pd.DataFrame(draw_rows, columns=["a", "b", "c"])


rows_st = st.lists(st.tuples(st.integers(0, 3), st.sampled_from("xyz"), st.integers(0, 1)), min_size=1, max_size=40)


@settings(max_examples=60, deadline=None)
@given(rows_st, st.sampled_from([0.0, 0.2, 0.34, 0.5, 1.0]))
def test_prosecutor_matches_pandas_groupby(rows, thr):
    df = _frame(rows)
    r = reidentification_risk(df, quasi_identifiers=["a", "b", "c"], threshold=thr)
    size = df.groupby(["a", "b", "c"])["a"].transform("size").to_numpy()
    expect = 1.0 / size
    assert np.allclose(r.prosecutor.per_record, expect)
    assert r.prosecutor.highest == pytest.approx(expect.max())
    assert r.prosecutor.average == pytest.approx(df.drop_duplicates().shape[0] / len(df))
    assert r.prosecutor.records_above_threshold == int((expect > thr).sum())
    assert r.sample_uniques == int((size == 1).sum())
    # no population information: journalist = prosecutor, marketer = J / n
    assert np.allclose(r.journalist.per_record, expect)
    assert r.marketer == pytest.approx(r.prosecutor.average)


@settings(max_examples=40, deadline=None)
@given(rows_st, st.lists(st.tuples(st.integers(0, 4), st.sampled_from("xyzw"), st.integers(0, 1)), max_size=40))
def test_journalist_and_marketer_with_population_table(rows, extra):
    sample = _frame(rows)
    pop = pd.concat([sample, _frame(extra)], ignore_index=True) if extra else sample
    r = reidentification_risk(sample, quasi_identifiers=["a", "b", "c"], population=pop, threshold=0.25)
    F = sample.merge(pop.groupby(["a", "b", "c"]).size().rename("F").reset_index(), on=["a", "b", "c"], how="left")["F"].to_numpy()
    jr = 1.0 / F
    assert np.allclose(r.journalist.per_record, jr)
    assert r.journalist.highest == pytest.approx(jr.max())
    J = sample.drop_duplicates().shape[0]
    sumF = pop.merge(sample.drop_duplicates(), on=["a", "b", "c"]).shape[0]
    assert r.journalist.average == pytest.approx(max(J / sumF, jr.mean()))
    assert r.marketer == pytest.approx(jr.mean())
    assert r.journalist.records_above_threshold == int((jr > 0.25).sum())


def _bf_bruteforce(f: int, p: float) -> float:
    """E[1/F | f] with F - f ~ NB(f, p), summed term by term."""
    if p >= 1:
        return 1.0 / f
    x = np.arange(0, int(stats.nbinom.ppf(1 - 1e-13, f, p)) + 50)
    return float((stats.nbinom.pmf(x, f, p) / (f + x)).sum())


@pytest.mark.parametrize("pi", [0.01, 0.1, 0.5, 0.9, 1.0])
def test_journalist_from_sampling_fraction_is_bf_posterior_mean(pi):
    df = pd.DataFrame({"a": [1, 1, 1, 2, 2, 3, 4, 4, 4, 4]})
    r = reidentification_risk(df, quasi_identifiers=["a"], sampling_fraction=pi)
    f = df.groupby("a")["a"].transform("size").to_numpy()
    expect = np.array([_bf_bruteforce(int(x), pi) for x in f])
    assert np.allclose(r.journalist.per_record, expect, rtol=1e-6)
    assert r.marketer == pytest.approx(expect.mean(), rel=1e-6)
    # population_size gives the same fraction
    N = int(round(len(df) / pi))
    r2 = reidentification_risk(df, quasi_identifiers=["a"], population_size=N)
    expect2 = np.array([_bf_bruteforce(int(x), len(df) / N) for x in f])
    assert np.allclose(r2.journalist.per_record, expect2, rtol=1e-6)


def test_dataset_input_equals_dataframe_input():
    ds = ktype.load_adult(n=3000)
    a = reidentification_risk(ds)
    b = reidentification_risk(ds.data, quasi_identifiers=ds.quasi_identifiers)
    assert np.allclose(a.prosecutor.per_record, b.prosecutor.per_record)


def _published_class_sizes(rel):
    pub = rel.to_pandas()
    q = rel.dataset.quasi_identifiers
    return pub.groupby(q)[q[0]].transform("size").to_numpy()


def test_release_prosecutor_from_published_labels():
    ds = ktype.load_adult(n=2000)
    rel = ktype.anonymize(ds, k=5, algorithm="mondrian")
    r = reidentification_risk(rel)
    # independent path: group the published labels with pandas
    expect = 1.0 / _published_class_sizes(rel)
    assert np.allclose(np.sort(r.prosecutor.per_record), np.sort(expect))
    assert r.prosecutor.highest <= 0.2 + 1e-12
    assert r.records == ds.n - rel.n_suppressed


def test_release_journalist_counts_population_inside_boxes():
    pop_ds = ktype.load_adult(n=3000)
    sample_rows = np.arange(0, 3000, 3)
    ds = pop_ds.subset(sample_rows)
    rel = ktype.anonymize(ds, k=4, algorithm="mondrian")
    r = reidentification_risk(rel, population=pop_ds.data)
    # brute force: leaf ranks of every population record against every class box
    keep = ~rel.suppressed
    lo, hi = rel.lo[keep], rel.hi[keep]
    P = pop_ds.X  # same hierarchies, so same leaf ranks
    inside = ((P[None, :, :] >= lo[:, None, :]) & (P[None, :, :] <= hi[:, None, :])).all(axis=2)
    F = inside.sum(axis=1)
    assert np.allclose(r.journalist.per_record, 1.0 / F)
    assert r.marketer == pytest.approx(np.mean(1.0 / F))


def _match_sets(rel):
    """Brute force over all bijections original -> released row (tiny releases only)."""
    X = rel.dataset.X
    n = len(X)
    ok = ((X[:, None, :] >= rel.lo[None, :, :]) & (X[:, None, :] <= rel.hi[None, :, :])).all(axis=2)
    count = np.zeros((n, n))
    total = 0
    for perm in itertools.permutations(range(n)):
        if all(ok[i, perm[i]] for i in range(n)):
            total += 1
            for i in range(n):
                count[i, perm[i]] += 1
    return count / total


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_local_release_uniform_and_exact_posterior(seed):
    df = ktype.load_adult(n=400).data.sample(7, random_state=seed).reset_index(drop=True)[["sex", "race", "age"]]
    ds = ktype.Dataset(df, quasi_identifiers=["sex", "race", "age"], hierarchies={"age": {"intervals": [10, 20]}})
    rel = ktype.anonymize(ds, model=KConcealment(2), algorithm="k_concealment", rng=seed)
    post = _match_sets(rel)
    r = reidentification_risk(rel)
    assert np.allclose(r.prosecutor.per_record, 1.0 / (post > 0).sum(axis=1))
    e = reidentification_risk(rel, posterior="exact")
    assert np.allclose(e.prosecutor.per_record, post.max(axis=1))
    assert e.extra["records_uniform_fallback"] == 0


def test_errors():
    df = pd.DataFrame({"a": [1, 2]})
    with pytest.raises(DataError, match="quasi-identifier"):
        reidentification_risk(df)
    with pytest.raises(DataError, match="at most one"):
        reidentification_risk(df, quasi_identifiers=["a"], sampling_fraction=0.5, population_size=10)
    with pytest.raises(DataError, match="drawn from the population"):
        reidentification_risk(df, quasi_identifiers=["a"], population=pd.DataFrame({"a": [1]}))
    with pytest.raises(DataError, match="smaller than the sample"):
        reidentification_risk(df, quasi_identifiers=["a"], population_size=1)
    with pytest.raises(InvalidParameterError, match="'threshold' parameter"):
        reidentification_risk(df, quasi_identifiers=["a"], threshold=2.0)
    with pytest.raises(DataError, match="not in the table"):
        reidentification_risk(df, quasi_identifiers=["zz"])


def test_journalist_average_is_the_larger_of_el_emams_two_bounds():
    # f = (1, 1, 2), F = (2, 2, 3): J / ΣF = 3/7 exceeds (1/n) Σ f/F = 5/12
    sample = pd.DataFrame({"a": ["x", "y", "z", "z"]})
    pop = pd.DataFrame({"a": ["x", "x", "y", "y", "z", "z", "z"]})
    r = reidentification_risk(sample, quasi_identifiers=["a"], population=pop)
    assert r.journalist.average == pytest.approx(3 / 7)
    assert r.marketer == pytest.approx(5 / 12)


def test_local_release_journalist_with_population_and_fraction():
    pop_ds = ktype.load_adult(n=600)
    ds = pop_ds.subset(np.arange(0, 600, 3))
    rel = ktype.anonymize(ds, model=KConcealment(3), algorithm="k_concealment", rng=0)
    r = reidentification_risk(rel, population=pop_ds.data)
    keep = ~rel.suppressed
    P = pop_ds.X
    inside = ((P[None, :, :] >= rel.lo[keep][:, None, :]) & (P[None, :, :] <= rel.hi[keep][:, None, :])).all(axis=2)
    assert np.allclose(np.sort(r.journalist.per_record), np.sort(1.0 / inside.sum(axis=1)))
    # sampling fraction: Benedetti-Franconi with f = number of matches of each record
    s = reidentification_risk(rel, sampling_fraction=0.25)
    m = np.rint(1.0 / r.prosecutor.per_record).astype(int)
    assert np.allclose(s.journalist.per_record, [_bf_bruteforce(int(x), 0.25) for x in m], rtol=1e-6)


def test_suppressed_records_are_excluded():
    ds = ktype.load_adult(n=1500)
    rel = ktype.anonymize(ds, k=20, algorithm="flash", max_suppression=0.05)
    assert rel.n_suppressed > 0
    r = reidentification_risk(rel)
    assert r.records == ds.n - rel.n_suppressed and r.suppressed == rel.n_suppressed
    assert np.allclose(np.sort(r.prosecutor.per_record), np.sort(1.0 / _published_class_sizes(rel)))


@settings(max_examples=30, deadline=None)
@given(rows_st)
def test_k_anonymity_violations_and_risk_distribution(rows):
    df = _frame(rows)
    r = reidentification_risk(df, quasi_identifiers=["a", "b", "c"])
    size = df.groupby(["a", "b", "c"])["a"].transform("size").to_numpy()
    assert r.k_anonymity_violations() == {k: int((size < k).sum()) for k in (2, 3, 5, 10)}
    dist = r.risk_distribution()
    assert sum(dist.values()) == pytest.approx(1.0)
    assert dist["(0.5, 1]"] == pytest.approx(float((size == 1).mean()))
    assert dist["(0.334, 0.5]"] == pytest.approx(float((size == 2).mean()))
    assert dist["(0.25, 0.334]"] == pytest.approx(float((size == 3).mean()))
    s = r.summary()
    assert s["records_violating_k_anonymity"][2] == r.sample_uniques
