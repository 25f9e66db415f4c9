"""A k-concealment release says which pipeline produced it (Tassa, Mazza & Gionis, "k-Concealment:
An Alternative Model of k-Type Anonymity", Trans. Data Privacy 2012, §7): the randomized one
(Algorithm 6 with ``q`` nearest neighbours, then 3 and 5 in random orders) or the basic,
deterministic one (Algorithm 2, then 3 and 5). A reader of the published provenance relies on
it to know whether the release depends on secret randomness and with which ``q`` the
neighbourhoods were drawn; a release that drops or renames the entry leaves them guessing."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from ktype import Dataset
from ktype.algorithms import run
from ktype.models.ktype_models import KConcealment


def table() -> Dataset:
    rng = np.random.default_rng(3)
    df = pd.DataFrame({"age": rng.integers(20, 70, 16), "zip": rng.choice(["10001", "10002", "20001", "20002"], 16)})
    return Dataset(df, quasi_identifiers=["age", "zip"],
                   hierarchies={"age": {"intervals": [5, 10, 20, 40]}, "zip": {"masking": [1, 2, 5]}})


@pytest.mark.parametrize(("options", "steps", "q"), [
    ({"randomized": True, "rng": 1}, ("alg6", "alg3", "alg5"), 2 * (3 - 1)),  # q defaults to 2(k - 1)
    ({"randomized": True, "rng": 1, "q": 5}, ("alg6", "alg3", "alg5"), 5),
    ({"randomized": False}, ("alg2", "alg3", "alg5"), None),
])
def test_the_provenance_names_the_pipeline_that_ran(options, steps, q):
    rel = run("k_concealment", table(), KConcealment(3), **options)
    local = rel.provenance["local"]
    assert tuple(local["pipeline"].split("+")) == steps
    assert local["randomized"] is options["randomized"]
    assert local.get("q") == q
    assert KConcealment(3).check(rel).satisfied


@pytest.mark.parametrize(("algorithm", "model", "steps"), [
    ("k1_anonymity", "KOneAnonymity", ("alg2",)),
    ("kk_anonymity", "KKAnonymity", ("alg2", "alg3")),
])
def test_the_k1_and_kk_releases_name_their_algorithms(algorithm, model, steps):
    """(k,1)- and (k,k)-anonymity (Tassa et al. §5): Algorithm 2 alone, or Algorithm 2 then 3."""
    from ktype.models import ktype_models

    m = getattr(ktype_models, model)(3)
    rel = run(algorithm, table(), m)
    assert tuple(rel.provenance["local"]["pipeline"].split("+")) == steps
    assert m.check(rel).satisfied
