"""Property tests written for the mutants of ``models/transparent.py`` that the first mutation
sample left alive (issue #9; docs/mutation.md): each asserts a property of the exact risk
oracle or of the transparency check that a one-line bug breaks."""

from __future__ import annotations

import functools
from fractions import Fraction as F

import numpy as np
import pandas as pd
import pytest

import ktype
from ktype.algorithms import run
from ktype.attacks import transparent as A
from ktype.exceptions import DataError
from ktype.models import transparent as TM
from ktype.models.transparent import TransparentLDiversity, qi_coordinates, risk_oracle


@pytest.mark.parametrize("seed", range(6))
def test_reference_distributions_are_probability_distributions(seed):
    """Every reference distribution sums to exactly 1 over its outcomes (outcomes of Assign that
    lead to the same groups add up: one overwriting the other loses probability mass)."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(4, 8))
    rows = [(f"p{i}", (int(rng.integers(1, 4)), int(rng.integers(1, 4))), "abc"[i % 3]) for i in range(n)]
    for name in ("tailor", "ace", "hybrid"):
        dist = TM.reference_distribution(name)[0](rows, 2)
        assert sum(dist.values()) == 1, name
    groups = TM._ace_groups_dist(rows, 2, (4, 4))
    assert sum(groups.values()) == 1 and len(groups) >= 1


def test_oracle_refuses_duplicate_identifiers_by_name():
    ext = [("Ann", (21, 10)), ("Ann", (27, 18))]
    with pytest.raises(DataError, match=r"^The external source has duplicate identifiers; the oracle needs one row per person\.$"):
        risk_oracle(A.T6_STAR, ext, "tailor", 2)


def test_oracle_uses_an_explicit_value_domain():
    """Mask attack fixture (appendix): with the domain given explicitly the posterior is the same
    7/12; a larger domain adds candidate instances for the altered values."""
    dist = functools.partial(A.mask_dist, protected=["dyspepsia"])
    e9 = [(o, (a,)) for o, a in sorted(A.T9_AGES.items())]
    base = risk_oracle(A.T10_STAR, e9, dist, 2, alters_values=True)
    values = sorted({v for (_, v), _ in A.T10_STAR}, key=repr)
    same = risk_oracle(A.T10_STAR, e9, dist, 2, alters_values=True, value_domain=values)
    assert same.risk == base.risk and same.risk["Ann"] == F(7, 12)
    wider = risk_oracle(A.T10_STAR, e9, dist, 2, alters_values=True, value_domain=[*values, "zzz-unseen"])
    assert wider.candidates > base.candidates


def test_qi_coordinates_use_ranks_for_dates_and_values_for_integers():
    """Dates are not numeric attributes: ranks 0..m-1, not days since 1970."""
    df = pd.DataFrame({"id": range(4), "d": pd.to_datetime(["2020-01-01", "2020-03-05", "2021-01-01", "2020-01-01"]),
                       "q": [1, 5, 9, 5], "s": ["a", "b", "a", "b"]})
    ds = ktype.Dataset(df, quasi_identifiers=["d", "q"], sensitive=["s"], identifiers=["id"])
    d, q = qi_coordinates(ds)
    assert d.tolist() == [0, 1, 2] and q.tolist() == [1, 5, 9]


def _mondrian_fixture():
    df = pd.DataFrame({"id": list(A.MONDRIAN_E), "q0": [A.MONDRIAN_E[o][0] for o in A.MONDRIAN_E],
                       "q1": [A.MONDRIAN_E[o][1] for o in A.MONDRIAN_E], "s": [A.MONDRIAN_T[o] for o in A.MONDRIAN_E]})
    return ktype.Dataset(df, quasi_identifiers=["q0", "q1"], sensitive=["s"], identifiers=["id"])


def test_exact_check_has_one_verdict_per_released_row():
    ds = _mondrian_fixture()
    rel = run("hybrid", ds, TransparentLDiversity(2, method="exact"), rng=3)
    assert rel.source is not None
    res = TransparentLDiversity(2, method="exact").check(rel)
    per = np.asarray(res.per_record)
    assert res.satisfied and per.shape == (rel.n,) and per.dtype == bool and per.all()
    # the attacked Mondrian release: u2's risk 3/5 > 1/2, so no released row passes on its own
    pub = ds.data[["q0", "q1", "s"]].copy()
    pub["q0"], pub["q1"] = "[3-5]", "[1-4]"
    bad = ktype.api.parse_release(ds, pub)
    TM.register_reference("mondrian_fixture_mut", functools.partial(A.mondrian_ldiv_dist, ext=(5, 5)))
    res = TransparentLDiversity(2, algorithm="mondrian_fixture_mut", method="exact").check(bad)
    per = np.asarray(res.per_record)
    assert not res.satisfied and per.shape == (bad.n,)
    if bad.source is not None:  # per original record's person: only u2's row fails
        ids = ds.data["id"].to_numpy()[bad.source]
        assert per.tolist() == [o != "u2" for o in ids]
    else:
        assert not per.any()
