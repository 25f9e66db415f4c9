"""A k-concealment release says which pipeline produced it (Tassa, Mazza & Gionis, "k-Concealment:
An Alternative Model of k-Type Anonymity", Trans. Data Privacy 2012, §7): the randomized one
(Algorithm 6 with ``q`` nearest neighbours, then 3 and 5 in random orders) or the basic,
deterministic one (Algorithm 2, then 3 and 5). A reader of the published provenance relies on
it to know whether the release depends on secret randomness and with which ``q`` the
neighbourhoods were drawn; a release that drops or renames the entry leaves them guessing."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from ktype import Dataset
from ktype.algorithms import run
from ktype.models.ktype_models import KConcealment


def table() -> Dataset:
    rng = np.random.default_rng(3)
    df = pd.DataFrame({"age": rng.integers(20, 70, 16), "zip": rng.choice(["10001", "10002", "20001", "20002"], 16)})
    return Dataset(df, quasi_identifiers=["age", "zip"],
                   hierarchies={"age": {"intervals": [5, 10, 20, 40]}, "zip": {"masking": [1, 2, 5]}})


@pytest.mark.parametrize(("options", "steps", "q"), [
    ({"randomized": True, "rng": 1}, ("alg6", "alg3", "alg5"), 2 * (3 - 1)),  # q defaults to 2(k - 1)
    ({"randomized": True, "rng": 1, "q": 5}, ("alg6", "alg3", "alg5"), 5),
    ({"randomized": False}, ("alg2", "alg3", "alg5"), None),
])
def test_the_provenance_names_the_pipeline_that_ran(options, steps, q):
    rel = run("k_concealment", table(), KConcealment(3), **options)
    local = rel.provenance["local"]
    assert tuple(local["pipeline"].split("+")) == steps
    assert local["randomized"] is options["randomized"]
    assert local.get("q") == q
    assert KConcealment(3).check(rel).satisfied


@pytest.mark.parametrize(("algorithm", "model", "steps"), [
    ("k1_anonymity", "KOneAnonymity", ("alg2",)),
    ("kk_anonymity", "KKAnonymity", ("alg2", "alg3")),
])
def test_the_k1_and_kk_releases_name_their_algorithms(algorithm, model, steps):
    """(k,1)- and (k,k)-anonymity (Tassa et al. §5): Algorithm 2 alone, or Algorithm 2 then 3."""
    from ktype.models import ktype_models

    m = getattr(ktype_models, model)(3)
    rel = run(algorithm, table(), m)
    assert tuple(rel.provenance["local"]["pipeline"].split("+")) == steps
    assert m.check(rel).satisfied


def sensitive_table() -> Dataset:
    rng = np.random.default_rng(5)
    n = 24
    df = pd.DataFrame({"age": rng.integers(20, 70, n), "zip": rng.choice(["10001", "10002", "20001", "20002"], n),
                       "disease": rng.choice(["flu", "cold", "ulcer", "gastritis"], n)})
    return Dataset(df, quasi_identifiers=["age", "zip"], sensitive=["disease"],
                   hierarchies={"age": {"intervals": [5, 10, 20, 40]}, "zip": {"masking": [1, 2, 5]}})


@pytest.mark.parametrize(("algorithm", "options", "local_keys"), [
    ("agglomerative", {}, {"measure", "clusters"}),
    ("agglomerative", {"l": 2.0, "w": 0.3}, {"measure", "clusters", "l_diversity", "w", "sensitive"}),
    ("forest", {}, {"measure", "clusters"}),
    ("gt_forest", {}, {"measure", "clusters"}),
    ("gt_setcover", {"method": "subsets"}, {"measure", "method", "clusters"}),
])
@pytest.mark.parametrize("measure", ["loss_metric", "entropy"])
def test_the_clustering_releases_record_what_ran_and_their_objective(algorithm, options, local_keys, measure):
    """A local release is ``recoding="local"``; its provenance names the options that shaped it
    (``local``) and the kernels' own objective, which the registry measure recomputes from the
    release with the recorded options (the entropy kernels average per cell: ``normalize``)."""
    from ktype.measures import MEASURES
    from ktype.models import KAnonymity

    ds = sensitive_table()
    rel = run(algorithm, ds, KAnonymity(3), measure=measure, **options)
    assert rel.recoding == "local"
    local = rel.provenance["local"]
    assert set(local) == local_keys
    assert local["measure"] == measure and local["clusters"] >= 1
    if "l" in options:
        assert (local["l_diversity"], local["w"], local["sensitive"]) == (options["l"], options["w"], "disease")
    if "method" in options:
        assert local["method"] == options["method"]
    assert rel.provenance["objective_measure"] == measure
    assert rel.provenance["objective_options"] == ({"normalize": True} if measure == "entropy" else {})
    want = MEASURES[measure](rel, **rel.provenance["objective_options"])
    assert rel.provenance["objective"] == pytest.approx(want, rel=1e-9, abs=1e-12)


@pytest.mark.parametrize("algorithm", ["agglomerative", "forest", "gt_forest", "gt_setcover", "k1_anonymity",
                                       "kk_anonymity", "k_concealment"])
def test_a_pipeline_called_with_the_wrong_models_names_itself(algorithm):
    """Called directly (not through ``run``, which checks the models first), a pipeline refuses
    two of its models, naming itself and the model it needs."""
    from ktype.algorithms import get_algorithm
    from ktype.exceptions import UnsupportedModelError

    info = get_algorithm(algorithm)
    extra = {"rng": np.random.default_rng(0)} if algorithm == "k_concealment" else {}
    twice = [info.models[0](2), info.models[0](3)]
    with pytest.raises(UnsupportedModelError, match=rf"^{algorithm} needs exactly one {info.models[0].__name__} model .*got 2\."):
        info.func(table(), twice, **extra)


def test_k_concealment_called_without_a_measure_optimizes_the_loss_metric():
    from ktype.algorithms import get_algorithm

    rel = get_algorithm("k_concealment").func(table(), [KConcealment(3)], rng=np.random.default_rng(1))
    assert rel.provenance["local"]["measure"] == "loss_metric" == rel.provenance["objective_measure"]


@pytest.mark.parametrize(("randomized", "first"), [(True, "Algorithm 6"), (False, "Algorithm 2")])
def test_k_concealment_reports_the_algorithm_of_each_stage(randomized, first):
    from ktype._progress import ProgressEvent

    events: list[ProgressEvent] = []
    opts = {"rng": 1} if randomized else {}
    run("k_concealment", table(), KConcealment(3), randomized=randomized, progress=events.append, **opts)
    details = {e.stage: e.detail for e in reversed(events)}  # each stage's detail when it starts
    assert [details[s] for s in ("(k,1) generalization", "(1,k) completion", "k-concealment")] == [
        first, "Algorithm 3", "Algorithm 5"]
    # every event belongs to one of the run's stages (an update under another name would stand alone)
    assert {e.stage for e in events} == {"k_concealment", "(k,1) generalization", "(1,k) completion",
                                         "k-concealment", "verification"}
    # Algorithm 5 counts records into its own stage (the last detail it set is "records")
    assert [(e.done, e.total, e.detail) for e in events if e.stage == "k-concealment" and e.finished] == [
        (16, 16, "records")]


@pytest.mark.parametrize("extra", [None, "p", "l"])
def test_the_scc_update_option_reaches_every_algorithm_that_keeps_components(monkeypatch, extra):
    """``scc_update`` (identical output by design, so only a spy can tell) is passed to
    Algorithm 5 and to the p-sensitivity / ℓ-diversity steps."""
    from ktype.algorithms.local import pipelines
    from ktype.models import FrequencyLDiversity, PSensitivity

    seen: list[tuple[str, str]] = []
    for name in ("k_conceal", "p_sensitize", "l_diversify"):
        real = getattr(pipelines, name)

        def spy(*a, _name=name, _real=real, **kw):
            seen.append((_name, kw["scc_update"]))
            return _real(*a, **kw)

        monkeypatch.setattr(pipelines, name, spy)
    models = [KConcealment(2)]
    if extra == "p":
        models.append(PSensitivity(2, scope="matches"))
    elif extra == "l":
        models.append(FrequencyLDiversity(2, scope="matches"))
    run("k_concealment", sensitive_table(), models, rng=3, scc_update="full")
    want = ["k_conceal"] + {"p": ["p_sensitize"], "l": ["l_diversify"], None: []}[extra]
    assert seen == [(n, "full") for n in want]
