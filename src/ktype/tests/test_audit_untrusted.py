"""`ktype check` treats the release file and its metadata as untrusted.

The original table and what the auditor states (flags, config, Dataset roles) are trusted;
the published file, its CSV sidecar or Parquet metadata are not: a forger can edit both and
recompute the sidecar's (unkeyed) SHA-256. A check that cannot verify a claim fails it
(exit 1) and says why; exit 2 is kept for usage errors.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

import ktype
from ktype.audit import audit
from ktype.cli import app
from ktype.exceptions import AuditError, StaleMetadataError
from ktype.release import read_release, sidecar_path
from ktype.tests._forge import forge_csv

runner = CliRunner()
ROLES = dict(quasi_identifiers=["age", "zip"], sensitive="disease", identifiers=["name"],
             hierarchies={"zip": {"masking": [1, 2, 3]}, "age": {"intervals": [10, 20]}})
FLAGS = ["--qi", "age,zip", "--sensitive", "disease", "--identifier", "name", "-H", "zip=masking:1,2,3",
         "-H", "age=intervals:10,20"]
HIER = ["-H", "zip=masking:1,2,3", "-H", "age=intervals:10,20"]


@pytest.fixture()
def patients(tmp_path):
    rng = np.random.default_rng(7)
    n = 60
    df = pd.DataFrame({
        "name": [f"{a} {b}" for a, b in zip(rng.choice(["Ann", "Bob", "Cate", "Don", "Ed", "Fay"], n),
                                            [f"Smith{i}" for i in range(n)])],
        "age": rng.integers(20, 80, n),
        "zip": rng.choice(["94110", "94112", "94117", "94121", "94131", "94133"], n),
        "disease": rng.choice(["HIV", "flu", "cancer", "asthma"], n),
    })
    path = tmp_path / "patients.csv"
    df.to_csv(path, index=False)
    return path, df


@pytest.fixture()
def release(patients, tmp_path):
    _, df = patients
    rel = ktype.anonymize(df, **ROLES, k=5, l=2, algorithm="mondrian")
    return rel.save(tmp_path / "rel.csv")


def _check(path, original, *args):
    res = runner.invoke(app, ["check", str(path), "--original", str(original), *args, "--json"])
    rep = json.loads(res.stdout) if res.stdout.strip().startswith("{") else None
    return res.exit_code, rep, " ".join(res.output.split())


# ---------------------------------------------------------------------------- exit codes (§6)
def test_genuine_release_passes_with_roles_from_the_metadata_and_from_flags(patients, release):
    path, _ = patients
    code, rep, _ = _check(release, path, *HIER)
    assert code == 0 and rep["passed"], rep
    code, rep, _ = _check(release, path, *FLAGS)
    assert code == 0 and rep["passed"], rep


def test_stale_sidecar_is_a_failed_check(patients, release):
    """A sidecar whose checksum no longer matches the CSV used to exit 2."""
    path, _ = patients
    release.write_text(release.read_text().replace("HIV", "flu", 1))
    with pytest.raises(StaleMetadataError):
        read_release(release)
    code, rep, text = _check(release, path, *FLAGS)
    assert code == 1 and not rep["passed"] and rep["findings"][0]["check"] == "metadata"
    assert "does not belong to" in rep["findings"][0]["reason"]
    code, _, text = _check(release, path, *HIER)
    assert code == 1
    res = runner.invoke(app, ["check", str(release), "--original", str(path), *FLAGS])
    assert res.exit_code == 1 and "FAIL [metadata]" in " ".join(res.output.split())


def test_emptied_models_list_is_a_failed_check(patients, release):
    """A sidecar whose `models` list was emptied (re-hashed) used to exit 2."""
    path, _ = patients
    forge_csv(release, models=[])
    code, rep, _ = _check(release, path, *FLAGS)
    assert code == 1 and [f["check"] for f in rep["findings"]] == ["metadata"]
    assert "lists no model" in rep["findings"][0]["reason"] and rep["models"] == []
    # explicit models are the auditor's: they are checked
    code, rep, _ = _check(release, path, *FLAGS, "--k", "5")
    assert code == 0 and rep["passed"]


def test_missing_metadata_without_model_is_a_failed_check(patients, release):
    path, _ = patients
    sidecar_path(release).unlink()
    for args in (FLAGS, HIER):  # with the auditor's roles, and with none to take from the metadata
        code, rep, _ = _check(release, path, *args)
        assert code == 1 and not rep["passed"] and "no metadata naming its models" in rep["findings"][-1]["reason"]
    code, rep, _ = _check(release, path, *FLAGS, "--k", "5")
    assert code == 0 and rep["passed"]


def test_unknown_claimed_model_is_a_failed_check(patients, release):
    path, _ = patients
    forge_csv(release, models=[{"name": "quantum-anonymity", "params": {}}])
    code, rep, _ = _check(release, path, *FLAGS)
    assert code == 1 and "quantum-anonymity" in rep["findings"][-1]["reason"]


def test_usage_errors_still_exit_2(patients, release):
    path, _ = patients
    res = runner.invoke(app, ["check", str(release), *FLAGS])  # no original
    assert res.exit_code == 2
    res = runner.invoke(app, ["check", str(release), "--original", str(path), *FLAGS, "--model", "k-anonimity", "--k", "3"])
    assert res.exit_code == 2 and "Did you mean" in res.output


def test_python_api_raises_audit_error_for_an_unverifiable_claim(patients, release):
    _, df = patients
    ds = ktype.Dataset(df, **ROLES)
    forge_csv(release, models=[])
    with pytest.raises(AuditError, match="lists no model"):
        ktype.check(ds, release)
    rep = audit(ds, release)
    assert not rep.passed and rep.findings[0].check == "metadata"
