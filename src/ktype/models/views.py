"""k-anonymity of a set of published views (data association; survey §6, Fig. 16).

Ciriani, De Capitani di Vimercati, Foresti, Samarati, "k-Anonymity" (Springer 2007), §6
("k-Anonymity with Multiple Views"), after Yao, Wang & Jajodia, "Checking for k-anonymity
violation by views", VLDB 2005: the association between an identifier ID and a sensitive
attribute P must be protected, yet views that each omit one of them can be combined to
reconstruct it. An *association cover* w.r.t. the views is a set of pairs
``{<id, p1>, ..., <id, pn>}`` for a fixed id, each ``p_i`` a value that can be associated with
id given the views; the views *violate k-anonymity* iff some id's cover has fewer than k
values. In Fig. 16, joining v1 = (Name, Sex) with v2 = (Sex, Disease) leaves Sue four possible
diseases but John and David only obesity: the views violate k-anonymity for every k > 1.

The checker covers the case without functional dependencies, where Yao et al. give a
polynomial algorithm (with dependencies the problem is NP^NP-hard; not handled): a value p
can be associated with id iff ``<id, p>`` is in the projection on (ID, P) of the natural join
of the views. (The join itself is an instance whose projections are exactly the views when
the views are projections of one table, so every joined pair is possible; and any instance
whose projections are the views is contained in their join.) Views are sets: duplicates are
ignored. Deviation: the join is computed view by view, keeping after each step only ID, P and
the columns later views share (the projection of a join commutes with that), so no full join
is materialized.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import pandas as pd

from ..exceptions import DataError, InvalidParameterError

__all__ = ["ViewsCheck", "check_views", "association_covers"]


@dataclass(frozen=True)
class ViewsCheck:
    """Verdict of :func:`check_views`.

    Attributes
    ----------
    satisfied : bool
        No association cover has fewer than ``k`` pairs.
    k : int
    covers : pandas.Series
        Per id (index), the size of its association cover.
    violations : pandas.DataFrame
        The ids whose cover is smaller than k, with the cover size and the values
        (``identifier``, ``cover_size``, ``values``), smallest covers first.
    """

    satisfied: bool
    k: int
    covers: pd.Series
    violations: pd.DataFrame

    def __bool__(self) -> bool:
        return self.satisfied


def association_covers(views: Sequence[pd.DataFrame], identifier: str, sensitive: str) -> pd.DataFrame:
    """The possible ``(identifier, sensitive)`` pairs given the views (no functional
    dependencies): the projection of their natural join, one row per pair."""
    if isinstance(views, pd.DataFrame) or not len(views):
        raise InvalidParameterError("check_views takes a list of views (DataFrames), e.g. [v1, v2].")
    vs = []
    for i, v in enumerate(views):
        if not isinstance(v, pd.DataFrame):
            raise InvalidParameterError(f"View {i + 1} is a {type(v).__name__}; give each view as a pandas DataFrame.")
        if len(set(map(str, v.columns))) != len(v.columns):
            raise DataError(f"View {i + 1} names a column twice.")
        vs.append(v.astype(object).drop_duplicates().reset_index(drop=True))
    for col, role in ((identifier, "identifier"), (sensitive, "sensitive attribute")):
        if not any(col in v.columns for v in vs):
            raise DataError(f"The {role} {col!r} is in no view (views' columns: "
                            f"{'; '.join(', '.join(map(str, v.columns)) for v in vs)}); name a published column.")
    # join first the views that share columns with what is joined already (a cross product last)
    remaining = list(range(len(vs)))
    start = next(i for i in remaining if identifier in vs[i].columns)
    acc = vs[start]
    remaining.remove(start)
    while remaining:
        shared = [i for i in remaining if set(vs[i].columns) & set(acc.columns)]
        i = shared[0] if shared else remaining[0]
        remaining.remove(i)
        common = sorted(set(vs[i].columns) & set(acc.columns), key=str)
        acc = acc.merge(vs[i], on=common, how="inner") if common else acc.merge(vs[i], how="cross")
        later = set().union(*(set(vs[j].columns) for j in remaining)) if remaining else set()
        keep = [c for c in acc.columns if c in (identifier, sensitive) or c in later]
        acc = acc[keep].drop_duplicates()
    return acc[[identifier, sensitive]].drop_duplicates().reset_index(drop=True)


def check_views(views: Sequence[pd.DataFrame], identifier: str, sensitive: str, k: int) -> ViewsCheck:
    """Whether a set of views of one table violates k-anonymity for the association
    ``identifier``–``sensitive`` (Yao, Wang & Jajodia 2005; survey §6, Fig. 16).

    Parameters
    ----------
    views : list of pandas.DataFrame
        The published views (projections of one table; duplicates are ignored).
    identifier, sensitive : str
        The association to protect, e.g. ``"Name"`` and ``"Disease"``.
    k : int
        Every id must be associable with at least k distinct sensitive values.

    Examples
    --------
    >>> import pandas as pd
    >>> from ktype.models.views import check_views
    >>> pt = pd.DataFrame({"Name": ["Sue", "John", "Ann"], "Sex": ["F", "M", "F"],
    ...                    "Disease": ["flu", "ulcer", "cold"]})
    >>> res = check_views([pt[["Name", "Sex"]], pt[["Sex", "Disease"]]], "Name", "Disease", k=2)
    >>> res.satisfied, res.violations["identifier"].tolist()
    (False, ['John'])
    """
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise InvalidParameterError(f"The 'k' parameter of check_views must be an int >= 1; got {k!r}.")
    pairs = association_covers(views, identifier, sensitive)
    ids = pd.concat([v[identifier] for v in views if identifier in v.columns]).astype(object).drop_duplicates()
    sizes = pairs.groupby(identifier, sort=True)[sensitive].nunique().reindex(ids.sort_values(key=lambda s: s.astype(str)),
                                                                              fill_value=0)
    bad = sizes[sizes < k]
    values = pairs.groupby(identifier)[sensitive].agg(lambda s: sorted(map(str, s)))
    viol = pd.DataFrame({
        "identifier": bad.index.tolist(),
        "cover_size": bad.to_numpy(dtype=int),
        "values": [values.get(i, []) for i in bad.index],
    }).sort_values(["cover_size", "identifier"], key=lambda s: s if s.name == "cover_size" else s.astype(str),
                   kind="stable").reset_index(drop=True)
    return ViewsCheck(satisfied=bool(len(bad) == 0), k=k, covers=sizes.rename("cover_size"), violations=viol)
