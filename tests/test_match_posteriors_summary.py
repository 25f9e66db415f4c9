"""MatchPosteriors.summary() (what the matching attack reports) recounted from the result's own
arrays and the posterior matrix: the components, which of them got exact posteriors (those of
at most ``max_component`` records, Tassa, Mazza & Gionis, Trans. Data Privacy 2012, §5.2),
the records left without, and the records re-identified."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pandas as pd
import pytest

from ktype import Dataset
from ktype.algorithms import run
from ktype.attacks import match_posteriors
from ktype.models.ktype_models import KConcealment


@pytest.fixture(scope="module")
def release():
    rng = np.random.default_rng(2)
    df = pd.DataFrame({"age": rng.integers(20, 70, 24), "zip": rng.choice(["10001", "10002", "20001", "20002"], 24)})
    ds = Dataset(df, quasi_identifiers=["age", "zip"],
                 hierarchies={"age": {"intervals": [5, 10, 20, 40]}, "zip": {"masking": [1, 2, 5]}})
    return run("k_concealment", ds, KConcealment(2), randomized=False)


@pytest.mark.parametrize("limit", [2, 4, 20])
def test_the_summary_recounts(release, limit):
    post = match_posteriors(release, max_component=limit)
    s = post.summary()
    sizes = np.bincount(post.component_of)
    assert s["records"] == release.dataset.n == len(post.component_of)
    assert s["components"] == len(sizes) and (post.component_sizes == sizes).all()
    assert s["size_distribution"] == {int(k): int(v) for k, v in Counter(sizes.tolist()).items()}
    exact = sizes <= limit
    assert (post.exact == exact).all()
    assert s["max_component"] == limit
    assert s["exact_components"] == int(exact.sum())
    assert s["too_large_components"] == int((~exact).sum())
    assert s["exact_components"] + s["too_large_components"] == s["components"]
    assert s["records_in_too_large_components"] == int(sizes[~exact].sum())
    # the largest posterior of each record of an exact component, from the matrix itself
    dense = post.posterior.toarray()
    in_exact = exact[post.component_of]
    best = dense[in_exact].max(axis=1) if in_exact.any() else np.zeros(0)
    assert s["records_reidentified"] == int((best >= 1.0 - 1e-12).sum())
    assert s["records_posterior_at_least_half"] == int((best >= 0.5).sum())
    assert (s["max_posterior"] is None) == (not in_exact.any())
    if in_exact.any():
        assert s["max_posterior"] == pytest.approx(best.max())
