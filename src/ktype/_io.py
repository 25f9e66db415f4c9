"""Safe file output: a file is written completely or not at all, and never through a trap.

* **Atomic.** The content goes to an *anonymous* file in the target directory (Linux
  ``O_TMPFILE``), which is given a name only once it is complete and synced, then renamed
  over the target. A crash or ``SIGKILL`` before that leaves nothing behind: an anonymous
  file vanishes with its process. Where ``O_TMPFILE`` is unavailable the content goes to
  a *visible* temporary ``NAME.ktype-partial-PID.tmp`` beside the target, removed on
  failure, and removed by the next write to the same target if a killed run left it.
* **No traps.** :func:`check_output_path` refuses a symbolic link, a FIFO, a device, a
  socket or a directory at the output path, an output that is one of the inputs or another
  output of the same run, an existing file unless ``force``, and a missing parent directory
  unless ``mkdirs``; each with a message saying what to do.
* **Formats** follow the extension (``.csv``, ``.tsv``, ``.parquet``/``.pq``) or an explicit
  ``format``; an unknown extension (``.xlsx``) is an error, never CSV text in disguise.
* **Spreadsheet-safe CSV.** :func:`escape_csv_cells` neutralizes text cells a spreadsheet
  would evaluate as a formula (OWASP "CSV injection"): a text value starting with ``=``,
  ``+``, ``-``, ``@``, tab or carriage return, or with ``'`` itself, gets a leading ``'``;
  numbers (``-5``, ``+1.5e3``) are left alone. :func:`unescape_csv_cells` reverses it.
* **Line breaks are quoted.** A CSV cell (or column name) holding a character that some
  CSV reader takes for the end of a row is written inside double quotes
  (:func:`csv_text`): carriage return and line feed (pandas and Python's :mod:`csv` end a
  row at a bare ``\\r``, which :meth:`pandas.DataFrame.to_csv` leaves unquoted) and the other
  separators of :meth:`str.splitlines` (``\\v``, ``\\f``, ``\\x1c``-``\\x1e``, ``\\x85``,
  ``\\u2028``, ``\\u2029``), which readers that split the text into lines first break on.

Length: one write path — output-path safety, atomic replacement, formula escaping, line-break
quoting and the read-back comparison that makes "verified" mean the written file — whose pieces are
only correct together.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import io
import os
import re
import stat
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path

import numpy as np
import pandas as pd

from .exceptions import DataError, OutputError, OutputPathError

__all__ = [
    "atomic_write",
    "atomic_write_text",
    "check_output_path",
    "output_format",
    "write_table",
    "csv_text",
    "normalize_sep",
    "read_back_check",
    "escape_csv_cells",
    "unescape_csv_cells",
    "FORMATS",
    "LINE_BREAKS",
]

FORMATS = {".csv": "csv", ".tsv": "csv", ".txt": "csv", ".parquet": "parquet", ".pq": "parquet", ".json": "json"}
_PARTIAL = ".ktype-partial-"
_AT_FDCWD = -100
_AT_SYMLINK_FOLLOW = 0x400


# ---------------------------------------------------------------------- path checks
def _kind(st: os.stat_result) -> str:
    mode = st.st_mode
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def _same(a: Path, b: Path) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return os.path.abspath(a) == os.path.abspath(b)


def check_output_path(
    path: str | Path,
    *,
    what: str = "output",
    inputs: Iterable[str | Path | None] = (),
    others: Mapping[str, str | Path | None] | None = None,
    force: bool = False,
    mkdirs: bool = False,
) -> Path:
    """Refuse an output path that would destroy data or cannot be written.

    Parameters
    ----------
    path : path
        Where the file will go.
    what : str
        Its role in messages (``"output"``, ``"summary"``, ``"metadata sidecar"``).
    inputs : paths
        Files the run reads; writing over one of them is always refused.
    others : mapping of role -> path
        The run's other outputs; two outputs on one path are refused.
    force : bool
        Replace an existing regular file (otherwise refused).
    mkdirs : bool
        Create a missing parent directory (otherwise refused).

    Raises
    ------
    OutputPathError
        With a message naming the path and the fix.
    """
    path = Path(path)
    for src in inputs:
        if src is not None and Path(src).exists() and path.exists() and _same(path, Path(src)):
            raise OutputPathError(f"The {what} {path} is the input file {src}; refusing to overwrite the original. Choose another path.")
        if src is not None and os.path.abspath(path) == os.path.abspath(src):
            raise OutputPathError(f"The {what} {path} is the input file; refusing to overwrite the original. Choose another path.")
    for role, other in (others or {}).items():
        if other is not None and (os.path.abspath(path) == os.path.abspath(other) or (path.exists() and Path(other).exists() and _same(path, Path(other)))):
            raise OutputPathError(f"The {what} and the {role} are the same file ({path}); give them different paths.")
    if path.is_symlink():
        raise OutputPathError(
            f"The {what} {path} is a symbolic link; ktype does not write through links. Remove the link or choose another path."
        )
    if path.exists():
        st = path.stat()
        if not stat.S_ISREG(st.st_mode):
            raise OutputPathError(f"The {what} {path} is {_kind(st)}, not a regular file; choose a file path.")
        if not force:
            raise OutputPathError(f"The {what} {path} already exists; pass --force to replace it.")
        if not os.access(path, os.W_OK):
            raise OutputPathError(f"The {what} {path} is not writable (permission denied).")
    parent = path.parent if str(path.parent) else Path(".")
    _check_parent(parent, what, path, mkdirs)
    return path


def _check_parent(parent: Path, what: str, path: Path, mkdirs: bool) -> None:
    # walk up to the first existing ancestor: it must be a directory
    anc = parent
    while not anc.exists() and anc != anc.parent:
        if anc.is_symlink():  # dangling link
            raise OutputPathError(f"The directory {anc} of the {what} {path} is a dangling symbolic link.")
        anc = anc.parent
    if not anc.is_dir():
        raise OutputPathError(f"Cannot write the {what} {path}: {anc} is a file, not a directory.")
    if anc != parent:
        if not mkdirs:
            raise OutputPathError(
                f"The directory {parent} of the {what} {path} does not exist; create it or pass --mkdirs."
            )
        if not os.access(anc, os.W_OK | os.X_OK):
            raise OutputPathError(f"Cannot create directory {parent} for the {what}: {anc} is not writable (permission denied).")
        return
    if not os.access(parent, os.W_OK | os.X_OK):
        raise OutputPathError(f"Cannot write the {what} {path}: directory {parent} is not writable (permission denied).")


def output_format(path: str | Path, explicit: str | None = None) -> str:
    """``"csv"`` or ``"parquet"`` from an explicit ``format`` or from the extension."""
    if explicit is not None:
        fmt = str(explicit).lower().lstrip(".")
        if fmt not in ("csv", "parquet"):
            raise OutputPathError(f"Unknown output format {explicit!r}; use csv or parquet.")
        return fmt
    suffix = Path(path).suffix.lower()
    fmt = FORMATS.get(suffix)
    if fmt in ("csv", "parquet"):
        return fmt
    shown = suffix or "(no extension)"
    raise OutputPathError(
        f"Cannot tell the format of {path}: extension {shown} is not supported. Use .csv, .tsv or .parquet, "
        "or name the format with --format csv|parquet."
    )


# ---------------------------------------------------------------------- atomic writing
def _anonymous_file(directory: Path, mode: int) -> int | None:
    """An unnamed file in ``directory`` (Linux ``O_TMPFILE``), or None where unsupported."""
    flag = getattr(os, "O_TMPFILE", None)
    if flag is None:
        return None
    try:
        return os.open(directory, flag | os.O_WRONLY | getattr(os, "O_CLOEXEC", 0), mode)
    except OSError:
        return None


def _link_fd(fd: int, dest: Path) -> bool:
    """Give an ``O_TMPFILE`` file a name (``linkat`` with ``AT_SYMLINK_FOLLOW`` through /proc)."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        rc = libc.linkat(_AT_FDCWD, f"/proc/self/fd/{fd}".encode(), _AT_FDCWD, os.fsencode(dest), _AT_SYMLINK_FOLLOW)
    except (OSError, AttributeError):
        return False
    if rc != 0:
        err = ctypes.get_errno()
        if err in (errno.ENOENT, errno.EXDEV, errno.EPERM, errno.ENOSYS, errno.EOPNOTSUPP, errno.EINVAL):
            return False
        raise OutputError(err, os.strerror(err), str(dest))
    return True


