"""One anonymization job (ktype.job.AnonymizationJob) from Python, a config file and the command line.

The same seeded job run the three ways writes byte-identical release files and the same
summary, for a full-domain, a multidimensional, a k-concealment, a freeform and an
ℓ-diversity algorithm; a config key that is unknown or of the wrong type is an error naming
the key; ``to_config`` rebuilds the job; ``rng=None`` is never written.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import ktype
from ktype.cli import EXIT_DATA, EXIT_OK, run
from ktype.exceptions import InvalidParameterError, KtypeError
from ktype.job import CONFIG_KEYS, AnonymizationJob, run_job


@pytest.fixture(scope="module")
def people_csv(tmp_path_factory) -> Path:
    i = np.arange(60)
    df = pd.DataFrame({
        "name": [f"p{j}" for j in i],
        "age": 20 + (i * 7) % 50,
        "zip": [f"941{(j * 3) % 40:02d}" for j in i],
        "disease": np.array(["flu", "cold", "cancer", "flu", "asthma"])[i % 5],
    })
    path = tmp_path_factory.mktemp("job") / "people.csv"
    df.to_csv(path, index=False)
    return path


ROLES = {"qi": ["age", "zip"], "sensitive": ["disease"], "identifier": ["name"], "hierarchy": {"zip": "masking:1,2,3", "age": "intervals:5,10,20"}}
#: (algorithm, requirement, seed): one per family, seeded where the algorithm is randomized
CASES = [
    ("flash", {"k": 3}, None),
    ("mondrian", {"k": 4}, None),
    ("k_concealment", {"k": 3}, 11),
    ("freeform_greedy", {"k": 3}, 5),
    ("hybrid", {"l": 2}, 3),
]


def _stable(value):
    """The summary without wall-clock times (``timings``, ``*_s``, ``created``) and the output path (which
    differs per run)."""
    if isinstance(value, dict):
        return {k: _stable(v) for k, v in value.items()
                if k not in ("timings", "output", "created") and not k.endswith("_s")}
    if isinstance(value, list):
        return [_stable(v) for v in value]
    return value


def _cli_argv(src: Path, algorithm: str, req: dict, seed: int | None, out: Path, summary: Path) -> list[str]:
    argv = ["anonymize", str(src), "--qi", "age,zip", "--sensitive", "disease", "--identifier", "name",
            "-H", "zip=masking:1,2,3", "-H", "age=intervals:5,10,20", "-a", algorithm, "-O", str(out), "--summary", str(summary)]
    for key, value in req.items():
        argv += [f"--{key}", str(value)]
    if seed is not None:
        argv += ["--rng", str(seed)]
    return argv


@pytest.mark.parametrize(("algorithm", "req", "seed"), CASES, ids=[c[0] for c in CASES])
def test_python_yaml_and_cli_give_the_same_release_and_summary(people_csv, tmp_path, algorithm, req, seed):
    outs = {how: (tmp_path / f"{how}.csv", tmp_path / f"{how}.json") for how in ("python", "yaml", "cli")}
    # Python keywords
    job = AnonymizationJob(input=people_csv, quasi_identifiers=["age", "zip"], sensitive=["disease"],
                           identifiers=["name"], hierarchies={"zip": "masking:1,2,3", "age": "intervals:5,10,20"},
                           algorithm=algorithm,
                           rng=seed, output=outs["python"][0], summary=outs["python"][1], **req)
    rel = ktype.anonymize(job)
    assert isinstance(rel, ktype.Release)
    # a YAML config
    cfg = {"input": str(people_csv), **ROLES, "algorithm": algorithm, **req, "output": str(outs["yaml"][0]),
           "summary": str(outs["yaml"][1])}
    if seed is not None:
        cfg["rng"] = seed
    cfg_path = tmp_path / "job.yaml"
    cfg_path.write_text(yaml.safe_dump(cfg))
    run_job(AnonymizationJob.from_config(cfg_path))
    # the command line
    assert run(_cli_argv(people_csv, algorithm, req, seed, *outs["cli"])) == EXIT_OK
    releases = {how: paths[0].read_bytes() for how, paths in outs.items()}
    assert releases["python"] == releases["yaml"] == releases["cli"]
    summaries = {how: _stable(json.loads(paths[1].read_text())) for how, paths in outs.items()}
    assert summaries["python"] == summaries["yaml"] == summaries["cli"]
    assert summaries["cli"]["models"] == [str(m) for m in rel.models]


def test_hybrid_with_l_agrees_between_python_keywords_and_cli(people_csv, tmp_path):
    """``ktype anonymize --algorithm hybrid --l 2`` and ``ktype.anonymize(df, l=2, algorithm="hybrid")``:
    the same model (transparent ℓ-diversity), the same release."""
    from ktype.data.dataset import read_table

    df = read_table(people_csv)  # the frame the command line reads
    rel = ktype.anonymize(df, quasi_identifiers=["age", "zip"], sensitive="disease", identifiers=["name"],
                          hierarchies={"zip": {"masking": [1, 2, 3]}}, l=2, algorithm="hybrid", rng=3)
    assert type(rel.models[0]).__name__ == "TransparentLDiversity"
    rel.save(tmp_path / "python.csv")
    out = tmp_path / "cli.csv"
    assert run(["anonymize", str(people_csv), "--qi", "age,zip", "-s", "disease", "--identifier", "name",
                "-H", "zip=masking:1,2,3", "--algorithm", "hybrid", "--l", "2", "--rng", "3", "-O", str(out)]) == EXIT_OK
    assert out.read_bytes() == (tmp_path / "python.csv").read_bytes()


def test_to_config_rebuilds_the_job_and_never_writes_a_missing_seed(people_csv, tmp_path):
    job = AnonymizationJob(input=people_csv, quasi_identifiers=["age", "zip"], sensitive="disease", identifiers=["name"],
                           hierarchies={"zip": "masking:1,2,3"}, types={"age": "int"}, na_values=["?"],
                           missing={"age": "category"}, algorithm="k_concealment", k=3, options={"randomized": True})
    cfg = job.to_config()
    assert "rng" not in cfg and set(cfg) <= set(CONFIG_KEYS)
    assert AnonymizationJob.from_config(cfg) == job
    path = tmp_path / "out.yaml"
    job.to_config(path)
    assert "rng" not in yaml.safe_load(path.read_text())
    assert AnonymizationJob.from_config(path) == job.replace(input=Path(str(people_csv.absolute())))
    with pytest.raises(InvalidParameterError, match="Generator"):
        job.replace(rng=np.random.default_rng(1)).to_config()
    with pytest.raises(InvalidParameterError, match="in-memory"):
        job.replace(input=pd.read_csv(people_csv)).to_config()


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(k=st.one_of(st.none(), st.integers(1, 50)), l=st.one_of(st.none(), st.integers(1, 5)),
       alg=st.sampled_from(["mondrian", "flash", "k_concealment"]), rng=st.one_of(st.none(), st.integers(0, 2**31)),
       qi=st.lists(st.sampled_from(["age", "zip", "sex", "2020"]), min_size=1, max_size=3, unique=True),
       na=st.lists(st.sampled_from(["NA", "?", "null"]), max_size=2, unique=True),
       missing=st.one_of(st.none(), st.sampled_from(["category", "suppress"])))
def test_to_config_round_trip_property(k, l, alg, rng, qi, na, missing):  # noqa: E741
    job = AnonymizationJob(input="data.csv", quasi_identifiers=qi, k=k, l=l, algorithm=alg, rng=rng, na_values=na,
                           missing=missing)
    cfg = job.to_config()
    assert AnonymizationJob.from_config(cfg) == job
    assert ("rng" in cfg) == (rng is not None)


@pytest.mark.parametrize(("cfg", "needle"), [
    ({"input": "x.csv", "qi": ["a"], "k": 5, "sensitve": ["d"]}, "Unknown key 'sensitve'"),
    ({"input": "x.csv", "qi": ["a"], "k": "5"}, "key 'k' must be an integer"),
    ({"input": "x.csv", "qi": ["a"], "k": 5, "force": "no"}, "key 'force' must be true or false"),
    ({"input": "x.csv", "qi": ["a"], "l": True}, "key 'l' must be a number"),
])
def test_from_config_refuses_unknown_keys_and_wrong_types(cfg, needle):
    with pytest.raises(KtypeError, match=needle):
        AnonymizationJob.from_config(cfg)


def test_no_requirement_is_an_error_everywhere(people_csv):
    job = AnonymizationJob(input=people_csv, quasi_identifiers=["age", "zip"], sensitive=["disease"], identifiers=["name"])
    with pytest.raises(InvalidParameterError, match="No privacy requirement"):
        ktype.anonymize(job)
    assert run(["anonymize", str(people_csv), "--qi", "age,zip", "-s", "disease", "--identifier", "name"]) == EXIT_DATA


def test_a_job_takes_nothing_beside_it(people_csv):
    job = AnonymizationJob(input=people_csv, quasi_identifiers=["age", "zip"], sensitive=["disease"],
                           identifiers=["name"], k=3)
    with pytest.raises(InvalidParameterError, match="job.replace"):
        ktype.anonymize(job, k=5)


def test_algorithm_options_are_typed(people_csv):
    job = AnonymizationJob(input=people_csv, quasi_identifiers=["age", "zip"], sensitive=["disease"],
                           identifiers=["name"], k=3, algorithm="k_concealment", options={"randomized": "yes"})
    with pytest.raises(InvalidParameterError, match="randomized of k_concealment is true or false"):
        run_job(job)
    assert run(["anonymize", str(people_csv), "--qi", "age,zip", "-s", "disease", "--identifier", "name", "--k", "3",
                "-a", "k_concealment", "-o", "randomized=yes"]) == EXIT_DATA


def test_deterministic_k_concealment_warns_from_every_entry_point(people_csv, capsys):
    job = AnonymizationJob(input=people_csv, quasi_identifiers=["age", "zip"], sensitive=["disease"],
                           identifiers=["name"], k=3, algorithm="k_concealment", options={"randomized": False})
    assert any("DETERMINISTIC" in w for w in ktype.anonymize(job).warnings())
    assert run(["anonymize", str(people_csv), "--qi", "age,zip", "-s", "disease", "--identifier", "name", "--k", "3",
                "-a", "k_concealment", "-o", "randomized=false"]) == EXIT_OK
    assert "DETERMINISTIC" in capsys.readouterr().err


def test_rows_and_protect_select_the_records_and_the_protected_column(people_csv, tmp_path):
    """``rows: N`` reads the first N records (of a file and of bundled Adult); ``protect:``
    names which of several sensitive columns ℓ protects. Oracles: pandas' head, load_adult(n=)
    and the checker of ℓ-diversity on the named column."""
    from ktype.data import load_adult
    from ktype.models import DistinctLDiversity

    df = pd.read_csv(people_csv, dtype={"zip": str})
    df["sex"] = np.array(["F", "M", "X"])[np.arange(len(df)) % 3]
    src = tmp_path / "two.csv"
    df.to_csv(src, index=False)
    cfg = {"input": str(src), "rows": 45, "qi": ["age", "zip"], "sensitive": ["disease", "sex"],
           "identifier": ["name"], "l": 3, "protect": "sex", "algorithm": "mondrian"}
    job = AnonymizationJob.from_config(cfg)
    ds = job.load()
    assert ds.n == 45 and list(ds.data["age"]) == list(df["age"].head(45))
    (model,) = job.models()
    assert model.sensitive == "sex"
    rel = run_job(job).release
    assert DistinctLDiversity(3, sensitive="sex").check(rel)
    assert AnonymizationJob.from_config(job.to_config()) == job
    adult = AnonymizationJob(dataset="adult", rows=300, k=5).load()
    assert adult.data.equals(load_adult(n=300).data)
    for bad in (0, -1, True, 2.5):
        with pytest.raises(KtypeError, match="rows"):
            AnonymizationJob(dataset="adult", rows=bad, k=5)
    without = AnonymizationJob.from_config({k: v for k, v in cfg.items() if k != "protect"})
    with pytest.raises(KtypeError, match="several sensitive"):
        run_job(without)


def test_hierarchies_given_with_the_bundled_dataset_are_applied_not_ignored():
    """`-H age=flat` / `hierarchy:` with `--dataset adult` replaces Adult's ARX hierarchy of that
    column (it was silently dropped); the other columns keep theirs, and a column that is no
    quasi-identifier is refused by name."""
    from ktype._config import parse_hierarchies
    from ktype.exceptions import KtypeError
    from ktype.job import load_input

    bundled = load_input(dataset="adult", rows=200)
    ds = load_input(dataset="adult", rows=200, hierarchies=parse_hierarchies(["age=flat"]))
    j = ds.quasi_identifiers.index("age")
    assert ds.hierarchies[j].height == 1 and bundled.hierarchies[j].height > 1
    others = [i for i in range(ds.r) if i != j]
    assert [ds.hierarchies[i].height for i in others] == [bundled.hierarchies[i].height for i in others]
    with pytest.raises(KtypeError, match="nothere"):
        load_input(dataset="adult", rows=200, hierarchies=parse_hierarchies(["nothere=flat"]))
