"""The command line checked against independent recounts: what it publishes, what it calls
verified, which exit code a refusal gets, and where its messages go (in-process runs on small
tables)."""

from __future__ import annotations

import json
import math
from collections import Counter

import pandas as pd
import pytest

import ktype
from ktype.cli import EXIT_DATA, EXIT_OK, EXIT_VIOLATION, run
from tests._people import PEOPLE

# eight people, two of whom share their QIs; "disease" is what the anatomy publishes, "insurance"
# another column of the original a steward may declare sensitive instead


def _anatomy(tmp_path):
    from ktype.algorithms.transparent.anatomy import anatomize, write_anatomy

    src = tmp_path / "people.csv"
    PEOPLE.to_csv(src, index=False)
    ds = ktype.Dataset(PEOPLE.drop(columns="insurance"), quasi_identifiers=["age", "zip"], sensitive=["disease"],
                       identifiers=["name"])
    an = anatomize(ds, "tailor", 2, rng=0)
    write_anatomy(an, tmp_path / "rel")
    return src, tmp_path / "rel", an


def _frequency_l_diverse(an, ell: int) -> bool:
    """Every group's most frequent sensitive value is at most 1/ℓ of the group, recounted from
    the sensitive table alone."""
    st = an.sensitive
    col = next(c for c in st.columns if c != "group")
    for _, g in st.groupby("group"):
        if max(Counter(g[col]).values()) * ell > len(g):
            return False
    return True


def test_check_anatomy_json_verdict_is_the_recounted_diversity_and_the_exit_code(tmp_path, capsys):
    _, prefix, an = _anatomy(tmp_path)
    for ell in (2, 3):
        code = run(["check-anatomy", str(prefix), "--l", str(ell), "--qi", "age,zip", "--json"])
        rep = json.loads(capsys.readouterr().out)
        want = _frequency_l_diverse(an, ell)
        assert rep["satisfied"] is want and code == (EXIT_OK if want else EXIT_VIOLATION), (ell, rep)


def test_check_anatomy_prints_pass_and_every_reason_it_fails(tmp_path, capsys):
    _, prefix, an = _anatomy(tmp_path)
    assert _frequency_l_diverse(an, 2)
    assert run(["check-anatomy", str(prefix), "--l", "2", "--qi", "age,zip"]) == EXIT_OK
    text = capsys.readouterr().out
    assert "PASS" in text and "FAIL" not in text
    # nothing declared: every QI-table column is undeclared, and each reason gets its own FAIL line
    assert run(["check-anatomy", str(prefix), "--l", "2"]) == EXIT_VIOLATION
    lines = capsys.readouterr().out.splitlines()
    assert sum(line.startswith("FAIL") for line in lines) >= 2, lines


def test_check_anatomy_keeps_the_declared_sensitive_column_not_the_releases(tmp_path, capsys):
    """The original and its roles are trusted, the release is not: declaring 'insurance' sensitive
    while the release publishes 'disease' fails, however the release names its column."""
    src, prefix, _ = _anatomy(tmp_path)
    base = ["check-anatomy", str(prefix), "--l", "2", "--original", str(src), "--qi", "age,zip", "--identifier", "name"]
    assert run([*base, "--sensitive", "disease", "--insensitive", "insurance"]) == EXIT_OK
    capsys.readouterr()
    assert run([*base, "--sensitive", "insurance", "--insensitive", "disease"]) == EXIT_VIOLATION
    assert "not the dataset's sensitive column" in " ".join(capsys.readouterr().out.split())


def test_the_consoles_of_the_package_are_those_of_the_app():
    import ktype.cli
    from ktype.cli import _app

    assert ktype.cli.err is _app.err and ktype.cli.out is _app.out
    assert _app.err.stderr and not _app.out.stderr


