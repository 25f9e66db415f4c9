"""The HTML report's job section and header against the release they describe: the roles it
names (what was removed, what was published unchanged), what was verified, when and with
which ktype it was made."""

from __future__ import annotations

import re
from collections import Counter

import pandas as pd
import pytest

import ktype
from ktype.report import report_html
from tests._people import PEOPLE


def _rows(html: str) -> dict[str, str]:
    """The job table: row header -> cell text."""
    return dict(re.findall(r'<th scope="row">([^<]*)</th><td>([^<]*)</td>', html))


@pytest.mark.parametrize("identifiers", [["name"], []])
def test_the_job_table_names_the_roles_of_the_release(identifiers):
    frame = PEOPLE if identifiers else PEOPLE.drop(columns="name")
    ds = ktype.Dataset(frame, quasi_identifiers=["age", "zip"], sensitive=["disease"], identifiers=identifiers,
                       insensitive=["insurance"])
    rel = ktype.anonymize(ds, algorithm="mondrian", k=2)
    rows = _rows(report_html(rel))
    removed = [c for c in PEOPLE.columns if c in frame.columns and c not in rel.to_pandas().columns]
    assert removed == identifiers
    assert rows["identifiers (removed)"] == (", ".join(removed) or "(none)")
    assert rows["sensitive (published unchanged)"] == "disease"
    assert rows["insensitive (published unchanged)"] == "insurance"


def test_the_header_says_what_was_verified_when_and_with_which_ktype():
    rel = _people_release()
    html = report_html(rel)
    header = re.search(r"<header>.*?</header>", html, re.S).group(0)
    models = ", ".join(str(m) for m in rel.models)
    assert f"models: {models} — all models verified" in header
    assert f"Made {rel.provenance['created']} with ktype {ktype.__version__}." in header
    assert _rows(html)["created"] == rel.provenance["created"]



def _people_release() -> ktype.Release:
    ds = ktype.Dataset(PEOPLE, quasi_identifiers=["age", "zip"], sensitive=["disease"], identifiers=["name"],
                       insensitive=["insurance"])
    return ktype.anonymize(ds, algorithm="mondrian", k=2)


def _data(html: str) -> dict:
    import json

    return json.loads(re.search(r'<script type="application/json"[^>]*>(.*?)</script>', html, re.S).group(1))


def test_the_widths_table_shows_the_recounted_shares_as_percentages():
    rel = _people_release()
    html = report_html(rel)
    table = re.search(r'<table data-key="widths">(.*?)</table>', html, re.S).group(1)
    pub = rel.to_pandas().astype(str)
    for col in ("age", "zip"):
        row = re.search(rf"<tr><td>{col}</td>(.*?)</tr>", table).group(1)
        cells = re.findall(r'data-value="([^"]*)">([^<]*)</td>', row)
        exact, whole = cells[2], cells[3]
        for value, shown in (exact, whole):
            assert shown == f"{100 * float(value):.2f} %"
        assert float(exact[0]) == pytest.approx(sum(not v.startswith("[") and v != "*" for v in pub[col]) / len(pub))
        assert float(whole[0]) == pytest.approx(sum(v == "*" for v in pub[col]) / len(pub))


def test_the_least_diverse_classes_are_recounted_on_the_published_table():
    frame = pd.concat([PEOPLE, PEOPLE.assign(age=PEOPLE["age"] + 1, disease=PEOPLE["disease"].iloc[::-1].to_numpy())],
                      ignore_index=True)
    ds = ktype.Dataset(frame, quasi_identifiers=["age", "zip"], sensitive=["disease"], identifiers=["name"],
                       insensitive=["insurance"])
    rel = ktype.anonymize(ds, algorithm="mondrian", k=2, l=2)
    div = _data(report_html(rel))["diversity"]
    pub = rel.to_pandas().astype(str)
    classes = pub.groupby(["age", "zip"])
    assert len(div) == 1 and div[0]["classes"] == classes.ngroups and div[0]["failing_classes"] == 0
    for row in div[0]["worst"]:
        members = classes.get_group((row["class"]["age"], row["class"]["zip"]))
        counts = Counter(members["disease"])
        assert row["size"] == len(members) and row["satisfied"] is True
        assert row["values"] == {v: counts[v] for v in row["values"]} and set(row["values"]) <= set(counts)
