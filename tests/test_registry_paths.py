"""The registry's own paths, each against what it promises (found untested by the mutation
measurement of ``algorithms/_registry.py``):

* the ``suppress`` missing-value policy: records with a missing value are suppressed, count
  against ``max_suppression`` (``floor(share × n)`` records, exact fractions here), the rest
  is anonymized and the whole release verified; too many such records is refused;
* the provenance the registry writes (the models, the parameters, its timings);
* its messages: an unknown option named (the first in sorted order, with a suggestion), an
  unsupported model with the supported ones listed, the algorithm's progress stage saying
  how many records it works on.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest

from ktype import Dataset
from ktype.algorithms import run
from ktype.exceptions import InfeasibleError, InvalidParameterError, UnsupportedModelError
from ktype.models import DistinctLDiversity, KAnonymity
from ktype.models.freeform import FreeformKAnonymity


def _with_missing(n: int = 60, n_missing: int = 5, seed: int = 0) -> tuple[pd.DataFrame, Dataset]:
    rng = np.random.default_rng(seed)
    df = pd.DataFrame({"age": rng.integers(20, 30, n).astype(str), "zip": rng.choice(["a", "b", "c"], n),
                       "disease": rng.choice(["x", "y", "z"], n)})
    df.loc[rng.choice(n, n_missing, replace=False), "zip"] = None
    ds = Dataset(df, quasi_identifiers=["age", "zip"], sensitive=["disease"], missing={"zip": "suppress"})
    return df, ds


@pytest.mark.parametrize(("algorithm", "share"), [("flash", "0.2"), ("mondrian", "0.1"), ("flash", "0.0834")])
def test_the_suppress_policy_suppresses_the_missing_and_stays_within_the_limit(algorithm, share):
    df, ds = _with_missing()
    options = {"max_suppression": float(share)} if algorithm == "flash" else {}
    rel = run(algorithm, ds, KAnonymity(3), **options)
    missing = df["zip"].isna().to_numpy()
    src = rel.source
    assert rel.suppressed[np.isin(src, np.flatnonzero(missing))].all()  # every record with a missing value
    if algorithm == "flash":
        assert rel.n_suppressed <= math.floor(Fraction(share) * ds.n)
        assert rel.provenance["parameters"]["max_suppression"] == float(share)
    assert rel.provenance["suppressed_for_missing_values"] == int(missing.sum())
    assert rel.models == (KAnonymity(3),) and rel.provenance["verified"] is True
    assert rel.recoding == ("full-domain" if algorithm == "flash" else "multidimensional")
    shown = ~rel.suppressed
    sizes = pd.Series(map(tuple, np.column_stack([rel.lo, rel.hi])[shown])).value_counts()
    assert sizes.min() >= 3  # the published classes, checked here without the model
    X = ds.X[src]  # every published box covers its own record's values
    assert ((rel.lo[shown] <= X[shown]) & (X[shown] <= rel.hi[shown])).all()


def test_the_suppress_policy_keeps_the_full_domain_levels_of_the_complete_records():
    """The release rebuilt over all records keeps the generalization levels flash chose for the
    complete ones (the levels name the hierarchy nodes published and mark the recoding as
    full-domain for an audit): the same levels as flash on those records alone."""
    df, ds = _with_missing()
    rel = run("flash", ds, KAnonymity(3), max_suppression=0.2)
    complete = ds.subset(np.flatnonzero(df["zip"].notna().to_numpy()))
    alone = run("flash", complete, KAnonymity(3), max_suppression=(12 - 5) / 55)
    assert rel.levels is not None and list(rel.levels) == list(alone.levels)


def test_the_suppress_policy_refuses_more_missing_records_than_the_limit():
    _, ds = _with_missing(n=60, n_missing=7)
    limit = math.floor(Fraction("0.1") * 60)  # 6 < 7
    with pytest.raises(InfeasibleError, match=rf"7 record\(s\).*limit {limit}"):
        run("flash", ds, KAnonymity(3), max_suppression=0.1)


def test_the_registry_records_its_timings():
    """The registry adds algorithm_s, verification_s and compile_s, all non-negative."""
    _, ds = _with_missing(n_missing=0)
    rel = run("flash", ds, KAnonymity(3))
    t = rel.provenance["timings"]
    assert {"algorithm_s", "verification_s", "compile_s"} <= set(t) and min(t.values()) >= 0


def test_an_unknown_option_is_named_with_a_suggestion():
    from ktype.datasets.synthetic import census_dataset

    ds = census_dataset(50, rng=1)
    with pytest.raises(InvalidParameterError, match=r"max_supression.*max_suppression"):
        run("flash", ds, KAnonymity(3), max_supression=0.1)
    with pytest.raises(InvalidParameterError, match=r"'a_first'"):  # the first of several, in sorted order
        run("flash", ds, KAnonymity(3), z_last=1, a_first=2)


def test_an_unsupported_model_lists_the_supported_ones():
    from ktype.algorithms import get_algorithm
    from ktype.datasets.synthetic import census_dataset

    ds = census_dataset(50, rng=1)
    with pytest.raises(UnsupportedModelError) as e:
        run("flash", ds, FreeformKAnonymity(3))
    names = [t.__name__ for t in get_algorithm("flash").models]
    assert all(name in str(e.value) for name in names) and "KAnonymity" in names
    assert DistinctLDiversity.__name__ in names


def test_the_algorithm_stage_says_how_many_records():
    from ktype.datasets.synthetic import census_dataset

    events = []
    run("mondrian", census_dataset(123, rng=1), KAnonymity(3), progress=events.append)
    stages = [e for e in events if getattr(e, "stage", None) == "mondrian"]
    assert stages and any("123 records" in str(getattr(e, "detail", "")) for e in stages)
