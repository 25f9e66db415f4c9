"""CLI: --algorithm tailor|ace|hybrid|mask and `ktype attack`."""

from __future__ import annotations

import json

import pandas as pd
from typer.testing import CliRunner

from ktype.attacks import transparent as A
from ktype.cli import app

runner = CliRunner()


def _write_t(tmp_path, table, name="t.csv"):
    people = sorted(table)
    df = pd.DataFrame({"name": people, "age": [A.E1[o][0] for o in people], "zip": [A.E1[o][1] for o in people],
                       "disease": [table[o] for o in people]})
    path = tmp_path / name
    df.to_csv(path, index=False)
    return path


ROLES = ["--qi", "age", "--qi", "zip", "--sensitive", "disease", "--identifier", "name"]


def test_anonymize_with_hybrid_then_attack_fails(tmp_path):
    src = _write_t(tmp_path, A.T5)
    out = tmp_path / "rel.csv"
    r = runner.invoke(app, ["anonymize", str(src), *ROLES, "--algorithm", "hybrid", "--l", "2", "--rng", "1", "-O", str(out), "--json"])
    assert r.exit_code == 0, r.output
    summary = json.loads(r.stdout[r.stdout.index("{"):])
    assert summary["models"] == ["TransparentLDiversity(l=2)"] and "range_query_error" in summary["measures"]
    r = runner.invoke(app, ["attack", str(out), "--original", str(src), *ROLES, "--algorithm", "hybrid", "--l", "2", "--json"])
    assert r.exit_code == 0, r.output
    res = json.loads(r.stdout)
    assert res["max_risk"] == "1/2" and not res["succeeded"] and res["positive_instances"] == 28


def test_attack_on_opt_gen_release_succeeds(tmp_path):
    src = _write_t(tmp_path, A.T1)
    pub = pd.DataFrame({"age": ["[21-27]", "[21-27]", "32", "32"] + ["[54-60]"] * 4,
                        "zip": ["[10000-18000]"] * 2 + ["35000"] * 2 + ["[60000-63000]"] * 4,
                        "disease": ["dyspepsia", "flu", "gastritis", "bronchitis", "gastritis", "flu", "dyspepsia", "diabetes"]})
    rel = tmp_path / "t2star.csv"
    pub.to_csv(rel, index=False)
    r = runner.invoke(app, ["attack", str(rel), "--original", str(src), *ROLES, "--algorithm", "opt-gen", "--l", "2"])
    assert r.exit_code == 1, r.output
    assert "attack succeeds" in r.output and "Ed" in r.output


def test_anonymize_with_mask_and_tailor(tmp_path):
    src = _write_t(tmp_path, A.T5)
    for alg, model in (("tailor", "TransparentLDiversity(l=2)"), ("mask", "FrequencyLDiversity(l=2.0, scope='auto')")):
        r = runner.invoke(app, ["anonymize", str(src), *ROLES, "--algorithm", alg, "--l", "2", "--rng", "3", "--json"])
        assert r.exit_code == 0, r.output
        assert json.loads(r.stdout[r.stdout.index("{"):])["models"] == [model]


def test_attack_refuses_large_tables_with_a_message(tmp_path):
    r = runner.invoke(app, ["attack", str(tmp_path / "missing.csv"), "--dataset", "adult", "--algorithm", "tailor", "--l", "2"])
    assert r.exit_code == 2
