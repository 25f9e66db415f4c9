"""The page of ``ktype app`` (NiceGUI): it draws a :class:`~ktype.app._state.Session` and
forwards the user's clicks to it. No logic lives here that the session's tests do not cover;
every handler turns an error into a message in the page (never a traceback)."""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from typing import Any

from nicegui import app, events, ui

from ._state import ROLES, AppError, RunResult, Session, report_writer
from ._worker import error_message

#: sessions of open tabs (closed when the server stops)
_SESSIONS: set[Session] = set()
MAX_UPLOAD_BYTES = 500 * 1024 * 1024


def _fmt(v: Any) -> str:
    if v is None:
        return ""
    if isinstance(v, float):
        return "" if math.isnan(v) else f"{v:.6g}"
    return str(v)


def _table(df: Any, testid: str) -> ui.table:
    cols = [{"name": str(c), "label": str(c), "field": str(c), "align": "left"} for c in df.columns]
    rows = [{str(c): _fmt(v) for c, v in zip(df.columns, rec)} for rec in df.itertuples(index=False)]
    return ui.table(columns=cols, rows=rows).props(f"dense flat bordered data-testid={testid}").classes("w-full")


def _records(rows: list[dict[str, Any]], testid: str) -> ui.table:
    cols = [{"name": k, "label": k.replace("_", " "), "field": k, "align": "left"} for k in (rows[0] if rows else {})]
    return ui.table(columns=cols, rows=[{k: _fmt(v) for k, v in r.items()} for r in rows]).props(
        f"dense flat bordered data-testid={testid}").classes("w-full")


