"""ktype.explain against recounts on the released cells: the note on local and freeform
recodings counts unique published rows, and ``explain`` is exactly its parts."""

from __future__ import annotations

from collections import Counter

import ktype
from ktype.explain import explain, measure_lines, qi_exactness, recoding_note
from ktype.models import KAnonymity, KConcealment


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
