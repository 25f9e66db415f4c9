"""ktype.explain: what a release published, counted independently on the published table."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import ktype
from ktype.data.hierarchy import value_keys
from ktype.explain import explain, measure_lines, qi_exactness, recoding_note
from ktype.models import KAnonymity, KConcealment


def _brute(rel):
    pub = rel.to_pandas(include_suppressed=True)
    orig = rel.dataset.data.iloc[rel.source].reset_index(drop=True)
    out = {}
    for c in rel.dataset.quasi_identifiers:
        shown = pub[c].astype(str).to_numpy()
        hidden = (shown == "*") | np.asarray(rel.suppressed)
        exact = ~hidden & (shown == np.array(value_keys(orig[c]), dtype=object))
        out[c] = (int(exact.sum()), int(hidden.sum()))
    return out


@pytest.mark.parametrize("algorithm", ["mondrian", "flash", "iterative_local"])
def test_exact_and_hidden_cells_match_the_published_labels(algorithm):
    rel = ktype.algorithms.run(algorithm, ktype.load_adult(n=600), KAnonymity(4))
    brute = _brute(rel)
    for q in qi_exactness(rel):
        assert (q.exact, q.hidden) == brute[q.column], q.column
        assert q.exact + q.generalized + q.hidden == q.cells == 600


def test_exact_dates_and_five_digit_zip_codes_are_warned_about():
    df = pd.DataFrame({"zip": ["02139", "02140", "02141", "02142", "02143", "02144"] * 4,
                       "adm": pd.date_range("2023-01-01", periods=24).astype(str), "s": list("ab") * 12})
    ds = ktype.Dataset(df, quasi_identifiers=["zip", "adm"], sensitive=["s"], hierarchies={"adm": "ordered"},
                       types={"adm": "date"})
    rel = ktype.algorithms.run("mondrian", ds, KAnonymity(2))
    by = {q.column: q for q in qi_exactness(rel)}
    assert any("HIPAA" in w for w in by["zip"].warnings) == (by["zip"].exact > 0)
    assert any("end on values" in w for w in by["adm"].warnings)
    masked = ktype.Dataset(df, quasi_identifiers=["zip", "adm"], sensitive=["s"],
                           hierarchies={"zip": {"masking": [1, 2, 3]}, "adm": "dates"})
    flat = ktype.algorithms.run("flash", masked, KAnonymity(1))  # nothing generalized: everything exact
    by = {q.column: q for q in qi_exactness(flat)}
    assert by["adm"].exact == 24 and any("exact date" in w for w in by["adm"].warnings)
    assert any("HIPAA" in w for w in by["zip"].warnings)


def test_measures_are_normalized_between_nothing_and_everything_lost():
    ds = ktype.load_adult(n=400)
    lines = {m.name: m for m in measure_lines(ktype.algorithms.run("mondrian", ds, KAnonymity(5)))}
    for name in ("loss_metric", "gcp", "entropy", "non_uniform_entropy", "discernibility", "precision"):
        assert lines[name].normalized is not None and 0.0 <= lines[name].normalized <= 1.0, name
    assert lines["gcp"].normalized == pytest.approx(lines["ncp"].normalized)
    everything = ktype.algorithms.run("flash", ds, KAnonymity(400))  # one class: every cell generalized to *
    top = {m.name: m for m in measure_lines(everything)}
    assert top["loss_metric"].normalized == pytest.approx(1.0)
    assert top["non_uniform_entropy"].normalized == pytest.approx(1.0)


def test_the_k_concealment_note_counts_unique_rows():
    rel = ktype.algorithms.run("k_concealment", ktype.load_adult(n=300), KConcealment(3), rng=3)
    pub = rel.to_pandas()[list(rel.dataset.quasi_identifiers)]
    unique = int((pub.value_counts() == 1).sum())
    note = recoding_note(rel)
    assert note is not None and note.startswith(f"Local recoding (KConcealment(k=3)): {unique:,} of 300")
    assert recoding_note(ktype.algorithms.run("mondrian", ktype.load_adult(n=300), KAnonymity(3))) is None
    assert explain(rel)["recoding_note"] == note
