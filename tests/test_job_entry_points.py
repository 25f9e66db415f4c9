"""ktype.anonymize and AnonymizationJob pass every keyword on to the run.

Each shortcut of :func:`ktype.anonymize` (``t``, ``rng``, ``progress``, ``hierarchies``) must
reach the algorithm: the oracle is a second entry point that states the same request
explicitly (model objects, a job run with :func:`run_job`), or a property of the result (a
seed reproduces the release, a callback hears every stage). A keyword that is silently
dropped publishes a release the user did not ask for.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import ktype
from ktype.exceptions import InvalidParameterError, KtypeError
from ktype.job import AnonymizationJob, load_input, run_job
from ktype.models import DistinctLDiversity, KAnonymity, TCloseness

ROLES = {"quasi_identifiers": ["age", "zip"], "sensitive": ["disease"], "identifiers": ["name"]}


@pytest.fixture(scope="module")
def people() -> pd.DataFrame:
    i = np.arange(60)
    return pd.DataFrame({
        "name": [f"p{j}" for j in i],
        "age": 20 + (i * 7) % 50,
        "zip": [f"941{(j * 3) % 40:02d}" for j in i],
        "disease": np.array(["flu", "cold", "cancer", "flu", "asthma", "flu"])[i % 6],
    })


def _frame(rel: ktype.Release) -> pd.DataFrame:
    return rel.to_pandas(include_suppressed=True)


def test_t_shortcut_equals_the_explicit_t_closeness_model(people):
    """``t=`` builds t-closeness: the release equals the one asked with model objects, and
    it is t-close by the model's own checker (the shortcut must not be dropped)."""
    short = ktype.anonymize(people, **ROLES, k=2, t=0.15)
    explicit = ktype.anonymize(people, **ROLES, model=[KAnonymity(2), TCloseness(0.15)])
    assert any(isinstance(m, TCloseness) and m.t == 0.15 for m in short.models)
    assert _frame(short).equals(_frame(explicit))
    assert TCloseness(0.15).check(short)
    k_only = ktype.anonymize(people, **ROLES, k=2)
    assert not TCloseness(0.15).check(k_only)  # the fixture needs the t requirement: it is not vacuous


def test_rng_seed_reaches_a_randomized_algorithm(people):
    """The same seed gives the same release; the seed is what decides it (two seeds differ)."""
    runs = [_frame(ktype.anonymize(people, **ROLES, k=3, algorithm="k_concealment", rng=seed)) for seed in (7, 7, 8)]
    assert runs[0].equals(runs[1])
    assert not runs[0].equals(runs[2])


def test_progress_callback_hears_the_run_from_both_entry_points(people):
    events: list = []
    ktype.anonymize(people, **ROLES, k=3, progress=events.append)
    assert events and any(e.finished for e in events)
    job = AnonymizationJob(input=people, **ROLES, k=3)
    job_events: list = []
    ktype.anonymize(job, progress=job_events.append)
    assert [e.stage for e in job_events] == [e.stage for e in events]


def test_hierarchies_keyword_reaches_the_dataset(people):
    """A hierarchy given to anonymize() is the one generalizing the column: with masking the
    published zip cells are masked codes like ``941**``, never integer ranges."""
    rel = ktype.anonymize(people, **ROLES, k=4, algorithm="flash", hierarchies={"zip": {"masking": [1, 2, 3]},
                                                                                 "age": {"intervals": [5, 10, 20]}})
    zips = set(_frame(rel)["zip"].astype(str))
    assert zips and all(len(z) == 5 and z[:5 - z.count("*")].isdigit() for z in zips if z != "*"), zips


@pytest.mark.parametrize("extra, named", [
    ({"rng": 1}, "rng"), ({"model": [KAnonymity(2)]}, "model"), ({"algorithm": "flash"}, "algorithm"),
    ({"k": 2, "sensitive": ["disease"]}, "k, sensitive"),
])
def test_a_job_with_more_keywords_names_each_of_them(people, extra, named):
    job = AnonymizationJob(input=people, **ROLES, k=3)
    with pytest.raises(InvalidParameterError) as err:
        ktype.anonymize(job, **extra)
    assert f"got {named} too." in str(err.value)
    assert "job.replace(k=...)" in str(err.value)


def test_dataframe_without_quasi_identifiers_message(people):
    with pytest.raises(InvalidParameterError, match=r"^Name the quasi-identifiers: quasi_identifiers=\[\.\.\.\]\.$"):
        ktype.anonymize(people, k=3)


