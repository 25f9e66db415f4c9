"""Reading a written table back: the check that makes "verified" mean the written file."""

from __future__ import annotations

import io
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd

from ._csvtext import _is_textual

__all__ = ["read_back_check", "table_difference"]


def read_back_check(expected: pd.DataFrame, *, fmt: str, sep: str = ",", target: str | Path | None = None) -> Callable[[Path], None]:
    """A ``check`` for :func:`atomic_write`: read the written file back and compare it with
    ``expected``, the table handed to the writer (for CSV: after formula escaping).

    CSV is read with pandas' C parser (every cell as text; only an empty cell is missing),
    Parquet with pyarrow. The file must have the same column names, the same number of
    rows and the same cells: numbers equal as numbers, text equal as text, missing where
    missing (in CSV an empty text and a missing value are the same cell); other types are
    compared with pandas' own CSV rendering of the column. The comparison is vectorized
    (one pass per column). A mismatch raises :class:`~ktype.exceptions.VerificationError`
    naming the first differing cell; :func:`atomic_write` then discards the file.
    """

    def check(tmp: Path) -> None:
        from ..exceptions import VerificationError

        shown = target if target is not None else tmp
        try:
            if fmt == "parquet":
                got = pd.read_parquet(tmp)
            else:
                got = pd.read_csv(tmp, sep=sep, dtype=str, keep_default_na=False, na_values=[""], compression=None)
        except Exception as e:  # noqa: BLE001 - any reader failure means the file is not the release
            raise VerificationError(f"The written file {shown} cannot be read back ({type(e).__name__}: {e}); "
                                    "it was not kept.") from None
        problem = table_difference(expected, got, csv=fmt != "parquet")
        if problem:
            raise VerificationError(
                f"The written file {shown} does not read back as the verified release: {problem}. It was not kept "
                "(no file was written); please report this as a ktype bug."
            )

    return check


def table_difference(expected: pd.DataFrame, got: pd.DataFrame, *, csv: bool) -> str | None:
    """Why ``got`` (a table read back from a file) differs from ``expected``, or None.

    ``csv``: ``got`` holds text (NaN for empty cells), as :func:`read_back_check` reads a
    CSV file; otherwise typed columns as Parquet gives them back.
    """
    if got.shape != expected.shape:
        return (f"{got.shape[0]:,} rows x {got.shape[1]} columns read back for {expected.shape[0]:,} x "
                f"{expected.shape[1]} written (a cell holding a line break or a delimiter that was not quoted "
                "shifts rows and columns)")
    names_e = [str(c) for c in expected.columns]
    names_g = [str(c) for c in got.columns]
    if names_e != names_g:
        j = next(i for i, (a, b) in enumerate(zip(names_e, names_g)) if a != b)
        return f"column {j + 1} is named {names_g[j]!r} in the file, {names_e[j]!r} in the release"
    for j, name in enumerate(names_e):
        exp, back = expected.iloc[:, j].reset_index(drop=True), got.iloc[:, j].reset_index(drop=True)
        same = _same_cells(exp, back, csv)
        if not same.all():
            i = int(np.flatnonzero(~same)[0])
            return (f"column {name!r}, data row {i + 1}: {exp.iloc[i]!r} written, {back.iloc[i]!r} read back "
                    f"({int((~same).sum()):,} cells differ)")
    return None


def _as_text(s: pd.Series) -> np.ndarray:
    """``s.astype(object).astype(str)`` as an object array, converting each distinct value once
    (the text of a missing cell is not used by the callers). Mixed-type columns take the plain
    path: ``1``, ``1.0`` and ``True`` are one value to a hash table but three texts."""
    if pd.api.types.infer_dtype(s, skipna=True) not in ("string", "empty", "integer"):
        return s.astype(object).astype(str).to_numpy(dtype=object)
    codes, uniques = pd.factorize(s, use_na_sentinel=False)
    text = np.array([str(v) for v in np.asarray(uniques, dtype=object)], dtype=object)
    return text[codes] if len(text) else np.empty(0, dtype=object)


def _same_cells(exp: pd.Series, got: pd.Series, csv: bool) -> np.ndarray:
    """Cell-by-cell equality of a written column and the column read back (vectorized)."""
    na_e = exp.isna().to_numpy(dtype=bool)
    na_g = got.isna().to_numpy(dtype=bool)
    if pd.api.types.is_bool_dtype(exp) or not (
        pd.api.types.is_numeric_dtype(exp) or _is_textual(exp) or not csv
    ):
        # booleans, dates and other types in CSV: the cells as pandas renders this column alone
        exp = pd.read_csv(io.StringIO(exp.to_frame().to_csv(index=False)), dtype=str, keep_default_na=False,
                          na_values=[""]).iloc[:, 0]
        na_e = exp.isna().to_numpy(dtype=bool)
    if pd.api.types.is_numeric_dtype(exp) and not pd.api.types.is_bool_dtype(exp):
        if pd.api.types.is_integer_dtype(exp):  # exact, also beyond 2**53
            e_txt = _as_text(exp)
            g_txt = _as_text(got)
            eq = e_txt == g_txt
        else:
            g_num = pd.to_numeric(got, errors="coerce").to_numpy(dtype=float, na_value=np.nan)
            eq = exp.to_numpy(dtype=float, na_value=np.nan) == g_num
        return (na_e & na_g) | (~na_e & ~na_g & eq)
    e_txt = _as_text(exp)
    g_txt = _as_text(got)
    if csv:  # an empty text cell and a missing value are the same CSV cell
        na_e = na_e | (e_txt == "")
        na_g = na_g | (g_txt == "")
    return (na_e & na_g) | (~na_e & ~na_g & (e_txt == g_txt))