def test_errors_go_to_standard_error_never_into_standard_output(tmp_path, monkeypatch, capsys):
    """Standard output may be a JSON summary piped into a file: an error never lands there."""
    from ktype.cli import _app

    monkeypatch.delattr(_app, "err", raising=False)  # made afresh on first use, as in a new process
    monkeypatch.delattr(_app, "out", raising=False)
    code = run(["check", str(tmp_path / "rel.csv"), "--original", str(tmp_path / "absent.csv"), "--k", "2"])
    got = capsys.readouterr()
    assert code == EXIT_DATA and "error" in got.err and got.out == ""


def test_check_prints_the_metadata_roles_it_audited_one_by_one(tmp_path, capsys):
    """Without roles on the command line they come from the (untrusted) metadata: the text lists
    each column with its role, the roles the release was made with, as --json does."""
    src = tmp_path / "people.csv"
    PEOPLE.to_csv(src, index=False)
    roles = {"age": "quasi_identifier", "zip": "quasi_identifier", "disease": "sensitive", "insurance": "insensitive"}
    assert run(["anonymize", str(src), "--qi", "age,zip", "--sensitive", "disease", "--identifier", "name",
                "--insensitive", "insurance", "--k", "2", "-a", "mondrian", "--output", str(tmp_path / "rel.csv"),
                "--no-progress"]) == EXIT_OK
    capsys.readouterr()
    code = run(["check", str(tmp_path / "rel.csv"), "--original", str(src), "--k", "2"])
    text = " ".join(capsys.readouterr().out.split())
    line = text.split("(untrusted; audited): ", 1)[1].split(" FAIL", 1)[0].split(" PASS", 1)[0]
    assert dict(item.split("=") for item in line.split(", ")) == roles
    assert run(["check", str(tmp_path / "rel.csv"), "--original", str(src), "--k", "2", "--json"]) == code
    rep = json.loads(capsys.readouterr().out)
    assert rep["facts"]["untrusted_roles"] == roles
    assert code == (EXIT_OK if rep["passed"] else EXIT_VIOLATION)


def test_dask_anonymize_verifies_the_diversity_variant_asked_for(tmp_path, capsys):
    """--diversity entropy on the Dask path: every published class's sensitive values have an
    entropy of at least log ℓ, recounted on the written Parquet release."""
    import ktype.datasets.synthetic as synthetic

    pytest.importorskip("dask")
    df = synthetic.census(600, rng=1)
    (tmp_path / "in").mkdir()
    df.to_parquet(tmp_path / "in" / "p0.parquet")
    qi = ["Age", "Gender", "Race"]
    code = run(["anonymize", str(tmp_path / "in"), "--qi", ",".join(qi), "--sensitive", "Occupation",
                "--insensitive", "Work Class,Country,Education Level,Marital Status", "--l", "3",
                "--diversity", "entropy", "--algorithm", "mondrian", "--scheduler", "sync",
                "--output", str(tmp_path / "out")])
    summary = json.loads(capsys.readouterr().out)
    assert code == EXIT_OK and summary["records"] == 600
    assert [v["model"].split("(")[0] for v in summary["verdicts"]] == ["EntropyLDiversity"]
    pub = pd.read_parquet(tmp_path / "out")
    for _, cls in pub.groupby(qi, observed=True):
        counts = Counter(cls["Occupation"].astype(str))
        entropy = -sum(c / len(cls) * math.log(c / len(cls)) for c in counts.values())
        assert entropy >= math.log(3) - 1e-9, counts


def _cells(text: str, label: str) -> list[str]:
    """The cells after ``label`` in the row of a printed table that holds it."""
    for line in text.splitlines():
        cells = [c.strip() for c in line.replace("┃", "│").split("│")]
        if label in cells:
            return [c for c in cells[cells.index(label) + 1:] if c]
    raise AssertionError(f"no row {label!r} in\n{text}")


