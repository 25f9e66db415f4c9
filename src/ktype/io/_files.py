"""Safe file output: a file is written completely or not at all, and never through a trap.

* **Atomic.** The content goes to an *anonymous* file in the target directory (Linux
  ``O_TMPFILE``), which is given a name only once it is complete and synced, then renamed
  over the target. A crash or ``SIGKILL`` before that leaves nothing behind: an anonymous
  file vanishes with its process. Where ``O_TMPFILE`` is unavailable the content goes to
  a *visible* temporary ``NAME.ktype-partial-PID.tmp`` beside the target, removed on
  failure, and removed by the next write to the same target if a killed run left it.
  A directory (a partitioned release) is written under a hidden temporary name beside the
  target and renamed into place once complete and checked (:func:`atomic_directory`).
* **No traps.** :func:`check_output_path` refuses a symbolic link, a FIFO, a device, a
  socket or a directory at the output path, an output that is one of the inputs or another
  output of the same run, an existing file unless ``force``, and a missing parent directory
  unless ``mkdirs``; each with a message saying what to do.
* **Formats** follow the extension (``.csv``, ``.tsv``, ``.parquet``/``.pq``) or an explicit
  ``format`` (:func:`output_format`); an unknown extension (``.xlsx``) is an error, never CSV
  text in disguise.

Standard library only: the data layer imports it to write hierarchies and to read separators.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import os
import shutil
import stat
import uuid
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path

from ..exceptions import DataError, OutputError, OutputPathError

__all__ = [
    "atomic_write",
    "atomic_write_text",
    "atomic_directory",
    "check_output_path",
    "output_format",
    "normalize_sep",
    "EXTENSIONS",
]

#: file extension -> format name
EXTENSIONS = {".csv": "csv", ".tsv": "csv", ".txt": "csv", ".parquet": "parquet", ".pq": "parquet", ".json": "json"}
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
    fmt = EXTENSIONS.get(suffix)
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


def atomic_directory(path: Path, fill: Callable[[Path], None]) -> None:
    """Create the directory ``path`` complete or not at all: ``fill(tmp)`` writes (and checks)
    the content of a hidden temporary directory beside ``path``, which is then renamed to
    ``path``. Any failure removes the temporary directory. ``path`` must not exist and its
    parent must (a directory is never replaced)."""
    path = Path(path)
    if path.exists():
        raise OutputPathError(f"{path} exists; ktype never writes over a file or directory. Choose a new path or remove it.")
    if not path.parent.is_dir():
        raise OutputPathError(f"The directory {path.parent} does not exist; create it first.")
    tmp = path.with_name(f".{path.name}.ktype-tmp-{uuid.uuid4().hex[:12]}")
    try:
        fill(tmp)
        os.replace(tmp, path)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
