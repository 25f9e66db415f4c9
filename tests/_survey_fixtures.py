"""The running example of Ciriani et al., "k-Anonymity" (Springer 2007): Fig. 1 (the
de-identified medical table), Fig. 2 (the voter list's one shown row), Fig. 3's hierarchies
(reconstructed: the figure is an image; the DOB top ``*`` is assumed, as a single root is
required) and Fig. 16 (a table and two views)."""

from __future__ import annotations

import pandas as pd

from ktype.data.hierarchy import Hierarchy

FIG1 = pd.DataFrame(
    [
        ("asian", "64/04/12", "F", "94142", "divorced", "hypertension"),
        ("asian", "64/09/13", "F", "94141", "divorced", "obesity"),
        ("asian", "64/04/15", "F", "94139", "married", "chest pain"),
        ("asian", "63/03/13", "M", "94139", "married", "obesity"),
        ("asian", "63/03/18", "M", "94139", "married", "short breath"),
        ("black", "64/09/27", "F", "94138", "single", "short breath"),
        ("black", "64/09/27", "F", "94139", "single", "obesity"),
        ("white", "64/09/27", "F", "94139", "single", "chest pain"),
        ("white", "64/09/27", "F", "94141", "widow", "short breath"),
    ],
    columns=["Race", "DOB", "Sex", "ZIP", "Marital status", "Disease"],
)

FIG2 = pd.DataFrame(
    [("Sue J. Doe", "900 Market St.", "San Francisco", "94142", "64/04/12", "F", "divorced")],
    columns=["Name", "Address", "City", "ZIP", "DOB", "Sex", "Status"],
)


def fig3_hierarchies() -> dict[str, Hierarchy]:
    race = Hierarchy.from_table([["asian", "person"], ["black", "person"], ["white", "person"]], name="Race")
    sex = Hierarchy.from_table([["M", "not_released"], ["F", "not_released"]], name="Sex")
    zip_ = Hierarchy.from_table([[z, z[:4] + "*", "941**"] for z in ("94138", "94139", "94141", "94142")], name="ZIP")
    marital = Hierarchy.from_table(
        [["married", "been_married", "not_released"], ["widow", "been_married", "not_released"],
         ["divorced", "been_married", "not_released"], ["single", "never_married", "not_released"]],
        name="Marital status")
    dob = Hierarchy.from_table(
        [[d, d[:5], d[:2], "*"] for d in ("63/03/13", "63/03/18", "64/04/12", "64/04/15", "64/09/13", "64/09/27")],
        name="DOB")
    return {"Race": race, "Sex": sex, "ZIP": zip_, "Marital status": marital, "DOB": dob}


FIG16 = pd.DataFrame(
    [("Sue", "F", "hypertension"), ("Claire", "F", "obesity"), ("Ann", "F", "chest pain"), ("John", "M", "obesity"),
     ("David", "M", "obesity"), ("Mary", "F", "short breath"), ("Alice", "F", "short breath"),
     ("Carol", "F", "chest pain"), ("Kate", "F", "short breath")],
    columns=["Name", "Sex", "Disease"],
)
