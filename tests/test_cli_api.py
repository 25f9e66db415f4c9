"""The Python API and the command line, end to end."""

import json

import pandas as pd
import pytest
from typer.testing import CliRunner

import ktype
from ktype.api import parse_release
from ktype.cli import app
from ktype.exceptions import DataError, HierarchyError, InvalidParameterError
from ktype.models.kanonymity import KAnonymity

runner = CliRunner()


@pytest.fixture()
def people(tmp_path):
    df = pd.DataFrame(
        {
            "name": [f"p{i}" for i in range(60)],
            "age": [20 + (i * 7) % 50 for i in range(60)],
            "zip": [f"941{(i * 3) % 40:02d}" for i in range(60)],
            "disease": ["flu", "cold", "cancer", "flu", "asthma"] * 12,
        }
    )
    path = tmp_path / "people.csv"
    df.to_csv(path, index=False)
    return path, df


def test_api_anonymize_and_check_roundtrip(people, tmp_path):
    path, df = people
    rel = ktype.anonymize(df, quasi_identifiers=["age", "zip"], sensitive="disease", identifiers=["name"],
                          hierarchies={"age": "ordered", "zip": {"masking": [1, 2, 3]}}, k=4)
    pub = rel.to_pandas()
    assert "name" not in pub.columns and len(pub) == 60
    assert ktype.check(rel, KAnonymity(4), original=rel.dataset).passed
    out = tmp_path / "rel.csv"
    rel.save(out)
    parsed = parse_release(rel.dataset, pd.read_csv(out, dtype=str))
    res = ktype.check(parsed, KAnonymity(4), original=rel.dataset)
    assert res.passed
    # the published table is not 5-anonymous if the smallest class is 4
    smallest = res.results[0].summary["smallest_class"]
    assert str(res) == f"{smallest}-anonymous"
    assert not ktype.check(parsed, KAnonymity(smallest + 1), original=rel.dataset).passed


def test_api_errors_are_clear(people):
    _, df = people
    with pytest.raises(InvalidParameterError, match="Did you mean 'mondrian'"):
        ktype.anonymize(df, quasi_identifiers=["age"], identifiers=["name", "zip", "disease"], k=2, algorithm="mondrain")
    with pytest.raises(InvalidParameterError, match="The 'k' parameter of KAnonymity must be an int in the range"):
        ktype.anonymize(df, quasi_identifiers=["age"], identifiers=["name", "zip", "disease"], k=0)
    with pytest.raises(InvalidParameterError, match=r"k=61 exceeds the number of rows \(60\)"):
        ktype.anonymize(df, quasi_identifiers=["age"], identifiers=["name", "zip", "disease"], k=61)
    with pytest.raises(DataError, match="Did you mean 'age'"):
        ktype.anonymize(df, quasi_identifiers=["agee"], identifiers=["name", "zip", "disease"], k=2)
    with pytest.raises(InvalidParameterError, match="No privacy requirement"):
        ktype.anonymize(df, quasi_identifiers=["age"], identifiers=["name", "zip", "disease"])


def test_cli_anonymize_writes_release_and_summary(people, tmp_path):
    path, _ = people
    out = tmp_path / "out.csv"
    summ = tmp_path / "s.json"
    res = runner.invoke(app, ["anonymize", str(path), "--qi", "age,zip", "--sensitive", "disease", "--identifier", "name",
                              "-H", "zip=masking:1,2,3", "--k", "5", "--output", str(out), "--summary", str(summ), "--json"])
    assert res.exit_code == 0, res.output
    summary = json.loads(res.stdout)
    assert summary["verified"] is True and summary["models"] == ["KAnonymity(k=5)"]
    assert json.loads(summ.read_text())["rows"] == 60
    pub = pd.read_csv(out)
    assert "name" not in pub.columns and len(pub) == 60
    # the written file passes `ktype check`, and fails for a larger k
    ok = runner.invoke(app, ["check", str(out), "--original", str(path), "--qi", "age,zip", "--sensitive", "disease",
                             "--identifier", "name", "-H", "zip=masking:1,2,3", "--model", "k-anonymity", "--k", "5"])
    assert ok.exit_code == 0, ok.output
    bad = runner.invoke(app, ["check", str(out), "--original", str(path), "--qi", "age,zip", "--sensitive", "disease",
                              "--identifier", "name", "-H", "zip=masking:1,2,3", "--model", "k-anonymity", "--k", "59"])
    assert bad.exit_code == 1 and "FAIL" in bad.output


def test_cli_error_leaves_no_output(people, tmp_path):
    path, df = people
    out = tmp_path / "never.csv"
    res = runner.invoke(app, ["anonymize", str(path), "--qi", "age,zip", "--identifier", "name", "--insensitive", "disease",
                              "--k", "500", "--output", str(out)])
    assert res.exit_code == 3
    assert "exceeds the number of rows" in res.output
    assert not out.exists() and list(tmp_path.glob(".never*")) == []
    df.loc[3, "age"] = None
    bad = tmp_path / "missing.csv"
    df.to_csv(bad, index=False)
    res = runner.invoke(app, ["anonymize", str(bad), "--qi", "age,zip", "--identifier", "name", "--sensitive", "disease",
                              "--k", "5", "--output", str(out)])
    assert res.exit_code == 3 and "missing value" in res.output and not out.exists()


def test_cli_value_missing_from_hierarchy(people, tmp_path):
    path, df = people
    hier = tmp_path / "h.csv"
    pd.DataFrame({"v": sorted(df["zip"].unique())[1:], "top": "*"}).to_csv(hier, sep=";", header=False, index=False)
    res = runner.invoke(app, ["anonymize", str(path), "--qi", "zip", "-H", f"zip={hier}", "--k", "2"])
    assert res.exit_code == 3 and "has no entry for value" in res.output


def test_cli_config_file(people, tmp_path):
    path, _ = people
    cfg = tmp_path / "job.yaml"
    out = tmp_path / "o.parquet"
    cfg.write_text(f"input: {path}\nqi: [age, zip]\nsensitive: [disease]\nidentifier: [name]\nk: 3\noutput: {out}\n")
    res = runner.invoke(app, ["anonymize", "--config", str(cfg), "--json"])
    assert res.exit_code == 0, res.output
    assert len(pd.read_parquet(out)) == 60
    bad = tmp_path / "bad.yaml"
    bad.write_text("[unclosed")
    res = runner.invoke(app, ["anonymize", "--config", str(bad)])
    assert res.exit_code == 3 and "malformed" in res.output


def test_cli_listings():
    assert "mondrian" in runner.invoke(app, ["algorithms"]).output
    assert "adult" in runner.invoke(app, ["datasets"]).output


def test_bundled_adult_main_job(tmp_path):
    out = tmp_path / "adult.csv"
    res = runner.invoke(app, ["anonymize", "--dataset", "adult", "--k", "10", "--output", str(out), "--json"])
    assert res.exit_code == 0, res.output
    pub = pd.read_csv(out)
    assert len(pub) == 30162
    ds = ktype.load_adult()
    assert ktype.check(parse_release(ds, pub.astype(str)), KAnonymity(10), original=ds).passed


def test_hierarchy_error_class():
    with pytest.raises(HierarchyError):
        ktype.Hierarchy.from_subsets([1, 2, 3], [[1, 2], [2, 3]])