def _clean_stale(path: Path) -> None:
    """Remove ``NAME.ktype-partial-PID*.tmp`` files a killed earlier run left beside ``path``."""
    prefix = path.name + _PARTIAL
    try:
        entries = list(path.parent.iterdir())
    except OSError:
        return
    for p in entries:
        if not (p.name.startswith(prefix) and p.name.endswith(".tmp")):
            continue
        pid_txt = p.name[len(prefix):].split(".", 1)[0].split("-", 1)[0]
        if pid_txt.isdigit() and int(pid_txt) != os.getpid() and _alive(int(pid_txt)):
            continue  # another run is writing it right now
        with contextlib.suppress(OSError):
            if p.is_file() and not p.is_symlink():
                p.unlink()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def atomic_write(
    path: Path, writer: Callable[[Path], None], *, mkdirs: bool = True, check: Callable[[Path], None] | None = None
) -> None:
    """Call ``writer(tmp)`` on a temporary file in ``path``'s directory, then move it into place.

    If ``writer`` raises (or the process is killed), ``path`` is untouched and no temporary
    file remains (see the module docstring). A symbolic link, FIFO, device or directory at
    ``path`` is refused rather than replaced. ``mkdirs`` creates a missing parent directory
    (the Python API default; the command line asks for ``--mkdirs``). ``check(tmp)``, if
    given, runs on the complete, synced temporary file before it is moved into place (e.g.
    :func:`read_back_check`); if it raises, the file is discarded like a failed write.
    """
    path = Path(path)
    if path.is_symlink() or (path.exists() and not path.is_file()):
        check_output_path(path, force=True, mkdirs=True)  # raises with the right message
    parent = path.parent
    if mkdirs:
        try:
            parent.mkdir(parents=True, exist_ok=True)
        except (FileExistsError, NotADirectoryError):
            raise OutputPathError(f"Cannot write {path}: a parent of it is a file, not a directory.") from None
    elif not parent.is_dir():
        raise OutputPathError(f"The directory {parent} of {path} does not exist; create it or pass --mkdirs.")
    _clean_stale(path)
    umask = os.umask(0)
    os.umask(umask)
    mode = 0o666 & ~umask
    fd = _anonymous_file(parent, mode)
    if fd is not None:
        try:
            writer(Path(f"/proc/self/fd/{fd}"))
            os.fsync(fd)
            if check is not None:
                check(Path(f"/proc/self/fd/{fd}"))
            named = _named_temp(path)
            if _link_fd(fd, named):
                try:
                    os.replace(named, path)
                except BaseException:
                    named.unlink(missing_ok=True)
                    raise
                _sync_dir(parent)
                return
        finally:
            os.close(fd)
        # linking an anonymous file is not allowed here: fall through to a named temporary
    tmp = _named_temp(path)
    try:
        fd2 = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0), mode)
        os.close(fd2)
        writer(tmp)
        with open(tmp, "rb+") as f:
            os.fsync(f.fileno())
        if check is not None:
            check(tmp)
        os.replace(tmp, path)
        _sync_dir(parent)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def _named_temp(path: Path) -> Path:
    return path.with_name(f"{path.name}{_PARTIAL}{os.getpid()}-{os.urandom(4).hex()}.tmp")