def _class_risk(frame: pd.DataFrame, qi: list[str]) -> dict[str, float]:
    """Prosecutor risk recounted from the class sizes of the QI combinations."""
    sizes = Counter(map(tuple, frame[qi].astype(str).to_numpy()))
    n = len(frame)
    per_record = [s for s in sizes.values() for _ in range(s)]
    return {"highest": 1 / min(sizes.values()), "average": sum(1 / s for s in per_record) / n,
            "uniques": sum(1 for s in sizes.values() if s == 1), "records": n, "classes": len(sizes),
            **{f"violating_{k}": sum(s for s in sizes.values() if s < k) for k in (2, 3, 5, 10)}}


def test_risk_table_shows_the_recounted_risk_of_the_input(tmp_path, capsys):
    src = tmp_path / "people.csv"
    PEOPLE.to_csv(src, index=False)
    roles = ["--qi", "age,zip", "--sensitive", "disease", "--identifier", "name", "--insensitive", "insurance"]
    want = _class_risk(PEOPLE, ["age", "zip"])
    assert run(["risk", str(src), *roles, "--sampling-fraction", "0.5"]) == EXIT_OK
    text = capsys.readouterr().out
    assert float(_cells(text, "highest risk")[0]) == pytest.approx(want["highest"], rel=1e-3)
    assert float(_cells(text, "average risk")[0]) == pytest.approx(want["average"], rel=1e-3)
    assert int(_cells(text, "sample uniques")[0]) == want["uniques"]
    assert _cells(text, "records violating 2/3/5/10-anonymity")[0] == "/".join(
        str(want[f"violating_{k}"]) for k in (2, 3, 5, 10))
    assert _cells(text, "records (suppressed)")[0] == f"{want['records']} (0)"
    # the population models: one row each, with the numbers of the JSON report
    assert run(["risk", str(src), *roles, "--sampling-fraction", "0.5", "--json"]) == EXIT_OK
    pu = json.loads(capsys.readouterr().out)["population_uniqueness"]
    for m, v in pu["population_uniques"].items():
        label = f"{m} (uses {pu['dankar_model']})" if m == "dankar" else m
        uniques, share = _cells(text, label)[:2]
        assert float(uniques) == pytest.approx(v, rel=1e-3) and float(share) == pytest.approx(
            pu["population_uniqueness"][m], rel=1e-3)


def test_risk_of_a_partitioned_parquet_directory_is_the_recounted_risk(tmp_path, capsys):
    """A directory of Parquet parts is read with Dask; --json prints the report, recounted in pandas."""
    import ktype.datasets.synthetic as synthetic

    pytest.importorskip("dask")
    df = synthetic.census(600, rng=1)
    (tmp_path / "in").mkdir()
    df.iloc[:300].to_parquet(tmp_path / "in" / "p0.parquet")
    df.iloc[300:].to_parquet(tmp_path / "in" / "p1.parquet")
    qi = ["Age", "Gender", "Race"]
    code = run(["risk", str(tmp_path / "in"), "--qi", ",".join(qi), "--sensitive", "Occupation",
                "--insensitive", "Work Class,Country,Education Level,Marital Status", "--json"])
    rep = json.loads(capsys.readouterr().out)
    want = _class_risk(df, qi)
    got = rep["input"]
    assert code == EXIT_OK and got["engine"] == "dask" and got["partitions"] == 2
    assert (got["records"], got["classes"], got["sample_uniques"]) == (want["records"], want["classes"], want["uniques"])
    assert got["prosecutor"]["highest"] == pytest.approx(want["highest"])
    assert got["prosecutor"]["average"] == pytest.approx(want["average"])
    assert got["records_violating_k_anonymity"] == {str(k): want[f"violating_{k}"] for k in (2, 3, 5, 10)}
    # the same table as one file is read in memory: the same report on the same basis
    df.to_parquet(tmp_path / "all.parquet")
    assert run(["risk", str(tmp_path / "all.parquet"), "--qi", ",".join(qi), "--sensitive", "Occupation",
                "--insensitive", "Work Class,Country,Education Level,Marital Status", "--json"]) == EXIT_OK
    memory = json.loads(capsys.readouterr().out)["input"]
    assert "engine" not in memory and memory["basis"] == got["basis"]
    assert (memory["classes"], memory["sample_uniques"]) == (got["classes"], got["sample_uniques"])


