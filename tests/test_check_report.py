"""ktype.check: one signature (release, models=None, *, original=None), one result (CheckReport)
with what the release achieves, computed independently here from the published table."""

from __future__ import annotations

import pandas as pd
import pytest

import ktype
from ktype.checking import CheckReport, achieved
from ktype.exceptions import InvalidParameterError
from ktype.models import DistinctLDiversity, KAnonymity, KConcealment, TCloseness


@pytest.fixture(scope="module")
def adult():
    return ktype.load_adult(n=800)


@pytest.fixture(scope="module")
def mondrian(adult):
    return ktype.algorithms.run("mondrian", adult, KAnonymity(6))


def _classes(rel) -> pd.core.groupby.DataFrameGroupBy:
    pub = rel.to_pandas()
    kept = pub[~rel.suppressed] if rel.suppressed.any() else pub
    return kept.groupby(list(rel.dataset.quasi_identifiers), dropna=False)


def test_an_in_memory_release_reports_the_k_it_achieves(mondrian):
    report = ktype.check(mondrian)
    assert isinstance(report, CheckReport) and report.passed and bool(report)
    smallest = int(_classes(mondrian).size().min())  # brute force on the published table
    assert smallest >= 6
    assert str(report) == f"{smallest}-anonymous"
    assert report.verdicts[0].value == smallest
    assert not ktype.check(mondrian, KAnonymity(smallest + 1)).passed


def test_several_models_each_report_their_level(mondrian):
    s = "salary-class"
    report = ktype.check(mondrian, [KAnonymity(2), DistinctLDiversity(1, sensitive=s), TCloseness(1.0, sensitive=s)])
    distinct = int(_classes(mondrian)[s].nunique().min())
    parts = str(report).split(", ")
    assert parts[1] == f"distinct {distinct}-diverse"
    assert parts[2].endswith("-close") and report.verdicts[2].value == pytest.approx(
        report.results[2].summary["max_emd"])
    assert [v.satisfied for v in report.verdicts] == [True, True, True]


def test_the_original_must_be_the_releases_own(adult, mondrian):
    assert ktype.check(mondrian, original=adult).passed
    other = adult.data.copy()
    other.loc[0, "age"] = other.loc[1, "age"] if other.loc[0, "age"] != other.loc[1, "age"] else other.loc[2, "age"]
    report = ktype.check(mondrian, original=other)
    assert not report.passed and report.findings[0].check == "original"
    shuffled = adult.data.sample(frac=1.0, random_state=1)
    assert not ktype.check(mondrian, original=shuffled).passed
    assert not ktype.check(mondrian, original=adult.data.head(799)).passed


def test_a_file_is_audited_against_its_original(tmp_path, adult, mondrian):
    path = mondrian.save(tmp_path / "rel.csv")
    report = ktype.check(path, original=adult)
    assert report.passed and str(report) == str(ktype.check(mondrian))
    with pytest.raises(InvalidParameterError, match="original="):
        ktype.check(path)
    text = path.read_text().splitlines()
    path.write_text("\n".join(text[:1] + text[2:]) + "\n")  # a record dropped: not this original's release

    forged = ktype.check(path, original=adult)
    assert not forged.passed and forged.findings and not forged.verdicts


def test_k_concealment_reports_its_fewest_matches():
    ds = ktype.load_adult(n=300)
    rel = ktype.algorithms.run("k_concealment", ds, KConcealment(3), rng=4)
    report = ktype.check(rel)
    fewest = rel.models[0].check(rel).summary["min_matches"]
    assert report.passed and str(report) == f"{fewest}-concealed"


def test_a_subclass_is_described_as_its_base(mondrian):
    class MyK(KAnonymity):
        pass

    res = MyK(3).check(mondrian)
    assert achieved(MyK(3), res)[0].endswith("-anonymous")
