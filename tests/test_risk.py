import numpy as np
import pandas as pd

import ktype
from ktype.attacks.risk import dataset_risk, release_risk


def test_dataset_risk_counts_uniques():
    df = pd.DataFrame({"a": [1, 1, 2, 3, 3, 3], "s": list("xyzxyz")})
    ds = ktype.Dataset(df, quasi_identifiers=["a"], sensitive=["s"])
    rep = dataset_risk(ds, threshold=0.4)
    assert np.allclose(sorted(rep.per_record), sorted([0.5, 0.5, 1.0, 1 / 3, 1 / 3, 1 / 3]))
    assert rep.summary["unique_records"] == 1 and rep.summary["records_above_threshold"] == 3


def test_release_risk_bounded_by_one_over_k():
    ds = ktype.load_adult(n=2000)
    rel = ktype.anonymize(ds, k=10)
    rep = release_risk(rel)
    assert rep.summary["highest_risk"] <= 0.1 + 1e-12
    assert rep.summary["records"] == ds.n - rel.n_suppressed
    assert dataset_risk(ds).summary["highest_risk"] == 1.0