def test_an_unusable_path_is_named_in_its_error_exit_3(monkeypatch, capsys):
    import ktype.cli as cli

    def denied(*args, **kwargs):
        raise PermissionError(13, "Permission denied", "/nowhere/release.csv")

    monkeypatch.setattr(cli, "app", denied)
    assert run(["datasets"]) == EXIT_DATA
    err = " ".join(capsys.readouterr().err.split())
    assert "cannot use '/nowhere/release.csv': Permission denied" in err and "Traceback" not in err


def _people_release(tmp_path, *extra: str) -> tuple[int, str]:
    src = tmp_path / "people.csv"
    PEOPLE.to_csv(src, index=False)
    code = run(["anonymize", str(src), "--qi", "age,zip", "--sensitive", "disease", "--identifier", "name",
                "--insensitive", "insurance", "--k", "2", "-a", "mondrian", "--no-progress", *extra])
    return code, src


def test_anonymize_summary_names_what_was_published_unchanged_and_removed(tmp_path, capsys):
    out = tmp_path / "rel.csv"
    code, _ = _people_release(tmp_path, "--output", str(out))
    text = capsys.readouterr().out
    assert code == EXIT_OK
    rel = pd.read_csv(out, dtype=str)
    orig = PEOPLE.astype(str)
    unchanged = [c for c in orig.columns if c in rel.columns and Counter(rel[c]) == Counter(orig[c])]
    assert _cells(text, "published unchanged")[0].split(", ") == unchanged == ["disease", "insurance"]
    assert _cells(text, "removed identifiers")[0] == ", ".join(c for c in orig.columns if c not in rel.columns)
    assert not _cells(text, "output")[0].startswith("(none")  # the path (a long one is cut short by the table)


def test_anonymize_without_output_writes_nothing_and_says_so(tmp_path, capsys):
    before = set(tmp_path.iterdir())
    code, src = _people_release(tmp_path)
    assert code == EXIT_OK and set(tmp_path.iterdir()) == before | {src}
    assert _cells(capsys.readouterr().out, "output")[0].startswith("(none")


def test_risk_of_a_release_lists_the_exact_values_it_publishes(tmp_path, capsys):
    """Per quasi-identifier: how many distinct exact values the release file shows, with examples
    taken from them (recounted on the file: cells that are no range and no *)."""
    out = tmp_path / "rel.csv"
    code, src = _people_release(tmp_path, "--output", str(out))
    assert code == EXIT_OK
    capsys.readouterr()
    assert run(["risk", str(out), "--original", str(src), "--qi", "age,zip", "--sensitive", "disease",
                "--identifier", "name", "--insensitive", "insurance"]) == EXIT_OK
    text = " ".join(capsys.readouterr().out.split())
    rel = pd.read_csv(out, dtype=str)
    for col in ("age", "zip"):
        exact = {v for v in rel[col] if not v.startswith("[") and v != "*"}
        said = text.split(f" {col}: ", 1)[1].split("exact values published: ", 1)[1]
        count, examples = said.split(" distinct (e.g. ", 1)
        assert int(count) == len(exact) > 0
        assert set(examples.split(")", 1)[0].removesuffix(", ...").split(", ")) <= exact


def test_check_reads_the_original_with_the_given_missing_values(tmp_path, capsys):
    """Roles from the metadata, reading options from the command line: '?' means missing in the
    original as it did when the release was made, and the release checks out."""
    df = pd.DataFrame({"age": [21, 23, 35, 37, 54, 60, 60, 65, 30, 41, 47, 52],
                       "zip": [12000, 14000, 18000, 19000, 23000, 63000, 63000, 52000, 15000, 21000, 22000, 50000],
                       "s": list("abab" * 3), "note": ["x", "?", "y", "?", "x", "y", "?", "x", "y", "x", "?", "y"]})
    src, rel = tmp_path / "q.csv", tmp_path / "rel.csv"
    df.to_csv(src, index=False)
    assert run(["anonymize", str(src), "--qi", "age,zip", "--sensitive", "s", "--insensitive", "note", "--na-values", "?",
                "--missing", "category", "--k", "3", "-a", "mondrian", "--output", str(rel), "--no-progress"]) == EXIT_OK
    capsys.readouterr()
    assert run(["check", str(rel), "--original", str(src), "--k", "3", "--na-values", "?"]) == EXIT_OK
    assert "PASS" in capsys.readouterr().out