def _sync_dir(directory: Path) -> None:
    with contextlib.suppress(OSError):
        dfd = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(dfd)
        finally:
            os.close(dfd)


def atomic_write_text(path: Path, text: str, *, mkdirs: bool = True) -> None:
    """Write ``text`` to ``path`` atomically (UTF-8)."""
    atomic_write(path, lambda p: p.write_text(text, encoding="utf-8"), mkdirs=mkdirs)


# ---------------------------------------------------------------------- tables
_NUMBER = re.compile(r"^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$")
_TRIGGERS = ("=", "+", "-", "@", "\t", "\r", "'")


def _escape_series(s: pd.Series) -> pd.Series:
    """Judged once per distinct value (a release has few), then mapped back to the cells."""
    codes, uniques = pd.factorize(s, use_na_sentinel=True)
    uniq = pd.Series(np.asarray(uniques, dtype=object), dtype=object)
    is_text = uniq.map(lambda v: isinstance(v, str)).to_numpy(dtype=bool)
    if not is_text.any():
        return s
    txt = uniq[is_text].astype(str)
    risky_u = np.zeros(len(uniq), dtype=bool)
    risky_u[is_text] = (txt.str.startswith(_TRIGGERS) & ~txt.str.match(_NUMBER)).to_numpy(dtype=bool)
    if not risky_u.any():
        return s
    risky = np.zeros(len(s), dtype=bool)
    present = codes >= 0
    risky[present] = risky_u[codes[present]]
    out = s.astype(object).copy()
    escaped = np.asarray(uniques, dtype=object).copy()
    escaped[risky_u] = ["'" + str(v) for v in escaped[risky_u]]
    out.iloc[np.flatnonzero(risky)] = escaped[codes[risky]]
    return out


