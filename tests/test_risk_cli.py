"""`ktype risk` in input mode and release mode (JSON checked against pandas computations)."""

import json
import re

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


def _patients(tmp_path):
    """300 patients: an exact admission date (a HIPAA identifier unless generalized), age, sex, diagnosis."""
    rng = np.random.default_rng(1)
    n = 300
    days = pd.Timestamp("2022-01-01") + pd.to_timedelta(rng.integers(0, 365, n), unit="D")
    df = pd.DataFrame({"admission": days.strftime("%Y-%m-%d"), "age": rng.integers(20, 80, n),
                       "sex": rng.choice(["m", "f"], n), "diagnosis": rng.choice(["flu", "cold", "none"], n)})
    path = tmp_path / "patients.csv"
    df.to_csv(path, index=False)
    return df, path


def test_release_hints_and_exactness_are_about_the_published_values(tmp_path):
    """Every released admission is '*': no 'generalize it' hint for it (the input does get one),
    and the per-QI counts equal those of the released CSV read with pandas (a label is exact
    when it is one of the column's input values)."""
    df, path = _patients(tmp_path)
    roles = ["--qi", "admission,age,sex", "--insensitive", "diagnosis", "-H", "admission=flat",
             "-H", "age=intervals:5,10,20"]
    out = tmp_path / "rel.csv"
    a = runner.invoke(app, ["anonymize", str(path), *roles, "-k", "5", "-a", "flash", "-O", str(out)])
    assert a.exit_code == 0, a.output
    released = pd.read_csv(out, dtype=str)
    assert set(released["admission"]) == {"*"}
    inp = json.loads(runner.invoke(app, ["risk", str(path), *roles, "--json"]).output)
    assert "admission" in {h["column"] for h in inp["identifier_hints"]}
    res = runner.invoke(app, ["risk", str(out), "--original", str(path), *roles, "--json"])
    assert res.exit_code == 0, res.output
    rep = json.loads(res.output)
    assert "admission" not in {h["column"] for h in rep["identifier_hints"]}
    by_col = {q["column"]: q for q in rep["published"]}
    for col in ("admission", "age", "sex"):
        labels = released[col]
        exact = labels[labels.isin(set(df[col].astype(str)))]
        q = by_col[col]
        assert q["cells"] == len(released)
        assert q["exact"] == len(exact) and q["exact_distinct"] == exact.nunique()
        assert q["hidden"] == int((labels == "*").sum())
        assert q["generalized"] == len(labels) - q["exact"] - q["hidden"]
        top = exact.value_counts()
        assert [top[v] for v in q["exact_examples"]] == sorted(top.to_numpy(), reverse=True)[:len(q["exact_examples"])]
    txt = runner.invoke(app, ["risk", str(out), "--original", str(path), *roles])
    assert "published per quasi-identifier" in txt.output and "admission: 0% exact" in txt.output
    assert "'admission' looks like" not in txt.output


def test_progress_lines_on_request_and_silence_on_a_pipe(tmp_path):
    """--progress prints the stages with monotone counts to standard error; by default a pipe
    (CliRunner is not a terminal) gets nothing, in risk and in metrics."""
    _, path = _table(tmp_path)
    roles = ["--qi", "age,zip,sex", "--identifier", "email", "--insensitive", "disease"]
    out = tmp_path / "rel.csv"
    assert runner.invoke(app, ["anonymize", str(path), *roles, "-k", "5", "-O", str(out)]).exit_code == 0
    for argv in (["risk", str(path), *roles, "--suda", "2", "--sampling-fraction", "0.1"],
                 ["metrics", str(out), "--original", str(path), *roles]):
        quiet = CliRunner().invoke(app, argv)
        assert quiet.exit_code == 0 and "ktype:" not in quiet.output
        shown = CliRunner().invoke(app, [*argv, "--progress"])
        assert shown.exit_code == 0, shown.output
        lines = [ln[len("ktype: "):] for ln in shown.stderr.splitlines() if ln.startswith("ktype: ")]
        started = [ln.split("...")[0] for ln in lines if "..." in ln]
        assert started[0] == "read" and started[1] == argv[0].replace("metrics", "measures")
        counts: dict[str, list[tuple[int, int]]] = {}
        for ln in lines:
            m = re.fullmatch(r"(\w+) (?:\d+%|done) \((\d+)/(\d+)\)", ln)
            if m:
                counts.setdefault(m[1], []).append((int(m[2]), int(m[3])))
        assert set(counts) >= {started[1]}
        for seq in counts.values():  # monotone, ending with all of it done
            assert [d for d, _ in seq] == sorted(d for d, _ in seq) and seq[-1][0] == seq[-1][1] > 0
        assert "ktype:" not in shown.stdout
