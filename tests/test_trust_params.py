"""Issue #8 (trust), part 1: secret randomness, and parameters honoured or refused."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

import ktype
from ktype import _validation
from ktype.api import MODEL_NAMES, _model_classes, make_models, model_from_name, models_from_names
from ktype.cli import app
from ktype.exceptions import InternalError, InvalidParameterError
from ktype.models._base import PER_ORIGINAL_RECORD, PER_RELEASED_ROW, CheckResult
from ktype.models._table import MODEL_TABLE
from ktype.testing.algorithm_checks import _DEFAULT_PARAMS

runner = CliRunner()


@pytest.fixture()
def people(tmp_path):
    df = pd.DataFrame(
        {
            "name": [f"p{i}" for i in range(40)],
            "age": [20 + (i * 7) % 50 for i in range(40)],
            "zip": [f"941{(i * 3) % 40:02d}" for i in range(40)],
            "disease": ["flu", "cold", "cancer", "flu", "asthma"] * 8,
        }
    )
    path = tmp_path / "people.csv"
    df.to_csv(path, index=False)
    return path, df


BASE = ["--qi", "age,zip", "--sensitive", "disease", "--identifier", "name", "-H", "zip=masking:1,2,3"]


def _all_text(folder) -> str:
    return "\n".join(p.read_bytes().decode("utf-8", "replace") for p in sorted(folder.rglob("*")) if p.is_file())


# ---------------------------------------------------------------------------- secret randomness
def test_os_entropy_seed_is_written_nowhere(people, tmp_path, monkeypatch):
    """The secret seed drawn from OS entropy appears in no output (summary, release, sidecar)."""
    path, _ = people
    drawn: list[int] = []
    real = np.random.SeedSequence

    def spy(*a, **kw):
        ss = real(*a, **kw)
        drawn.append(int(ss.entropy))
        return ss

    monkeypatch.setattr(_validation.np.random, "SeedSequence", spy)
    outdir = tmp_path / "out"
    outdir.mkdir()
    res = runner.invoke(app, ["anonymize", str(path), *BASE, "--k", "3", "--algorithm", "k_concealment",
                              "--output", str(outdir / "r.csv"), "--summary", str(outdir / "s.json"), "--json"])
    assert res.exit_code == 0, res.output
    assert drawn, "the run did not draw secret entropy"
    text = _all_text(outdir) + res.stdout
    for seed in drawn:
        assert str(seed) not in text
    summary = json.loads(res.stdout)
    prov = summary["provenance"]
    assert "seed" not in prov and prov["randomness"] == _validation.RANDOMNESS_SECRET
    assert not any("reproduce" in w for w in summary["warnings"])


def test_explicit_seed_reproduces_and_warns_but_is_not_written(people, tmp_path):
    path, _ = people
    outs = []
    for run in range(2):
        out = tmp_path / f"r{run}.csv"
        res = runner.invoke(app, ["anonymize", str(path), *BASE, "--k", "3", "--algorithm", "k_concealment",
                                  "--rng", "987654321", "--output", str(out), "--json"])
        assert res.exit_code == 0, res.output
        summary = json.loads(res.stdout)
        assert any("reproduce the release" in w for w in summary["warnings"])
        assert summary["provenance"]["randomness"] == _validation.RANDOMNESS_CALLER_SEED
        assert "987654321" not in res.stdout
        outs.append(out.read_bytes())
    assert outs[0] == outs[1]
    assert "987654321" not in _all_text(tmp_path)


def test_check_rng_never_returns_a_seed():
    gen, how = _validation.check_rng(None)
    assert isinstance(gen, np.random.Generator) and how == _validation.RANDOMNESS_SECRET
    assert _validation.check_rng(5)[1] == _validation.RANDOMNESS_CALLER_SEED
    a, b = _validation.check_rng(None)[0].integers(2**62), _validation.check_rng(None)[0].integers(2**62)
    assert a != b


def test_cli_k_concealment_defaults_to_randomized_variant(people, tmp_path):
    path, _ = people
    res = runner.invoke(app, ["anonymize", str(path), *BASE, "--k", "3", "--algorithm", "k_concealment", "--json"])
    assert res.exit_code == 0, res.output
    summary = json.loads(res.stdout)
    assert summary["provenance"]["parameters"]["randomized"] is True
    det = runner.invoke(app, ["anonymize", str(path), *BASE, "--k", "3", "--algorithm", "k_concealment",
                              "-o", "randomized=false", "--json"])
    assert det.exit_code == 0, det.output
    summary = json.loads(det.stdout)
    assert summary["provenance"]["parameters"]["randomized"] is False
    assert any("DETERMINISTIC" in w for w in summary["warnings"])


# ---------------------------------------------------------------------------- parameters
def test_non_integer_l_is_refused_not_floored(people):
    _, df = people
    with pytest.raises(InvalidParameterError, match="needs an integer l; got l=2.5"):
        make_models(l=2.5)
    with pytest.raises(InvalidParameterError, match="needs an integer l"):
        ktype.anonymize(df, quasi_identifiers=["age", "zip"], sensitive="disease", identifiers=["name"], l=2.5)
    with pytest.raises(InvalidParameterError, match="needs an integer l"):
        models_from_names(["distinct-l-diversity"], l=2.5)
    assert make_models(l=2.0)[0].l == 2 and isinstance(make_models(l=2.0)[0].l, int)
    assert make_models(l=2.5, diversity="entropy")[0].l == 2.5


@pytest.mark.parametrize("kw, msg", [
    (dict(l=float("nan")), "finite number"),
    (dict(t=float("nan")), "finite number"),
    (dict(l=3, diversity="recursive"), "needs c"),
    (dict(k=5, c=2), "recursive"),
    (dict(l=2, c=2), "c applies to recursive"),
    (dict(k=5, distance="ordered"), "give --t"),
    (dict(k=5, diversity="entropy"), "needs ℓ"),
    (dict(l=2, diversity="distinkt"), "Did you mean 'distinct'"),
    (dict(k=2.5), "integer k"),
    (dict(kind="k-concealment"), "needs k"),
])
def test_malformed_parameters_have_messages(kw, msg):
    with pytest.raises(InvalidParameterError, match=msg):
        make_models(**kw)


def test_recursive_cl_from_cli(people, tmp_path):
    path, _ = people
    out = tmp_path / "r.csv"
    res = runner.invoke(app, ["anonymize", str(path), *BASE, "--l", "2", "--diversity", "recursive", "--c", "2",
                              "--output", str(out), "--json"])
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout)["models"] == ["RecursiveCLDiversity(c=2.0, l=2, scope='auto')"]


@pytest.mark.parametrize("args, msg", [
    (["--l", "2.5"], "needs an integer l"),
    (["--l", "nan"], "finite number"),
    (["--l", "3", "--diversity", "recursive"], "needs c"),
    (["--model", "k-anonymity", "--k", "10", "--l", "3"], None),
])
def test_cli_bad_parameters_are_messages_not_tracebacks(people, tmp_path, args, msg):
    path, _ = people
    out = tmp_path / "never.csv"
    res = runner.invoke(app, ["anonymize", str(path), *BASE, *args, "--output", str(out)])
    if msg is None:  # --model names the k-type model of k; l is a separate requirement: both apply
        assert res.exit_code == 0, res.output
        return
    assert res.exit_code == 2 and msg in res.output and res.exception is None or isinstance(res.exception, SystemExit)
    assert msg in res.output and not out.exists()


def test_check_needs_a_model_and_its_parameters(people, tmp_path):
    path, df = people
    rel = ktype.anonymize(df, quasi_identifiers=["age", "zip"], sensitive="disease", identifiers=["name"],
                          hierarchies={"zip": {"masking": [1, 2, 3]}}, k=4)
    out = tmp_path / "r.csv"
    rel.save(out)
    # with metadata, the models the release claims are checked by default
    res = runner.invoke(app, ["check", str(out), "--original", str(path), *BASE])
    assert res.exit_code == 0 and "PASS KAnonymity(k=4)" in res.output, res.output
    (tmp_path / "r.ktype.json").unlink()
    # nothing claimed, nothing asked: a failed check (exit 1), not a usage error
    res = runner.invoke(app, ["check", str(out), "--original", str(path), *BASE])
    assert res.exit_code == 1 and "no metadata naming its models" in res.output, res.output
    for args, msg in [
        (["--model", "k-anonymity"], "k-anonymity needs k"),
        (["--model", "k-anonymity", "--k", "10", "--l", "3"], "takes l=3.0"),
        (["--model", "distinct-l-diversity", "--l", "2.5"], "needs an integer l"),
        (["--l", "nan"], "finite number"),
        (["--model", "k-anonimity", "--k", "3"], "Did you mean 'k-anonymity'"),
    ]:
        res = runner.invoke(app, ["check", str(out), "--original", str(path), *BASE, *args])
        assert res.exit_code == 3, (args, res.output)
        assert msg in res.output, (args, res.output)
        assert not isinstance(res.exception, Exception) or isinstance(res.exception, SystemExit)
    ok = runner.invoke(app, ["check", str(out), "--original", str(path), *BASE, "--k", "4"])
    assert ok.exit_code == 0, ok.output


def test_model_from_name_refuses_parameters_the_model_does_not_take():
    with pytest.raises(InvalidParameterError, match="k-anonymity does not take l=3"):
        model_from_name("k-anonymity", k=10, l=3)
    with pytest.raises(InvalidParameterError, match="needs k"):
        model_from_name("k-concealment")
    assert str(model_from_name("k-anonymity", k=10, l=None)) == "KAnonymity(k=10)"
    with pytest.raises(InvalidParameterError, match="No model named .* takes p=2"):
        models_from_names(["k-anonymity", "distinct-l-diversity"], k=3, l=2, p=2)
    ms = models_from_names(["k-anonymity", "distinct-l-diversity"], k=3, l=2)
    assert [str(m) for m in ms] == ["KAnonymity(k=3)", "DistinctLDiversity(l=2, scope='auto')"]


def test_one_model_table():
    names = tuple(s.name for s in MODEL_TABLE)
    assert MODEL_NAMES == names
    assert list(_model_classes()) == list(names)
    assert _DEFAULT_PARAMS == {s.cls.__name__: s.test_params for s in MODEL_TABLE}
    for spec in MODEL_TABLE:  # the test parameters build the model, and the name round-trips
        model = model_from_name(spec.name, **spec.test_params)
        assert type(model) is spec.cls
    import ktype.models as km

    listed = {getattr(km, n) for n in km.__all__ if isinstance(getattr(km, n), type)}
    concrete = {c for c in listed if c.__module__ != "ktype.models._base"}
    assert concrete <= {s.cls for s in MODEL_TABLE}, "a model class is missing from the model table"


def test_check_result_names_its_axis():
    r = CheckResult("M", True, np.ones(3, bool), {"per": PER_ORIGINAL_RECORD})
    assert r.per == PER_ORIGINAL_RECORD
    assert CheckResult("M", True, np.ones(3, bool)).summary["per"] == PER_RELEASED_ROW
    with pytest.raises(InternalError, match="disagrees"):
        CheckResult("M", True, np.ones(3, bool), {"per": PER_ORIGINAL_RECORD}, per=PER_RELEASED_ROW)
    with pytest.raises(InternalError, match="must be one of"):
        CheckResult("M", True, np.ones(3, bool), per="row")
    ds = ktype.load_adult(n=200)
    rel = ktype.anonymize(ds, k=5)
    for spec in MODEL_TABLE:
        model = model_from_name(spec.name, **spec.test_params)
        res = model.check(rel)
        assert res.per in (PER_RELEASED_ROW, PER_ORIGINAL_RECORD) and res.summary["per"] == res.per
        assert len(res.per_record) == (rel.n if res.per == PER_RELEASED_ROW else ds.n)
