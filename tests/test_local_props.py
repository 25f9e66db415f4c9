"""Hypothesis property tests of the local-recoding algorithms on random small tables.

Every pipeline is called through ``ktype.algorithms.run``, so each output is verified by
the *independent* checker of its model (``ktype.models``); on top, the k-concealment
outputs are checked against brute-force perfect-matching enumeration.
"""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ktype.algorithms import run
from ktype.algorithms.local import Problem, all_matches, k1_expansion, k_conceal, one_k_completion
from ktype.data.dataset import Dataset
from ktype.data.hierarchy import Hierarchy
from ktype.models.kanonymity import KAnonymity
from ktype.models.ktype_models import KConcealment, KKAnonymity, KOneAnonymity
from ktype.models.ldiversity import FrequencyLDiversity, PSensitivity

SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def tables(draw, n_min=3, n_max=8):
    n = draw(st.integers(n_min, n_max))
    r = draw(st.integers(1, 3))
    data, hier = {}, {}
    for j in range(r):
        m = draw(st.integers(2, 6))
        col = draw(st.lists(st.integers(0, m - 1), min_size=n, max_size=n))
        data[f"a{j}"] = col
        kind = draw(st.sampled_from(["intervals", "flat", "subsets"]))
        if kind == "intervals":
            hier[f"a{j}"] = Hierarchy.intervals(range(m), [2, 4], name=f"a{j}")
        elif kind == "flat":
            hier[f"a{j}"] = Hierarchy.flat(range(m), name=f"a{j}")
        else:
            cut = draw(st.integers(1, m - 1))
            hier[f"a{j}"] = Hierarchy.from_subsets(
                list(range(m)), [list(range(cut)), list(range(cut, m))], name=f"a{j}"
            )
    data["s"] = draw(st.lists(st.integers(0, 2), min_size=n, max_size=n))
    df = pd.DataFrame(data)
    return Dataset(df, quasi_identifiers=[f"a{j}" for j in range(r)], sensitive=["s"], hierarchies=hier)


def _brute_match_counts(X, lo, hi):
    adj = ((X[:, None, :] >= lo[None]) & (X[:, None, :] <= hi[None])).all(axis=2)
    n = len(X)
    out = np.zeros_like(adj)
    for perm in itertools.permutations(range(n)):
        if all(adj[i, perm[i]] for i in range(n)):
            out[np.arange(n), perm] = True
    return out.sum(axis=1)


@SETTINGS
@given(ds=tables(), k=st.integers(1, 3), measure=st.sampled_from(["loss_metric", "entropy"]))
def test_pipelines_pass_independent_checkers(ds, k, measure):
    k = min(k, ds.n)
    run("k1_anonymity", ds, KOneAnonymity(k), measure=measure)
    run("kk_anonymity", ds, KKAnonymity(k), measure=measure)
    rel = run("k_concealment", ds, KConcealment(k), measure=measure, randomized=False)
    counts = _brute_match_counts(ds.X[rel.source], rel.lo, rel.hi)
    assert counts.min() >= k
    run("k_concealment", ds, KConcealment(k), randomized=True, rng=0, measure=measure)
    run("agglomerative", ds, KAnonymity(k), measure=measure)
    run("forest", ds, KAnonymity(k), measure=measure)


@SETTINGS
@given(ds=tables(n_min=4), k=st.integers(2, 3), seed=st.integers(0, 10))
def test_incremental_scc_equals_full(ds, k, seed):
    k = min(k, ds.n)
    p = Problem.from_dataset(ds)
    LO, HI = one_k_completion(p, *k1_expansion(p, k), k)
    order = np.random.default_rng(seed).permutation(ds.n)
    a = k_conceal(p, LO, HI, k, order=order)
    b = k_conceal(p, LO, HI, k, order=order, scc_update="full")
    assert (a[0] == b[0]).all() and (a[1] == b[1]).all()
    _, mine = all_matches(p.X, *a)
    assert (mine == _brute_match_counts(p.X, *a)).all()


@SETTINGS
@given(ds=tables(n_min=4), k=st.integers(1, 3))
def test_diversified_k_concealment(ds, k):
    k = min(k, ds.n)
    s = ds.sensitive_codes["s"]
    nd = len(np.unique(s))
    run("k_concealment", ds, [KConcealment(k), PSensitivity(nd)], randomized=True, rng=2)
    ell = float(min(1.5, ds.n / np.bincount(s).max()))
    run("k_concealment", ds, [KConcealment(k), FrequencyLDiversity(ell)], randomized=False)
    rel = run("agglomerative", ds, KAnonymity(k), l=ell)
    assert FrequencyLDiversity(ell, scope="class").check(rel).satisfied
