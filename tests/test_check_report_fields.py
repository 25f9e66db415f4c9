"""What a CheckReport says, field by field, against the checkers' own results and a recount:
each verdict's mark and words, its dictionary form (what ``ktype check --json`` prints), the
weaker side of a (k,k)-anonymous release, and the findings when the original given is not
the release's own (a missing column, other values) or when a model is not a model."""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import pandas as pd
import pytest

import ktype
from ktype.checking import achieved, fingerprint
from ktype.exceptions import InvalidParameterError
from ktype.models import KAnonymity
from ktype.models.ktype_models import KKAnonymity


def table() -> ktype.Dataset:
    rng = np.random.default_rng(5)
    df = pd.DataFrame({"age": rng.integers(20, 70, 40), "zip": rng.choice(["10001", "10002", "20001", "20002"], 40),
                       "disease": rng.choice(["flu", "cold", "ulcer"], 40)})
    return ktype.Dataset(df, quasi_identifiers=["age", "zip"], sensitive=["disease"],
                         hierarchies={"age": {"intervals": [5, 10, 20, 40]}, "zip": {"masking": [1, 2, 5]}})


@pytest.fixture(scope="module")
def release():
    return ktype.algorithms.run("datafly", table(), KAnonymity(4))


def test_each_verdict_shows_whether_it_holds(release):
    smallest = int(release.to_pandas().groupby(["age", "zip"]).size().min())
    report = ktype.check(release, [KAnonymity(smallest), KAnonymity(smallest + 1)])
    held, failed = report.verdicts
    assert held.satisfied and not failed.satisfied
    assert str(held) == f"✓ {held.model}: {smallest}-anonymous"
    assert str(failed) == f"✗ {failed.model}: {smallest}-anonymous"


def test_the_dictionary_form_repeats_every_verdict(release):
    report = ktype.check(release, [KAnonymity(2), KAnonymity(99)])
    d = json.loads(json.dumps(report.to_dict()))  # plain JSON
    assert d["passed"] is False and d["achieved"] == str(report) and d["findings"] == []
    assert [m["model"] for m in d["models"]] == [v.model for v in report.verdicts]
    assert [m["satisfied"] for m in d["models"]] == [True, False]
    assert [m["achieved"] for m in d["models"]] == [v.achieved for v in report.verdicts]
    assert [m["value"] for m in d["models"]] == [v.value for v in report.verdicts]
    assert d["models"][0]["summary"]["smallest_class"] == report.results[0].summary["smallest_class"]


def test_kk_anonymity_reports_its_weaker_side():
    rel = ktype.algorithms.run("kk_anonymity", table(), KKAnonymity(2))
    res = KKAnonymity(2).check(rel)
    weaker = min(res.summary["min_degree"], res.summary["min_released_degree"])
    assert achieved(KKAnonymity(2), res) == (f"({weaker},{weaker})-anonymous", float(weaker))
    # the weaker side decides even where the released side is the smaller one
    lopsided = dataclasses.replace(res, summary={**res.summary, "min_degree": weaker + 3, "min_released_degree": weaker})
    assert achieved(KKAnonymity(2), lopsided)[1] == float(weaker)


def test_an_original_without_a_published_column_is_not_the_releases_own(release):
    other = release.dataset.data.drop(columns=["zip"])
    report = ktype.check(release, original=other)
    assert not report.passed and report.findings[0].check == "original"
    assert report.facts["fingerprint"]["original"] == "missing columns: zip"
    assert fingerprint(other, ["age", "zip", "disease"]) == "missing columns: zip"


def test_the_fingerprints_compared_are_reported(release):
    other = release.dataset.data.copy()
    other.loc[0, "disease"] = "plague"
    report = ktype.check(release, original=other)
    cols = ["age", "zip", "disease"]
    assert report.facts["fingerprint"] == {"release": fingerprint(release.dataset, cols),
                                           "original": fingerprint(other, cols)}
    assert report.facts["fingerprint"]["release"] != report.facts["fingerprint"]["original"]


def test_a_model_that_is_not_a_model_is_named(release):
    with pytest.raises(InvalidParameterError, match="models must be privacy models; got str"):
        ktype.check(release, [KAnonymity(2), "k=2"])
