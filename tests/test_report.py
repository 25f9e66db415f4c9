"""ktype.report: one self-contained HTML report per release (docs/report.md).

A report for every algorithm family on small data; the page parses, has every section,
points at nothing outside itself, and every number it shows equals what ``ktype metrics``
(:func:`ktype.measures.compute`) and ``ktype risk`` (:func:`ktype.risk.report.risk_report`)
compute for the same release.
"""

from __future__ import annotations

import json
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pytest

import ktype
from ktype.exceptions import DataError, InvalidParameterError, KtypeError, OutputPathError
from ktype.report import SECTIONS, collect, render, write_report
from tests._report_cases import FAMILIES, release

#: attributes that load or link to something
LINKING = {"src", "href", "xlink:href", "action", "formaction", "data", "poster", "srcset", "background", "ping"}


class Page(HTMLParser):
    """Everything the tests read from a report: tags, linking attributes, numbers, text."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[str] = []
        self.ids: list[str] = []
        self.links: list[tuple[str, str, str]] = []
        self.cells: dict[str, dict[str, float | int | None]] = {}
        self.styles: list[str] = []
        self.scripts: list[tuple[dict[str, str | None], str]] = []
        self._in: str | None = None
        self._attrs: dict[str, str | None] = {}
        self._buf: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        a = dict(attrs)
        if a.get("id"):
            self.ids.append(str(a["id"]))
        for k, v in attrs:
            if k in LINKING or k.endswith(":href"):
                self.links.append((tag, k, v or ""))
        for key in ("data-measure", "data-risk", "data-lm", "data-ncp"):
            if key in a:
                raw = a.get("data-value")
                self.cells.setdefault(key, {})[str(a[key])] = None if raw is None else _number(raw)
        if tag in ("style", "script"):
            self._in, self._attrs, self._buf = tag, a, []

    def handle_data(self, data: str) -> None:
        if self._in:
            self._buf.append(data)

    def handle_endtag(self, tag: str) -> None:
        if tag == self._in:
            text = "".join(self._buf)
            if tag == "style":
                self.styles.append(text)
            else:
                self.scripts.append((self._attrs, text))
            self._in = None


def _number(raw: str) -> float | int:
    return int(raw) if raw.lstrip("-").isdigit() else float(raw)


def parse(text: str) -> Page:
    p = Page()
    p.feed(text)
    p.close()
    return p


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[ktype.Release, str]]:
    out = {}
    d = tmp_path_factory.mktemp("reports")
    for family in FAMILIES:
        rel = release(family)
        path = write_report(rel, d / f"{family}.html")
        out[family] = (rel, path.read_text(encoding="utf-8"))
    return out


@pytest.mark.parametrize("family", list(FAMILIES))
def test_report_parses_has_every_section_and_is_self_contained(reports, family):
    rel, text = reports[family]
    page = parse(text)
    assert text.startswith("<!DOCTYPE html>")
    assert [s for s in SECTIONS if s not in page.ids] == []
    assert page.tags.count("svg") >= 5  # the plots are inline
    # nothing leaves the file: in-page anchors only, no external stylesheet, script, font or image
    external = [(t, k, v) for t, k, v in page.links if not v.startswith("#")]
    assert external == []
    assert "link" not in page.tags and "img" not in page.tags and "iframe" not in page.tags
    assert all("@import" not in s and "url(" not in s for s in page.styles)
    assert "http://" not in text and "https://" not in text and "@import" not in text
    # the only script is the inert JSON block of numbers
    assert [a.get("type") for a, _ in page.scripts] == ["application/json"]
    data = json.loads(page.scripts[0][1])
    assert data["job"]["algorithm"] == rel.provenance["algorithm"]


@pytest.mark.parametrize("family", list(FAMILIES))
def test_numbers_equal_ktype_metrics_and_ktype_risk(reports, family):
    """Each number the page shows (its exact value in data-value) is what the commands compute."""
    from ktype.measures import compute
    from ktype.risk.report import risk_report

    rel, text = reports[family]
    page = parse(text)
    metrics = dict(compute(rel))
    assert metrics and page.cells["data-measure"] == metrics
    risk = risk_report(rel, threshold=0.2, posterior="uniform")
    shown = page.cells["data-risk"]
    assert len(shown) == 2 * 17  # input and release: 8 attacker, 5 sample and 4 k-violation numbers
    for key, value in shown.items():
        node = risk
        for part in key.split("."):
            node = node[part] if part in node else node[int(part)]
        assert value == node, key
    # per-attribute LM / NCP average to the table's LM / GCP
    lm = list(page.cells["data-lm"].values())
    assert np.mean(lm) == pytest.approx(metrics["loss_metric"], rel=1e-12, abs=1e-15)
    if "gcp" in metrics:
        assert np.mean(list(page.cells["data-ncp"].values())) == pytest.approx(metrics["gcp"], rel=1e-12, abs=1e-15)
    # and the JSON block holds the same numbers
    data = json.loads(parse(text).scripts[0][1])
    assert data["measures"] == metrics


@pytest.mark.parametrize("family", list(FAMILIES))
def test_verification_is_the_checkers_verdict(reports, family):
    rel, text = reports[family]
    data = json.loads(parse(text).scripts[0][1])
    want = [(str(m), bool(m.check(rel).satisfied)) for m in rel.models]
    assert [(v["model"], v["satisfied"]) for v in data["verification"]] == want
    assert text.count('data-verdict="pass"') == len(want)


def test_sections_follow_the_recoding(reports):
    flash = json.loads(parse(reports["full-domain"][1]).scripts[0][1])
    lat = release("full-domain").provenance["lattice"]
    assert flash["lattice"]["nodes"] == lat["nodes"] and flash["lattice"]["optimum"] == lat["optimum"]
    assert flash["generalization"]["levels"] == [int(x) for x in release("full-domain").levels]
    assert flash["matching"] is None and flash["diversity"][0]["worst"]
    mond = json.loads(parse(reports["mondrian"][1]).scripts[0][1])
    assert "not a full-domain search" in mond["lattice"]["note"]
    assert mond["diversity"] and mond["diversity"][0]["model"].startswith("TCloseness")
    worst = mond["diversity"][0]["worst"]
    assert [w["score"] for w in worst] == sorted((w["score"] for w in worst), reverse=True)  # t: lower is better
    for fam in ("local", "k_concealment", "freeform"):
        d = json.loads(parse(reports[fam][1]).scripts[0][1])
        mt = d["matching"]
        assert mt is not None and sum(mt["match_counts"].values()) == release(fam).dataset.n
        assert sum(mt["posterior_hist"]) == mt["posterior"]["records"] - mt["posterior"]["records_in_too_large_components"]
        assert d["generalization"]["kind"] == "widths"
    assert json.loads(parse(reports["freeform"][1]).scripts[0][1])["classes"]["release"] is None


def test_marginals_count_every_record(reports):
    for fam, (rel, text) in reports.items():
        d = json.loads(parse(text).scripts[0][1])
        for m in d["marginals"]:
            assert sum(m["original"]) == rel.dataset.n, fam
            assert sum(m["released"]) == pytest.approx(rel.n - rel.n_suppressed), fam


def test_full_domain_without_a_kept_lattice_says_so():
    rel = release("full-domain")
    data = collect(rel)
    without = rel.replace(provenance={k: v for k, v in rel.provenance.items() if k != "lattice"})
    assert "does not keep its lattice" in collect(without)["lattice"]["note"]
    assert "nodes" in data["lattice"]


def test_a_lattice_summary_without_levels_is_listed_not_drawn():
    """k_optimize keeps counts only (no heights): the table, and a note instead of a drawing."""
    rel = release("full-domain")
    data = collect(rel)
    data["lattice"] = {"algorithm": "k_optimize", "nodes_evaluated": 7, "value": 1.5}
    page = render(data)
    assert "keeps no hierarchy heights" in page and "more than" not in page.split('id="lattice"')[1]
    big = collect(rel)
    big["lattice"]["heights"] = [9] * 6  # 10^6 nodes
    assert "more than 20,000 nodes" in render(big)


def test_docs_report_examples_run(tmp_path, monkeypatch):
    """docs/report.md's Python blocks run as written (in a scratch directory)."""
    import re

    doc = Path(__file__).resolve().parents[1] / "docs" / "report.md"
    if not doc.exists():
        pytest.skip("docs/ is not beside the tests")
    blocks = re.findall(r"^```python\n(.*?)^```", doc.read_text(encoding="utf-8"), re.S | re.M)
    assert len(blocks) == 2
    monkeypatch.chdir(tmp_path)
    for code in blocks:
        exec(compile(code, str(doc), "exec"), {"__name__": "docs_report"})  # noqa: S102 - the doc's own example
    assert sorted(p.name for p in (tmp_path / "out").glob("*.html")) == ["adult-flash-pop.html", "adult-flash.html",
                                                                         "adult-k5.html"]


