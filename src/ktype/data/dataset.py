"""The :class:`Dataset`: a table, its attribute roles, and its encoded quasi-identifiers."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ..exceptions import DataError, UnassignedColumnsError
from .builders import build_hierarchy
from .hierarchy import MISSING_LABEL, Hierarchy, value_keys
from .types import _textual

__all__ = ["Dataset", "HierarchySpec", "read_table", "unassigned_message"]

HierarchySpec = Hierarchy | str | Path | Mapping[str, Any] | None

ROLES = ("identifier", "quasi_identifier", "sensitive", "insensitive")
_ROLE_NAMES = {"identifier": "identifier", "quasi-identifier": "quasi_identifier", "sensitive": "sensitive",
               "insensitive": "insensitive"}


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
        Columns explicitly released unchanged. **Every column must have a role**: a column
        that is not named as identifier, quasi-identifier, sensitive or insensitive is an
        error (nothing is published that the user did not assign). Drop columns you do
        not want in the release before building the dataset, or name them identifiers.
    hierarchies : mapping, optional
        Per quasi-identifier (and optionally per sensitive attribute, for hierarchical
        t-closeness): a :class:`Hierarchy`, a path to an ARX hierarchy CSV, ``"ordered"``
        (any interval of the sorted values), ``"flat"`` (value or ``*``), or a mapping
        ``{"intervals": [5, 10, 20]}`` / ``{"masking": [1, 2]}``. Default: ``"ordered"``
        for numeric columns, ``"flat"`` otherwise.
    name : str, optional
        A name for reports.
    types : mapping or str, optional
        Declared column types ``{"zip": "text", "age": "int", "admission": "date"}`` (or
        ``"zip=text,age=int"``); see :mod:`ktype.data.types`. A column with a ``"dates"``
        hierarchy is read as dates.
    missing : mapping or str, optional
        Missing-value policy per quasi-identifier / sensitive column (or one policy for
        all): ``"error"`` (default), ``"category"`` (the value ``(missing)``, its own leaf in
        the hierarchy) or ``"suppress"`` (the record is suppressed, counted against the
        algorithm's ``max_suppression``).

    Raises
    ------
    DataError
        Unknown column, a column given two roles, a column with no role, missing values in
        a QI or sensitive column, or an empty table.
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

    def __init__(  # noqa: C901, PLR0912, PLR0915
        self,
        data: pd.DataFrame,
        *,
        quasi_identifiers: Sequence[str],
        sensitive: Sequence[str] = (),
        identifiers: Sequence[str] = (),
        insensitive: Sequence[str] | None = None,
        hierarchies: Mapping[str, HierarchySpec] | None = None,
        name: str | None = None,
        types: Mapping[str, str] | Sequence[str] | str | None = None,
        missing: Mapping[str, str] | str | None = None,
    ) -> None:
        from .types import apply_types, where

        if not isinstance(data, pd.DataFrame):
            raise DataError(f"Dataset needs a pandas DataFrame; got {type(data).__name__}.")
        self.name = name or "dataset"
        cols = [str(c) for c in data.columns]
        if len(set(cols)) != len(cols):
            dup = pd.Index(cols)[pd.Index(cols).duplicated()][0]
            raise DataError(f"Column {dup!r} appears twice in the table.")
        first_line = data.attrs.get("ktype_first_line")
        source = data.attrs.get("ktype_source_path")
        data = data.copy()
        data.columns = cols
        data = apply_types(data, types, first_line=first_line)
        hierarchies = dict(hierarchies or {})
        for c, spec in hierarchies.items():  # a date hierarchy implies the date type
            if c in cols and _is_date_spec(spec) and not pd.api.types.is_datetime64_any_dtype(data[c]):
                data[c] = apply_types(data[[c]], {c: "date"}, first_line=first_line)[c]
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
        insensitive = [] if insensitive is None else _as_list(insensitive, "insensitive")
        for c in insensitive:
            if c in seen:
                raise DataError(f"Column {c!r} is given two roles ({seen[c]} and insensitive); give it one.")
            seen[c] = "insensitive"
        if not quasi_identifiers:
            raise DataError("Name at least one quasi-identifier column (quasi_identifiers=[...]).")
        if len(data) == 0:
            raise DataError("The table is empty; there is nothing to anonymize.")
        policies = _missing_policies(missing, quasi_identifiers + sensitive)
        forced = np.zeros(len(data), dtype=bool)
        for c in quasi_identifiers + sensitive:
            na = data[c].isna().to_numpy()
            if not na.any():
                continue
            policy = policies.get(c, "error")
            if policy == "error":
                rows = np.flatnonzero(na)
                raise DataError(
                    f"Column {c!r} has {len(rows)} missing value(s) (first at {where(int(rows[0]), first_line)}); "
                    f"drop or impute them, or choose a policy: missing={{{c!r}: 'category'}} or 'suppress' "
                    f"(command line: --missing {c}=category)."
                )
            # both policies publish the record under a "missing" value of the column's domain;
            # "suppress" also removes the record from the release (see Dataset.forced_suppression)
            data[c] = data[c].astype(object).where(~na, MISSING_LABEL)
            if policy == "suppress":
                forced |= na
        self.missing_policies = policies
        self.forced_suppression = forced
        self.forced_suppression.setflags(write=False)
        self.first_line = first_line
        #: the files this dataset was read from (the table, hierarchy CSVs), where known:
        #: ``Release.save`` refuses to write over them
        self.source_files: tuple[Path, ...] = tuple(
            [Path(source)] if source else []) + tuple(
            Path(spec).absolute() for spec in hierarchies.values()
            if isinstance(spec, (str, Path)) and str(spec) not in ("ordered", "flat", "dates")
            and not str(spec).startswith("dates:") and Path(spec).is_file())
        self.data = data.reset_index(drop=True)
        self.quasi_identifiers = quasi_identifiers
        self.sensitive = sensitive
        self.identifiers = identifiers
        self.insensitive = list(insensitive)
        for c in hierarchies:
            if c not in quasi_identifiers and c not in sensitive:
                raise DataError(f"A hierarchy is given for {c!r}, which is not a quasi-identifier or sensitive column.")
        self.hierarchies: list[Hierarchy] = [
            build_hierarchy(c, hierarchies.get(c), self.data[c]) for c in quasi_identifiers
        ]
        self.X = np.empty((len(self.data), len(quasi_identifiers)), dtype=np.int32)
        for j, (c, h) in enumerate(zip(quasi_identifiers, self.hierarchies)):
            self.X[:, j] = h.encode(self.data[c], first_line=first_line)
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
                codes = h.encode(self.data[c], first_line=first_line)
                values = list(h.leaves)
            else:
                values = _sorted_domain(self.data[c])
                fc, uniq = pd.factorize(self.data[c])
                codes = pd.Index(value_keys(values)).get_indexer(value_keys(uniq))[fc].astype(np.int32)
            codes.setflags(write=False)
            self.sensitive_codes[c] = codes
            self.sensitive_values[c] = values
        # last, so that errors in the data and hierarchies are reported first
        unassigned = [c for c in cols if c not in seen]
        if unassigned:
            raise UnassignedColumnsError(unassigned_message(unassigned), unassigned, self.data[unassigned])
        #: role of every input column, in table order
        self.roles: dict[str, str] = {c: _ROLE_NAMES[seen[c]] for c in cols}

    # ------------------------------------------------------------------ constructors
    @classmethod
    def from_csv(
        cls, path: str | Path, *, sep: str | None = None, types: Any = None, na_values: Any = None,
        encoding: str | None = None, **roles: Any
    ) -> Dataset:
        """Read a CSV (separator sniffed when ``sep`` is None; see :func:`read_table` for
        types and ``na_values``) and assign roles."""
        return cls(read_table(path, sep=sep, types=types, na_values=na_values, encoding=encoding),
                   name=Path(path).stem, **roles)

    @classmethod
    def from_parquet(cls, path: str | Path, *, types: Any = None, na_values: Any = None, **roles: Any) -> Dataset:
        """Read a Parquet file and assign roles."""
        return cls(read_table(path, types=types, na_values=na_values), name=Path(path).stem, **roles)

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
        forced = getattr(self, "forced_suppression", None)
        if forced is not None:
            new.forced_suppression = forced[rows].copy()
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


def read_table(
    path: str | Path,
    *,
    sep: str | None = None,
    types: Mapping[str, str] | Sequence[str] | str | None = None,
    na_values: Sequence[str] | str | None = None,
    infer: bool = True,
    encoding: str | None = None,
) -> pd.DataFrame:
    """Read a CSV or Parquet file without guessing away data.

    CSV cells are read as text; a column becomes numeric only when declared (``types``) or
    unambiguously numeric (see :mod:`ktype.data.types`): ZIP ``02139`` keeps its zero.
    Only empty or blank cells are missing, plus the strings in ``na_values`` (``NA`` is
    Namibia unless you say otherwise). A duplicate column name is an error. The frame's
    ``attrs["ktype_first_line"]`` finds the file line of a record for messages (1-based),
    when one is needed (:class:`~ktype.data.types.RecordLines`). ``infer=False`` keeps every
    undeclared CSV column as text (how ``check`` reads a release back). ``encoding`` is the
    CSV file's text encoding (default UTF-8; e.g. ``latin-1``, ``cp1252``).
    """
    from ..io._files import normalize_sep
    from .types import RecordLines, apply_types

    sep = normalize_sep(sep)
    enc = encoding or "utf-8"
    try:
        import codecs

        codecs.lookup(enc)
    except LookupError:
        raise DataError(f"Unknown encoding {enc!r}; use e.g. utf-8, latin-1 or cp1252.") from None
    path = Path(path)
    if not path.exists():
        raise DataError(f"Input file not found: {path}")
    if path.is_dir():
        raise DataError(f"Input {path} is a directory, not a table file.")
    if isinstance(na_values, str):
        na_values = [x.strip() for x in na_values.split(",")]
    na = [str(v) for v in (na_values or [])]
    try:
        if path.suffix.lower() in (".parquet", ".pq"):
            import pyarrow.parquet as pq

            names = [str(n) for n in pq.read_schema(path).names if not str(n).startswith("__index_level_")]
            _refuse_duplicate_names(names, path)
            df = pd.read_parquet(path)
            if na:
                for c in df.columns:
                    if _textual(df[c]):
                        df[c] = df[c].where(~df[c].isin(na))
            first_line = None
            df = apply_types(df, types, infer=False)
        else:
            if sep is None:
                with open(path, encoding=enc, errors="replace") as f:
                    head = f.readline()
                sep = max([";", ",", "\t", "|"], key=head.count)
            import csv

            with open(path, encoding=enc, newline="") as f:
                header = next(csv.reader(f, delimiter=sep, skipinitialspace=True), [])
            _refuse_duplicate_names([h.strip() for h in header], path)
            from ._arrowcsv import read_csv_exact

            df = read_csv_exact(path, sep, header, na, enc)  # pyarrow, where it reads as pandas does
            if df is None:
                df = pd.read_csv(path, sep=sep, skipinitialspace=True, dtype=str, keep_default_na=False,
                                 na_values=[""] + na, encoding=enc)
            df.columns = [str(c).strip() for c in df.columns]
            for c in df.columns:
                df[c] = df[c].where(df[c].str.strip() != "")  # blank cells are missing too
            first_line = RecordLines(path, len(df))
            df = apply_types(df, types, infer=infer, first_line=first_line)
    except UnicodeDecodeError as e:
        raise DataError(f"Cannot read {path} as {enc}: {e.reason} at byte {e.start}. Give its encoding, "
                        "e.g. --encoding latin-1 (config: encoding: latin-1).") from None
    except (pd.errors.ParserError, pd.errors.EmptyDataError, OSError) as e:
        raise DataError(f"Cannot read {path}: {e}") from None
    except ValueError as e:
        if isinstance(e, DataError):
            raise
        raise DataError(f"Cannot read {path}: {e}") from None
    if df.shape[1] < 1 or len(df) == 0:
        raise DataError(f"{path} has no data rows.")
    df.attrs["ktype_first_line"] = first_line
    df.attrs["ktype_source_path"] = str(path.absolute())  # Release.save never writes over the input
    return df


def _refuse_duplicate_names(names: Sequence[str], path: Path) -> None:
    seen: dict[str, int] = {}
    for i, n in enumerate(names):
        if n in seen:
            raise DataError(
                f"Column {n!r} appears twice in the header of {path} (columns {seen[n] + 1} and {i + 1}); "
                "rename one of them."
            )
        seen[n] = i


MISSING_POLICIES = ("error", "category", "suppress")


def _missing_policies(missing: Mapping[str, str] | str | None, columns: Sequence[str]) -> dict[str, str]:
    """Per-column missing-value policy from a mapping, one policy for all, or ``"age=category,..."``."""
    if missing is None:
        return {}
    if isinstance(missing, str) and "=" not in missing:
        missing = {c: missing for c in columns}
    elif isinstance(missing, str):
        missing = dict(part.split("=", 1) for part in missing.split(",") if part.strip())
    out = {}
    for c, p in missing.items():
        c, p = str(c).strip(), str(p).strip().lower()
        if p not in MISSING_POLICIES:
            raise DataError(f"Unknown missing-value policy {p!r} for column {c!r}; use error, category or suppress.")
        if c not in columns:
            raise DataError(f"A missing-value policy is given for {c!r}, which is not a quasi-identifier or sensitive column.")
        out[c] = p
    return out


def _is_date_spec(spec: Any) -> bool:
    if isinstance(spec, Mapping):
        return len(spec) == 1 and next(iter(spec)) == "dates"
    return isinstance(spec, str) and (spec == "dates" or spec.startswith("dates:"))


#: how many unassigned columns the error names
MAX_NAMED = 10


def unassigned_message(columns: Sequence[str]) -> str:
    """The error for input columns that have no role (they would be published unprotected).

    Names at most :data:`MAX_NAMED` columns and says how many more (a 996-column table must not
    bury the advice); ``UnassignedColumnsError.columns`` keeps them all.
    """
    listing = ", ".join(map(repr, columns[:MAX_NAMED]))
    if len(columns) > MAX_NAMED:
        listing += f" … and {len(columns) - MAX_NAMED} more ({len(columns)} in all)"
    return (
        f"Column(s) {listing} have no role, so ktype does not know whether it may publish them. Give every "
        "column a role: identifier (removed from the release), quasi-identifier (generalized), sensitive "
        "(released unchanged, protected by ℓ-diversity / t-closeness) or insensitive (released unchanged, "
        "unprotected). Command line: --identifier COL, --qi COL, --sensitive COL or --insensitive COL "
        "(config file: identifier:, qi:, sensitive:, keep:). Python: Dataset(..., identifiers=[...], "
        "insensitive=[...]), or drop the columns from the table."
    )


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
    from ._values import _sorted_unique

    return _sorted_unique(values)
