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


def job_of(source: dict[str, Any], roles: dict[str, str], params: dict[str, Any]) -> Any:
    """The :class:`~ktype.job.AnonymizationJob` of a run: ``source`` (``{"kind": "adult",
    "rows": n}`` or ``{"kind": "file", "path": ...}``), the column ``roles`` (column -> role)
    and the page's ``params``. The run and its downloaded config are this one job, so
    ``ktype anonymize --config`` repeats the run exactly."""
    from ..job import AnonymizationJob

    def cols(role: str) -> list[str]:
        return [c for c, r in roles.items() if r == role]

    kw: dict[str, Any] = {"quasi_identifiers": cols("quasi-identifier"), "sensitive": cols("sensitive"),
                          "insensitive": cols("insensitive")}
    if source["kind"] == "adult":  # as `ktype anonymize --dataset adult`: unlisted columns are left out
        kw.update(dataset="adult", rows=source.get("rows"))
    else:
        kw.update(input=source["path"], identifiers=cols("identifier"))
    return AnonymizationJob(**kw, k=params.get("k"), l=params.get("l"), t=params.get("t"),
                            protect=params.get("sensitive"), algorithm=params["algorithm"], rng=params.get("rng"),
                            options=params.get("options") or {})


def randomized(job: Any) -> bool:
    """Whether the job's algorithm draws random numbers."""
    return bool(job.algorithm_info().randomized)


def anonymize(source: dict[str, Any], roles: dict[str, str], params: dict[str, Any], progress: Any = None) -> Any:
    """Build the dataset and the models as ``ktype anonymize`` does (one job), run, return the release."""
    job = job_of(source, roles, params)
    ds = job.load()
    info = job.algorithm_info()
    models = job.models(info)
    return info.func(ds, models, rng=job.rng, progress=progress, **job.check_options(info))


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
