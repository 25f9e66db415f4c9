"""The :class:`Dataset`: a table, its attribute roles, and its encoded quasi-identifiers."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from .._validation import unknown_name
from ..exceptions import DataError, HierarchyError
from .hierarchy import Hierarchy, value_keys

__all__ = ["Dataset", "HierarchySpec", "read_table"]

HierarchySpec = Hierarchy | str | Path | Mapping[str, Any] | None

ROLES = ("identifier", "quasi_identifier", "sensitive", "insensitive")


class Dataset:
    """A table of microdata plus attribute roles and per-QI hierarchies.

    The quasi-identifiers are encoded **once** to integer leaf ranks (``X``, shape
    ``(n, r)``); every measure, checker and algorithm reads that representation.

    Parameters
    ----------
    data : pandas.DataFrame
        One row per person. Not modified.
    quasi_identifiers : sequence of str
        Columns an attacker can link on; they are generalized.
    sensitive : sequence of str, optional
        Columns whose values must not be disclosed (ℓ-diversity, t-closeness); released
        unchanged.
    identifiers : sequence of str, optional
        Direct identifiers (names, SSNs): removed from every release.
    insensitive : sequence of str, optional
        Other columns, released unchanged. Default: every column not named elsewhere.
    hierarchies : mapping, optional
        Per quasi-identifier (and optionally per sensitive attribute, for hierarchical
        t-closeness): a :class:`Hierarchy`, a path to an ARX hierarchy CSV, ``"ordered"``
        (any interval of the sorted values), ``"flat"`` (value or ``*``), or a mapping
        ``{"intervals": [5, 10, 20]}`` / ``{"masking": [1, 2]}``. Default: ``"ordered"``
        for numeric columns, ``"flat"`` otherwise.
    name : str, optional
        A name for reports.

    Raises
    ------
    DataError
        Unknown column, a column given two roles, missing values in a QI or sensitive
        column, or an empty table.
    HierarchyError
        A data value absent from its hierarchy, or a malformed hierarchy.

    Examples
    --------
    >>> import pandas as pd
    >>> from ktype import Dataset
    >>> df = pd.DataFrame({"age": [30, 21, 21, 55, 47], "zip": ["10055", "10055", "10023", "10165", "10224"],
    ...                    "disease": ["Measles", "Flu", "Angina", "Flu", "Diabetes"]})
    >>> ds = Dataset(df, quasi_identifiers=["age", "zip"], sensitive=["disease"],
    ...              hierarchies={"zip": {"masking": [2, 3, 4]}})
    >>> ds.n, ds.r
    (5, 2)
    """

    def __init__(
        self,
        data: pd.DataFrame,
        *,
        quasi_identifiers: Sequence[str],
        sensitive: Sequence[str] = (),
        identifiers: Sequence[str] = (),
        insensitive: Sequence[str] | None = None,
        hierarchies: Mapping[str, HierarchySpec] | None = None,
        name: str | None = None,
    ) -> None:
        if not isinstance(data, pd.DataFrame):
            raise DataError(f"Dataset needs a pandas DataFrame; got {type(data).__name__}.")
        self.name = name or "dataset"
        cols = [str(c) for c in data.columns]
        if len(set(cols)) != len(cols):
            dup = pd.Index(cols)[pd.Index(cols).duplicated()][0]
            raise DataError(f"Column {dup!r} appears twice in the table.")
        data = data.copy()
        data.columns = cols
        quasi_identifiers = _as_list(quasi_identifiers, "quasi_identifiers")
        sensitive = _as_list(sensitive, "sensitive")
        identifiers = _as_list(identifiers, "identifiers")
        named = quasi_identifiers + sensitive + identifiers
        for c in named + (list(insensitive) if insensitive is not None else []):
            if c not in cols:
                raise DataError(_unknown_column(c, cols))
        seen: dict[str, str] = {}
        for role, group in (("quasi-identifier", quasi_identifiers), ("sensitive", sensitive), ("identifier", identifiers)):
            for c in group:
                if c in seen:
                    raise DataError(f"Column {c!r} is given two roles ({seen[c]} and {role}); give it one.")
                seen[c] = role
        if insensitive is None:
            insensitive = [c for c in cols if c not in seen]
        else:
            insensitive = _as_list(insensitive, "insensitive")
            for c in insensitive:
                if c in seen:
                    raise DataError(f"Column {c!r} is given two roles ({seen[c]} and insensitive); give it one.")
        if not quasi_identifiers:
            raise DataError("Name at least one quasi-identifier column (quasi_identifiers=[...]).")
        if len(data) == 0:
            raise DataError("The table is empty; there is nothing to anonymize.")
        for c in quasi_identifiers + sensitive:
            na = data[c].isna().to_numpy()
            if na.any():
                rows = np.flatnonzero(na)
                raise DataError(
                    f"Column {c!r} has {len(rows)} missing value(s) (first at row {int(rows[0])}); "
                    "drop or impute them before anonymizing."
                )
        self.data = data.reset_index(drop=True)
        self.quasi_identifiers = quasi_identifiers
        self.sensitive = sensitive
        self.identifiers = identifiers
        self.insensitive = list(insensitive)
        hierarchies = dict(hierarchies or {})
        for c in hierarchies:
            if c not in quasi_identifiers and c not in sensitive:
                raise DataError(f"A hierarchy is given for {c!r}, which is not a quasi-identifier or sensitive column.")
        self.hierarchies: list[Hierarchy] = [
            build_hierarchy(c, hierarchies.get(c), self.data[c]) for c in quasi_identifiers
        ]
        self.X = np.empty((len(self.data), len(quasi_identifiers)), dtype=np.int32)
        for j, (c, h) in enumerate(zip(quasi_identifiers, self.hierarchies)):
            self.X[:, j] = h.encode(self.data[c])
        self.X.setflags(write=False)
        # sensitive attributes: integer codes over a sorted (or hierarchy-ordered) domain
        self.sensitive_hierarchies: dict[str, Hierarchy] = {}
        self.sensitive_codes: dict[str, np.ndarray] = {}
        self.sensitive_values: dict[str, list] = {}
        for c in sensitive:
            spec = hierarchies.get(c)
            if spec is not None:
                h = build_hierarchy(c, spec, self.data[c])
                self.sensitive_hierarchies[c] = h
                codes = h.encode(self.data[c])
                values = list(h.leaves)
            else:
                values = _sorted_domain(self.data[c])
                fc, uniq = pd.factorize(self.data[c])
                codes = pd.Index(value_keys(values)).get_indexer(value_keys(uniq))[fc].astype(np.int32)
            codes.setflags(write=False)
            self.sensitive_codes[c] = codes
            self.sensitive_values[c] = values

    # ------------------------------------------------------------------ constructors
    @classmethod
    def from_csv(cls, path: str | Path, *, sep: str | None = None, **roles: Any) -> Dataset:
        """Read a CSV (separator sniffed when ``sep`` is None) and assign roles."""
        return cls(read_table(path, sep=sep), name=Path(path).stem, **roles)

    @classmethod
    def from_parquet(cls, path: str | Path, **roles: Any) -> Dataset:
        """Read a Parquet file and assign roles."""
        return cls(read_table(path), name=Path(path).stem, **roles)

    @classmethod
    def from_pandas(cls, df: pd.DataFrame, **roles: Any) -> Dataset:
        """Same as the constructor."""
        return cls(df, **roles)

    # ------------------------------------------------------------------ properties
    @property
    def n(self) -> int:
        """Number of records."""
        return int(self.X.shape[0])

    @property
    def r(self) -> int:
        """Number of quasi-identifiers."""
        return int(self.X.shape[1])

    @property
    def domain_sizes(self) -> np.ndarray:
        """Leaf count ``|A_j|`` of each QI's hierarchy."""
        return np.array([h.size for h in self.hierarchies], dtype=np.int64)

    def hierarchy(self, column: str) -> Hierarchy:
        """The hierarchy of a quasi-identifier (or of a sensitive column, if given)."""
        if column in self.quasi_identifiers:
            return self.hierarchies[self.quasi_identifiers.index(column)]
        if column in self.sensitive_hierarchies:
            return self.sensitive_hierarchies[column]
        raise DataError(_unknown_column(column, self.quasi_identifiers + list(self.sensitive_hierarchies)))

    def sensitive_column(self, sensitive: str | None = None) -> str:
        """Resolve the sensitive attribute a model refers to (the only one when None)."""
        if sensitive is None:
            if len(self.sensitive) == 1:
                return self.sensitive[0]
            if not self.sensitive:
                raise DataError("This model needs a sensitive attribute; declare one with sensitive=[...].")
            raise DataError(
                f"The dataset has several sensitive attributes {self.sensitive}; name one with sensitive=...."
            )
        if sensitive not in self.sensitive:
            raise DataError(f"{sensitive!r} is not a sensitive attribute of this dataset (sensitive: {self.sensitive}).")
        return sensitive

    def subset(self, rows: np.ndarray | Sequence[int]) -> Dataset:
        """A new dataset over some rows, with the same roles and hierarchies."""
        rows = np.asarray(rows)
        new = object.__new__(Dataset)
        new.__dict__.update(self.__dict__)
        new.data = self.data.iloc[rows].reset_index(drop=True)
        X = self.X[rows].copy()
        X.setflags(write=False)
        new.X = X
        new.sensitive_codes = {}
        for c, v in self.sensitive_codes.items():
            cc = v[rows].copy()
            cc.setflags(write=False)
            new.sensitive_codes[c] = cc
        return new

    def fingerprint(self) -> str:
        """Digest of the table and hierarchies (to prove an algorithm did not mutate them)."""
        hsh = hashlib.sha256()
        hsh.update(pd.util.hash_pandas_object(self.data, index=False).to_numpy().tobytes())
        hsh.update(self.X.tobytes())
        for h in self.hierarchies:
            hsh.update(repr(h.fingerprint()).encode())
        return hsh.hexdigest()

    def __repr__(self) -> str:
        return (
            f"Dataset({self.name!r}, n={self.n}, quasi_identifiers={self.quasi_identifiers}, "
            f"sensitive={self.sensitive})"
        )