def build_page() -> None:  # noqa: C901, PLR0915 - one page: its widgets and their event handlers, as NiceGUI builds pages
    """One tab of the app: its own session, removed with the tab."""
    session = Session()
    _SESSIONS.add(session)

    def _close() -> None:
        _SESSIONS.discard(session)
        session.close()

    ui.context.client.on_delete(_close)
    ui.page_title("ktype app")

    # ------------------------------------------------------------------ messages
    with ui.header().classes("items-center bg-slate-800"):
        ui.label("ktype — anonymize a table").classes("text-lg font-bold")
        ui.label("local app: data stays on this computer; uploads are deleted when the tab closes").classes("text-xs")
    error_box = ui.label("").classes("text-red-700 font-bold whitespace-pre-wrap").props("data-testid=error").mark("error")
    error_box.set_visibility(False)

    def show_error(msg: str) -> None:
        error_box.text = f"error: {msg}"
        error_box.set_visibility(True)

    def clear_error() -> None:
        error_box.set_visibility(False)

    def guarded(fn: Callable[..., Any]) -> Callable[..., Any]:
        """A handler whose errors become the page's message (the settings stay as they were)."""

        @functools.wraps(fn)
        async def wrapper(*args: Any, **kwargs: Any) -> None:
            clear_error()
            try:
                out = fn(*args, **kwargs)
                if hasattr(out, "__await__"):
                    await out
            except AppError as e:
                show_error(str(e))
            except Exception as e:  # noqa: BLE001 - never a traceback in the page
                show_error(error_message(e))

        return wrapper

    with ui.tabs().classes("w-full") as tabs:
        t_data = ui.tab("data", "1 · Data").props("data-testid=tab-data").mark("tab-data")
        t_roles = ui.tab("roles", "2 · Roles & risk").props("data-testid=tab-roles").mark("tab-roles")
        t_run = ui.tab("run", "3 · Settings & run").props("data-testid=tab-run").mark("tab-run")
        t_res = ui.tab("results", "4 · Results & downloads").props("data-testid=tab-results").mark("tab-results")

    # ------------------------------------------------------------------ 1 data
    @ui.refreshable
    def data_view() -> None:
        if session.df is None:
            ui.label("No table yet.").classes("italic")
            return
        src = session.source or {}
        what = "bundled Adult" if src.get("kind") == "adult" else src.get("name")
        ui.label(f"{what}: {len(session.df):,} rows × {session.df.shape[1]} columns").props("data-testid=table-info").mark("table-info")
        ui.label("Columns (type as ktype reads it: text unless unambiguously numeric, so ZIP codes stay text)").classes(
            "font-bold mt-2")
        _records([{k: v for k, v in r.items() if k not in ("role", "hint")} for r in session.column_stats()], "stats")
        ui.label(f"First {min(len(session.df), 20)} rows").classes("font-bold mt-2")
        _table(session.preview(), "preview")

    async def on_upload(e: events.UploadEventArguments) -> None:
        content = await e.file.read()
        session.load_upload(e.file.name, content)
        refresh_all()

    def on_adult() -> None:
        rows = adult_rows.value
        session.load_adult(None if rows in (None, "") else int(rows))
        refresh_all()

    with ui.tab_panels(tabs, value=t_data, animated=False).classes("w-full") as panels:
        with ui.tab_panel(t_data):
            with ui.row().classes("items-end gap-6"):
                ui.upload(label="Upload a CSV or Parquet file", auto_upload=True, max_file_size=MAX_UPLOAD_BYTES,
                          on_upload=guarded(on_upload)).props("accept=.csv,.tsv,.txt,.parquet,.pq data-testid=upload").mark("upload")
                with ui.column():
                    adult_rows = ui.number("rows of Adult (empty: all 30,162)", value=None, min=1, step=1,
                                           format="%d").props("data-testid=adult-rows clearable").mark("adult-rows").classes("w-64")
                    ui.button("Load the bundled Adult data", on_click=guarded(on_adult)).props("data-testid=load-adult").mark("load-adult")
            data_view()

        # -------------------------------------------------------------- 2 roles
        @ui.refreshable
        def roles_view() -> None:
            if session.df is None:
                ui.label("Load a table first.").classes("italic")
                return
            ui.label("Give every column a role. Identifiers are removed; quasi-identifiers are generalized; "
                     "sensitive columns are protected by ℓ and t; insensitive columns are published unchanged."
                     ).classes("text-sm")
            hints = session.hints()
            with ui.grid(columns="max-content max-content minmax(0, 1fr)").classes("items-center gap-x-6 gap-y-1 w-full"):
                for col in session.df.columns:
                    ui.label(str(col)).classes("font-mono")
                    ui.toggle(list(ROLES), value=session.roles[col],
                              on_change=guarded(functools.partial(on_role, str(col)))).props(
                        f"dense no-caps data-testid=role-{col}")
                    ui.label(("⚠ " + hints[col]) if col in hints else "").classes("text-orange-700 text-sm").props(
                        f"data-testid=hint-{col}")
            risk_view()

        @ui.refreshable
        def risk_view() -> None:
            with ui.card().classes("mt-4"):
                ui.label("Re-identification risk of the input (prosecutor, on the quasi-identifiers as they are)"
                         ).classes("font-bold")
                try:
                    r = session.input_risk()
                except AppError as e:
                    ui.label(str(e)).classes("italic")
                    return
                ui.label(f"highest {r['highest']:.1%} · average {r['average']:.1%} · "
                         f"{r['records_at_risk']:,} of {r['records']:,} records above {r['threshold']:.0%} · "
                         f"{r['sample_uniques']:,} unique records").props("data-testid=input-risk").mark("input-risk")

        def on_role(col: str, e: Any) -> None:
            session.set_role(col, e.value)
            risk_view.refresh()
            run_view.refresh()

        with ui.tab_panel(t_roles):
            roles_view()

        # -------------------------------------------------------------- 3 run
        @ui.refreshable
        def run_view() -> None:
            s = session.settings
            with ui.row().classes("items-end gap-4"):
                ui.number("k", value=s.k, min=1, step=1, format="%d",
                          on_change=guarded(lambda e: set_setting("k", e.value, int))).props("data-testid=k").mark("k")
                ui.number("ℓ (empty: none)", value=s.l, min=1, step=1,
                          on_change=guarded(lambda e: set_setting("l", e.value, float))).props("data-testid=l clearable").mark("l")
                sens = session.columns_with("sensitive") if session.df is not None else []
                ui.select(sens, value=s.sensitive if s.sensitive in sens else (sens[0] if len(sens) == 1 else None),
                          label="sensitive column for ℓ and t",
                          on_change=guarded(lambda e: set_setting("sensitive", e.value, str))).props(
                    "data-testid=sensitive").classes("w-56")
                ui.number("t (empty: none)", value=s.t, min=0, max=1, step=0.05,
                          on_change=guarded(lambda e: set_setting("t", e.value, float))).props("data-testid=t clearable").mark("t").classes("w-36")
                ui.number("seed (randomized algorithms; empty: secret)", value=s.seed, step=1, format="%d",
                          on_change=guarded(lambda e: set_setting("seed", e.value, int))).props(
                    "data-testid=seed clearable").classes("w-72")
            algorithm_view()

        @ui.refreshable
        def algorithm_view() -> None:
            """The algorithms supporting the chosen models (redrawn alone, so typing in k keeps its focus)."""
            s = session.settings
            algs = dict(session.algorithms()) if session.df is not None else {}
            if not algs:
                ui.label("No algorithm supports this combination of models; change k, ℓ or t.").classes("italic")
            else:
                if s.algorithm not in algs:
                    s.algorithm = "mondrian" if "mondrian" in algs else next(iter(algs))
                ui.select({n: f"{n}: {d}" for n, d in algs.items()}, value=s.algorithm, label="algorithm (only those supporting the models)",
                          on_change=guarded(lambda e: set_setting("algorithm", e.value, str))).props(
                    "data-testid=algorithm").classes("w-96")
                ui.label(algs[s.algorithm]).classes("text-sm text-gray-700").props("data-testid=algorithm-description").mark("algorithm-description")

        def set_setting(name: str, value: Any, kind: type) -> None:
            v = None if value in (None, "") else value
            if v is not None and kind is int:
                if not float(v).is_integer():
                    raise AppError(f"{name} must be a whole number; got {v!r}.")
                v = int(v)
            elif v is not None and kind is float:
                v = float(v)
            setattr(session.settings, name, v)
            if name not in ("sensitive", "seed"):
                algorithm_view.refresh()

        def on_run() -> None:
            session.start_run()
            run_button.disable()
            cancel_button.enable()
            progress.set_visibility(True)
            status.text = "starting"

        def on_cancel() -> None:
            session.cancel()
            status.text = "cancelled: the run was stopped and nothing was kept"
            run_button.enable()
            cancel_button.disable()
            progress.set_visibility(False)

        with ui.tab_panel(t_run):
            run_view()
            with ui.row().classes("items-center gap-4 mt-4"):
                run_button = ui.button("Run", on_click=guarded(on_run)).props("data-testid=run color=primary").mark("run")
                cancel_button = ui.button("Cancel", on_click=guarded(on_cancel)).props("data-testid=cancel color=negative").mark("cancel")
                cancel_button.disable()
                status = ui.label("").props("data-testid=status").mark("status")
            progress = ui.linear_progress(value=0, show_value=False).props("data-testid=progress").mark("progress").classes("w-full")
            progress.set_visibility(False)

        # -------------------------------------------------------------- 4 results
        @ui.refreshable
        def results_view() -> None:
            if not session.runs:
                ui.label("No run yet.").classes("italic")
                return
            res = session.runs[-1]
            ui.label(res.label()).classes("text-lg font-bold").props("data-testid=run-label").mark("run-label")
            with ui.row().classes("items-center gap-2"):
                ui.label("Independent checker:")
                ui.label(res.verdict).classes("font-bold " + ("text-green-700" if res.passed else "text-red-700")).props(
                    "data-testid=verdict").mark("verdict")
            ui.label(f"{res.release.n_suppressed:,} records suppressed · release risk: highest {res.risk['highest']:.1%},"
                     f" average {res.risk['average']:.1%} · {res.seconds:.1f} s").props("data-testid=release-risk").mark("release-risk")
            for w in res.release.warnings():
                ui.label("⚠ " + w).classes("text-orange-700 text-sm")
            with ui.row().classes("gap-2 mt-2"):
                ui.button("Release: CSV + metadata (.zip)", on_click=guarded(lambda: download(res, "csv"))).props(
                    "data-testid=download-csv")
                ui.button("Release: Parquet", on_click=guarded(lambda: download(res, "parquet"))).props(
                    "data-testid=download-parquet")
                rb = ui.button("HTML report", on_click=guarded(lambda: download(res, "report"))).props(
                    "data-testid=download-report").mark("download-report")
                if report_writer() is None:
                    rb.disable()
                    rb.tooltip("needs ktype.report")
                ui.button("Config (YAML) for ktype anonymize --config",
                          on_click=guarded(lambda: download(res, "config"))).props("data-testid=download-config").mark("download-config")
            ui.label("Information loss").classes("font-bold mt-2")
            with ui.column().classes("gap-0"):
                for name, value in res.measures.items():
                    line = next((x for x in res.measure_lines if x.startswith(f"{name} =")), name)
                    with ui.row().classes("gap-2"):
                        ui.label(f"{name}").classes("font-mono w-48")
                        ui.label(_fmt(float(value))).classes("font-mono w-32").props(f"data-testid=metric-{name}").mark("metric-")
                        ui.label(line.split(": ", 1)[1] if ": " in line else "").classes("text-sm text-gray-600")
            ui.label("Release preview (readable labels)").classes("font-bold mt-2")
            _table(session.release_preview(res), "release-preview")
            if len(session.runs) > 1:
                ui.label("All runs: utility against risk").classes("font-bold mt-2")
            _records(session.comparison(), "comparison")
            plots_view(res)

        def plots_view(res: RunResult) -> None:
            if report_writer() is None:
                return  # HOOK: ktype.report's plots appear here once it is installed
            ui.label("Report").classes("font-bold mt-2")
            try:
                _, data = session.export_report(res)
            except AppError as e:
                ui.label(f"The report could not be made: {e}").classes("text-red-700")
                return
            frame = ui.element("iframe").classes("w-full").style("height: 900px; border: 1px solid #ccc")
            frame.props["srcdoc"] = data.decode("utf-8")  # set as a value: never parsed as a props string
            frame.props["data-testid"] = "report"
            frame.mark("report")

        def download(res: RunResult, what: str) -> None:
            if what == "csv":
                name, data = session.export_csv_zip(res)
            elif what == "parquet":
                name, data = session.export_parquet(res)
            elif what == "report":
                name, data = session.export_report(res)
            else:
                name, text = session.config_yaml(res)
                data = text.encode("utf-8")
            ui.download.content(data, name)

        with ui.tab_panel(t_res):
            results_view()

    def refresh_all() -> None:
        data_view.refresh()
        roles_view.refresh()
        run_view.refresh()

    def tick() -> None:
        h = session.current
        if h is None:
            return
        try:
            res = session.poll()
        except AppError as e:
            show_error(str(e))
            status.text = "failed"
            res = None
            finish()
            return
        except Exception as e:  # noqa: BLE001
            show_error(error_message(e))
            finish()
            return
        if session.current is not None:
            status.text = h.status()
            frac = h.fraction
            progress.props(remove="indeterminate") if frac is not None else progress.props("indeterminate")
            progress.value = frac or 0
            return
        finish()
        if res is not None:
            status.text = f"finished: {res.verdict}"
            results_view.refresh()
            panels.value = "results"

    def finish() -> None:
        run_button.enable()
        cancel_button.disable()
        progress.set_visibility(False)

    ui.timer(0.25, tick)


def _shutdown() -> None:
    for s in list(_SESSIONS):
        s.close()
    _SESSIONS.clear()


def serve(host: str, port: int) -> None:
    """Run the server (blocks until it stops)."""
    ui.page("/")(build_page)
    app.on_shutdown(_shutdown)
    ui.run(host=host, port=port, title="ktype app", reload=False, show=False, favicon="🔒",
           uvicorn_logging_level="warning")
