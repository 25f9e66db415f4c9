"""What the app knows and does, without a browser: one :class:`Session` per browser tab.

The page (:mod:`ktype.app._ui`) only draws a session and forwards clicks to it; everything
that can be tested without a browser lives here: loading a table (upload or bundled Adult),
column statistics and identifier hints, roles, the input's risk, the algorithms that support
the chosen models, runs in a killable child process (:class:`RunHandle`), results, the
comparison of runs and the downloads (release, report, config).

A user error never raises anything but :class:`AppError`, whose message is the one the
command line prints after ``error:``; the session's settings are unchanged when it is raised.
Every file the session writes (the uploaded table, downloads) lives in its own temporary
directory, removed by :meth:`Session.close` (the page calls it when the tab goes away).
"""

from __future__ import annotations

import io
import multiprocessing
import re
import tempfile
import time
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from . import _worker

__all__ = ["AppError", "Session", "Settings", "RunHandle", "RunResult", "ROLES", "TABLE_SUFFIXES"]

#: column roles, as the page names them (and the order of the choice)
ROLES = ("identifier", "quasi-identifier", "sensitive", "insensitive")
#: file types an upload may have
TABLE_SUFFIXES = (".csv", ".tsv", ".txt", ".parquet", ".pq")
#: rows shown in a preview
PREVIEW_ROWS = 20


class AppError(Exception):
    """A problem the user can fix; the message is shown in the page as it is."""


@dataclass
class Settings:
    """The privacy requirement and the algorithm (``None``: not required)."""

    k: int | None = 10
    l: float | None = None  # noqa: E741 - the model's own letter
    sensitive: str | None = None  # the column ℓ and t protect (when several are sensitive)
    t: float | None = None
    algorithm: str = "mondrian"
    seed: int | None = None


@dataclass
class RunResult:
    """A finished run: its inputs, the release and what the page shows about it."""

    number: int
    source: dict[str, Any]
    roles: dict[str, str]
    params: dict[str, Any]
    release: Any
    verdict: str
    passed: bool
    measures: dict[str, float]
    measure_lines: list[str]
    risk: dict[str, float]
    seconds: float
    exports: dict[str, Path] = field(default_factory=dict)

    def label(self) -> str:
        p = self.params
        req = ", ".join(f"{n}={p[n]:g}" for n in ("k", "l", "t") if p.get(n) is not None)
        return f"run {self.number}: {p['algorithm']} ({req})"


def _describe_exception(e: BaseException) -> str:
    return _worker.error_message(e)


# ---------------------------------------------------------------------- runs
class RunHandle:
    """One anonymization in a child process: progress, outcome and a :meth:`cancel` that
    kills the process (it writes no file, so nothing is left half-written)."""

    def __init__(self, source: dict[str, Any], roles: dict[str, str], params: dict[str, Any]) -> None:
        ctx = multiprocessing.get_context("spawn")  # a fresh interpreter: no lock or thread shared with the server
        self.source, self.roles, self.params = source, roles, params
        self._conn, child = ctx.Pipe(duplex=False)
        self.process = ctx.Process(target=_worker.run_job, args=(child, source, roles, params), daemon=True,
                                   name="ktype-app-run")
        self.started = time.perf_counter()
        self.process.start()
        child.close()
        self.state = "running"  # running, done, error, cancelled
        self.stage = "starting"
        self.done = 0
        self.total: int | None = None
        self.release: Any = None
        self.error: str | None = None
        self.seconds = 0.0

    @property
    def pid(self) -> int | None:
        return self.process.pid

    @property
    def fraction(self) -> float | None:
        """Work done in the current stage, or None when it cannot be counted."""
        return min(self.done / self.total, 1.0) if self.total else None

    def status(self) -> str:
        """One line for the page."""
        if self.state == "running":
            count = f" {self.done:,} of {self.total:,}" if self.total else ""
            return f"running: {self.stage}{count}"
        return {"done": "finished", "cancelled": "cancelled: nothing was kept", "error": f"failed: {self.error}"}[self.state]

    def poll(self) -> str:
        """Read the messages that arrived; returns the state."""
        if self.state != "running":
            return self.state
        try:
            while self._conn.poll():
                msg = self._conn.recv()
                if msg[0] == "progress":
                    _, self.stage, self.done, self.total, _finished = msg
                elif msg[0] == "done":
                    self.release, self.state = msg[1], "done"
                else:
                    self.error, self.state = msg[1], "error"
                if self.state != "running":
                    break
        except (EOFError, OSError):
            if self.state == "running":
                self.state, self.error = "error", "the run stopped unexpectedly (out of memory?); nothing was kept"
        if self.state == "running" and not self.process.is_alive() and not self._conn.poll():
            self.state, self.error = "error", "the run stopped unexpectedly (out of memory?); nothing was kept"
        if self.state != "running":
            self.seconds = time.perf_counter() - self.started
            self._finish()
        return self.state

    def cancel(self) -> None:
        """Stop the run now: the child process is terminated (killed if it does not stop)."""
        if self.state != "running":
            return
        self.state = "cancelled"
        self.process.terminate()
        self.process.join(5)
        if self.process.is_alive():
            self.process.kill()
        self._finish()

    def _finish(self) -> None:
        self.process.join(10)
        if self.process.is_alive():
            self.process.kill()
            self.process.join()
        self._conn.close()


