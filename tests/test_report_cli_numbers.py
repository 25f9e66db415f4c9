"""The report of a release *file* shows exactly what ``ktype metrics`` and ``ktype risk`` print
for it (their ``--json``), and the audit of ``ktype check`` as its verification."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

import ktype
from ktype.cli import run
from ktype.exceptions import DataError, InvalidParameterError
from ktype.report import report_file
from tests.test_report import parse

ROLES = ["--qi", "age,zip,sex", "--sensitive", "diag", "-H", "age=intervals:5,10,20", "-H", "zip=masking:1,2,3",
         "-H", "sex=flat"]


@pytest.fixture
def files(tmp_path):
    rng = np.random.default_rng(3)
    n = 120
    df = pd.DataFrame({"age": rng.integers(18, 80, n), "zip": [f"941{x:02d}" for x in rng.integers(0, 40, n)],
                       "sex": rng.choice(["F", "M"], n), "diag": rng.choice(["flu", "cold", "asthma", "none"], n)})
    src = tmp_path / "in.csv"
    df.to_csv(src, index=False)
    return tmp_path, src


def _cli_json(capsys, argv):
    capsys.readouterr()
    code = run(argv)
    out = capsys.readouterr().out
    assert code == 0, out
    return json.loads(out)


@pytest.mark.parametrize("algorithm", ["mondrian", "flash", "k_concealment"])
def test_report_of_a_file_equals_ktype_metrics_and_ktype_risk(files, capsys, algorithm):
    tmp, src = files
    rel = tmp / "rel.csv"
    extra = ["--rng", "5"] if algorithm == "k_concealment" else []
    assert run(["anonymize", str(src), *ROLES, "--k", "3", "--algorithm", algorithm, "--output", str(rel), *extra]) == 0
    metrics = _cli_json(capsys, ["metrics", str(rel), "--original", str(src), *ROLES, "--json"])
    risk = _cli_json(capsys, ["risk", str(rel), "--original", str(src), *ROLES, "--json"])

    ds = ktype.Dataset.from_csv(src, quasi_identifiers=["age", "zip", "sex"], sensitive=["diag"],
                                hierarchies={"age": {"intervals": [5, 10, 20]}, "zip": {"masking": [1, 2, 3]}, "sex": "flat"})
    out, audit = report_file(ds, rel, tmp / "rel.html", input_label=str(src))
    assert audit.passed
    text = out.read_text(encoding="utf-8")
    page = parse(text)
    assert page.cells["data-measure"] == metrics
    for key, value in page.cells["data-risk"].items():
        node = risk
        for part in key.split("."):
            node = node[part]
        assert value == node, key
    data = json.loads(page.scripts[0][1])
    assert data["audit"]["passed"] and [v["satisfied"] for v in data["verification"]] == [True]
    assert data["job"]["algorithm"] == algorithm and data["job"]["input"] == str(src)


def test_a_forged_file_reports_its_audit_failure(files, capsys, monkeypatch):
    tmp, src = files
    rel = tmp / "rel.csv"
    assert run(["anonymize", str(src), *ROLES, "--k", "3", "--output", str(rel)]) == 0
    ds = ktype.Dataset.from_csv(src, quasi_identifiers=["age", "zip", "sex"], sensitive=["diag"],
                                hierarchies={"age": {"intervals": [5, 10, 20]}, "zip": {"masking": [1, 2, 3]}, "sex": "flat"})
    from ktype.models.kanonymity import KAnonymity

    out, audit = report_file(ds, rel, tmp / "r.html", KAnonymity(50))  # claims more than the release has
    assert not audit.passed
    text = out.read_text(encoding="utf-8")
    assert "NOT VERIFIED" in text and 'data-verdict="fail"' in text
    other = tmp / "other.csv"
    pd.DataFrame({"x": [1, 2]}).to_csv(other, index=False)
    with pytest.raises(DataError, match=r"cannot be read back as a release of the original.*missing from the release"):
        report_file(ds, other, tmp / "bad.html")
    assert not (tmp / "bad.html").exists()
    import ktype.audit as audit_module

    def no_audit(*a, **k):
        raise AssertionError("audited before the report path was checked")

    monkeypatch.setattr(audit_module, "audit", no_audit)
    with pytest.raises(InvalidParameterError, match=r"\.html"):
        report_file(ds, rel, rel)  # never over the release itself: refused before the audit runs
    assert rel.exists()
