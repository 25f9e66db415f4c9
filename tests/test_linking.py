"""The linking attack of the survey's running example (Ciriani et al. 2007, §1, Figs. 1–2) and
:func:`ktype.attacks.link` on releases, published tables and files."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ktype
from ktype.attacks import link, link_files
from ktype.exceptions import DataError, InvalidParameterError
from ktype.release import Release
from tests._survey_fixtures import FIG1, FIG2, fig3_hierarchies

ON = ["ZIP", "DOB", "Sex", ("Marital status", "Status")]


def test_survey_linking_attack_reidentifies_sue():
    """Fig. 1 joined with Fig. 2 on (ZIP, DOB, Sex, Marital status): one match, t1 -> hypertension."""
    rep = link(FIG1, FIG2, on=ON)
    assert rep.candidates.tolist() == [1]
    assert rep.linked_by.tolist() == [1, 0, 0, 0, 0, 0, 0, 0, 0]  # only t1
    assert rep.unique[["Name", "Disease"]].values.tolist() == [["Sue J. Doe", "hypertension"]]
    assert rep.summary(2)["unique"] == 1
    assert "uniquely linked (1 candidate): 1" in rep.render(2)


def _fig9d() -> Release:
    """Fig. 9(d): the AG_ generalization [R0, D2, S0, Z2] of Fig. 1 (2-anonymous on the QI)."""
    hs = fig3_hierarchies()
    qi = ["Race", "DOB", "Sex", "ZIP"]
    ds = ktype.Dataset(FIG1, quasi_identifiers=qi, sensitive=["Disease"], insensitive=["Marital status"],
                       hierarchies={c: hs[c] for c in qi})
    levels = [0, 2, 0, 2]
    lo = np.empty((9, 4), dtype=np.int32)
    hi = np.empty((9, 4), dtype=np.int32)
    for j, h in enumerate(ds.hierarchies):
        L, H = h.level_intervals(levels[j])
        lo[:, j], hi[:, j] = L[ds.X[:, j]], H[ds.X[:, j]]
    return Release.build(ds, lo, hi, recoding="full-domain", levels=np.array(levels))


def test_generalized_release_covers_sue_seven_times():
    rel = _fig9d()
    assert ktype.models.KAnonymity(2).check(rel).satisfied
    rep = link(rel, FIG2, on=["ZIP", "DOB", "Sex"])
    assert rep.candidates.tolist() == [7]  # every F born in 64 in 941**: asian x3, black x2, white x2
    assert rep.unique.empty
    # the same table read back as labels, with and without the hierarchies
    assert link(rel.to_pandas(), FIG2, on=["ZIP", "DOB", "Sex"], hierarchies=fig3_hierarchies()).candidates.tolist() == [7]
    # without hierarchies, "64" is only the value 64 (not a year of 64/04/12): no match
    assert link(rel.to_pandas(), FIG2, on=["ZIP", "DOB", "Sex"]).candidates.tolist() == [0]


def test_an_unprotected_column_narrows_below_k():
    # Marital status is released unchanged (not a QI of the release): with it Sue has 2 candidates
    rep = link(_fig9d(), FIG2, on=ON)
    assert rep.candidates.tolist() == [2]
    amb = rep.ambiguous(3)
    assert amb["Name"].tolist() == ["Sue J. Doe"] and amb["candidates"].tolist() == [2]
    assert rep.summary(3)["ambiguous_below_3"] == 1


@pytest.mark.parametrize(
    ("label", "value", "covered"),
    [
        ("*", "anything", True),
        ("9413*", "94138", True), ("9413*", "94141", False), ("941**", "9413", False),
        ("[30-39]", 35, True), ("[30-39]", "39", True), ("[30-39]", 40, False),
        ("[-5..-1]", -3, True), ("[2022-01-13..2022-03-21]", "2022-02-01", True),
        ("[2022-01-13..2022-03-21]", "2022-04-01", False),
        ("{a,b}", "b", True), ("{a,b}", "c", False), ("{x\\,y,z}", "x,y", True),
        ("39", 39.0, True), ("39", "039", False), ("F", "F", True), ("F", "M", False),
    ],
)
def test_label_grammar(label, value, covered):
    rep = link(pd.DataFrame({"c": [label]}), pd.DataFrame({"c": [value]}), on="c")
    assert rep.candidates.tolist() == [int(covered)]


def _covers(label: str, value: int) -> bool:
    """Independent per-pair oracle for ages (exact, [a-b], *)."""
    if label == "*":
        return True
    if label.startswith("["):
        a, b = label[1:-1].split("-")
        return int(a) <= value <= int(b)
    return int(label) == value


ages = st.integers(20, 40)
labels = st.one_of(ages.map(str), st.tuples(ages, st.integers(0, 10)).map(lambda t: f"[{t[0]}-{t[0] + t[1]}]"),
                   st.just("*"))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(labels, st.sampled_from(["M", "F", "*"])), min_size=1, max_size=25),
       st.lists(st.tuples(ages, st.sampled_from(["M", "F"])), min_size=1, max_size=25))
def test_counts_equal_a_pairwise_oracle(pub, ext):
    P = pd.DataFrame(pub, columns=["age", "sex"])
    E = pd.DataFrame(ext, columns=["age", "sex"])
    rep = link(P, E, on=["age", "sex"])
    M = np.array([[_covers(a, v) and (s == "*" or s == t) for (v, t) in ext] for (a, s) in pub])
    assert rep.candidates.tolist() == M.sum(axis=0).tolist()
    assert rep.linked_by.tolist() == M.sum(axis=1).tolist()
    uniq = np.flatnonzero(M.sum(axis=0) == 1)
    assert rep.unique["external_row"].tolist() == uniq.tolist()
    assert rep.unique["age (release)"].tolist() == [pub[int(np.argmax(M[:, e]))][0] for e in uniq]


def test_suppressed_rows_are_not_linked():
    rel = _fig9d()
    sup = Release.build(rel.dataset, rel.lo[np.argsort(rel.source)], rel.hi[np.argsort(rel.source)],
                        suppressed=np.arange(9) == 0, recoding="local")
    assert link(sup, FIG2, on=["ZIP", "DOB", "Sex"]).candidates.tolist() == [6]


def test_errors_name_what_to_fix():
    with pytest.raises(DataError, match="'Zip' is not in the release"):
        link(FIG1, FIG2, on=["Zip"])
    with pytest.raises(DataError, match="'Marital status' is not in the external table"):
        link(FIG1, FIG2, on=["Marital status"])
    with pytest.raises(InvalidParameterError, match="at least one column"):
        link(FIG1, FIG2, on=[])
    with pytest.raises(InvalidParameterError, match="Release or a pandas DataFrame"):
        link([1, 2], FIG2, on=["ZIP"])


def test_link_files(tmp_path):
    rel = _fig9d()
    rel.save(tmp_path / "release.csv")
    FIG2.to_csv(tmp_path / "voters.csv", index=False)
    rep = link_files(tmp_path / "release.csv", tmp_path / "voters.csv", "ZIP,DOB,Sex",
                     hierarchies={"DOB": fig3_hierarchies()["DOB"]})
    assert rep.candidates.tolist() == [7]
    FIG1.to_csv(tmp_path / "medical.csv", index=False)
    rep = link_files(tmp_path / "medical.csv", tmp_path / "voters.csv", ["ZIP", "DOB", "Sex"])
    assert rep.candidates.tolist() == [1] and rep.unique["Disease"].tolist() == ["hypertension"]


def test_a_hierarchy_node_is_read_by_its_hierarchy_not_by_its_label():
    """A node named like a pattern ("1*") covers the leaves the hierarchy puts under it (25
    too), not the values its name would match: the label grammar is only for cells that are
    no node of the hierarchy."""
    h = ktype.Hierarchy.from_table([["10", "1*", "*"], ["11", "1*", "*"], ["25", "1*", "*"], ["30", "3x", "*"]],
                                   name="z")
    published = pd.DataFrame({"z": ["1*", "1*", "1*", "3x"], "d": ["a", "b", "c", "d"]})
    external = pd.DataFrame({"name": ["p", "q"], "z": ["25", "19"]})
    rep = link(published, external, on=["z"], hierarchies={"z": h})
    # 25 is under "1*" (three rows); 19 is outside the hierarchy: read by the grammar, "1*" matches it
    assert rep.candidates.tolist() == [3, 3]


def test_numbers_outside_a_taxonomy_compare_as_numbers():
    """An external value outside the hierarchy's domain is read by the label grammar, where a
    plain number covers the same number written differently ("30.0" and "3e1" are 30; a code with
    a leading zero, "030", is no number)."""
    h = ktype.Hierarchy.from_table([["30", "young", "*"], ["31", "young", "*"], ["40", "old", "*"]], name="age")
    published = pd.DataFrame({"age": ["30", "young", "old"]})
    external = pd.DataFrame({"name": ["p", "q", "r"], "age": ["30.0", "3e1", "030"]})
    rep = link(published, external, on=["age"], hierarchies={"age": h})
    assert rep.candidates.tolist() == [1, 1, 0]
