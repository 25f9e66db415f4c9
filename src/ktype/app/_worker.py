"""The process that runs one anonymization for the app, so that Cancel can really stop it.

The app starts :func:`run_job` in a child process (``multiprocessing``, spawn start method:
the child shares no thread or lock with the web server) and reads its messages from one
end of a pipe:

* ``("progress", stage, done, total, finished)`` for every :class:`ktype._progress.ProgressEvent`;
* ``("done", release)`` (the verified :class:`~ktype.Release`, pickled) or
  ``("error", message)`` (the same message the command line prints after ``error:``).

The child writes no file: the release travels through the pipe and is written only when the
user downloads it, so killing the child leaves nothing half-written.
"""

from __future__ import annotations

from typing import Any


def build_dataset(source: dict[str, Any], roles: dict[str, str]) -> Any:
    """The :class:`~ktype.Dataset` of ``source`` (``{"kind": "adult", "rows": n}`` or
    ``{"kind": "file", "path": ...}``) with the column ``roles`` (column -> role)."""
    from ..data import Dataset, load_adult

    qi = [c for c, r in roles.items() if r == "quasi-identifier"]
    sens = [c for c, r in roles.items() if r == "sensitive"]
    ins = [c for c, r in roles.items() if r == "insensitive"]
    ids = [c for c, r in roles.items() if r == "identifier"]
    if source["kind"] == "adult":  # as `ktype anonymize --dataset adult`: unlisted columns are left out
        return load_adult(quasi_identifiers=qi, sensitive=sens, insensitive=ins, n=source.get("rows"))
    path = source["path"]
    kw: dict[str, Any] = {"quasi_identifiers": qi, "sensitive": sens, "identifiers": ids, "insensitive": ins}
    if str(path).lower().endswith((".parquet", ".pq")):
        return Dataset.from_parquet(path, **kw)
    return Dataset.from_csv(path, **kw)


def anonymize(source: dict[str, Any], roles: dict[str, str], params: dict[str, Any], progress: Any = None) -> Any:
    """Build the dataset and the models as ``ktype anonymize`` does, run, return the release."""
    from ..algorithms import get_algorithm
    from ..api import default_diversity, default_k_model, make_models

    ds = build_dataset(source, roles)
    info = get_algorithm(params["algorithm"])
    l_value = params.get("l")
    models = make_models(
        k=params.get("k"),
        l=l_value,
        diversity=default_diversity(info) if l_value is not None else None,
        t=params.get("t"),
        sensitive=params.get("sensitive"),
        kind=default_k_model(info),
    )
    return info.func(ds, models, rng=params.get("rng"), progress=progress, **params.get("options", {}))


def error_message(e: BaseException) -> str:
    """What the page shows for an exception: the CLI's message for a user error, one line
    naming a bug otherwise (never a traceback)."""
    from ..exceptions import KtypeError

    if isinstance(e, KtypeError):
        return str(e)
    if isinstance(e, NotImplementedError):
        return f"not implemented: {e}"
    if isinstance(e, OSError):
        where = f" {e.filename!r}" if getattr(e, "filename", None) else ""
        return f"cannot use{where}: {e.strerror or e}."
    return f"internal error (a bug in ktype; please report it): {type(e).__name__}: {e}"


def run_job(conn: Any, source: dict[str, Any], roles: dict[str, str], params: dict[str, Any]) -> None:
    """Child-process entry point: run and send progress, then the release or the error."""

    def progress(ev: Any) -> None:
        conn.send(("progress", ev.stage, int(ev.done), None if ev.total is None else int(ev.total), bool(ev.finished)))

    try:
        try:
            release = anonymize(source, roles, params, progress)
            conn.send(("done", release))
        except (BrokenPipeError, EOFError):
            raise
        except BaseException as e:  # noqa: BLE001 - every outcome goes back to the page as a message
            conn.send(("error", error_message(e)))
    except (BrokenPipeError, EOFError):
        pass  # the app has gone (cancelled or closed): nobody to tell, nothing to keep
    finally:
        conn.close()
