"""HIPAA Safe Harbor identifier hints: columns that look like direct identifiers.

The HIPAA Privacy Rule's Safe Harbor method (45 CFR 164.514(b)(2)) lists 18 identifiers
that must be removed; among them names, geographic units smaller than a state (ZIP codes
beyond their first three digits), all elements of dates (except the year) directly related
to a person, telephone and fax numbers, e-mail addresses, social security numbers, medical
record, health plan, account, certificate and licence numbers, vehicle and device
identifiers, URLs and IP addresses. ARX flags candidate columns from their names and
values (``risk/hipaa``); :func:`identifier_hints` does the same, as **advice**: a hint
says "this column looks like X, declare it an identifier or generalize it", never more.

Checks (vectorized over a sample of at most ``sample`` non-missing values per column):

* **name**: the column name (lower-cased, split at non-letters) contains a telling word
  (``ssn``, ``email``, ``phone``, ``zip``, ``birth``, ``mrn``, ``name``, …);
* **values**: at least ``min_share`` of the sampled values match a pattern (SSN
  ``123-45-6789``, e-mail, phone numbers with 10+ digits, IPv4 addresses, URLs, exact dates
  ``2024-01-31``/``01/31/2024`` or a datetime column, 5-digit ZIP codes ``12345[-6789]``,
  "First Last" personal names) — a ZIP column generalized to three digits (``123**``) is
  not flagged;
* **record numbers**: every value distinct (integers or codes), i.e. the column is a key.

References
----------
.. [1] U.S. Department of Health and Human Services. Guidance Regarding Methods for
   De-identification of Protected Health Information in Accordance with the HIPAA
   Privacy Rule, 2012 (§2, Safe Harbor identifiers (A)–(R)).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .._validation import Interval, check_params
from ..exceptions import DataError, UnassignedColumnsError

__all__ = ["IdentifierHint", "identifier_hints", "with_identifier_hints"]


@dataclass(frozen=True)
class IdentifierHint:
    """One hint: ``column`` looks like a ``category`` identifier because of ``reason``.

    ``evidence`` is ``"name"``, ``"values"`` or ``"distinct"``; ``share`` the fraction of
    sampled values that matched (1.0 for name hints).
    """

    column: str
    category: str
    evidence: str
    reason: str
    share: float = 1.0

    def __str__(self) -> str:
        return f"{self.column!r} looks like {self.category} ({self.reason})"


# word -> category; matched against the tokens of the column name (and their concatenation)
_NAME_WORDS: list[tuple[tuple[str, ...], str]] = [
    (("ssn", "socialsecurity", "sozialversicherungsnummer"), "a social security number"),
    (("email", "mail", "emailaddress"), "an e-mail address"),
    (("phone", "telephone", "tel", "mobile", "cell", "fax", "phonenumber"), "a telephone or fax number"),
    (("zip", "zipcode", "postcode", "postal", "postalcode", "plz"), "a ZIP code"),
    (("street", "address", "city", "county", "town"), "a geographic unit smaller than a state"),
    (("birth", "dob", "birthdate", "dateofbirth", "birthday", "admission", "discharge", "death", "deceased"),
     "an exact date"),
    (("mrn", "medicalrecord", "record", "patientid", "account", "acct", "beneficiary", "healthplan",
      "certificate", "license", "licence", "serial", "vin", "device", "passport", "iban"), "a record or account number"),
    (("name", "firstname", "lastname", "surname", "fullname", "forename", "givenname"), "a personal name"),
    (("ip", "ipaddress"), "an IP address"),
    (("url", "website", "homepage"), "a URL"),
    (("fingerprint", "biometric", "photo", "face", "image"), "a biometric identifier or photograph"),
]

_VALUE_PATTERNS: list[tuple[str, re.Pattern[str]]] = [
    ("a social security number", re.compile(r"\d{3}-\d{2}-\d{4}")),
    ("an e-mail address", re.compile(r"[^@\s]+@[^@\s]+\.[A-Za-z]{2,}")),
    ("an IP address", re.compile(r"(?:\d{1,3}\.){3}\d{1,3}")),
    ("a URL", re.compile(r"(?:https?://|www\.)\S+", re.IGNORECASE)),
    ("an exact date", re.compile(r"\d{4}-\d{1,2}-\d{1,2}(?:[ T]\d{1,2}:\d{2}(?::\d{2})?)?|\d{1,2}[/.]\d{1,2}[/.]\d{2,4}")),
    ("a ZIP code", re.compile(r"\d{5}(?:-\d{4})?")),
    ("a telephone or fax number", re.compile(r"\+?[\d][\d ().-]{8,}\d")),
    ("a personal name", re.compile(r"[A-Z][a-z]+(?:[ '-][A-Z][a-z]+){1,2}|[A-Z][a-z]+, [A-Z][a-z]+")),
]


def _tokens(name: str) -> set[str]:
    parts = [p for p in re.split(r"[^a-z0-9]+", re.sub(r"([a-z])([A-Z])", r"\1 \2", str(name)).lower()) if p]
    return set(parts) | {"".join(parts)}


#: a day-level date as written in a table or a released label (2022-01-13, 13/01/2022, 1/13/22)
_DAY_DATE = r"\d{4}-\d{1,2}-\d{1,2}|\d{1,2}[/.]\d{1,2}[/.]\d{2,4}"


def identifier_hints(df: pd.DataFrame, *, sample: int = 1000, min_share: float = 0.8) -> list[IdentifierHint]:
    """Columns of ``df`` that look like HIPAA Safe Harbor direct identifiers.

    Parameters
    ----------
    df : pandas.DataFrame
        The table (any roles; nothing is modified).
    sample : int, default 1000
        Values checked per column (the first ``sample`` non-missing ones; deterministic).
    min_share : float, default 0.8
        Share of checked values that must match a pattern for a value hint.

    Returns
    -------
    list of IdentifierHint
        At most one name hint and one value hint per column, in column order.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"contact": ["a@b.org", "c@d.com"], "age": [30, 40]})
    >>> [str(h) for h in identifier_hints(df)]
    ["'contact' looks like an e-mail address (2 of 2 sampled values match)"]
    """
    if not isinstance(df, pd.DataFrame):
        raise DataError(f"identifier_hints needs a pandas DataFrame; got {type(df).__name__}.")
    check_params("identifier_hints", {"sample": sample, "min_share": min_share},
                 {"sample": [Interval(int, 1, None, closed="left")], "min_share": [Interval(float, 0, 1, closed="right")]})
    hints: list[IdentifierHint] = []
    for col in df.columns:
        name = str(col)
        toks = _tokens(name)
        s = df[col]
        vals = s.dropna()
        for words, cat in _NAME_WORDS:
            hit = next((w for w in words if w in toks), None)
            if hit is not None:
                if cat == "a ZIP code" and len(vals) and _max_digits(vals.iloc[:sample]) <= 3:
                    break  # already generalized to at most three digits: allowed by Safe Harbor
                if cat == "an exact date" and len(vals) and not pd.api.types.is_datetime64_any_dtype(s) \
                        and not vals.iloc[:sample].astype(str).str.contains(_DAY_DATE).any():
                    break  # no day-level date left (a year, '*'): allowed by Safe Harbor
                hints.append(IdentifierHint(name, cat, "name", f"column name contains {hit!r}"))
                break
        if pd.api.types.is_datetime64_any_dtype(s):
            if len(vals):
                hints.append(IdentifierHint(name, "an exact date", "values", "a datetime column"))
            continue
        head = vals.iloc[:sample]
        if len(head) == 0:
            continue
        is_text = not pd.api.types.is_numeric_dtype(s) or pd.api.types.is_bool_dtype(s)
        if is_text:
            text = head.astype(str).str.strip()
            found = False
            for cat, pat in _VALUE_PATTERNS:
                hit_mask = text.str.fullmatch(pat).to_numpy(dtype=bool)
                share = float(hit_mask.mean())
                if share >= min_share:
                    if cat == "a personal name" and head.nunique() < 0.5 * len(head):
                        continue  # few distinct capitalized words: a category ("New York"), not names
                    hints.append(IdentifierHint(name, cat, "values", f"{int(hit_mask.sum())} of {len(head)} sampled values match", share))
                    found = True
                    break
            if found:
                continue
        # a key: every value distinct (integers or codes, not measurements)
        integral = is_text or pd.api.types.is_integer_dtype(s)
        if integral and len(vals) >= 20 and vals.nunique() == len(vals):
            if not (is_text and _looks_free_text(head)):
                hints.append(IdentifierHint(name, "a record number or key", "distinct", f"all {len(vals)} values are distinct"))
    return hints


def _max_digits(values: pd.Series) -> int:
    return int(values.astype(str).str.count(r"\d").max())


def _looks_free_text(values: pd.Series) -> bool:
    lengths = values.astype(str).str.len().to_numpy()
    return bool(np.median(lengths) > 40)


def with_identifier_hints(error: UnassignedColumnsError) -> UnassignedColumnsError:
    """The same error, its message followed by the HIPAA hints for the unassigned columns.

    Columns that look like direct identifiers (names, SSNs, e-mails, ...) are most likely meant to be
    removed with ``--identifier``; the hint says why. Without such columns the error is returned as is.
    """
    frame = error.frame
    if not isinstance(frame, pd.DataFrame):
        return error
    hints = identifier_hints(frame)
    if not hints:
        return error
    advice = "".join(f"\n  hint: {h}: remove it (--identifier {h.column}) or generalize it (--qi {h.column})" for h in hints)
    return UnassignedColumnsError(f"{error}{advice}", error.columns, frame)