def test_an_unknown_recoding_is_refused_by_name_exit_3(tmp_path, capsys):
    code, src = _people_release(tmp_path, "--output", str(tmp_path / "rel.csv"))
    capsys.readouterr()
    assert run(["check", str(tmp_path / "rel.csv"), "--original", str(src), "--k", "2", "--recoding", "bogus"]) == EXIT_DATA
    err = " ".join(capsys.readouterr().err.split())
    assert "Unknown recoding 'bogus'" in err and "'multidimensional'" in err


def test_an_error_naming_a_long_path_keeps_it_on_one_line(tmp_path, monkeypatch, capsys):
    """Error messages hold paths a user copies: standard error never wraps them."""
    from ktype.cli import _app

    monkeypatch.delattr(_app, "err", raising=False)
    deep = tmp_path / ("a-folder-with-a-long-name-" * 3) / "original-table-that-does-not-exist.csv"
    assert run(["check", str(tmp_path / "rel.csv"), "--original", str(deep), "--k", "2"]) == EXIT_DATA
    assert str(deep) in capsys.readouterr().err


def test_anatomy_refuses_a_hierarchy_it_cannot_build_exit_3(tmp_path, capsys):
    """A config whose hierarchy is a bare list is bad input (exit 3, naming the column), not a bug
    (exit 4); the hierarchy files among the inputs are only the values that name files."""
    src = tmp_path / "people.csv"
    PEOPLE.to_csv(src, index=False)
    cfg = tmp_path / "job.yaml"
    cfg.write_text("hierarchy:\n  age: [30, 50]\n")
    code = run(["anatomy", str(src), "--qi", "age,zip", "--sensitive", "disease", "--identifier", "name",
                "--insensitive", "insurance", "--l", "2", "-O", str(tmp_path / "an"), "--config", str(cfg)])
    assert code == EXIT_DATA and "hierarchy for 'age'" in " ".join(capsys.readouterr().err.split())
    assert not list(tmp_path.glob("an.*"))


def test_a_release_written_verbatim_reads_back_verbatim_without_its_metadata(tmp_path, capsys):
    """Text values that start with ' and a formula sign, published with --no-csv-escape: without the
    metadata, --no-csv-escape reads them as written (the measures equal those read with the
    metadata); read as escaped they are no value of the column, a clear error (exit 3)."""
    df = pd.DataFrame({"code": ["'=a", "'=b", "'=a", "'=b", "'=c", "'=c", "'=a", "'=b"], "age": range(1, 9),
                       "s": list("xyxyxyxy")})
    src, rel = tmp_path / "e.csv", tmp_path / "rel.csv"
    df.to_csv(src, index=False)
    assert run(["anonymize", str(src), "--qi", "code,age", "--sensitive", "s", "--k", "2", "-a", "mondrian",
                "--no-csv-escape", "--output", str(rel), "--no-progress", "--json"]) == EXIT_OK
    metrics = ["metrics", str(rel), "--original", str(src), "--qi", "code,age", "--sensitive", "s", "--json"]
    capsys.readouterr()
    assert run(metrics) == EXIT_OK
    with_metadata = json.loads(capsys.readouterr().out)
    next(tmp_path.glob("rel.*.json")).unlink()
    assert run([*metrics, "--no-csv-escape"]) == EXIT_OK
    assert json.loads(capsys.readouterr().out) == with_metadata
    assert run(metrics) == EXIT_DATA
    assert "'code'" in capsys.readouterr().err
