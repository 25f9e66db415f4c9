"""Issue #8 (trust), parts 3-4: release metadata, and `check` as an auditor.

Each example of the issue is a regression test here.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

import ktype
from ktype.audit import audit
from ktype.cli import app
from ktype.exceptions import DataError, InvalidParameterError
from ktype.models.kanonymity import KAnonymity
from ktype.models.ldiversity import DistinctLDiversity, PSensitivity
from ktype.models.tcloseness import TCloseness
from ktype.release import PARQUET_KEY, read_release, sidecar_path

runner = CliRunner()
ROLES = dict(quasi_identifiers=["age", "zip"], sensitive="disease", identifiers=["name"],
             hierarchies={"zip": {"masking": [1, 2, 3]}})
FLAGS = ["--qi", "age,zip", "--sensitive", "disease", "--identifier", "name", "-H", "zip=masking:1,2,3"]


@pytest.fixture()
def people(tmp_path):
    rng = np.random.default_rng(3)
    n = 40
    df = pd.DataFrame({
        "name": [f"person {i}" for i in range(n)],
        "age": rng.integers(20, 70, n),
        "zip": rng.choice(["94110", "94112", "94117", "94121", "94131"], n),
        "disease": rng.choice(["HIV", "flu", "cancer", "asthma"], n),
    })
    path = tmp_path / "people.csv"
    df.to_csv(path, index=False)
    return path, df


def _text(res) -> str:
    return " ".join(res.output.split())


# ---------------------------------------------------------------------------- metadata
@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
def test_release_file_says_what_it_is(people, tmp_path, suffix):
    _, df = people
    rel = ktype.anonymize(df, **ROLES, k=4, l=2)
    path = rel.save(tmp_path / f"r{suffix}")
    pub, meta = read_release(path)
    assert meta is not None and meta["format"] == "ktype-release" and meta["format_version"] == 1
    if suffix == ".parquet":
        assert PARQUET_KEY in pq.read_schema(path).metadata
    else:
        assert sidecar_path(path).exists() and meta["file"]["sha256"]
    assert [(c["name"], c["role"]) for c in meta["columns"]] == [
        ("age", "quasi_identifier"), ("zip", "quasi_identifier"), ("disease", "sensitive")]
    assert meta["recoding"] == "multidimensional" and meta["algorithm"] == "mondrian"
    assert [(m["name"], m["params"], m["scope"]) for m in meta["models"]] == [
        ("k-anonymity", {"k": 4}, "class"), ("distinct-l-diversity", {"l": 2}, "class")]
    assert meta["input_records"] == 40 and meta["published_rows"] == len(pub) == 40 - meta["suppressed"]
    assert set(meta["hierarchies"]) == {"age", "zip"} and meta["ktype_version"] == ktype.__version__
    text = json.dumps(meta)
    assert "seed" not in text and "person" not in text and "name" not in [c["name"] for c in meta["columns"]]


def test_edited_csv_is_detected_by_its_sidecar(people, tmp_path):
    _, df = people
    path = ktype.anonymize(df, **ROLES, k=4).save(tmp_path / "r.csv")
    path.write_text(path.read_text().replace("HIV", "flu"))
    with pytest.raises(DataError, match="does not belong to"):
        read_release(path)


# ---------------------------------------------------------------------------- the examples
def test_all_star_rows_are_rows_not_suppressed(people):
    """Every row `*,*,HIV` used to pass k-anonymity, ℓ-diversity and t-closeness."""
    _, df = people
    fake = pd.DataFrame({"age": ["*"] * 40, "zip": ["*"] * 40, "disease": ["HIV"] * 40})
    rep = audit(df, fake, [KAnonymity(5), DistinctLDiversity(2), TCloseness(0.2)], **ROLES, recoding="multidimensional")
    assert not rep.passed and rep.findings[0].check == "generalization"
    assert rep.facts["suppressed"] == 0  # 40 published rows, none "suppressed"
    # all-* rows with their true sensitive values are a real class of the release: here one of 2 rows
    ds = ktype.Dataset(df, **ROLES)
    rel = ktype.anonymize(ds, k=4)
    pub = rel.to_pandas()
    pub.loc[:1, ["age", "zip"]] = "*"
    res = audit(ds, pub, KAnonymity(4), recoding="multidimensional")
    assert not res.findings and not res.passed
    assert res.results[0].summary["smallest_class"] == 2 and res.results[0].summary["suppressed"] == 0


def test_repeated_original_with_names_fails(people):
    """The original table repeated five times (names included) used to pass k = 5."""
    _, df = people
    ds = ktype.Dataset(df, **ROLES)
    fake = pd.concat([df] * 5, ignore_index=True).astype(str)
    rep = audit(ds, fake, KAnonymity(5), recoding="multidimensional")
    checks = {f.check for f in rep.findings}
    assert {"identifiers", "counts"} <= checks and not rep.passed
    report = ktype.check(fake, KAnonymity(5), original=ds, recoding="multidimensional")
    assert not report.passed and any("Identifier column" in f.reason for f in report.findings)
    # the same without names is still not a release: 200 rows for 40 records
    rep = audit(ds, fake.drop(columns="name"), KAnonymity(5), recoding="multidimensional")
    assert [f.check for f in rep.findings] == ["counts"]


def test_identifier_left_in_fails_on_the_command_line(people, tmp_path):
    path, df = people
    rel = ktype.anonymize(df, **ROLES, k=4)
    pub = rel.to_pandas()
    pub.insert(0, "name", "someone")
    out = tmp_path / "leaky.csv"
    pub.to_csv(out, index=False)
    res = runner.invoke(app, ["check", str(out), "--original", str(path), *FLAGS, "--k", "4", "--json"])
    assert res.exit_code == 1, res.output
    report = json.loads(res.stdout)
    assert not report["passed"] and report["findings"][0]["check"] == "identifiers"


def test_undeclared_column_fails(people):
    _, df = people
    ds = ktype.Dataset(df, **ROLES)
    pub = ktype.anonymize(ds, k=4).to_pandas()
    pub["ward"] = "A"
    rep = audit(ds, pub, KAnonymity(4))
    assert [f.check for f in rep.findings] == ["undeclared"] and "'ward'" in rep.findings[0].reason


def test_local_scope_comes_from_metadata(people, tmp_path):
    """A verified k-concealment + p-sensitivity release used to fail `ktype check` without --local."""
    path, df = people
    ds = ktype.Dataset(df, **ROLES)
    rel = ktype.anonymize(ds, algorithm="k_concealment", model=[ktype.models.KConcealment(3), PSensitivity(2)], rng=1)
    for suffix in (".csv", ".parquet"):
        out = rel.save(tmp_path / f"kc{suffix}")
        res = runner.invoke(app, ["check", str(out), "--original", str(path), *FLAGS, "--json"])
        assert res.exit_code == 0, res.output
        rep = json.loads(res.stdout)
        assert rep["facts"]["recoding"] == "local"
        assert [m["scope"] for m in rep["models"] if "scope" in m] == ["matches"]
        # in Python too, a model given with scope "auto" follows the metadata
        res = ktype.check(out, PSensitivity(2), original=ds)
        assert res.passed and res.results[0].summary["scope"] == "matches"
    # a table without metadata refuses to guess the scope
    with pytest.raises(InvalidParameterError, match="depends on how the release was recoded"):
        ktype.check(rel.to_pandas(), PSensitivity(2), original=ds)
    assert ktype.check(rel.to_pandas(), PSensitivity(2), original=ds, recoding="local").passed


def test_anonymize_summary_and_check_agree_on_suppression(people, tmp_path):
    """`anonymize` used to report 0 suppressed for a release for which `check` reported 3."""
    path, _ = people
    out = tmp_path / "fd.csv"
    flags = [*FLAGS, "-H", "age=intervals:10,20"]
    res = runner.invoke(app, ["anonymize", str(path), *flags, "--k", "6", "--algorithm", "flash",
                              "-o", "max_suppression=0.2", "--output", str(out), "--json"])
    assert res.exit_code == 0, res.output
    summary = json.loads(res.stdout)
    chk = runner.invoke(app, ["check", str(out), "--original", str(path), *flags, "--json"])
    assert chk.exit_code == 0, chk.output
    rep = json.loads(chk.stdout)
    assert rep["facts"]["suppressed"] == summary["suppressed"] == rep["models"][0]["suppressed"]
    assert rep["facts"]["published_rows"] == 40 - summary["suppressed"]
    assert rep["facts"]["matching"].startswith("class-wise")  # full-domain: homogeneous, no flow needed


def test_mutations_are_caught(people):
    _, df = people
    ds = ktype.Dataset(df, **{**ROLES, "hierarchies": {"zip": {"masking": [1, 2, 3]}, "age": {"intervals": [10, 20]}}})
    rel = ktype.anonymize(ds, k=4, algorithm="flash")
    pub = rel.to_pandas()
    ok = audit(ds, pub, KAnonymity(4), recoding="full-domain")
    assert ok.passed and ok.facts["matching"].startswith("class-wise")
    # a duplicated row (and a dropped one of another class or value, so the count is unchanged)
    key = pub["age"].astype(str) + "|" + pub["zip"].astype(str) + "|" + pub["disease"].astype(str)
    j = int(np.flatnonzero(key != key.iloc[0])[0])
    dup = pd.concat([pub.iloc[1:], pub.iloc[[j]]], ignore_index=True)
    rep = audit(ds, dup, KAnonymity(4), recoding="full-domain")
    assert [f.check for f in rep.findings] == ["generalization"] and rep.findings[0].classes
    assert rep.findings[0].classes[0]["rows"] == rep.findings[0].classes[0]["records_covered"] + 1
    # a narrowed cell no record with that sensitive value has
    bad = pub.copy()
    bad.loc[0, "zip"] = "99999"
    rep = audit(ds, bad, KAnonymity(4), recoding="multidimensional")
    assert rep.findings and rep.findings[0].check == "labels" and rep.findings[0].rows == [0]
    # a changed sensitive value
    bad = pub.copy()
    bad.loc[0, "disease"] = "cholera"
    rep = audit(ds, bad, KAnonymity(4), recoding="multidimensional")
    assert rep.findings[0].check == "generalization" and rep.findings[0].rows == [0]


def test_overlapping_boxes_use_a_maximum_flow():
    """A local recoding whose boxes overlap needs the flow; two rows for one record fails."""
    df = pd.DataFrame({"a": [1, 2, 3], "s": ["x", "x", "x"]})
    ds = ktype.Dataset(df, quasi_identifiers=["a"], sensitive=["s"])
    good = pd.DataFrame({"a": ["[1-2]", "[2-3]", "[1-3]"], "s": ["x", "x", "x"]})
    rep = audit(ds, good, KAnonymity(1), recoding="local")
    assert rep.passed and rep.facts["matching"].startswith("maximum flow")
    bad = pd.DataFrame({"a": ["1", "1", "[1-3]"], "s": ["x", "x", "x"]})
    rep = audit(ds, bad, KAnonymity(1), recoding="local")
    assert rep.findings and rep.findings[0].check == "generalization" and set(rep.findings[0].rows) <= {0, 1}


def test_roles_default_from_metadata(people, tmp_path):
    path, df = people
    out = ktype.anonymize(df, **ROLES, k=4).save(tmp_path / "r.parquet")
    res = runner.invoke(app, ["check", str(out), "--original", str(path), "-H", "zip=masking:1,2,3"])
    assert res.exit_code == 0, res.output
    assert "PASS KAnonymity(k=4)" in _text(res)
    # a different hierarchy than the release was made with is reported
    res = runner.invoke(app, ["check", str(out), "--original", str(path), "-H", "zip=masking:1,2"])
    assert res.exit_code == 1 and "fingerprints differ" in _text(res)