def escape_csv_cells(df: pd.DataFrame) -> pd.DataFrame:
    """Neutralize text cells a spreadsheet would evaluate (OWASP CSV-injection rule).

    A text cell starting with ``=``, ``+``, ``-``, ``@``, tab, carriage return, or ``'``
    gets one leading ``'``, unless it is a plain number (``-5``, ``+1.5e3``). Numeric
    columns are never touched. :func:`unescape_csv_cells` is the inverse.

    >>> escape_csv_cells(pd.DataFrame({"a": ["=1+2", "-5", "@x", "ok"]}))["a"].tolist()
    ["'=1+2", '-5', "'@x", 'ok']
    """
    cols = {}
    for c in df.columns:
        s = df[c]
        cols[c] = _escape_series(s) if s.dtype == object or pd.api.types.is_string_dtype(s) else s
    return pd.DataFrame(cols, index=df.index)


def unescape_csv_cells(df: pd.DataFrame) -> pd.DataFrame:
    """Undo :func:`escape_csv_cells` on a table read back from a CSV release."""
    cols = {}
    for c in df.columns:
        s = df[c]
        if s.dtype == object or pd.api.types.is_string_dtype(s):
            is_text = s.map(lambda v: isinstance(v, str)).to_numpy(dtype=bool)
            esc = np.zeros(len(s), dtype=bool)
            if is_text.any():
                txt = s[is_text].astype(str)
                esc[is_text] = (txt.str.startswith("'") & txt.str[1:2].isin(list(_TRIGGERS))).to_numpy()
            if esc.any():
                s = s.astype(object).copy()
                s[esc] = s[esc].str[1:]
        cols[c] = s
    return pd.DataFrame(cols, index=df.index)


#: characters some CSV reader ends a row at: ``\r`` and ``\n`` (pandas, Python's csv module)
#: and the other line separators of ``str.splitlines``; a cell holding one is always quoted
LINE_BREAKS = "\r\n\v\f\x1c\x1d\x1e\x85\u2028\u2029"
_LINE_BREAK_CLASS = "[" + "".join(f"\\x{ord(ch):02x}" if ord(ch) < 256 else f"\\u{ord(ch):04x}" for ch in LINE_BREAKS) + "]"
#: letters a quoting placeholder is made of (never quoted by the csv writer, never in a number)
_NONCE_LETTERS = "ghijklmnopqrstuvwxyz"


def _is_textual(s: pd.Series) -> bool:
    return s.dtype == object or pd.api.types.is_string_dtype(s) or isinstance(s.dtype, pd.CategoricalDtype)


def _line_break_cells(s: pd.Series) -> np.ndarray:
    """Which cells of ``s`` hold a line-break character (vectorized; False for missing values)."""
    if not _is_textual(s):
        return np.zeros(len(s), dtype=bool)
    codes, uniques = pd.factorize(s, use_na_sentinel=True)  # judged once per distinct value
    hit = pd.Series(np.asarray(uniques, dtype=object), dtype=object).astype(str).str.contains(
        _LINE_BREAK_CLASS, regex=True).to_numpy(dtype=bool)
    out = np.zeros(len(s), dtype=bool)
    present = codes >= 0
    out[present] = hit[codes[present]]
    return out


def _quoted(values: pd.Series) -> np.ndarray:
    """``"..."`` with inner quotes doubled (RFC 4180), as an object array."""
    return ('"' + values.astype(object).astype(str).str.replace('"', '""', regex=False) + '"').to_numpy(dtype=object)


def _nonce(sep: str, table: pd.DataFrame, names: list[str]) -> str:
    """A random word of letters found in no cell or column name (a placeholder for quoting)."""
    letters = "".join(ch for ch in _NONCE_LETTERS if ch != sep)
    for _ in range(8):
        word = "".join(letters[b % len(letters)] for b in os.urandom(24))
        clash = any(word in n for n in names) or any(
            bool(table[c].astype(object).astype(str).str.contains(word, regex=False).any())
            for c in table.columns if _is_textual(table[c])
        )
        if not clash:
            return word
    raise OutputError("Cannot find a quoting placeholder absent from the table; this should not happen.")  # pragma: no cover


