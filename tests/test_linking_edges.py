"""Edges of the linking attack (Ciriani et al., "k-Anonymity", Springer 2007, §1) against a
pairwise recount: codes with a leading zero are codes, not numbers (ZIP 02139 is not 2139);
an empty external table links nobody; a call without columns says what to give."""

from __future__ import annotations

import pandas as pd
import pytest

from ktype.attacks import link
from ktype.exceptions import InvalidParameterError


def test_codes_with_a_leading_zero_are_not_numbers():
    published = pd.DataFrame({"code": ["05", "5", "07", "0.5", "00"], "disease": ["a", "b", "c", "d", "e"]})
    external = pd.DataFrame({"name": ["p", "q", "r", "s", "t"], "code": ["05", "5", "7", "0.50", "0"]})
    rep = link(published, external, on="code")
    # by hand: "05" only equals "05"; "5" equals "5"; "7" is not "07"; "0.50" is the number 0.5; "0" is not "00"
    assert rep.candidates.tolist() == [1, 1, 0, 1, 0]
    assert rep.unique[["name", "disease"]].values.tolist() == [["p", "a"], ["q", "b"], ["s", "d"]]


def test_an_empty_external_table_links_nobody():
    published = pd.DataFrame({"zip": ["94142", "94141"], "disease": ["x", "y"]})
    rep = link(published, pd.DataFrame({"zip": pd.Series([], dtype=object)}), on="zip")
    assert rep.candidates.tolist() == [] and rep.linked_by.tolist() == [0, 0] and len(rep.unique) == 0
    assert rep.summary(2) == {"external_records": 0, "published_rows": 2, "unmatched": 0, "unique": 0,
                              "smallest_candidates": 0, "rows_linked_to_one_record": 0,
                              "ambiguous_below_2": 0, "at_least_2": 0}


def test_no_column_to_link_on_says_what_to_give():
    df = pd.DataFrame({"zip": ["1"]})
    with pytest.raises(InvalidParameterError, match=r"^Give at least one column to link on \(on="):
        link(df, df, on=" , ")
