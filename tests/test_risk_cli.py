"""`ktype risk` in input mode and release mode (JSON checked against pandas computations)."""

import json

import numpy as np
import pandas as pd
from typer.testing import CliRunner

from ktype.cli import app

runner = CliRunner()


def _table(tmp_path):
    rng = np.random.default_rng(0)
    n = 300
    df = pd.DataFrame({
        "email": [f"p{i}@example.org" for i in range(n)],
        "age": rng.integers(20, 60, n),
        "zip": rng.choice(["10001", "10002", "10003", "10004"], n),
        "sex": rng.choice(["m", "f"], n),
        "disease": rng.choice(["flu", "cold", "none"], n),
    })
    path = tmp_path / "people.csv"
    df.to_csv(path, index=False)
    return df, path


def test_input_mode_json_matches_pandas(tmp_path):
    df, path = _table(tmp_path)
    res = runner.invoke(app, ["risk", str(path), "--qi", "age,zip,sex", "--identifier", "email", "--insensitive", "disease", "--sampling-fraction", "0.1",
                              "--suda", "2", "--json"])
    assert res.exit_code == 0, res.output
    rep = json.loads(res.output)
    size = df.groupby(["age", "zip", "sex"])["age"].transform("size")
    assert rep["mode"] == "input"
    assert rep["input"]["sample_uniques"] == int((size == 1).sum())
    assert rep["input"]["prosecutor"]["average"] == df[["age", "zip", "sex"]].drop_duplicates().shape[0] / len(df)
    assert rep["population_uniqueness"]["population_size"] == 3000
    assert rep["suda"]["max_size"] == 2 and "individual_risk" in rep
    assert [d["attribute"] for d in rep["drivers"]["attributes"]][0] == "age"
    # the declared identifier is not hinted; the ZIP code (5 digits) is
    hinted = {h["column"] for h in rep["identifier_hints"]}
    assert "email" not in hinted and "zip" in hinted


def test_release_mode_and_table_output(tmp_path):
    df, path = _table(tmp_path)
    out = tmp_path / "rel.csv"
    a = runner.invoke(app, ["anonymize", str(path), "--qi", "age,zip,sex", "--identifier", "email", "--insensitive", "disease", "-k", "5", "-O", str(out)])
    assert a.exit_code == 0, a.output
    res = runner.invoke(app, ["risk", str(out), "--original", str(path), "--qi", "age,zip,sex", "--identifier", "email", "--insensitive", "disease",
                              "--population", str(path), "--json"])
    assert res.exit_code == 0, res.output
    rep = json.loads(res.output)
    assert rep["mode"] == "release"
    assert rep["release"]["prosecutor"]["highest"] <= 0.2
    assert rep["input"]["prosecutor"]["highest"] == 1.0
    assert rep["population_uniqueness"]["population_uniques_exact"] == rep["input"]["sample_uniques"]
    txt = runner.invoke(app, ["risk", str(out), "--original", str(path), "--qi", "age,zip,sex", "--identifier", "email", "--insensitive", "disease"])
    assert txt.exit_code == 0 and "prosecutor" in txt.output and "input QIs unchanged" in txt.output


def test_input_mode_needs_qi_and_gives_hints(tmp_path):
    _, path = _table(tmp_path)
    res = runner.invoke(app, ["risk", str(path)])
    assert res.exit_code == 3
    assert "--qi" in res.output and "e-mail" in res.output


def test_suda_refusal_is_a_clean_error(tmp_path):
    _, path = _table(tmp_path)
    res = runner.invoke(app, ["risk", str(path), "--qi", "age,zip,sex", "--identifier", "email", "--insensitive", "disease", "--suda", "7"])
    assert res.exit_code == 3 and "refused" in res.output


def test_bundled_dataset_input_and_release_mode(tmp_path):
    out = tmp_path / "adult_rel.csv"
    a = runner.invoke(app, ["anonymize", "--dataset", "adult", "-k", "10", "-O", str(out)])
    assert a.exit_code == 0, a.output
    rel = json.loads(runner.invoke(app, ["risk", str(out), "--dataset", "adult", "--json"]).output)
    assert rel["mode"] == "release" and rel["release"]["prosecutor"]["highest"] <= 0.1
    inp = json.loads(runner.invoke(app, ["risk", "--dataset", "adult", "--json"]).output)
    assert inp["mode"] == "input" and inp["input"]["records"] == rel["input"]["records"]


def test_config_file_keys_for_risk_and_metrics(tmp_path):
    """Every risk option has its config key (json included); a misspelled key is an error, not ignored."""
    _, path = _table(tmp_path)
    good = tmp_path / "risk.yaml"
    good.write_text("qi: age,zip,sex\nidentifier: email\nkeep: disease\nthreshold: 0.5\njson: true\n", encoding="utf-8")
    res = runner.invoke(app, ["risk", str(path), "--config", str(good)])
    assert res.exit_code == 0, res.output
    assert json.loads(res.output)["mode"] == "input"
    bad = tmp_path / "typo.yaml"
    bad.write_text("qi: age,zip,sex\nidentifier: email\nkeep: disease\nthreshhold: 0.5\n", encoding="utf-8")
    res = runner.invoke(app, ["risk", str(path), "--config", str(bad)])
    assert res.exit_code != 0 and "Unknown key 'threshhold'" in res.output and "Did you mean 'threshold'" in res.output
    res = runner.invoke(app, ["metrics", str(path), "--original", str(path), "--config", str(bad)])
    assert res.exit_code != 0 and "Unknown key 'threshhold'" in res.output


def test_anonymize_summary_has_prosecutor_risk_before_and_after(tmp_path):
    """Issue #14: the anonymize summary reports the prosecutor risk of the input and of the release."""
    df, path = _table(tmp_path)
    res = runner.invoke(app, ["anonymize", str(path), "--qi", "age,zip,sex", "--identifier", "email", "--insensitive", "disease",
                              "--k", "5", "--json"])
    assert res.exit_code == 0, res.output
    rk = json.loads(res.output[res.output.index("{"):])["risk"]
    size = df.groupby(["age", "zip", "sex"])["age"].transform("size")
    assert rk["input"]["highest"] == 1.0 / size.min()
    assert rk["input"]["average"] == df[["age", "zip", "sex"]].drop_duplicates().shape[0] / len(df)
    assert rk["release"]["highest"] <= 1 / 5 and rk["release"]["records_above_threshold"] == 0
