"""Real-world tables (issue #12): text/number types, NA strings, duplicate columns, dates,
missing-value policies and the label grammar, mostly through the CLI."""

import hashlib

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from ktype import Dataset
from ktype.cli import app
from ktype.data import builders
from ktype.data.dataset import read_table
from ktype.exceptions import DataError, HierarchyError

runner = CliRunner()


def sha(p):
    return hashlib.sha256(p.read_bytes()).hexdigest()


def msg(res):
    return " ".join(res.output.split())


@pytest.fixture()
def clinic(tmp_path):
    n = 48
    df = pd.DataFrame(
        {
            "name": [f"Patient {i}" for i in range(n)],
            "zip": [["02139", "02138", "02141", "01002"][i % 4] for i in range(n)],
            "age": [str(20 + (i * 7) % 50) for i in range(n)],
            "admission": [f"2022-{1 + i % 12:02d}-{1 + (i * 5) % 28:02d}" for i in range(n)],
            "country": ["NA", "DE", "FR"] * (n // 3),
            "diagnosis": ["flu", "cold", "asthma", "angina"] * (n // 4),
        }
    )
    path = tmp_path / "clinic.csv"
    df.to_csv(path, index=False)
    return path, df


ARGS = ["--qi", "zip,age", "--sensitive", "diagnosis", "--identifier", "name", "--insensitive", "admission,country"]


def test_zip_keeps_leading_zeros_masking_works_and_check_reads_back(clinic, tmp_path):
    path, _ = clinic
    before = sha(path)
    out = tmp_path / "rel.csv"
    res = runner.invoke(app, ["anonymize", str(path), *ARGS, "-H", "zip=masking:1,2,3", "-k", "4", "-O", str(out)])
    assert res.exit_code == 0, res.output
    pub = pd.read_csv(out, dtype=str, keep_default_na=False)
    assert all(z.startswith("0") or z == "*" for z in pub["zip"]), set(pub["zip"])
    chk = runner.invoke(app, ["check", str(out), "--original", str(path), *ARGS, "-H", "zip=masking:1,2,3", "-k", "4"])
    assert chk.exit_code == 0, chk.output
    met = runner.invoke(app, ["metrics", str(out), "--original", str(path), *ARGS, "-H", "zip=masking:1,2,3", "--json"])
    assert met.exit_code == 0, met.output
    assert sha(path) == before


def test_read_table_types_inference():
    import io
    import tempfile
    from pathlib import Path

    text = "zip,age,cost,code,neg,mixed\n02139,30,1.5,007,-3,1\n94142,41,2,12,-10,x\n"
    with tempfile.TemporaryDirectory() as d:
        p = Path(d) / "t.csv"
        p.write_text(text)
        df = read_table(p)
        assert df["zip"].tolist() == ["02139", "94142"]
        assert df["age"].tolist() == [30, 41] and pd.api.types.is_integer_dtype(df["age"])
        assert df["cost"].tolist() == [1.5, 2.0]
        assert df["code"].tolist() == ["007", "12"]
        assert df["neg"].tolist() == [-3, -10]
        assert df["mixed"].tolist() == ["1", "x"]
        df = read_table(p, types={"age": "text", "code": "int"})
        assert df["age"].tolist() == ["30", "41"] and df["code"].tolist() == [7, 12]
        with pytest.raises(DataError, match=r"declared int but line 3 holds 'x'"):
            read_table(p, types="mixed=int")
        with pytest.raises(DataError, match="Unknown type 'blob'"):
            read_table(p, types="zip=blob")
    del io


def test_namibia_na_stays_na_unless_listed(clinic, tmp_path):
    path, _ = clinic
    out = tmp_path / "rel.csv"
    res = runner.invoke(app, ["anonymize", str(path), *ARGS, "-k", "4", "-O", str(out)])
    assert res.exit_code == 0, res.output
    pub = pd.read_csv(out, dtype=str, keep_default_na=False)
    assert (pub["country"] == "NA").sum() == 16
    # listed NA strings are missing: in a QI that is an error with the 1-based file line
    res = runner.invoke(app, ["anonymize", str(path), "--qi", "zip,country", "--na-values", "NA", "-k", "4"])
    assert res.exit_code == 3
    assert "'country' has 16 missing value(s) (first at line 2)" in msg(res)
    assert "--missing country=category" in msg(res)


def test_duplicate_column_names_are_an_error(tmp_path):
    p = tmp_path / "dup.csv"
    p.write_text("age,zip,age\n30,02139,31\n40,02138,41\n")
    out = tmp_path / "o.csv"
    res = runner.invoke(app, ["anonymize", str(p), "--qi", "zip", "-k", "1", "-O", str(out)])
    assert res.exit_code == 3 and "'age' appears twice in the header" in msg(res) and "columns 1 and 3" in msg(res)
    assert not out.exists()


def test_missing_value_error_gives_file_line(tmp_path):
    p = tmp_path / "m.csv"
    p.write_text("age,zip\n30,02139\n40,02138\n,02139\n50,02138\n")
    res = runner.invoke(app, ["anonymize", str(p), "--qi", "age,zip", "-k", "2"])
    assert res.exit_code == 3 and "'age' has 1 missing value(s) (first at line 4)" in msg(res)
    df = pd.DataFrame({"age": [30, None, 40]})
    with pytest.raises(DataError, match=r"first at row 1"):
        Dataset(df, quasi_identifiers=["age"])


def test_missing_category_is_generalized_like_any_value(tmp_path):
    p = tmp_path / "m.csv"
    rows = ["age,zip,dx"] + [f"{'' if i % 5 == 0 else 20 + i},0213{i % 3},{'ab'[i % 2]}" for i in range(40)]
    p.write_text("\n".join(rows) + "\n")
    out = tmp_path / "o.csv"
    res = runner.invoke(app, ["anonymize", str(p), "--qi", "age,zip", "-s", "dx", "--missing", "age=category",
                              "-H", "age=intervals:10,20", "-k", "3", "-O", str(out)])
    assert res.exit_code == 0, res.output
    back = runner.invoke(app, ["check", str(out), "--original", str(p), "--qi", "age,zip", "-s", "dx",
                               "--missing", "age=category", "-H", "age=intervals:10,20", "-k", "3"])
    assert back.exit_code == 0, back.output
    ds = Dataset(pd.read_csv(p, dtype={"zip": str}), quasi_identifiers=["age", "zip"], insensitive=["dx"], missing={"age": "category"},
                 hierarchies={"age": {"intervals": [10, 20]}})
    h = ds.hierarchy("age")
    r = h.rank_of("(missing)")
    assert h.label_interval(r, r, level=1) == "(missing)" and h.label_interval(r, r, level=2) == "(missing)"
    assert (ds.X[::5, 0] == r).all()


def test_dates_hierarchy_and_ordered_date_ranges(clinic, tmp_path):
    path, _ = clinic
    args = ["--qi", "zip,admission", "--sensitive", "diagnosis", "--identifier", "name", "--insensitive", "age,country",
            "--type", "admission=date"]
    out = tmp_path / "d.csv"
    res = runner.invoke(app, ["anonymize", str(path), *args, "-H", "admission=dates:month,quarter,year", "-H", "zip=masking:1,2,3",
                              "-a", "flash", "-k", "4", "-O", str(out)])
    assert res.exit_code == 0, res.output
    labels = set(pd.read_csv(out, dtype=str)["admission"])
    assert labels <= {f"2022-{m:02d}" for m in range(1, 13)} | {f"2022-Q{q}" for q in range(1, 5)} | {"2022", "*"}
    chk = runner.invoke(app, ["check", str(out), "--original", str(path), *args, "-H", "admission=dates:month,quarter,year",
                              "-H", "zip=masking:1,2,3", "-k", "4"])
    assert chk.exit_code == 0, chk.output
    out2 = tmp_path / "o.csv"
    res = runner.invoke(app, ["anonymize", str(path), *args, "-k", "4", "-O", str(out2)])
    assert res.exit_code == 0, res.output
    labels = set(pd.read_csv(out2, dtype=str)["admission"])
    assert any(lab.startswith("[2022-") and ".." in lab for lab in labels), labels
    chk = runner.invoke(app, ["check", str(out2), "--original", str(path), *args, "-k", "4"])
    assert chk.exit_code == 0, chk.output


def test_date_builder_levels_and_errors():
    h = builders.dates(["2022-01-13", "2022-03-21", "2021-12-31", "2030-06-01"], ["month", "quarter", "year", "decade"], name="d")
    assert h.uniform and h.n_levels == 6
    r = h.rank_of("2022-01-13")
    assert [h.label_interval(r, r, level=lv) for lv in range(6)] == ["2022-01-13", "2022-01", "2022-Q1", "2022", "2020s", "*"]
    w = builders.dates(["2021-01-01", "2021-01-04"], ["week", "year"], name="d")
    assert w.label_interval(0, 0, level=1) == "2020-W53" and w.label_interval(0, 0, level=2) == "2020"  # ISO year
    with pytest.raises(HierarchyError, match="weeks do not nest in months"):
        builders.dates(["2022-01-01"], ["week", "month"], name="d")
    with pytest.raises(HierarchyError, match="not a date"):
        builders.dates(["2022-13-01"], name="d")


# ---------------------------------------------------------------------------- label grammar
def _hierarchies(draw_vals, kind):
    if kind == "ordered":
        return builders.ordered(draw_vals, name="c")
    if kind == "flat":
        return builders.flat(draw_vals, name="c")
    raise AssertionError


ints = st.lists(st.integers(-1000, 1000), min_size=1, max_size=30, unique=True)
floats = st.lists(st.floats(-1e4, 1e4, allow_nan=False, allow_infinity=False).map(lambda x: round(x, 3)), min_size=1, max_size=30, unique=True)
texts = st.lists(st.text("abz-.[]*0 =+@'", min_size=1, max_size=6).filter(lambda s: s.strip() == s and s != "*"), min_size=1, max_size=20, unique=True)
dates = st.lists(st.dates(min_value=pd.Timestamp("1990-01-01").date(), max_value=pd.Timestamp("2030-12-31").date()).map(pd.Timestamp), min_size=1, max_size=30, unique=True)


def _roundtrip(h, data):
    """Every label the hierarchy can write parses back to the same interval."""
    m = h.size
    if h.is_tree:
        nodes = np.arange(len(h.node_lo))
        lo, hi = h.node_lo[nodes], h.node_hi[nodes]
    else:
        lo = np.array(data.draw(st.lists(st.integers(0, m - 1), min_size=1, max_size=20)))
        width = np.array(data.draw(st.lists(st.integers(0, m - 1), min_size=len(lo), max_size=len(lo))))
        hi = np.minimum(lo + width, m - 1)
    labs = h.labels(lo, hi)
    for a, b, lab in zip(lo, hi, labs):
        pa, pb = h.parse_label(lab)
        if h.is_tree:  # labels name nodes: the parsed node has the same interval
            assert (pa, pb) == (a, b), (lab, a, b, pa, pb)
        else:
            assert (pa, pb) == (a, b), (lab, a, b, pa, pb)
    if h.is_tree and h.uniform:
        for lv in range(h.n_levels):
            ranks = np.arange(m)
            for r, lab in zip(ranks, h.labels(ranks, ranks, level=lv)):
                a, b = h.parse_label(lab)
                assert a <= r <= b


@settings(max_examples=40, deadline=None)
@given(vals=st.one_of(ints, floats, texts, dates), kind=st.sampled_from(["ordered", "flat"]), data=st.data(),
       missing=st.booleans())
def test_labels_roundtrip_ordered_and_flat(vals, kind, data, missing):
    h = _hierarchies(pd.Series(vals), kind)
    if missing:
        h = builders.with_missing(h)
    _roundtrip(h, data)


@settings(max_examples=25, deadline=None)
@given(vals=ints, widths=st.sampled_from([[5, 10], [2, 4, 8], [10], [3]]), data=st.data(), missing=st.booleans())
def test_labels_roundtrip_intervals(vals, widths, data, missing):
    h = builders.intervals(vals, widths, name="c")
    if missing:
        h = builders.with_missing(h)
    _roundtrip(h, data)


@settings(max_examples=25, deadline=None)
@given(vals=st.lists(st.integers(0, 99999).map(lambda v: f"{v:05d}"), min_size=1, max_size=30, unique=True), data=st.data(),
       missing=st.booleans())
def test_labels_roundtrip_masking(vals, data, missing):
    h = builders.masking(vals, name="zip", levels=[1, 2, 3])
    if missing:
        h = builders.with_missing(h)
    _roundtrip(h, data)


@settings(max_examples=25, deadline=None)
@given(vals=dates, levels=st.sampled_from([["month", "quarter", "year", "decade"], ["week", "year"], ["month", "half", "year", "century"], ["year"]]),
       data=st.data(), missing=st.booleans())
def test_labels_roundtrip_dates(vals, levels, data, missing):
    h = builders.dates(vals, levels, name="d")
    if missing:
        h = builders.with_missing(h)
    _roundtrip(h, data)


def test_label_grammar_examples():
    h = builders.ordered([-5, -1, 0, 3, 7], name="t")
    assert h.label_interval(0, 1) == "[-5..-1]" and h.label_interval(2, 4) == "[0-7]" and h.label_interval(0, 4) == "*"
    assert h.parse_label("[-5..-1]") == (0, 1) and h.parse_label("[0-7]") == (2, 4) and h.parse_label("-1") == (1, 1)
    d = builders.ordered(pd.to_datetime(["2022-01-13", "2022-02-01", "2022-03-21"]), name="d")
    assert d.label_interval(0, 2) == "*" and d.label_interval(0, 1) == "[2022-01-13..2022-02-01]"
    assert d.parse_label("[2022-01-13..2022-02-01]") == (0, 1)
    with pytest.raises(HierarchyError, match="not a value, range or hierarchy label"):
        d.parse_label("[2022-01-13-2022-03-21]")


def test_missing_suppress_counts_against_the_limit(tmp_path):
    p = tmp_path / "m.csv"
    rows = ["age,zip,dx"] + [f"{'' if i % 10 == 0 else 20 + i % 30},0213{i % 3},{'ab'[i % 2]}" for i in range(60)]
    p.write_text("\n".join(rows) + "\n")
    out = tmp_path / "o.csv"
    base = ["anonymize", str(p), "--qi", "age,zip", "-s", "dx", "--missing", "age=suppress", "-k", "3", "-H", "age=intervals:10,20"]
    # 6 of 60 records (10%) have no age: a 5% budget cannot hold them
    res = runner.invoke(app, [*base, "-a", "flash", "-o", "max_suppression=0.05", "-O", str(out)])
    assert res.exit_code == 3 and "6 record(s) have a missing value" in msg(res) and "above the suppression limit 3" in msg(res)
    assert not out.exists()
    res = runner.invoke(app, [*base, "-a", "flash", "-o", "max_suppression=0.2", "-O", str(out), "--json"])
    assert res.exit_code == 0, res.output
    import json

    summary = json.loads(res.stdout)
    assert 6 <= summary["suppressed"] <= 12
    pub = pd.read_csv(out, dtype=str)
    assert len(pub) == 60 - summary["suppressed"] and "(missing)" not in set(pub["age"])
    import ktype

    ds = Dataset(pd.read_csv(p, dtype={"zip": str}), quasi_identifiers=["age", "zip"], sensitive=["dx"], missing={"age": "suppress"})
    rel = ktype.anonymize(ds, k=3)  # mondrian: no budget option, the 6 records are simply suppressed
    assert rel.suppressed[np.argsort(rel.source)][::10].all()
    assert rel.provenance["suppressed_for_missing_values"] == 6


def test_local_recoding_publishes_date_intervals_that_parse_back():
    import ktype
    from ktype.api import parse_release
    from ktype.models.kanonymity import KAnonymity

    rng = np.random.default_rng(1)
    adm = (pd.Timestamp("2022-01-01") + pd.to_timedelta(rng.integers(0, 400, 60), unit="D")).strftime("%Y-%m-%d")
    ds = Dataset(pd.DataFrame({"adm": adm, "age": rng.integers(-20, 20, 60)}), quasi_identifiers=["adm", "age"], types={"adm": "date"})
    rel = ktype.anonymize(ds, k=4, algorithm="agglomerative")
    pub = rel.to_pandas()
    assert pub["adm"].str.contains(r"^\[20\d\d-\d\d-\d\d\.\.20\d\d-\d\d-\d\d\]$|^\d{4}-\d\d-\d\d$|^\*$").all()
    back = parse_release(ds, pub.astype(str), recoding="local")
    assert ktype.check(back, KAnonymity(4), original=ds).passed
    np.testing.assert_array_equal(np.sort(back.lo, axis=0), np.sort(rel.lo, axis=0))
    np.testing.assert_array_equal(np.sort(back.hi, axis=0), np.sort(rel.hi, axis=0))


def test_cli_refuses_hierarchy_cycle(tmp_path):
    data = tmp_path / "d.csv"
    pd.DataFrame({"g": ["a", "b"] * 6, "x": range(12)}).to_csv(data, index=False)
    hier = tmp_path / "g.csv"
    hier.write_text("a;M;X;*\nb;X;M;*\n")
    res = runner.invoke(app, ["anonymize", str(data), "--qi", "g", "-H", f"g={hier}", "-k", "2", "-O", str(tmp_path / "o.csv")])
    assert res.exit_code == 3 and "cycle" in msg(res) and "(row 1)" in msg(res) and "(row 2)" in msg(res)
    assert not (tmp_path / "o.csv").exists()


def test_line_numbers_survive_blank_lines_and_quoted_line_breaks(tmp_path):
    p = tmp_path / "m.csv"
    p.write_text('age,zip,note\n30,02139,"two\nlines"\n\n40,02138,ok\n,02139,x\n')
    res = runner.invoke(app, ["anonymize", str(p), "--qi", "age,zip", "-k", "1"])
    assert res.exit_code == 3 and "(first at line 6)" in msg(res), msg(res)
    p.write_text("age,zip\n30,02139\n40,02138\n,02139\n")
    res = runner.invoke(app, ["anonymize", str(p), "--qi", "age,zip", "-k", "1"])
    assert res.exit_code == 3 and "(first at line 4)" in msg(res)


@settings(max_examples=30, deadline=None)
@given(vals=st.one_of(ints, texts, dates), cut=st.integers(1, 4), data=st.data(), missing=st.booleans())
def test_labels_roundtrip_subsets_and_tables(vals, cut, data, missing):
    """User-labelled kinds: a laminar family (from_subsets, possibly ragged) and an ARX-style
    level table (from_table) over numbers (negatives included), text and dates."""
    dom = sorted(pd.Series(vals).tolist())
    keys = [k for k in builders.value_keys(dom)]
    chunks = [dom[i:i + cut] for i in range(0, len(dom), cut)]
    h = builders.from_subsets(dom, chunks, name="s")
    if missing:
        h = builders.with_missing(h)
    _roundtrip(h, data)
    rows = [[k, f"g{i // cut}", f"G{i // (2 * cut)}", "*"] for i, k in enumerate(keys)]
    t = builders.from_table(rows, name="t")
    _roundtrip(t, data)


def test_python_save_refuses_links_and_unknown_extensions(tmp_path):
    import ktype
    from ktype.exceptions import OutputPathError

    ds = Dataset(pd.DataFrame({"age": range(20)}), quasi_identifiers=["age"])
    rel = ktype.anonymize(ds, k=2)
    target = tmp_path / "keep.csv"
    target.write_text("keep\n")
    (tmp_path / "link.csv").symlink_to(target)
    with pytest.raises(OutputPathError, match="symbolic link"):
        rel.save(tmp_path / "link.csv")
    assert target.read_text() == "keep\n"
    with pytest.raises(OutputPathError, match=r"\.xlsx is not supported"):
        rel.save(tmp_path / "r.xlsx")
    rel.save(tmp_path / "r.data", format="parquet")
    assert len(pd.read_parquet(tmp_path / "r.data")) == 20


def test_star_is_reserved_for_suppression():
    with pytest.raises(HierarchyError, match=r"value '\*' \(position 1\), which ktype reserves"):
        Dataset(pd.DataFrame({"g": ["a", "*", "b"]}), quasi_identifiers=["g"])


def test_check_applies_missing_when_roles_come_from_the_metadata(tmp_path):
    """Issue #24: `ktype check` ignored --missing when the roles came from the release's metadata,
    so a release made with --missing could not be audited without repeating every role."""
    from ktype.cli import run

    rng = np.random.default_rng(4)
    n = 80
    df = pd.DataFrame({"age": rng.integers(20, 70, n).astype(str), "zip": [f"9414{i % 4}" for i in range(n)],
                       "disease": rng.choice(["flu", "cold"], n)})
    df.loc[[2, 9, 30], "age"] = ""
    src = tmp_path / "in.csv"
    df.to_csv(src, index=False)
    out = tmp_path / "rel.csv"
    assert run(["anonymize", str(src), "--qi", "age,zip", "--sensitive", "disease", "--missing", "age=category",
                "--k", "4", "-O", str(out)]) == 0
    assert run(["check", str(out), "--original", str(src), "--missing", "age=category"]) == 0
    assert run(["check", str(out), "--original", str(src)]) == 1  # without the policy the original cannot be matched: a failed check
