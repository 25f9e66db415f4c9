"""Issue #8 (trust), part 2: no column is published unless its role is explicit."""

from __future__ import annotations

import json

import pandas as pd
import pytest
from typer.testing import CliRunner

import ktype
from ktype.cli import app
from ktype.exceptions import DataError

runner = CliRunner()


@pytest.fixture()
def hospital(tmp_path):
    df = pd.DataFrame(
        {
            "name": [f"patient {i}" for i in range(30)],
            "ssn": [f"{100000000 + 7919 * i}" for i in range(30)],
            "age": [20 + (i * 7) % 50 for i in range(30)],
            "zip": [f"941{(i * 3) % 20:02d}" for i in range(30)],
            "ward": ["A", "B", "C"] * 10,
            "diagnosis": ["HIV", "flu", "cancer", "flu", "asthma"] * 6,
        }
    )
    path = tmp_path / "hospital.csv"
    df.to_csv(path, index=False)
    return path, df


def test_unlisted_columns_are_an_error_not_published(hospital, tmp_path):
    """The issue's example: name and ssn without --identifier used to be published raw."""
    path, _ = hospital
    out = tmp_path / "r.csv"
    res = runner.invoke(app, ["anonymize", str(path), "--qi", "age,zip", "--sensitive", "diagnosis", "--k", "3",
                              "--output", str(out)])
    assert res.exit_code == 3
    text = " ".join(res.output.split())
    assert "'name', 'ssn', 'ward' have no role" in text
    assert "--identifier COL" in text and "--insensitive COL" in text
    assert not out.exists() and list(tmp_path.glob(".r.csv*")) == []


def test_every_role_assigned_publishes_only_what_was_asked(hospital, tmp_path):
    path, _ = hospital
    out = tmp_path / "r.csv"
    res = runner.invoke(app, ["anonymize", str(path), "--qi", "age,zip", "--sensitive", "diagnosis", "--identifier",
                              "name,ssn", "--insensitive", "ward", "--k", "3", "--output", str(out), "--json"])
    assert res.exit_code == 0, res.output
    summary = json.loads(res.stdout)
    assert summary["published_unchanged"] == ["diagnosis", "ward"]
    assert summary["removed_identifiers"] == ["name", "ssn"]
    pub = pd.read_csv(out)
    assert list(pub.columns) == ["age", "zip", "ward", "diagnosis"]
    raw = out.read_text()
    assert "patient" not in raw and "100007919" not in raw


def test_config_keep_and_misspelled_keys(hospital, tmp_path):
    path, _ = hospital
    out = tmp_path / "r.parquet"
    good = tmp_path / "job.yaml"
    good.write_text(f"input: {path}\nqi: [age, zip]\nsensitive: [diagnosis]\nidentifier: [name, ssn]\n"
                    f"keep: [ward]\nk: 3\noutput: {out}\n")
    res = runner.invoke(app, ["anonymize", "--config", str(good), "--json"])
    assert res.exit_code == 0, res.output
    assert list(pd.read_parquet(out).columns) == ["age", "zip", "ward", "diagnosis"]
    # the example: a misspelled key must not silently publish the diagnosis unprotected
    bad = tmp_path / "bad.yaml"
    bad.write_text(f"input: {path}\nqi: [age, zip]\nsensitve: [diagnosis]\nidentifier: [name, ssn]\nkeep: [ward]\nk: 3\n")
    res = runner.invoke(app, ["anonymize", "--config", str(bad)])
    assert res.exit_code == 3
    text = " ".join(res.output.split())
    assert "Unknown key 'sensitve'" in text and "Did you mean 'sensitive'" in text
    toml = tmp_path / "job.toml"
    toml.write_text(f'input = "{path}"\nqi = ["age", "zip"]\nquasi_identifers = ["age"]\n')
    res = runner.invoke(app, ["anonymize", "--config", str(toml)])
    assert res.exit_code == 3 and "Unknown key 'quasi_identifers'" in " ".join(res.output.split())
    both = tmp_path / "both.yaml"
    both.write_text(f"input: {path}\nkeep: [ward]\ninsensitive: [ward]\n")
    res = runner.invoke(app, ["anonymize", "--config", str(both)])
    assert res.exit_code == 3 and "same option" in " ".join(res.output.split())


def test_python_api_roles(hospital):
    _, df = hospital
    with pytest.raises(DataError, match="'name', 'ssn', 'ward' have no role"):
        ktype.anonymize(df, quasi_identifiers=["age", "zip"], sensitive="diagnosis", k=3)
    rel = ktype.anonymize(df, quasi_identifiers=["age", "zip"], sensitive="diagnosis", identifiers=["name", "ssn"],
                          insensitive=["ward"], k=3)
    assert list(rel.to_pandas().columns) == ["age", "zip", "ward", "diagnosis"]
    assert rel.dataset.roles["ssn"] == "identifier" and rel.dataset.roles["ward"] == "insensitive"


def test_bundled_loader_leaves_unselected_columns_out():
    ds = ktype.load_adult(quasi_identifiers=["sex", "age"], n=100)
    assert list(ds.data.columns) == ["sex", "age", "salary-class"]
    ds = ktype.load_adult(quasi_identifiers=["sex", "age"], insensitive=["race"], n=100)
    assert ds.insensitive == ["race"]
    assert list(ktype.anonymize(ds, k=5).to_pandas().columns) == ["sex", "age", "race", "salary-class"]


def test_unassigned_column_error_says_which_look_like_direct_identifiers(hospital, tmp_path):
    """Issue #14: the HIPAA Safe Harbor hints (ktype.risk.identifier_hints) are advice in the unassigned-column error."""
    path, _ = hospital
    res = runner.invoke(app, ["anonymize", str(path), "--qi", "age,zip", "--sensitive", "diagnosis", "--k", "3",
                              "--output", str(tmp_path / "r.csv")])
    assert res.exit_code == 3
    text = " ".join(res.output.split())
    assert "hint: 'ssn' looks like a social security number" in text
    assert "remove it (--identifier ssn)" in text
    assert "hint: 'ward'" not in text  # a plain category is not flagged


def test_unassigned_columns_error_carries_the_columns(hospital):
    from ktype.exceptions import UnassignedColumnsError

    _, df = hospital
    with pytest.raises(UnassignedColumnsError) as info:
        ktype.Dataset(df, quasi_identifiers=["age", "zip"], sensitive=["diagnosis"])
    assert info.value.columns == ["name", "ssn", "ward"]
    assert list(info.value.frame.columns) == ["name", "ssn", "ward"]