# ---------------------------------------------------------------------- the session
def _kind(s: Any) -> str:
    import pandas as pd

    if pd.api.types.is_bool_dtype(s):
        return "text"
    if pd.api.types.is_integer_dtype(s):
        return "int"
    if pd.api.types.is_float_dtype(s):
        return "float"
    if pd.api.types.is_datetime64_any_dtype(s):
        return "date"
    return "text"


def _safe_name(name: str) -> str:
    base = Path(str(name).replace("\\", "/")).name
    base = re.sub(r"[^A-Za-z0-9._-]+", "_", base).strip("._") or "upload"
    return base[:100]


class Session:
    """The state of one browser tab: the table, roles, settings, runs."""

    def __init__(self) -> None:
        self._tmp = tempfile.TemporaryDirectory(prefix="ktype-app-")
        self.workdir = Path(self._tmp.name)
        self.df: Any = None
        self.source: dict[str, Any] | None = None
        self.roles: dict[str, str] = {}
        self.settings = Settings()
        self.runs: list[RunResult] = []
        self.current: RunHandle | None = None
        self._uploads = 0

    # ------------------------------------------------------------ lifetime
    def close(self) -> None:
        """Stop a running job and remove every file this session wrote."""
        if self.current is not None:
            self.current.cancel()
        self._tmp.cleanup()

    # ------------------------------------------------------------ loading
    def load_adult(self, rows: int | None = None) -> None:
        """The bundled Adult table (its first ``rows`` rows), with ktype's default roles."""
        from ..data import load_adult
        from ..data.bundled import ADULT_COLUMNS

        if rows is not None and (not isinstance(rows, int) or rows < 1):
            raise AppError(f"The number of rows must be a positive whole number; got {rows!r}.")
        try:
            ds = load_adult(quasi_identifiers=list(ADULT_COLUMNS), sensitive=(), n=rows)
        except Exception as e:  # noqa: BLE001
            raise AppError(_describe_exception(e)) from None
        self._set_table(ds.data.copy(), {"kind": "adult", "name": "adult", "rows": rows})
        self.roles = {c: ("sensitive" if c == "salary-class" else "quasi-identifier") for c in self.df.columns}

    def load_upload(self, filename: str, content: bytes) -> None:
        """An uploaded CSV or Parquet file, read as ``ktype anonymize`` reads it. A file that
        cannot be read raises :class:`AppError` and leaves the session as it was."""
        from ..data.dataset import read_table

        name = _safe_name(filename)
        if not name.lower().endswith(TABLE_SUFFIXES):
            raise AppError(f"Upload a CSV or Parquet file ({', '.join(TABLE_SUFFIXES)}); got {Path(str(filename)).name!r}.")
        self._uploads += 1
        folder = self.workdir / "uploads" / str(self._uploads)
        folder.mkdir(parents=True)
        path = folder / name
        path.write_bytes(content)
        try:
            df = read_table(path)
        except Exception as e:  # noqa: BLE001 - every failure becomes a message
            path.unlink(missing_ok=True)
            raise AppError(_describe_exception(e).replace(str(path), name)) from None
        self._set_table(df, {"kind": "file", "name": name, "path": str(path)})
        hinted = {h.column for h in self.hints_list()}
        self.roles = {c: ("identifier" if c in hinted else "quasi-identifier") for c in self.df.columns}

    def _set_table(self, df: Any, source: dict[str, Any]) -> None:
        self.df, self.source = df, source
        self.settings.sensitive = None

    def require_table(self) -> Any:
        if self.df is None:
            raise AppError("Load a table first: upload a CSV or Parquet file, or load the bundled Adult data.")
        return self.df

    # ------------------------------------------------------------ columns and roles
    def hints_list(self) -> list[Any]:
        from ..risk import identifier_hints

        return list(identifier_hints(self.require_table()))

    def hints(self) -> dict[str, str]:
        """Column -> the HIPAA Safe Harbor identifier hints about it (one line)."""
        out: dict[str, str] = {}
        for h in self.hints_list():
            text = f"looks like {h.category} ({h.reason})"
            out[h.column] = f"{out[h.column]}; {text}" if h.column in out else text
        return out

    def column_stats(self) -> list[dict[str, Any]]:
        """Per column: the type ktype reads, distinct and missing values, examples, hint, role."""
        df = self.require_table()
        hints = self.hints()
        rows = []
        for c in df.columns:
            s = df[c]
            vals = s.dropna()
            examples = ", ".join(str(v) for v in vals.unique()[:3])
            rows.append({"column": str(c), "type": _kind(s), "distinct": int(vals.nunique()), "missing": int(s.isna().sum()),
                         "examples": examples, "hint": hints.get(str(c), ""), "role": self.roles.get(str(c), "")})
        return rows

    def preview(self, rows: int = PREVIEW_ROWS) -> Any:
        return self.require_table().head(rows)

    def set_role(self, column: str, role: str) -> None:
        self.require_table()
        if column not in self.roles:
            raise AppError(f"No column {column!r} in the table.")
        if role not in ROLES:
            raise AppError(f"Unknown role {role!r}; choose one of {', '.join(ROLES)}.")
        self.roles[column] = role
        if self.settings.sensitive is not None and self.roles.get(self.settings.sensitive) != "sensitive":
            self.settings.sensitive = None

    def columns_with(self, role: str) -> list[str]:
        return [c for c, r in self.roles.items() if r == role]

    def input_risk(self) -> dict[str, Any]:
        """Re-identification risk of the input on its quasi-identifiers (nothing generalized)."""
        from ..risk import reidentification_risk

        df = self.require_table()
        qi = self.columns_with("quasi-identifier")
        if not qi:
            raise AppError("Mark at least one column as quasi-identifier to see the risk.")
        try:
            r = reidentification_risk(df, quasi_identifiers=qi)
        except Exception as e:  # noqa: BLE001
            raise AppError(_describe_exception(e)) from None
        return {"highest": r.prosecutor.highest, "average": r.prosecutor.average,
                "records_at_risk": r.prosecutor.records_above_threshold, "threshold": r.prosecutor.threshold,
                "sample_uniques": r.sample_uniques, "records": r.records}

    # ------------------------------------------------------------ models and algorithms
    def _sensitive_for_models(self) -> str | None:
        sens = self.columns_with("sensitive")
        s = self.settings
        if s.l is None and s.t is None:
            return None
        if s.sensitive is not None:
            if s.sensitive not in sens:
                raise AppError(f"Column {s.sensitive!r} is not sensitive; mark it sensitive or choose another.")
            return s.sensitive if len(sens) > 1 else None
        return None

    def _models(self, info: Any) -> list[Any]:
        from ..api import default_diversity, default_k_model, make_models

        s = self.settings
        return make_models(k=s.k, l=s.l, diversity=default_diversity(info) if s.l is not None else None, t=s.t,
                           sensitive=self._sensitive_for_models(), kind=default_k_model(info))

    def algorithms(self) -> list[tuple[str, str]]:
        """(name, one-line description) of every algorithm that supports the chosen models."""
        from ..algorithms import all_algorithms

        out = []
        for info in all_algorithms():
            try:
                models = self._models(info)
            except Exception:  # noqa: BLE001 - this algorithm's models cannot express the requirement
                continue
            if all(info.supports(m) for m in models) and (len(models) == 1 or info.combinable):
                out.append((info.name, info.description))
        return out

    def params(self) -> dict[str, Any]:
        """The parameters of the next run; raises :class:`AppError` for a bad requirement."""
        from ..algorithms import get_algorithm

        self.require_table()
        s = self.settings
        try:
            info = get_algorithm(s.algorithm)
            models = self._models(info)
        except AppError:
            raise
        except Exception as e:  # noqa: BLE001
            raise AppError(_describe_exception(e)) from None
        if not all(info.supports(m) for m in models) or (len(models) > 1 and not info.combinable):
            names = ", ".join(type(m).__name__ for m in models)
            raise AppError(f"{info.name} does not support {names}; choose an algorithm from the list.")
        if not self.columns_with("quasi-identifier"):
            raise AppError("Mark at least one column as quasi-identifier.")
        if s.seed is not None and not info.randomized:
            raise AppError(f"{info.name} is deterministic and takes no seed; clear the seed.")
        return {"algorithm": info.name, "k": s.k, "l": s.l, "t": s.t, "sensitive": self._sensitive_for_models(),
                "rng": s.seed}

    # ------------------------------------------------------------ running
    def start_run(self) -> RunHandle:
        """Start a run in a child process (one at a time)."""
        if self.current is not None and self.current.poll() == "running":
            raise AppError("A run is in progress; wait for it or cancel it.")
        params = self.params()
        assert self.source is not None
        self.current = RunHandle(dict(self.source), dict(self.roles), params)
        return self.current

    def poll(self) -> RunResult | None:
        """Advance the current run; the new result once it has finished, else None.
        A failed run raises :class:`AppError` with its message (once)."""
        h = self.current
        if h is None or h.poll() == "running":
            return None
        self.current = None
        if h.state == "error":
            raise AppError(h.error or "the run failed")
        if h.state == "done":
            return self._record(h)
        return None

    def cancel(self) -> None:
        if self.current is not None:
            self.current.cancel()
            self.current = None

    def _record(self, h: RunHandle) -> RunResult:
        from .. import measures
        from ..checking import check
        from ..explain import measure_lines
        from ..risk import reidentification_risk

        rel = h.release
        report = check(rel)
        values = dict(measures.compute(rel))
        lines = [str(x) for x in measure_lines(rel, values)]
        r = reidentification_risk(rel)
        res = RunResult(number=len(self.runs) + 1, source=h.source, roles=h.roles, params=h.params, release=rel,
                        verdict=str(report), passed=bool(report.passed),
                        measures=values, measure_lines=lines,
                        risk={"highest": r.prosecutor.highest, "average": r.prosecutor.average,
                              "records_at_risk": r.prosecutor.records_above_threshold},
                        seconds=h.seconds)
        self.runs.append(res)
        return res

    def run_now(self, timeout: float = 600) -> RunResult:
        """Start a run and wait for it (for scripts and tests)."""
        self.start_run()
        t0 = time.monotonic()
        while True:
            res = self.poll()
            if res is not None:
                return res
            if self.current is None:
                raise AppError("the run was cancelled")
            if time.monotonic() - t0 > timeout:
                self.cancel()
                raise AppError(f"the run took longer than {timeout:g} s and was cancelled")
            time.sleep(0.05)

    def release_preview(self, run: RunResult, rows: int = PREVIEW_ROWS) -> Any:
        return run.release.to_pandas().head(rows)

    def comparison(self) -> list[dict[str, Any]]:
        """One row per run: utility (loss) beside risk."""
        out = []
        for r in self.runs:
            out.append({"run": r.number, "algorithm": r.params["algorithm"],
                        "requirement": r.label().split("(", 1)[1].rstrip(")"), "verdict": r.verdict,
                        "loss_metric": r.measures.get("loss_metric"), "gcp": r.measures.get("gcp"),
                        "suppressed": int(r.release.n_suppressed),
                        "highest_risk": r.risk["highest"], "average_risk": r.risk["average"]})
        return out

    # ------------------------------------------------------------ downloads
    def _export_dir(self, run: RunResult) -> Path:
        d = self.workdir / "exports" / f"run-{run.number}"
        d.mkdir(parents=True, exist_ok=True)
        return d

    def _stem(self, run: RunResult) -> str:
        base = Path(run.source.get("name", "table")).stem
        return f"{base}-release-{run.number}"

    def export_csv_zip(self, run: RunResult) -> tuple[str, bytes]:
        """A ZIP holding the CSV release and its ``.ktype.json`` metadata sidecar."""
        from ..release import sidecar_path

        d = self._export_dir(run)
        path = run.release.save(d / f"{self._stem(run)}.csv")
        buf = io.BytesIO()
        with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
            z.write(path, path.name)
            z.write(sidecar_path(path), sidecar_path(path).name)
        return f"{self._stem(run)}.zip", buf.getvalue()

    def export_parquet(self, run: RunResult) -> tuple[str, bytes]:
        d = self._export_dir(run)
        path = run.release.save(d / f"{self._stem(run)}.parquet")
        return path.name, path.read_bytes()

    def export_report(self, run: RunResult) -> tuple[str, bytes]:
        """The HTML report (``ktype.report``); :class:`AppError` when it is not installed."""
        writer = report_writer()
        if writer is None:
            raise AppError("The HTML report needs ktype.report, which this installation does not have.")
        path = self._export_dir(run) / f"{self._stem(run)}-report.html"
        try:
            writer(run.release, path)
        except Exception as e:  # noqa: BLE001
            raise AppError(_describe_exception(e)) from None
        return path.name, path.read_bytes()

    def config_yaml(self, run: RunResult) -> tuple[str, str]:
        """A YAML config that reproduces the run with ``ktype anonymize --config`` (the same
        release for a seeded or deterministic run), to be saved beside the input file: the
        run's own job (:func:`ktype.app._worker.job_of`), so the first rows of Adult are
        ``rows:`` and the sensitive column ℓ/t protect among several is ``protect:``."""
        import yaml

        src = run.source
        job = _worker.job_of(src, run.roles, run.params)
        notes = ["# Made by `ktype app`. Reproduce the run with:", f"#   ktype anonymize --config {self._stem(run)}.yaml"]
        if src["kind"] != "adult":
            notes.append(f"# Save this file beside {src['name']} (relative paths are read from the config's folder).")
            job = job.replace(input=Path(src["name"]))
        if job.rng is None and _worker.randomized(job):
            notes.append("# NOTE: the run had no seed (secret OS entropy), so the command line makes another release.")
        cfg = job.replace(output=Path(f"{self._stem(run)}.csv")).to_config()
        text = "\n".join(notes) + "\n" + yaml.safe_dump(cfg, sort_keys=False, allow_unicode=True)
        return f"{self._stem(run)}.yaml", text


def report_writer() -> Any:
    """``ktype.report.write_report`` when that module is installed, else None.

    HOOK: ``ktype.report`` (an HTML report with plots) is developed beside the app; the
    Report download and the plots appear as soon as it is importable.
    """
    try:
        from .. import report  # type: ignore[attr-defined]
    except ImportError:
        return None
    return getattr(report, "write_report", None)