def build_hierarchy(column: str, spec: HierarchySpec, values: pd.Series) -> Hierarchy:
    """Turn a hierarchy specification into a :class:`Hierarchy` for ``column``."""
    if isinstance(spec, Hierarchy):
        h = spec
    elif spec is None:
        numeric = pd.api.types.is_numeric_dtype(values) and not pd.api.types.is_bool_dtype(values)
        h = Hierarchy.ordered(values, name=column) if numeric else Hierarchy.flat(values, name=column)
    elif isinstance(spec, (str, Path)) and str(spec) in ("ordered", "flat"):
        h = Hierarchy.ordered(values, name=column) if str(spec) == "ordered" else Hierarchy.flat(values, name=column)
    elif isinstance(spec, (str, Path)):
        h = Hierarchy.from_arx_csv(spec, name=column)
    elif isinstance(spec, Mapping):
        if len(spec) != 1:
            raise HierarchyError(f"Hierarchy spec for {column!r} must have one key: 'intervals', 'masking' or 'subsets'.")
        (kind, arg), = spec.items()
        if kind == "intervals":
            if isinstance(arg, Mapping):
                h = Hierarchy.intervals(values, arg["levels"], name=column, bottom=arg.get("bottom"), top=arg.get("top"))
            else:
                h = Hierarchy.intervals(values, arg, name=column)
        elif kind == "masking":
            h = Hierarchy.masking(values, name=column, levels=arg)
        elif kind == "subsets":
            h = Hierarchy.from_subsets(_sorted_domain(values), arg, name=column)
        else:
            raise unknown_name("hierarchy kind", str(kind), ["intervals", "masking", "subsets"])
    else:
        raise HierarchyError(f"Cannot build a hierarchy for {column!r} from {type(spec).__name__}.")
    if h.name != column:
        h = h.copy()
        h.name = column
    return h


