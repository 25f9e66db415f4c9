"""Reported risks against definitions and oracles that share no code with :mod:`ktype.risk`.

* Missing values are one value of their own (an attacker sees "missing" too): the risks of a
  table with missing cells equal those of the same table with a fresh token in their place.
* SUDA's summary counts minimal sample uniques per size as a brute force over every
  attribute subset finds them (Elliot, Manning & Ford, "A computational algorithm for
  handling the special uniques problem", IJUFKS 10(5), 2002, §2).
* Pitman's estimate of population uniques rests on a maximum-likelihood fit of the Pitman
  sampling formula with 0 <= alpha < 1 and theta > -alpha (Hoshino, "Applying Pitman's
  sampling formula to microdata disclosure risk assessment", J. Official Statistics 17(4),
  2001, §3): the fit is compared with a grid over that parameter space, using the
  likelihood written out here from the formula.
* HIPAA Safe Harbor (45 CFR §164.514(b)(2)(i)(B), (C)): the initial three digits of a ZIP
  code may be published, more may not; exact dates are identifiers. The identifier hints
  follow that line, on an input table and on what a release publishes.
"""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest

from ktype import Dataset
from ktype.algorithms import run
from ktype.data.hierarchy import Hierarchy
from ktype.exceptions import DataError, InvalidParameterError
from ktype.models import KAnonymity
from ktype.risk import identifier_hints, reidentification_risk, suda
from ktype.risk.report import risk_report
from ktype.risk.uniqueness import pitman_fit


def _table(seed: int, n: int = 12) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    a = rng.choice([1.0, 2.0, np.nan], n)
    b = rng.choice(np.array(["x", "y", None], dtype=object), n)
    c = rng.choice(np.array(["u", "v"], dtype=object), n)
    return pd.DataFrame({"a": a, "b": b, "c": c})


@pytest.mark.parametrize("seed", range(4))
def test_missing_values_are_one_value_of_their_own(seed):
    df = _table(seed)
    token = df.astype(object).where(df.notna(), "<missing>")
    qis = ["a", "b", "c"]
    got, want = reidentification_risk(df, quasi_identifiers=qis), reidentification_risk(token, quasi_identifiers=qis)
    np.testing.assert_array_equal(got.prosecutor.per_record, want.prosecutor.per_record)
    assert got.sample_uniques == want.sample_uniques and got.classes == want.classes
    np.testing.assert_array_equal(suda(df, quasi_identifiers=qis, max_size=3).score,
                                  suda(token, quasi_identifiers=qis, max_size=3).score)


def _msus_by_size(df: pd.DataFrame, cols: list[str], max_size: int) -> dict[int, int]:
    """Brute force: a subset S is a sample unique of record i if no other record shares i's values
    on S, and minimal if no proper subset of S is one; counted over records, per size."""
    rows = [tuple(r) for r in df[cols].astype(str).itertuples(index=False)]
    def unique(i: int, S: tuple[int, ...]) -> bool:
        return sum(all(r[j] == rows[i][j] for j in S) for r in rows) == 1
    out = {k: 0 for k in range(1, max_size + 1)}
    for i in range(len(rows)):
        for k in range(1, max_size + 1):
            for S in itertools.combinations(range(len(cols)), k):
                if unique(i, S) and not any(unique(i, T) for m in range(1, k) for T in itertools.combinations(S, m)):
                    out[k] += 1
    return out


@pytest.mark.parametrize("seed", range(5))
def test_suda_summary_counts_the_minimal_sample_uniques_of_each_size(seed):
    rng = np.random.default_rng(seed)
    df = pd.DataFrame({c: rng.integers(0, 3, 10) for c in "abcd"})
    summary = suda(df, quasi_identifiers=list("abcd"), max_size=3).summary()
    want = _msus_by_size(df, list("abcd"), 3)
    assert summary["msus_by_size"] == want
    assert summary["msus"] == sum(want.values())


def test_suda_of_no_records_reports_zero_scores():
    df = pd.DataFrame({"a": pd.Series([], dtype=object), "b": pd.Series([], dtype=object)})
    summary = suda(df, quasi_identifiers=["a", "b"], max_size=2).summary()
    assert summary["records"] == 0 and summary["mean_score"] == 0.0 and summary["highest_score"] == 0.0


