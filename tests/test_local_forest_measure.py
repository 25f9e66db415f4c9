"""The forest pipelines (Aggarwal et al. forest; Gionis & Tassa, TKDE 2009, §6.4) cluster by
the cost of the measure they are given: on a table where the loss metric and entropy rank
the candidate merges differently, asking for the other measure gives another release, and
each release records the measure it was built for. (A pipeline that drops its
``measure`` argument and always uses the default passes every other test.)"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from ktype import Dataset
from ktype.algorithms import run
from ktype.models.kanonymity import KAnonymity


def table(seed: int = 0) -> Dataset:
    rng = np.random.default_rng(seed)
    df = pd.DataFrame({"age": rng.integers(20, 70, 14),
                       "zip": rng.choice(["10001", "10002", "10025", "20001", "20002"], 14)})
    return Dataset(df, quasi_identifiers=["age", "zip"],
                   hierarchies={"age": {"intervals": [5, 10, 20, 40]}, "zip": {"masking": [1, 2, 5]}})


@pytest.mark.parametrize("algorithm", ["forest", "gt_forest"])
def test_the_measure_given_shapes_the_clusters(algorithm):
    ds = table()
    published = {}
    for m in ("loss_metric", "entropy"):
        rel = run(algorithm, ds, KAnonymity(3), measure=m)
        assert rel.provenance["local"]["measure"] == m == rel.provenance["objective_measure"]
        published[m] = rel.to_pandas().to_csv(index=False)
        assert run(algorithm, ds, KAnonymity(3), measure=m).to_pandas().to_csv(index=False) == published[m]
    assert published["entropy"] != published["loss_metric"]