def _to_csv(table: pd.DataFrame, sep: str, header: bool = True) -> str:
    """``table.to_csv(index=False)``, except that a cell or column name holding a line-break
    character (:data:`LINE_BREAKS`) is always quoted.

    pandas (through Python's csv writer) quotes a cell holding the delimiter, a quote or
    ``\\n``, but not a bare ``\\r`` or the other line separators: such a cell would then end
    the row for pandas, the csv module or a reader that splits lines first. The cells
    concerned are swapped for a random placeholder word, the table is written by pandas,
    and the placeholders (in row-major order, header first) are replaced by the quoted
    cells: a table without such cells is written byte for byte as pandas writes it.
    """
    names = [str(c) for c in table.columns]
    head = np.zeros(len(names), dtype=bool)
    if header:
        head = pd.Series(names, dtype=object).str.contains(_LINE_BREAK_CLASS, regex=True).to_numpy(dtype=bool)
    cells = np.column_stack([_line_break_cells(table.iloc[:, j]) for j in range(table.shape[1])]) if table.shape[1] \
        else np.zeros((len(table), 0), dtype=bool)
    if not head.any() and not cells.any():
        return table.to_csv(index=False, sep=sep, header=header)
    word = _nonce(sep, table, names)
    swapped = table.copy()
    pieces = [_quoted(pd.Series(names, dtype=object)[head])]
    rows, cols = np.nonzero(cells)  # row-major: the order the placeholders appear in the text
    values = np.empty(len(rows), dtype=object)
    for j in np.unique(cols):  # a loop over the columns concerned, not over rows
        col = table.iloc[:, j]
        mask = cells[:, j]
        values[cols == j] = _quoted(col[mask])  # both in increasing row order
        new = col.astype(object).copy()
        new[mask] = word
        swapped.isetitem(int(j), new)
    pieces.append(values)
    if head.any():
        swapped.columns = [word if h else n for n, h in zip(names, head)]
    text = swapped.to_csv(index=False, sep=sep, header=header)
    parts = text.split(word)
    fills = np.concatenate(pieces)
    if len(parts) != len(fills) + 1:  # pragma: no cover - the placeholder is quoted or mangled
        raise OutputError(f"Quoting line breaks failed ({len(parts) - 1} placeholders for {len(fills)} cells).")
    joined = np.empty(2 * len(fills) + 1, dtype=object)
    joined[0::2] = parts
    joined[1::2] = fills
    return "".join(joined)


def write_table(
    df: pd.DataFrame,
    path: str | Path,
    *,
    format: str | None = None,  # noqa: A002 - the CLI option's name
    sep: str | None = None,
    csv_escape: bool = True,
    mkdirs: bool = True,
) -> Path:
    """Write a table atomically as CSV or Parquet (format from ``format`` or the extension).

    CSV cells are escaped with :func:`escape_csv_cells` unless ``csv_escape=False``.
    """
    path = Path(path)
    fmt = output_format(path, format)
    if fmt == "parquet":
        atomic_write(path, lambda p: df.to_parquet(p, index=False), mkdirs=mkdirs)
    else:
        if sep is None:
            sep = "\t" if path.suffix.lower() == ".tsv" else ","
        atomic_write_text(path, csv_text(df, sep=sep, csv_escape=csv_escape), mkdirs=mkdirs)
    return path


def normalize_sep(sep: str | None) -> str | None:
    """A CSV delimiter as a user types it: one character, or ``\\t`` / ``tab`` for a tab
    (``None``: sniff or use the default). Anything else is a :class:`DataError` naming it."""
    if sep is None:
        return None
    if not isinstance(sep, str):
        raise DataError(f"The CSV separator must be text, got {sep!r} ({type(sep).__name__}).")
    if sep in ("\\t", "tab", "TAB"):
        return "\t"
    if len(sep) != 1 or sep in ('"', "\r", "\n"):
        raise DataError(
            f"The CSV separator must be a single character such as , ; | (got {sep!r}); "
            "write \\t or tab for a tab."
        )
    return sep


def csv_text(df: pd.DataFrame, *, sep: str = ",", csv_escape: bool = True, header: bool = True) -> str:
    """The exact text :func:`write_table` writes for ``df`` as CSV (UTF-8 on disk;
    formula-escaped unless ``csv_escape=False``; cells holding a line break quoted), e.g. to
    record its checksum."""
    table = escape_csv_cells(df) if csv_escape else df
    return _to_csv(table, sep, header)


# ---------------------------------------------------------------------- reading a written file back
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
        from .exceptions import VerificationError

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
