"""ktype.explain against recounts on the released cells: the note on local and freeform
recodings counts unique published rows, and ``explain`` is exactly its parts."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pandas as pd
import pytest

import ktype
from ktype.explain import QIExactness, explain, measure_lines, qi_exactness, recoding_note
from ktype.models import KAnonymity, KConcealment
from ktype.release import Release


def _unique_published_rows(rel) -> tuple[int, int]:
    """Released (not suppressed) rows whose published QI cells no other released row shows."""
    pub = rel.to_pandas()[list(rel.dataset.quasi_identifiers)].astype(str)
    counts = Counter(map(tuple, pub.to_numpy()))
    return sum(1 for c in counts.values() if c == 1), len(pub)


def test_a_freeform_release_gets_the_note_with_its_unique_rows():
    """Counted on what is published (value sets like {24,30,43}), not on their closure boxes, which
    many distinct published rows share."""
    rel = ktype.algorithms.run("freeform_sortgreedy", ktype.load_adult(n=60), KConcealment(3), rng=5)
    assert rel.recoding == "freeform"
    unique, shown = _unique_published_rows(rel)
    note = recoding_note(rel)
    assert note is not None and note.startswith(f"Local recoding ({', '.join(str(m) for m in rel.models)}): "
                                                f"{unique:,} of {shown:,} released rows")
    assert "single it out by other means" in note


def test_explain_is_its_parts_as_plain_data():
    rel = ktype.algorithms.run("mondrian", ktype.load_adult(n=300), KAnonymity(5))
    got = explain(rel)
    assert got["measures"] == [{"name": m.name, "value": m.value, "normalized": m.normalized, "meaning": m.meaning}
                               for m in measure_lines(rel)]
    assert [q["column"] for q in got["quasi_identifiers"]] == list(rel.dataset.quasi_identifiers)
    assert [(q["exact"], q["generalized"], q["hidden"]) for q in got["quasi_identifiers"]] == [
        (q.exact, q.generalized, q.hidden) for q in qi_exactness(rel)]
    assert got["recoding_note"] is None  # a global (multidimensional) recoding: classes, no note


def test_normalized_measures_follow_their_documented_scale():
    """loss_metric and gcp are shares already, ncp is divided by the n·r cells, discernibility by n²,
    precision (higher is better) is turned into 1 - precision; each clamped to [0, 1]."""
    rel = ktype.algorithms.run("mondrian", ktype.load_adult(n=300), KAnonymity(5))
    n, r = rel.dataset.n, rel.dataset.r
    lines = {m.name: m for m in measure_lines(rel)}
    scale = {"loss_metric": lambda v: v, "gcp": lambda v: v, "ncp": lambda v: v / (n * r),
             "discernibility": lambda v: v / n**2, "precision": lambda v: 1 - v}
    for name, f in scale.items():
        want = min(max(f(lines[name].value), 0.0), 1.0)
        assert lines[name].normalized == pytest.approx(want), name
    given = explain(rel, {"discernibility": 1234.0})["measures"]
    assert [(m["name"], m["value"], m["normalized"]) for m in given] == [
        ("discernibility", 1234.0, pytest.approx(1234.0 / n**2))]


def test_a_one_value_column_is_published_exactly_not_hidden():
    """A column with one value publishes that value: its cells are exact (and no '*')."""
    df = pd.DataFrame({"age": [21, 23, 35, 37, 54, 60, 60, 65], "country": ["X"] * 8, "s": list("abababab")})
    ds = ktype.Dataset(df, quasi_identifiers=["age", "country"], sensitive=["s"])
    rel = ktype.algorithms.run("mondrian", ds, KAnonymity(2))
    by = {q.column: q for q in qi_exactness(rel)}
    assert set(rel.to_pandas()["country"].astype(str)) == {"X"}
    assert (by["country"].exact, by["country"].hidden) == (8, 0)
    assert str(by["country"]) == "country: 100% exact, 0% generalized"


def test_the_note_of_a_release_with_every_row_suppressed_counts_none():
    rel = ktype.algorithms.run("k_concealment", ktype.load_adult(n=60), KConcealment(3), rng=3)
    ds = rel.dataset
    gone = Release.build(ds, np.asarray(rel.lo), np.asarray(rel.hi), suppressed=np.ones(ds.n, dtype=bool),
                         recoding="local", source=np.arange(ds.n))
    note = recoding_note(gone)
    assert note is not None and ": 0 of 0 released rows" in note
    empty = QIExactness("age", 0, 0, 0, 0)
    assert str(empty) == "age: no released cells"
