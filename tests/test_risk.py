"""Prosecutor risk through ktype.risk.reidentification_risk: 1/|class| on a table, at most 1/k on a
k-anonymous release (Adult), counted against a brute-force grouping."""

import numpy as np
import pandas as pd

import ktype
from ktype.risk import reidentification_risk


def test_the_risk_of_a_table_is_one_over_its_class_size():
    df = pd.DataFrame({"a": [1, 1, 2, 3, 3, 3], "s": list("xyzxyz")})
    ds = ktype.Dataset(df, quasi_identifiers=["a"], sensitive=["s"])
    rep = reidentification_risk(ds, threshold=0.4).prosecutor
    sizes = df.groupby("a")["a"].transform("size").to_numpy()
    assert np.allclose(rep.per_record, 1.0 / sizes)
    assert rep.highest == 1.0 and rep.records_above_threshold == 3


def test_the_risk_of_a_k_anonymous_release_is_at_most_one_over_k():
    ds = ktype.load_adult(n=2000)
    rel = ktype.anonymize(ds, k=10)
    rep = reidentification_risk(rel).prosecutor
    assert rep.highest <= 0.1 + 1e-12
    assert len(rep.per_record) == ds.n - rel.n_suppressed
    assert reidentification_risk(ds).prosecutor.highest == 1.0
