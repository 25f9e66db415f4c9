"""The audit against oracles that share no code with it.

* **Generalization** (step 4 of :func:`ktype.audit.audit`): a published table is a release of
  its original iff its rows can be assigned to distinct original records, each row's cell
  covering its record's value and its sensitive value equal. The oracle tries every
  injective assignment (``itertools.permutations``) on tables of up to five records, so both
  of the audit's ways of deciding it (a count per class for homogeneous recodings, a maximum
  flow otherwise) are compared with the definition.
* **Claims of the metadata** (untrusted): a forged suppression count, a scope the metadata
  names, an empty model list and a value set in a range column of a freeform release each
  end in a finding that says what is wrong, never in a pass or a traceback.
"""

from __future__ import annotations

import itertools
import json
import shutil
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from ktype import Dataset
from ktype.algorithms import run
from ktype.audit import audit, models_from_metadata
from ktype.data.hierarchy import Hierarchy
from ktype.models import DistinctLDiversity, KAnonymity, KConcealment
from ktype.models._names import model_from_name
from ktype.models._table import MODEL_TABLE
from ktype.models.freeform import FreeformKAnonymity
from ktype.release import sidecar_path
from tests._forge import forge_csv

AGES = (1, 2, 3, 4)


def _covers(label: str, value: int) -> bool:
    """The label grammar read independently: ``*``, a value, or a range ``[a-b]``."""
    if label == "*":
        return True
    if label.startswith("["):
        a, b = (int(x) for x in label.strip("[]").split("-"))
        return a <= value <= b
    return int(label) == value


def _most_assignable(original: pd.DataFrame, published: pd.DataFrame) -> int:
    """The largest number of published rows assigned to distinct records they generalize: the best
    injective map of all rows (a matching of s rows extends to one, since rows <= records)."""
    n, m = len(original), len(published)
    ok = [[_covers(published["age"][r], int(original["age"][i])) and published["s"][r] == original["s"][i]
           for i in range(n)] for r in range(m)]
    return max(sum(ok[r][p[r]] for r in range(m)) for p in itertools.permutations(range(n), m))


_LABELS = ["*", *map(str, AGES), *(f"[{a}-{b}]" for a, b in itertools.combinations(AGES, 2))]


@st.composite
def _tables(draw: st.DrawFn) -> tuple[pd.DataFrame, pd.DataFrame]:
    n = draw(st.integers(len(AGES), len(AGES) + 1))
    ages = draw(st.lists(st.sampled_from(AGES), min_size=n, max_size=n))
    # every age value occurs, so the default hierarchy has the leaves 1..4 and every label reads
    ages[: len(AGES)] = AGES
    sens = draw(st.lists(st.sampled_from("xy"), min_size=n, max_size=n))
    m = draw(st.integers(0, n))
    labels = draw(st.lists(st.sampled_from(_LABELS), min_size=m, max_size=m))
    psens = draw(st.lists(st.sampled_from("xy"), min_size=m, max_size=m))
    return pd.DataFrame({"age": ages, "s": sens}), pd.DataFrame({"age": labels, "s": psens}, dtype=object)


