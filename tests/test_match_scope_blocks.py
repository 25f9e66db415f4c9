"""Match-scope ℓ-diversity decides every group, whatever the block size.

In match scope (k-concealment and other local recodings; Tassa, Mazza & Gionis, JAIR 2012,
§8) a record passes when the multiset of sensitive values of its matches is diverse. The
checker evaluates the groups of records with equal match multisets in blocks of groups, to
bound memory; the blocks are an implementation detail, so the per-record verdicts must be
those of the rule applied to all groups at once. Block sizes of one, two and five cells
force many blocks on small random local recodings; the default size, one.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import ktype
from ktype.models import ldiversity
from ktype.models.ldiversity import DistinctLDiversity, EntropyLDiversity, match_histograms
from ktype.release import Release


def _local_release(seed: int) -> Release:
    rng = np.random.default_rng(seed)
    n = 24
    df = pd.DataFrame({"age": rng.integers(20, 30, n), "income": rng.integers(1, 8, n),
                       "disease": rng.choice(["flu", "cold", "hiv"], n, p=[0.6, 0.3, 0.1])})
    ds = ktype.Dataset(df, quasi_identifiers=["age", "income"], sensitive=["disease"])
    X = ds.X
    top = (ds.domain_sizes - 1).astype(np.int64)
    lo = np.maximum(X - rng.integers(0, 3, X.shape), 0)
    hi = np.minimum(X + rng.integers(0, 3, X.shape), top)
    return Release.build(ds, lo, hi, recoding="local")


@pytest.mark.parametrize("model", [DistinctLDiversity(2, scope="matches"), EntropyLDiversity(1.8, scope="matches")],
                         ids=str)
@pytest.mark.parametrize("cells", [1, 2, 5, ldiversity._BLOCK_CELLS])
def test_match_scope_verdicts_do_not_depend_on_the_block_size(monkeypatch, model, cells):
    failing = 0
    for seed in range(8):
        rel = _local_release(seed)
        ds = rel.dataset
        m = len(ds.sensitive_values["disease"])
        group_of, sizes_g, hist_g = match_histograms(rel, "disease", m)
        ok_g = np.asarray(model.class_verdicts(sizes_g, np.asarray(hist_g.toarray(), dtype=np.int64), ds), dtype=bool)
        expect = ok_g[group_of] | (sizes_g[group_of] == 0)  # every record is published here
        monkeypatch.setattr(ldiversity, "_BLOCK_CELLS", cells)
        res = model.check(rel)
        monkeypatch.undo()
        assert res.summary["scope"] == "matches"
        assert res.per_record.tolist() == expect.tolist(), seed
        assert res.satisfied == bool(expect.all())
        failing += int((~expect).sum())
    assert failing > 0  # the tables have failing records for the blocks to miss
