"""Micro-aggregation's reported figures against recounts that share no code with
``ktype.algorithms.microaggregation``: the within-group and total sums of squares of any table
(a loop over the groups), the SST of z-scores (n per non-constant quasi-identifier, by
definition of a z-score), the published boxes (each group's own minimum and maximum), and the
trivial k = 1 (every record its own group: nothing is lost)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import ktype
from ktype.algorithms import run
from ktype.algorithms.microaggregation import microaggregate, partition, sse_sst
from ktype.models.kanonymity import KAnonymity

pytestmark = pytest.mark.timeout(180)


def _recount(P: np.ndarray, label: np.ndarray) -> tuple[float, float]:
    sse = 0.0
    for g in np.unique(label):  # oracle: one group at a time
        part = P[label == g]
        sse += float(((part - part.mean(axis=0)) ** 2).sum())
    return sse, float(((P - P.mean(axis=0)) ** 2).sum())


@pytest.mark.parametrize("seed", range(4))
def test_sse_and_sst_of_any_table_equal_a_per_group_recount(seed):
    rng = np.random.default_rng(seed)
    P = rng.normal(50.0, 10.0, size=(40, 3)) + np.array([100.0, -20.0, 7.0])  # not centred
    label = rng.integers(0, 6, 40)
    label[:6] = np.arange(6)  # every group present
    sse, sst = sse_sst(P, label, 6)
    want_sse, want_sst = _recount(P, label)
    assert sse == pytest.approx(want_sse, rel=1e-12)
    assert sst == pytest.approx(want_sst, rel=1e-12)


def _table(seed: int) -> ktype.Dataset:
    rng = np.random.default_rng(seed)
    df = pd.DataFrame({"a": rng.integers(0, 40, 90), "b": rng.integers(0, 6, 90), "c": np.full(90, 3)})
    return ktype.Dataset(df, quasi_identifiers=["a", "b", "c"])


@pytest.mark.parametrize("name", ["mdav", "v_mdav"])
@pytest.mark.parametrize("seed", [0, 1])
def test_registered_releases_report_their_groups_sums_of_squares_and_boxes(name, seed):
    ds = _table(seed)
    rel = run(name, ds, KAnonymity(5))
    info = rel.provenance["microaggregation"]
    label, g, _ = partition(ds, 5, variable=name == "v_mdav")
    X = ds.data[["a", "b", "c"]].to_numpy(np.float64)
    sd = X.std(axis=0)
    Z = (X - X.mean(axis=0)) / np.where(sd > 0, sd, 1.0)
    sse, sst = _recount(Z, label)
    # z-scores: each non-constant column has mean 0 and variance 1, so it adds n to the SST
    assert info["sst"] == pytest.approx(2 * ds.n) == pytest.approx(sst)
    assert info["sse"] == pytest.approx(sse)
    assert info["sse_sst"] == pytest.approx(sse / sst)
    sizes = np.bincount(label)
    assert (info["groups"], info["smallest_group"], info["largest_group"]) == (g, sizes.min(), sizes.max())
    # each published row is its group's tightest box (ordered integers: the group's min and max)
    for j, c in enumerate(["a", "b", "c"]):
        vals = ds.data[c].to_numpy()
        lo = pd.Series(vals).groupby(label).transform("min").to_numpy()
        hi = pd.Series(vals).groupby(label).transform("max").to_numpy()
        leaves = ds.hierarchies[j].numeric_values()
        got_lo = leaves[rel.lo[:, j]]
        got_hi = leaves[rel.hi[:, j]]
        src = np.asarray(rel.source) if rel.source is not None else np.arange(ds.n)
        np.testing.assert_array_equal(got_lo, lo[src])
        np.testing.assert_array_equal(got_hi, hi[src])


@pytest.mark.parametrize("name", ["mdav", "v_mdav"])
def test_k_1_keeps_every_record_and_loses_nothing(name):
    df = pd.DataFrame({"a": [5, 1, 9, 3, 7], "b": [2, 8, 4, 6, 0]})
    ds = ktype.Dataset(df, quasi_identifiers=["a", "b"])
    rel = run(name, ds, KAnonymity(1))
    assert rel.provenance["microaggregation"]["sse"] == 0.0
    assert rel.provenance["microaggregation"]["groups"] == 5
    ma = microaggregate(ds, 1, method=name)
    assert ma.sse == 0.0 and ma.information_loss == 0.0
    assert sorted(map(tuple, ma.table.to_numpy().tolist())) == sorted(map(tuple, df.to_numpy(float).tolist()))