def _pitman_loglik(sizes: np.ndarray, theta: np.ndarray, alpha: np.ndarray) -> np.ndarray:
    """log P(partition) of Pitman's sampling formula, up to the constant combinatorial factor:
    prod_{i<K} (theta + i alpha) / (theta + 1)_{n-1} * prod_classes (1 - alpha)_{size-1}."""
    n, K = int(sizes.sum()), len(sizes)
    theta, alpha = np.asarray(theta, dtype=float)[..., None], np.asarray(alpha, dtype=float)[..., None]
    out = np.log(theta + np.arange(1, K) * alpha).sum(-1) - np.log(theta + np.arange(1, n)).sum(-1)
    ells = np.concatenate([np.arange(1, int(j)) for j in sizes] + [np.zeros(0)])
    return out + np.log(ells - alpha).sum(-1)


@pytest.mark.parametrize("sizes", [[5] * 20, [2] * 30, [10, 10, 9, 8, 8, 7, 3, 3, 2], [1] * 5 + [2] * 20,
                                   [1] * 30 + [2] * 5 + [4]])
def test_pitman_fit_is_the_maximum_likelihood_over_the_parameter_space(sizes):
    sizes = np.array(sizes)
    theta, alpha = pitman_fit(sizes)
    assert 0.0 <= alpha < 1.0 and theta > -alpha
    a, th = np.meshgrid(np.linspace(0.0, 0.99, 100), np.geomspace(1e-3, 1e4, 400))
    best = float(_pitman_loglik(sizes, th, a).max())
    assert float(_pitman_loglik(sizes, theta, alpha)) >= best - 1e-9 * abs(best)


def test_an_unknown_quasi_identifier_is_a_data_error_naming_it():
    ds = Dataset(pd.DataFrame({"age": [1, 2, 3], "s": list("xyz")}), quasi_identifiers=["age"], sensitive=["s"])
    with pytest.raises(DataError, match="agee"):
        reidentification_risk(ds, quasi_identifiers=["agee"])
    with pytest.raises(DataError, match="agee"):
        suda(ds, quasi_identifiers=["agee"])


@pytest.mark.parametrize(("digits", "identifier"), [(3, False), (4, True), (5, True)])
def test_a_zip_column_is_an_identifier_above_three_digits(digits, identifier):
    zips = [str(10 ** (digits - 1) + 7 * i) for i in range(30)]
    hints = identifier_hints(pd.DataFrame({"zip": zips}))
    assert any(h.category == "a ZIP code" and h.evidence == "name" for h in hints) == identifier, hints


def test_a_datetime_column_is_an_exact_date_by_its_values():
    df = pd.DataFrame({"visit": pd.to_datetime(["2020-01-03", "2020-02-04", "2021-05-06"]), "n": [1, 2, 1]})
    hints = identifier_hints(df)
    assert [(h.column, h.category, h.evidence) for h in hints] == [("visit", "an exact date", "values")]


def test_identifier_hints_sample_size_is_at_least_one():
    df = pd.DataFrame({"contact": ["a@b.org", "not an address", "c@d.com"]})
    (hint,) = identifier_hints(df, sample=1)  # the first value only
    assert hint.category == "an e-mail address" and hint.share == 1.0
    with pytest.raises(InvalidParameterError, match="sample"):
        identifier_hints(df, sample=0)


def test_release_hints_follow_what_is_published():
    """A ZIP column published with five digits gets a hint; published as its three-digit prefix
    (the same input) it gets none."""
    zips = [f"94{i:03d}" for i in range(24)]
    df = pd.DataFrame({"zip": zips, "s": ["x", "y"] * 12})
    exact = Dataset(df, quasi_identifiers=["zip"], sensitive=["s"],
                    hierarchies={"zip": Hierarchy.masking(zips, "zip", levels=[2])})
    rel = run("flash", exact, KAnonymity(2))
    assert rel.levels is not None and int(rel.levels[0]) == 1  # every ZIP unique: masked to 940**
    hints = risk_report(rel, drivers=False)["identifier_hints"]
    assert not [h for h in hints if h["column"] == "zip"], hints
    doubled = pd.concat([df, df], ignore_index=True)  # every ZIP twice: published exactly
    ds2 = Dataset(doubled, quasi_identifiers=["zip"], sensitive=["s"],
                  hierarchies={"zip": Hierarchy.masking(zips, "zip", levels=[2])})
    rel2 = run("flash", ds2, KAnonymity(2))
    assert int(rel2.levels[0]) == 0
    hints2 = risk_report(rel2, drivers=False)["identifier_hints"]
    assert {h["category"] for h in hints2 if h["column"] == "zip"} == {"a ZIP code"}, hints2