def read_table(path: str | Path, *, sep: str | None = None) -> pd.DataFrame:
    """Read a CSV or Parquet file with clear errors for missing or malformed files."""
    path = Path(path)
    if not path.exists():
        raise DataError(f"Input file not found: {path}")
    try:
        if path.suffix.lower() in (".parquet", ".pq"):
            return pd.read_parquet(path)
        if sep is None:
            with open(path, encoding="utf-8", errors="replace") as f:
                head = f.readline()
            sep = max([";", ",", "\t", "|"], key=head.count)
        df = pd.read_csv(path, sep=sep, skipinitialspace=True, na_values=["", "?", "NA", "NaN", "nan", "null"], keep_default_na=False)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError, OSError, ValueError) as e:
        raise DataError(f"Cannot read {path}: {e}") from None
    if df.shape[1] < 1 or len(df) == 0:
        raise DataError(f"{path} has no data rows.")
    return df


def _as_list(x: Iterable[str] | str, what: str) -> list[str]:
    if isinstance(x, str):
        return [x]
    try:
        return [str(c) for c in x]
    except TypeError:
        raise DataError(f"{what} must be a list of column names; got {x!r}.") from None


def _unknown_column(c: str, cols: Sequence[str]) -> str:
    import difflib

    close = difflib.get_close_matches(c, list(cols), n=1)
    hint = f" Did you mean {close[0]!r}?" if close else ""
    return f"Column {c!r} is not in the table.{hint} Columns: {', '.join(map(repr, cols))}."


def _sorted_domain(values: pd.Series) -> list:
    """Distinct values sorted; numbers stay numbers and text stays text."""
    from .hierarchy import _sorted_unique

    return _sorted_unique(values)