@settings(max_examples=60, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(_tables(), st.sampled_from(["local", "multidimensional"]))
# one published type standing for more records than it covers (the count per class decides it)
# overlapping boxes with no perfect assignment (the maximum flow decides it: 3 of 4 rows)
@example((pd.DataFrame({"age": [1, 2, 3, 4], "s": list("xxxx")}),
          pd.DataFrame({"age": ["[1-2]", "[1-2]", "[2-3]", "[1-3]"], "s": list("xxxx")}, dtype=object)), "local")
@example((pd.DataFrame({"age": [1, 2, 3, 4], "s": list("xxxx")}),
          pd.DataFrame({"age": ["[1-2]"] * 3, "s": list("xxx")}, dtype=object)), "multidimensional")
@example((pd.DataFrame({"age": [1, 2, 3, 4, 4], "s": list("xyxyx")}),
          pd.DataFrame({"age": ["4", "4", "[3-4]"], "s": list("yxx")}, dtype=object)), "local")
def test_generalization_verdict_equals_the_brute_force_assignment(tables, recoding):
    original, published = tables
    rep = audit(original, published, KAnonymity(1), quasi_identifiers=["age"], sensitive=["s"], recoding=recoding)
    best = _most_assignable(original, published)
    gen = [f for f in rep.findings if f.check == "generalization"]
    assert bool(gen) == (best < len(published)), (original.to_dict("list"), published.to_dict("list"), rep.findings)
    assert rep.passed == (not gen)
    for f in gen:  # the maximum flow's count is the largest assignment
        if f.reason.startswith("At most"):
            assert f.reason.startswith(f"At most {best} of the {len(published)} published rows"), f.reason
    for f in rep.findings:  # the rows named are rows of the file
        assert all(0 <= r < len(published) for r in f.rows)


@pytest.fixture(scope="module")
def suppressed_release(tmp_path_factory):
    """A full-domain release with suppressed records, saved with its sidecar."""
    df = pd.DataFrame({"age": [21, 22, 23, 24, 35, 36, 37, 38, 60], "s": list("xyxyxyxyx")})
    ds = Dataset(df, quasi_identifiers=["age"], sensitive=["s"],
                 hierarchies={"age": Hierarchy.intervals(df["age"], [10, 20])})
    rel = run("flash", ds, KAnonymity(2), max_suppression=0.2)
    assert int(rel.suppressed.sum()) >= 1
    path = tmp_path_factory.mktemp("sup") / "release.csv"
    rel.save(path)
    return ds, path


def _copy(release: Path, where: Path) -> Path:
    out = where / release.name
    shutil.copy(release, out)
    shutil.copy(sidecar_path(release), sidecar_path(out))
    return out


def test_a_forged_suppression_count_is_a_counts_finding(suppressed_release, tmp_path):
    ds, genuine = suppressed_release
    assert audit(ds, genuine).passed
    meta = json.loads(sidecar_path(genuine).read_text())
    forged = _copy(genuine, tmp_path)
    forge_csv(forged, suppressed=int(meta["suppressed"]) + 1)
    rep = audit(ds, forged)
    assert not rep.passed
    counts = [f for f in rep.findings if f.check == "counts"]
    assert counts, rep.findings
    assert str(int(meta["suppressed"]) + 1) in counts[0].reason and str(meta["input_records"]) in counts[0].reason


SCOPED = [spec for spec in MODEL_TABLE if "scope" in spec.params]


@pytest.mark.parametrize("scope", ["class", "matches"])
@pytest.mark.parametrize("spec", SCOPED, ids=[s.name for s in SCOPED])
def test_models_from_metadata_keep_the_scope_the_metadata_names(spec, scope):
    assert SCOPED
    model = model_from_name(spec.name, **{**spec.test_params, "scope": scope})
    for recoding in ("local", "multidimensional", "full-domain", "freeform"):
        record = model.metadata_record(recoding)
        assert record["scope"] == scope
        (rebuilt,) = models_from_metadata({"models": [record]})
        assert type(rebuilt) is type(model)
        for where in ("local", "multidimensional", "full-domain", "freeform"):
            assert rebuilt.scope_on(where) == scope, (record, where)


def test_the_audit_checks_the_scope_the_metadata_claims(tmp_path):
    """A class-scope ℓ-diversity claim on a local recoding is checked per class, as claimed
    (where scope "auto" would check it over each record's matches)."""
    df = pd.DataFrame({"age": [1, 2, 3, 4, 5, 6], "s": list("xyxyxy")})
    ds = Dataset(df, quasi_identifiers=["age"], sensitive=["s"])
    rel = run("k_concealment", ds, KConcealment(2), rng=1)
    path = tmp_path / "r.csv"
    rel.save(path)
    claim = DistinctLDiversity(2, scope="class")
    forge_csv(path, models=[*json.loads(sidecar_path(path).read_text())["models"], claim.metadata_record("local")])
    rep = audit(ds, path)
    assert rep.facts["recoding"] == "local"
    ldiv = [m for m in rep.models if isinstance(m, DistinctLDiversity)]
    assert len(ldiv) == 1 and ldiv[0].scope_on("local") == "class"
    assert rep.facts["scopes"][str(ldiv[0])] == "class"


def test_an_empty_model_claim_says_how_to_name_models(suppressed_release, tmp_path):
    ds, genuine = suppressed_release
    forged = _copy(genuine, tmp_path)
    forge_csv(forged, models=[])
    rep = audit(ds, forged)
    assert not rep.passed and not rep.results
    (f,) = [f for f in rep.findings if f.check == "metadata"]
    assert "--model" in f.reason and "model=" in f.reason  # what to do, as the command line and Python spell it


@pytest.mark.parametrize("cell", ["{20,30}", "{25,35}"])
def test_a_value_set_in_a_range_column_of_a_freeform_release_is_refused(cell):
    """Numeric columns of a freeform release are published as ranges (``[x-y]``); a value set
    there is no label of the grammar, even one that would cover the record it stands for."""
    original = pd.DataFrame({"age": [20, 25, 30, 35], "s": ["x"] * 4})
    genuine = pd.DataFrame({"age": ["[20-30]", "[20-30]", "[20-35]", "[30-35]"], "s": ["x"] * 4})
    assert audit(original, genuine, FreeformKAnonymity(1), quasi_identifiers=["age"], sensitive=["s"],
                 recoding="freeform").passed
    forged = genuine.copy()
    forged.loc[0, "age"] = cell
    rep = audit(original, forged, FreeformKAnonymity(1), quasi_identifiers=["age"], sensitive=["s"], recoding="freeform")
    assert not rep.passed
    assert any(f.check == "labels" and cell in f.reason and f.rows == [0] for f in rep.findings), rep.findings


def test_a_forged_input_count_is_a_counts_finding(suppressed_release, tmp_path):
    ds, genuine = suppressed_release
    forged = _copy(genuine, tmp_path)
    forge_csv(forged, input_records=ds.n + 1)
    rep = audit(ds, forged)
    assert not rep.passed and not rep.results
    assert any(f.check == "counts" and f"input records = {ds.n + 1}" in f.reason and f"there are {ds.n}" in f.reason
               for f in rep.findings), rep.findings


def test_metadata_roles_that_do_not_fit_the_original_are_a_finding(suppressed_release, tmp_path):
    """The (untrusted) metadata leaves no quasi-identifier: a failed check, not an exception."""
    ds, genuine = suppressed_release
    forged = _copy(genuine, tmp_path)
    forge_csv(forged, columns={"age": "sensitive"})
    rep = audit(ds.data, forged)
    assert not rep.passed and not rep.results
    assert [f.check for f in rep.findings] == ["roles"]
    assert "metadata" in rep.findings[0].reason and "quasi-identifier" in rep.findings[0].reason


def test_a_declared_column_missing_from_the_release_stops_the_audit(suppressed_release):
    """An insensitive column the auditor declares is not published: a 'columns' finding, and no
    model is checked on a table that is not the declared one."""
    ds, genuine = suppressed_release
    df = ds.data.assign(note=[f"n{i % 3}" for i in range(ds.n)])
    full = Dataset(df, quasi_identifiers=["age"], sensitive=["s"], insensitive=["note"],
                   hierarchies={"age": ds.hierarchy("age")})
    rep = audit(full, genuine)
    assert not rep.passed and not rep.results
    assert any(f.check == "columns" and "note" in f.reason for f in rep.findings), rep.findings


@pytest.mark.parametrize("role", ["insensitive", "sensitive"])
def test_a_role_finding_says_how_to_give_the_roles(suppressed_release, tmp_path, role):
    """A column published with exact values under a role only the metadata gives, that singles
    records out: the finding names the column and the role and says how to give roles instead."""
    ds, genuine = suppressed_release
    df = ds.data.assign(note=[f"n{i}" for i in range(ds.n)])  # one record per value
    pub = pd.read_csv(genuine, dtype=str, keep_default_na=False)
    forged = _copy(genuine, tmp_path)
    forge_csv(forged, pub.assign(note=[f"n{i}" for i in range(len(pub))]), columns={"note": role})
    rep = audit(df, forged, hierarchies={"age": ds.hierarchy("age")})
    assert not rep.passed and rep.facts["untrusted_roles"] == {"s": "sensitive", "note": role}
    (f,) = [f for f in rep.findings if f.check == "roles"]
    assert "'note'" in f.reason and f"as {role!r}" in f.reason
    assert f"if it really is {role}, give the roles yourself" in f.reason and "quasi_identifiers=" in f.reason