def test_suppressed_records_are_reported(tmp_path):
    ds = ktype.load_adult(n=160)
    rel = ktype.anonymize(ds, algorithm="flash", k=10, max_suppression=0.1)
    assert rel.n_suppressed > 0
    text = write_report(rel, tmp_path / "r.html").read_text(encoding="utf-8")
    d = json.loads(parse(text).scripts[0][1])
    assert d["suppression"]["suppressed"] == rel.n_suppressed == d["risk"]["release"]["suppressed"]
    assert d["suppression"]["published_rows"] == rel.n - rel.n_suppressed


def test_release_report_method_and_light_import(tmp_path):
    rel = release("mondrian")
    path = rel.report(tmp_path / "sub" / "r.html")
    assert path == tmp_path / "sub" / "r.html" and path.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    code = ("import sys, ktype, ktype.report\nfrom ktype import Release\n"
            "print(' '.join(m for m in ('matplotlib', 'numba', 'scipy') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert "matplotlib" not in out


def test_anatomy_is_refused_with_the_reason(tmp_path):
    from ktype.algorithms.transparent.anatomy import anatomize

    ds = ktype.load_adult(n=160, quasi_identifiers=["sex", "age", "race", "education"], sensitive=("occupation",))
    an = anatomize(ds, "hybrid", 3, rng=1)
    with pytest.raises(DataError, match="exact quasi-identifiers"):
        write_report(an, tmp_path / "a.html")  # type: ignore[arg-type]
    assert list(tmp_path.iterdir()) == []


def test_bad_paths_are_refused_and_leave_nothing(tmp_path):
    rel = release("mondrian")
    with pytest.raises(InvalidParameterError, match=r"\.html"):
        write_report(rel, tmp_path / "r.pdf")
    (tmp_path / "dir.html").mkdir()
    with pytest.raises(OutputPathError):
        write_report(rel, tmp_path / "dir.html")
    with pytest.raises(OutputPathError):
        write_report(rel, tmp_path / "new" / "r.html", mkdirs=False)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dir.html"]


def test_a_failure_keeps_the_old_report_and_no_partial_file(tmp_path, monkeypatch):
    import ktype.report as report

    rel = release("mondrian")
    path = tmp_path / "r.html"
    path.write_text("old", encoding="utf-8")

    def broken(data):
        raise KtypeError("drawing failed")

    monkeypatch.setattr(report, "render", broken)
    with pytest.raises(KtypeError, match="drawing failed"):
        write_report(rel, path)
    assert path.read_text(encoding="utf-8") == "old" and [p.name for p in tmp_path.iterdir()] == ["r.html"]


def test_missing_matplotlib_is_a_clear_error(tmp_path, monkeypatch):
    rel = release("mondrian")
    for name in [m for m in sys.modules if m == "matplotlib" or m.startswith("matplotlib.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib -> ImportError
    with pytest.raises(KtypeError, match=r"pip install 'ktype\[report\]'"):
        write_report(rel, tmp_path / "r.html")
    assert list(tmp_path.iterdir()) == []


def test_render_escapes_data_values(tmp_path):
    """Column names, values and the input label that look like markup or links are text in the
    page, never a tag or an attribute."""
    import pandas as pd

    evil = ["<script>alert(1)</script>", "https://evil.example/x.js"]
    df = pd.DataFrame({"<b>city</b>": ["a", "b"] * 6, "age": list(range(20, 32)), "diag": evil * 6})
    ds = ktype.Dataset(df, quasi_identifiers=["<b>city</b>", "age"], sensitive=["diag"],
                       hierarchies={"<b>city</b>": "flat", "age": {"intervals": [5, 10]}})
    rel = ktype.anonymize(ds, k=2, l=2, algorithm="mondrian")
    text = render(collect(rel, input_label='<img src="https://evil.example/a.png">'))
    page = parse(text)
    assert page.tags.count("script") == 1 and "img" not in page.tags and "b" not in page.tags
    assert "<script>alert" not in text and "&lt;script&gt;alert" in text
    assert [v for _, _, v in page.links if not v.startswith("#")] == []
