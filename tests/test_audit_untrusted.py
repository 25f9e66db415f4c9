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
from ktype.exceptions import StaleMetadataError
from ktype.release import read_release, sidecar_path
from tests._forge import forge_csv

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


def test_wrong_requests_exit_3_not_1(patients, release):
    """A request ktype cannot carry out (no original, a misspelled model) is exit 3, never the
    exit 1 of a failed check; an unknown option is a usage error (exit 2)."""
    path, _ = patients
    res = runner.invoke(app, ["check", str(release), *FLAGS])  # no original
    assert res.exit_code == 3
    res = runner.invoke(app, ["check", str(release), "--original", str(path), *FLAGS, "--model", "k-anonimity", "--k", "3"])
    assert res.exit_code == 3 and "Did you mean" in res.output
    res = runner.invoke(app, ["check", str(release), "--original", str(path), "--no-such-flag"])
    assert res.exit_code == 2


def test_python_api_raises_audit_error_for_an_unverifiable_claim(patients, release):
    _, df = patients
    ds = ktype.Dataset(df, **ROLES)
    forge_csv(release, models=[])
    report = ktype.check(release, original=ds)
    assert not report.passed and "lists no model" in report.findings[0].reason
    rep = audit(ds, release)
    assert not rep.passed and rep.findings[0].check == "metadata"


# ---------------------------------------------------------------------------- roles from the metadata (§2)
def _truth(rel, df, column):
    """Each published row's record's true value of ``column`` (a forger holding the original)."""
    return df[column].to_numpy()[rel.source[~rel.suppressed]]


@pytest.fixture()
def made(patients, tmp_path):
    _, df = patients
    rel = ktype.anonymize(df, **ROLES, k=5, l=2, algorithm="mondrian")
    return rel, rel.save(tmp_path / "rel.csv")


@pytest.mark.parametrize("role", ["insensitive", "sensitive"])
def test_names_readded_under_a_sidecar_role_fail(patients, made, role):
    """Each patient's true name re-added on the right row, declared `insensitive` in a re-hashed sidecar,
    used to pass KAnonymity(k=5) and DistinctLDiversity with the column never mentioned."""
    path, df = patients
    rel, out = made
    pub = rel.to_pandas()
    pub.insert(0, "name", _truth(rel, df, "name"))
    forge_csv(out, pub, columns={"name": role})
    code, rep, _ = _check(out, path, *HIER)
    assert code == 1 and not rep["passed"], rep
    assert rep["facts"]["untrusted_roles"]["name"] == role
    roles = [f for f in rep["findings"] if f["check"] == "roles"]
    assert roles and "'name'" in roles[0]["reason"] and "untrusted" in roles[0]["reason"]
    # the text verdict says which roles came from the untrusted file
    res = runner.invoke(app, ["check", str(out), "--original", str(path), *HIER])
    text = " ".join(res.output.split())
    assert res.exit_code == 1 and "roles from the release metadata (untrusted; audited):" in text
    assert "disease=sensitive" in text and f"name={role}" in text and "FAIL [roles] Column 'name'" in text
    # with the auditor's roles it fails as a published identifier
    code, rep, _ = _check(out, path, *FLAGS)
    assert code == 1 and "identifiers" in [f["check"] for f in rep["findings"]]
    assert rep["facts"]["untrusted_roles"] == {}
    # one role from the auditor (--identifier name) wins over the sidecar's: exit 1, not a usage error
    code, rep, _ = _check(out, path, *HIER, "--identifier", "name")
    assert code == 1 and "identifiers" in [f["check"] for f in rep["findings"]]
    assert "name" not in rep["facts"]["untrusted_roles"]


@pytest.mark.parametrize("role", ["insensitive", "sensitive"])
def test_exact_ages_under_a_sidecar_role_fail(patients, made, role):
    """Generalized ages replaced by the exact ages, `age` declared `insensitive`: used to pass KAnonymity(k=5)."""
    path, df = patients
    rel, out = made
    pub = rel.to_pandas()
    pub["age"] = _truth(rel, df, "age")
    forge_csv(out, pub, columns={"age": role})
    code, rep, _ = _check(out, path, "-H", "zip=masking:1,2,3")
    assert code == 1 and not rep["passed"], rep
    finding = next(f for f in rep["findings"] if f["check"] == "roles")
    assert "'age'" in finding["reason"] and "singles people out" in finding["reason"] and finding["records"]
    # the auditor's hierarchy for age names it a quasi-identifier: the roles differ, k-anonymity fails
    code, rep, _ = _check(out, path, *HIER)
    assert code == 1 and "metadata" in [f["check"] for f in rep["findings"]]
    code, rep, _ = _check(out, path, *FLAGS)
    assert code == 1


def test_rare_values_of_an_insensitive_column_fail_only_with_untrusted_roles(patients, tmp_path):
    """An insensitive column with a value rarer than k singles people out: with roles from the
    metadata it fails; the auditor who declares it insensitive gets the verdict on the models."""
    path, df = patients
    df = df.assign(ward=np.where(np.arange(len(df)) < 3, "ICU", "general"))
    df.to_csv(path, index=False)
    rel = ktype.anonymize(df, **ROLES, insensitive=["ward"], k=5)
    out = rel.save(tmp_path / "ward.csv")
    code, rep, _ = _check(out, path, *HIER)
    assert code == 1 and rep["findings"][0]["check"] == "roles" and "fewer than 5" in rep["findings"][0]["reason"]
    code, rep, _ = _check(out, path, *FLAGS, "--insensitive", "ward")
    assert code == 0 and rep["passed"] and rep["facts"]["untrusted_roles"] == {}
    # frequent values pass with the metadata's roles too
    df["ward"] = np.where(np.arange(len(df)) % 2, "ICU", "general")
    df.to_csv(path, index=False)
    out = ktype.anonymize(df, **ROLES, insensitive=["ward"], k=5).save(tmp_path / "ward2.csv")
    code, rep, _ = _check(out, path, *HIER)
    assert code == 0 and rep["passed"] and rep["facts"]["untrusted_roles"]["ward"] == "insensitive"


def test_column_the_original_lacks_is_undeclared(patients, made):
    path, df = patients
    rel, out = made
    pub = rel.to_pandas()
    pub.insert(0, "nm", _truth(rel, df, "name"))  # the names under a new column name
    forge_csv(out, pub, columns={"nm": "insensitive"})
    code, rep, _ = _check(out, path, *HIER)
    assert code == 1 and "undeclared" in [f["check"] for f in rep["findings"]]


def test_roles_from_a_dataset_are_the_auditors(patients, made):
    _, df = patients
    rel, out = made
    pub = rel.to_pandas()
    pub.insert(0, "name", _truth(rel, df, "name"))
    forge_csv(out, pub, columns={"name": "insensitive"})
    rep = audit(ktype.Dataset(df, **ROLES), out)
    assert not rep.passed and rep.facts["untrusted_roles"] == {}
    assert [f.check for f in rep.findings][:2] == ["identifiers", "metadata"]
    rep = audit(df, out, hierarchies=ROLES["hierarchies"])
    assert not rep.passed and rep.facts["untrusted_roles"]["name"] == "insensitive"
    assert "roles" in [f.check for f in rep.findings]