def test_protect_applies_to_named_models(people):
    """``protect`` with model names: the diversity model protects the named column, and the
    release is ℓ-diverse on it (checked by the model itself on a two-sensitive table)."""
    df = people.assign(sex=np.array(["F", "M", "X"])[np.arange(len(people)) % 3])
    job = AnonymizationJob(input=df, quasi_identifiers=["age", "zip"], sensitive=["disease", "sex"],
                           identifiers=["name"], model=["k-anonymity", "distinct-l-diversity"], k=2, l=3,
                           protect="sex")
    models = job.models()
    assert [getattr(m, "sensitive", None) for m in models if isinstance(m, DistinctLDiversity)] == ["sex"]
    rel = run_job(job).release
    assert DistinctLDiversity(3, sensitive="sex").check(rel)


def test_job_inputs_include_hierarchy_files_and_an_output_may_not_replace_them(people, tmp_path):
    h = tmp_path / "zip.csv"
    h.write_text("94100,941**,*\n")
    job = AnonymizationJob(input=tmp_path / "in.csv", **ROLES, k=3,
                           hierarchies={"zip": str(h), "age": "ordered"})
    assert job.inputs() == [tmp_path / "in.csv", h]
    people.to_csv(tmp_path / "in.csv", index=False)
    with pytest.raises(KtypeError):
        run_job(job.replace(output=h, force=True))
    assert h.read_text() == "94100,941**,*\n"


def test_to_config_writes_numpy_integers_as_plain_ints(tmp_path):
    job = AnonymizationJob(input=tmp_path / "x.csv", quasi_identifiers=["a"], k=np.int64(4), rng=np.int64(9))
    cfg = job.to_config()
    assert cfg["k"] == 4 and type(cfg["k"]) is int and type(cfg["rng"]) is int
    assert AnonymizationJob.from_config(cfg) == job.replace(k=4, rng=9)


def test_bundled_adult_refuses_the_rest_marker():
    with pytest.raises(KtypeError, match=r"^The bundled Adult data has no columns besides its QIs"):
        load_input(dataset="adult", insensitive=["*"])


def test_to_config_refuses_what_a_config_cannot_hold_and_says_what_to_give(tmp_path, people):
    with pytest.raises(InvalidParameterError, match=r"give model names \(e\.g\. model=\['k-anonymity'\]\) with k/l/p/t"):
        AnonymizationJob(input=tmp_path / "x.csv", quasi_identifiers=["a"], model=[KAnonymity(3)]).to_config()
    with pytest.raises(InvalidParameterError, match=r"save it \(CSV or Parquet\) and give its path as input"):
        AnonymizationJob(input=people, **ROLES, k=3).to_config()
    with pytest.raises(InvalidParameterError, match=r"give an int seed \(or None for secret OS entropy\)"):
        AnonymizationJob(input=tmp_path / "x.csv", quasi_identifiers=["a"], k=3, rng=np.random.default_rng(1)).to_config()


@pytest.mark.parametrize("role", ["quasi_identifiers", "sensitive", "identifiers", "insensitive", "hierarchies"])
def test_roles_beside_a_dataset_are_refused_not_ignored(people, role):
    """A Dataset carries its roles. A role given beside it (a QI the user wants generalized,
    an identifier to drop) was silently ignored, so a column could be published verbatim
    against the user's request: every entry point refuses it, naming the argument."""
    ds = ktype.Dataset(people, quasi_identifiers=["age"], sensitive=["disease"], insensitive=["zip"],
                       identifiers=["name"])
    value = {"quasi_identifiers": ["age", "zip"], "sensitive": ["zip"], "identifiers": ["zip"],
             "insensitive": ["zip"], "hierarchies": {"zip": ktype.Hierarchy.masking(people["zip"], name="zip")}}[role]
    with pytest.raises(InvalidParameterError, match=f"Dataset is used whole, with its own column roles.*{role}"):
        ktype.anonymize(ds, k=2, **{role: value})
    job_role = {"quasi_identifiers": tuple(value)} if role == "quasi_identifiers" else {role: value}
    with pytest.raises(InvalidParameterError, match=role):
        run_job(AnonymizationJob(input=ds, k=2, **job_role))
    with pytest.raises(InvalidParameterError, match=role):
        load_input(ds, **{role: value})
    rel = ktype.anonymize(ds, k=2)  # without other roles the Dataset's own are used
    assert rel.dataset.quasi_identifiers == ["age"]
