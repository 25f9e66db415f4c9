"""One self-contained HTML report of a release, for the data steward who publishes it.

:func:`write_report` writes a single ``.html`` file that opens offline: inline CSS, inline
SVG plots (drawn with matplotlib, imported only here), no script, no font, no image and no
link that leaves the file. It shows, in fixed sections (``SECTIONS``; a section that does
not apply to the release says why):

* ``job`` — input, rows, roles, hierarchies (kind, depth, domain size), models, algorithm,
  parameters, provenance, warnings;
* ``verification`` — the verdict of each model's independent checker, run again here;
* ``risk`` — prosecutor, journalist and marketer re-identification risk of the input (its
  quasi-identifiers published unchanged) and of the release, the distribution of the
  per-record prosecutor risk, records above ``1/k`` for k = 2, 3, 5, 10, sample uniques;
* ``classes`` — equivalence-class sizes before and after (class-based recodings);
* ``matching`` — local and freeform recodings: matches per record and the exact match
  posteriors of the adversary who knows the whole table (:mod:`ktype.attacks.matching`);
* ``diversity`` — ℓ-diversity, p-sensitivity and t-closeness: the worst classes;
* ``utility`` — every information-loss measure and LM / NCP per attribute;
* ``generalization`` — level per attribute (full-domain) or the distribution of the share of
  the domain a published cell covers (multidimensional, local, freeform);
* ``marginals`` — per quasi-identifier, the original counts and the released counts spread
  uniformly over each published cell;
* ``suppression`` — suppressed records;
* ``lattice`` — full-domain searches that keep their lattice summary: nodes, the optimum,
  the k-minimal nodes and the nodes feasible by monotonicity.

Every number comes from the functions ``ktype metrics`` and ``ktype risk`` call
(:func:`ktype.measures.compute`, :func:`ktype.risk.report.risk_report`), and is written with
its exact value in a ``data-value`` attribute and in the JSON block ``#ktype-report-data``,
so that tests (and readers) can compare it with theirs.

The report describes the *original* data too (marginals, the risk of the input, sensitive
values of the worst classes): it is for the people who decide on the publication, never to
be published with the release.

Length: one self-contained HTML document whose sections (job, verification, risk, match graph,
utility, marginals, lattice) share the document builder, its escaping and its plot helpers; every
number in it is computed by the library's own functions.
"""

from __future__ import annotations

import html
import io
import itertools
import json
import math
import re
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from .exceptions import DataError, InvalidParameterError, KtypeError
from .io._files import atomic_write_text, check_output_path
from .release import Release, _jsonable

__all__ = ["SECTIONS", "check_report_path", "collect", "render", "report_file", "report_html", "write_report"]

#: section ids, in page order (each is a ``<section id=...>`` of the report)
SECTIONS: tuple[str, ...] = ("job", "verification", "risk", "classes", "matching", "diversity", "utility",
                             "generalization", "marginals", "suppression", "lattice")

_TITLES = {
    "job": "The job", "verification": "Verification", "risk": "Re-identification risk",
    "classes": "Equivalence classes", "matching": "Match graph (local recoding)", "diversity": "Sensitive values: worst classes",
    "utility": "Information loss", "generalization": "Generalization per attribute", "marginals": "Marginal distributions",
    "suppression": "Suppressed records", "lattice": "Generalization lattice",
}
#: largest lattice drawn node by node
MAX_LATTICE_NODES = 20000
#: bars per marginal plot (larger domains are binned into contiguous runs of leaves)
MAX_BARS = 40
#: classes listed in the worst-classes tables
WORST_CLASSES = 10
_SUFFIXES = (".html", ".htm")


# ---------------------------------------------------------------------- numbers
def collect(
    release: Release,
    *,
    threshold: float = 0.2,
    sampling_fraction: float | None = None,
    population_size: int | None = None,
    posterior: str = "uniform",
    max_component: int = 20,
    input_label: str | None = None,
    audit: Any = None,
) -> dict[str, Any]:
    """Every number of the report, as one JSON-able dict (what :func:`render` draws).

    ``audit`` (a :class:`ktype.audit.AuditReport` of the release file) replaces the
    verification: its findings and model results (what ``ktype check`` prints) are shown
    instead of running the release's models' checkers again.

    ``measures`` is :func:`ktype.measures.compute` of the release (what ``ktype metrics``
    prints) and ``risk`` is :func:`ktype.risk.report.risk_report` (what ``ktype risk``
    prints) with the same ``threshold``, population information and ``posterior``.
    ``max_component`` bounds the match components whose exact posteriors are computed
    (local and freeform recodings; :func:`ktype.attacks.match_posteriors`).
    """
    if not isinstance(release, Release):
        what = type(release).__name__
        hint = (" An anatomy release (QI table + sensitive table) publishes exact quasi-identifiers; report on the "
                "generalized release of the same algorithm instead." if what == "Anatomy" else "")
        raise DataError(f"A report is made of a ktype Release (from ktype.anonymize or parse_release); got {what}.{hint}")
    from .measures import compute
    from .risk.report import risk_report

    ds = release.dataset
    data: dict[str, Any] = {"job": _job(release, input_label)}
    data["verification"] = _verification(release) if audit is None else _audit_verification(audit)
    data["audit"] = None if audit is None else {"passed": bool(audit.passed), "findings": [str(f) for f in audit.findings],
                                                 "facts": _jsonable(audit.facts)}
    if audit is not None and not data["job"]["models"]:
        data["job"]["models"] = [r["model"] for r in data["verification"]]
    measures = compute(release)
    data["measures"] = dict(measures)
    data["measures_skipped"] = {k: str(v) for k, v in getattr(measures, "skipped", {}).items()}
    data["risk"] = risk_report(release, threshold=threshold, sampling_fraction=sampling_fraction,
                               population_size=population_size, posterior=posterior)
    data["classes"] = _classes(release)
    data["matching"] = _matching(release, max_component) if release.recoding in ("local", "freeform") else None
    data["diversity"] = _diversity(release)
    data["per_attribute"] = _per_attribute(release)
    data["generalization"] = _generalization(release)
    data["marginals"] = _marginals(release)
    data["suppression"] = {"input_records": int(ds.n), "suppressed": release.n_suppressed,
                           "share": release.n_suppressed / ds.n if ds.n else 0.0,
                           "published_rows": int(release.n - release.n_suppressed)}
    data["lattice"] = _lattice(release)
    return _jsonable(data)


def _job(release: Release, input_label: str | None) -> dict[str, Any]:
    ds = release.dataset
    prov = release.provenance
    files = [str(p) for p in getattr(ds, "source_files", ())]
    hier = []
    for c, h in zip(ds.quasi_identifiers, ds.hierarchies):
        hier.append({"attribute": c, "kind": h.kind, "domain_size": int(h.size),
                     "depth": int(h.height) if getattr(h, "is_tree", False) else None,
                     "numeric": bool(getattr(h, "numeric", False))})
    return {
        "input": input_label or (", ".join(files) if files else "in-memory table"),
        "rows": int(ds.n),
        "quasi_identifiers": list(ds.quasi_identifiers),
        "sensitive": list(ds.sensitive),
        "identifiers_removed": list(ds.identifiers),
        "insensitive": list(ds.insensitive),
        "hierarchies": hier,
        "models": [str(m) for m in release.models] or list(prov.get("models", [])),
        "algorithm": prov.get("algorithm"),
        "reference": prov.get("reference"),
        "recoding": release.recoding,
        "parameters": prov.get("parameters", {}),
        "randomness": prov.get("randomness"),
        "created": prov.get("created"),
        "timings": prov.get("timings", {}),
        "versions": prov.get("versions", {}),
        "verified_when_made": bool(prov.get("verified", False)),
        "warnings": release.warnings(),
    }


def _verification(release: Release) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for m in release.models:
        try:
            res = m.check(release)
        except (KtypeError, NotImplementedError) as e:
            out.append({"model": str(m), "satisfied": None, "summary": {}, "error": str(e)})
            continue
        out.append({"model": res.model, "satisfied": bool(res.satisfied), "summary": _jsonable(res.summary)})
    return out


def _audit_verification(audit: Any) -> list[dict[str, Any]]:
    return [{"model": r.model, "satisfied": bool(r.satisfied), "summary": _jsonable(r.summary)} for r in audit.results]


def _group_sizes(rows: np.ndarray) -> np.ndarray:
    from ._grouping import group_rows

    if len(rows) == 0:
        return np.zeros(0, dtype=np.int64)
    ids, g = group_rows(rows)
    return np.bincount(ids, minlength=g).astype(np.int64)


def _size_summary(sizes: np.ndarray) -> dict[str, Any]:
    vals, counts = np.unique(sizes, return_counts=True)
    return {"classes": int(len(sizes)), "smallest": int(sizes.min()) if len(sizes) else 0,
            "median": float(np.median(sizes)) if len(sizes) else 0.0, "largest": int(sizes.max()) if len(sizes) else 0,
            "size_counts": {int(v): int(c) for v, c in zip(vals, counts)}}


def _classes(release: Release) -> dict[str, Any]:
    from .measures import class_sizes

    out: dict[str, Any] = {"input": _size_summary(_group_sizes(release.dataset.X))}
    out["release"] = _size_summary(class_sizes(release)[1]) if release.recoding not in ("freeform",) else None
    return out


def _matching(release: Release, max_component: int) -> dict[str, Any]:
    from .attacks.matching import match_posteriors
    from .models._graph import consistency_graph

    graph = consistency_graph(release)
    m = graph.match_counts().astype(np.int64)
    vals, counts = np.unique(m, return_counts=True)
    mp = match_posteriors(release, max_component, graph=graph)
    post = mp.max_posterior[~np.isnan(mp.max_posterior)]
    edges = np.linspace(0.0, 1.0, 21)
    hist = np.histogram(post, bins=edges)[0] if len(post) else np.zeros(20, dtype=np.int64)
    return {"match_counts": {int(v): int(c) for v, c in zip(vals, counts)},
            "posterior": mp.summary(), "posterior_hist": [int(x) for x in hist], "posterior_edges": edges.tolist()}


def _box_labels(release: Release, row: int) -> dict[str, str]:
    ds = release.dataset
    out = {}
    for j, (c, h) in enumerate(zip(ds.quasi_identifiers, ds.hierarchies)):
        lev = None if release.levels is None else int(release.levels[j])
        out[c] = str(h.labels(release.lo[row:row + 1, j], release.hi[row:row + 1, j], level=lev)[0])
    return out


def _diversity(release: Release) -> list[dict[str, Any]]:
    from .models._base import class_histograms, equivalence_classes

    out: list[dict[str, Any]] = []
    ds = release.dataset
    for m in release.models:
        if not hasattr(m, "class_values") or not ds.sensitive:
            continue
        entry: dict[str, Any] = {"model": str(m)}
        try:
            scope = m.resolve_scope(release)
        except KtypeError as e:
            out.append({**entry, "note": str(e)})
            continue
        if scope != "class":
            out.append({**entry, "note": "checked per record over its matches (local recoding): there are no classes "
                                         "to rank; see the verification verdict and the match graph."})
            continue
        col = ds.sensitive_column(getattr(m, "sensitive", None))
        values = list(ds.sensitive_values[col])
        class_of, g = equivalence_classes(release)
        if g == 0:
            out.append({**entry, "note": "no published class"})
            continue
        sizes = np.bincount(class_of[class_of >= 0], minlength=g).astype(np.int64)
        hist = class_histograms(class_of, g, release.sensitive_codes(col), len(values))
        score = np.asarray(m.class_values(sizes, hist, ds), dtype=np.float64)
        ok = np.asarray(m.class_verdicts(sizes, hist, ds), dtype=bool)
        higher = bool(getattr(m, "_higher_is_better", True))
        order = np.lexsort((sizes, score if higher else -score, ok))[:WORST_CLASSES]
        first = np.full(g, -1, dtype=np.int64)
        pub = np.flatnonzero(class_of >= 0)
        first[class_of[pub[::-1]]] = pub[::-1]
        rows = []
        for c in order.tolist():
            top = np.argsort(-hist[c], kind="stable")[:5]
            rows.append({"class": _box_labels(release, int(first[c])), "size": int(sizes[c]), "score": float(score[c]),
                         "satisfied": bool(ok[c]),
                         "values": {str(values[v]): int(hist[c, v]) for v in top.tolist() if hist[c, v] > 0}})
        out.append({**entry, "sensitive": col, "score_name": getattr(m, "_score_name", "score"),
                    "higher_is_better": higher, "classes": int(g), "failing_classes": int((~ok).sum()), "worst": rows})
    return out


def _per_attribute(release: Release) -> dict[str, Any]:
    from .measures.loss_metric import loss_metric_cells
    from .measures.ncp import _release_ncp

    ds = release.dataset
    out: dict[str, Any] = {"attributes": list(ds.quasi_identifiers)}
    if release.n == 0:
        out["loss_metric"] = [0.0] * ds.r
        out["ncp"] = [0.0] * ds.r
        return out
    out["loss_metric"] = loss_metric_cells(ds, release.lo, release.hi).mean(axis=0).tolist()
    try:
        out["ncp"] = _release_ncp(release, "data", None).mean(axis=0).tolist()
    except KtypeError as e:
        out["ncp"] = None
        out["ncp_note"] = str(e)
    return out


def _widths(release: Release) -> list[np.ndarray]:
    """Per QI, the share of the domain each published (non-suppressed) cell covers."""
    ds = release.dataset
    lo, hi, sets = release.cells()
    keep = ~release.suppressed
    out = []
    for j, h in enumerate(ds.hierarchies):
        if j in sets:
            w = sets[j][keep].sum(axis=1).astype(np.float64)
        else:
            w = (hi[keep, j].astype(np.float64) - lo[keep, j] + 1)
        out.append(w / max(int(h.size), 1))
    return out


def _generalization(release: Release) -> dict[str, Any]:
    ds = release.dataset
    if release.recoding == "full-domain" and release.levels is not None:
        return {"kind": "levels", "attributes": list(ds.quasi_identifiers),
                "levels": [int(x) for x in release.levels],
                "heights": [int(h.height) for h in ds.hierarchies]}
    widths = _widths(release)
    rows = []
    for c, w in zip(ds.quasi_identifiers, widths):
        rows.append({"attribute": c, "mean_share": float(w.mean()) if len(w) else 0.0,
                     "median_share": float(np.median(w)) if len(w) else 0.0,
                     "exact": float((w <= 1.0 / max(ds.hierarchy(c).size, 1) + 1e-12).mean()) if len(w) else 0.0,
                     "whole_domain": float((w >= 1.0 - 1e-12).mean()) if len(w) else 0.0})
    return {"kind": "widths", "attributes": rows}


def _marginals(release: Release) -> list[dict[str, Any]]:
    ds = release.dataset
    lo, hi, sets = release.cells()
    keep = ~release.suppressed
    out = []
    for j, (c, h) in enumerate(zip(ds.quasi_identifiers, ds.hierarchies)):
        m = int(h.size)
        orig = np.bincount(ds.X[:, j], minlength=m).astype(np.float64)
        if j in sets:
            member = sets[j][keep].astype(np.float64)
            tot = member.sum(axis=1, keepdims=True)
            rel = (member / np.where(tot > 0, tot, 1.0)).sum(axis=0)
        else:
            a = lo[keep, j].astype(np.int64)
            b = hi[keep, j].astype(np.int64)
            w = 1.0 / (b - a + 1)
            diff = np.zeros(m + 1)
            np.add.at(diff, a, w)
            np.add.at(diff, b + 1, -w)
            rel = np.cumsum(diff)[:m]
        bins = int(min(m, MAX_BARS))
        edges = np.linspace(0, m, bins + 1).round().astype(np.int64)
        labels = []
        for a, b in zip(edges[:-1], edges[1:]):
            first, last = str(h.leaves[a]), str(h.leaves[b - 1])
            labels.append(first if b - a == 1 else f"{first}–{last}")
        out.append({"attribute": c, "labels": labels,
                    "original": np.add.reduceat(orig, edges[:-1]).tolist() if m else [],
                    "released": np.add.reduceat(rel, edges[:-1]).tolist() if m else []})
    return out


def _lattice(release: Release) -> dict[str, Any]:
    lat = release.provenance.get("lattice")
    if release.recoding != "full-domain":
        return {"note": f"not a full-domain search (recoding: {release.recoding}): there is no lattice."}
    if not isinstance(lat, Mapping):
        alg = release.provenance.get("algorithm", "the algorithm")
        return {"note": f"{alg}'s search result does not keep its lattice; nothing to draw."}
    return dict(lat)


# ---------------------------------------------------------------------- plots
def _svg(fig: Any) -> str:
    buf = io.StringIO()
    fig.savefig(buf, format="svg", bbox_inches="tight", metadata={"Date": None})
    text = buf.getvalue()
    text = text[text.index("<svg"):]  # drop the XML prolog and DOCTYPE (an inline SVG needs neither)
    text = re.sub(r"<metadata>.*?</metadata>", "", text, flags=re.S)
    text = re.sub(r'\s+xmlns(:\w+)?="[^"]*"', "", text, count=0)  # the HTML parser knows the SVG namespace
    text = re.sub(r'\swidth="[^"]*"\sheight="[^"]*"', "", text, count=1)  # scale with the page (viewBox kept)
    return text.replace("<svg", '<svg role="img"', 1)


class _Plots:
    """matplotlib, imported on first use; figures without pyplot (no global state, no display)."""

    def __init__(self) -> None:
        try:
            import matplotlib
            from matplotlib.figure import Figure
        except ImportError:
            raise KtypeError("The HTML report draws its plots with matplotlib, which is not installed: "
                             "pip install 'ktype[report]' (or pip install matplotlib).") from None
        self._mpl = matplotlib
        self.Figure = Figure

    def figure(self, w: float = 6.4, h: float = 3.0) -> Any:
        return self.Figure(figsize=(w, h), layout="constrained")

    def render(self, fig: Any) -> str:
        with self._mpl.rc_context({"svg.fonttype": "none", "svg.hashsalt": "ktype-report", "font.size": 9}):
            return _svg(fig)


def _bars(plots: _Plots, labels: Sequence[str], series: Mapping[str, Sequence[float]], *, ylabel: str,
          title: str = "", w: float = 6.4, h: float = 2.8, log: bool = False, rotate: bool = False,
          every_label: bool = False) -> str:
    fig = plots.figure(w, h)
    ax = fig.add_subplot()
    x = np.arange(len(labels))
    n = max(len(series), 1)
    width = 0.8 / n
    for i, (name, vals) in enumerate(series.items()):
        ax.bar(x + (i - (n - 1) / 2) * width, vals, width, label=name)
    step = 1 if every_label else max(1, math.ceil(len(labels) / 16))  # at most 16 readable tick labels
    shown = [str(s) if i % step == 0 else "" for i, s in enumerate(labels)]
    ax.set_xticks(x, shown, rotation=60 if rotate else 0, ha="right" if rotate else "center")
    ax.set_ylabel(ylabel)
    if log:
        ax.set_yscale("symlog", linthresh=1)
    if title:
        ax.set_title(title)
    if len(series) > 1:
        ax.legend(frameon=False)
    ax.spines[["top", "right"]].set_visible(False)
    return plots.render(fig)


def _lattice_svg(plots: _Plots, lat: Mapping[str, Any]) -> str | None:
    heights = [int(x) for x in lat.get("heights", [])]
    if not heights or math.prod(h + 1 for h in heights) > MAX_LATTICE_NODES:
        return None
    nodes = np.array(list(itertools.product(*[range(h + 1) for h in heights])), dtype=np.int64)
    kmin = np.array(lat.get("k_minimal") or [], dtype=np.int64).reshape(-1, len(heights))
    opt = np.array(lat.get("optimum") or [], dtype=np.int64)
    feasible = np.zeros(len(nodes), dtype=bool)
    if lat.get("monotone_feasibility", False):
        for km in kmin:
            feasible |= (nodes >= km).all(axis=1)
    level = nodes.sum(axis=1)
    pos = np.zeros(len(nodes))
    for s in np.unique(level):
        idx = np.flatnonzero(level == s)
        pos[idx] = np.arange(len(idx)) - (len(idx) - 1) / 2
    fig = plots.figure(6.4, 3.4)
    ax = fig.add_subplot()
    complete = bool(lat.get("k_minimal_complete", False)) and bool(lat.get("monotone_feasibility", False))
    other = "infeasible" if complete else "infeasible or not classified (not kept)"
    ax.scatter(level[~feasible], pos[~feasible], s=4, c="#bbbbbb", label=other, linewidths=0)
    ax.scatter(level[feasible], pos[feasible], s=6, c="#4c9a2a", label="feasible (above a k-minimal node)", linewidths=0)
    if len(kmin):
        ax.scatter(kmin.sum(axis=1), [pos[_node_index(nodes, km)] for km in kmin], s=40, facecolors="none",
                   edgecolors="#1f4e79", label="k-minimal")
    if len(opt) == len(heights):
        ax.scatter([opt.sum()], [pos[_node_index(nodes, opt)]], s=120, marker="*", c="#d62728", label="optimum")
    ax.set_xlabel("height of the node (sum of levels)")
    ax.set_yticks([])
    ax.legend(frameon=False, fontsize=7, loc="upper left")
    ax.spines[["top", "right", "left"]].set_visible(False)
    return plots.render(fig)


def _node_index(nodes: np.ndarray, node: np.ndarray) -> int:
    return int(np.flatnonzero((nodes == node).all(axis=1))[0])


# ---------------------------------------------------------------------- HTML
_CSS = """
:root { --fg: #1b1b1b; --muted: #5f6368; --line: #d0d4d9; --ok: #1e7b34; --bad: #b3261e; --band: #f4f6f8; }
* { box-sizing: border-box; }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, Helvetica, Arial, sans-serif; color: var(--fg);
       max-width: 1100px; margin: 0 auto; padding: 1.5rem; }
h1 { font-size: 1.6rem; margin: 0 0 .3rem; } h2 { font-size: 1.25rem; border-bottom: 2px solid var(--line);
padding-bottom: .2rem; margin-top: 2rem; } h3 { font-size: 1rem; margin: 1.2rem 0 .4rem; }
p.note, .muted { color: var(--muted); } p.steward { background: #fff4e5; border-left: 4px solid #e8a33d; padding: .5rem .8rem; }
table { border-collapse: collapse; margin: .4rem 0 1rem; font-size: 13px; }
th, td { border-bottom: 1px solid var(--line); padding: .25rem .6rem; text-align: left; vertical-align: top; }
th { background: var(--band); } td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
.pass { color: var(--ok); font-weight: 600; } .fail { color: var(--bad); font-weight: 600; }
figure { margin: .5rem 0 1rem; } figure svg { width: 100%; height: auto; max-width: 720px; display: block; }
figcaption { color: var(--muted); font-size: 12px; }
.grid { display: grid; grid-template-columns: repeat(auto-fit, minmax(340px, 1fr)); gap: .5rem 1.5rem; }
nav ul { columns: 3; padding-left: 1.2rem; margin: .3rem 0; } code { font-size: 12px; }
@media print {
  body { max-width: none; padding: 0; font-size: 11px; } nav { display: none; }
  section { break-before: auto; } h2 { break-after: avoid; } figure, table, tr { break-inside: avoid; }
  p.steward { border: 1px solid #e8a33d; }
}
"""


def _e(x: Any) -> str:
    return html.escape(str(x), quote=True)


def _fmt(v: Any) -> str:
    if v is None:
        return "n/a"
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, int):
        return f"{v:,}"
    if isinstance(v, float):
        if not math.isfinite(v):
            return str(v)
        return f"{v:.4g}"
    return str(v)


def _num(v: Any, *, pct: bool = False, tag: str = "", suffix: str = "") -> str:
    """A table cell holding a number: shown rounded, exact in ``data-value``; ``tag`` is
    ``'name="value"'`` attributes naming the number (for tests and readers)."""
    extra = f" {tag}" if tag else ""
    if v is None or isinstance(v, (bool, str)):
        return f"<td{extra}>{_e(_fmt(v))}</td>"
    shown = f"{100 * v:.2f} %" if pct else _fmt(v)
    return f'<td class="num"{extra} data-value="{_e(repr(v))}">{_e(shown)}{_e(suffix)}</td>'


def _attr(name: str, value: Any) -> str:
    return f'{name}="{_e(value)}"'


def _kv(rows: Iterable[tuple[str, Any]], *, key: str = "") -> str:
    body = []
    for k, v in rows:
        cell = _num(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else f"<td>{_e(_fmt(v))}</td>"
        body.append(f"<tr><th scope=\"row\">{_e(k)}</th>{cell}</tr>")
    attr = f' data-key="{_e(key)}"' if key else ""
    return f"<table{attr}>" + "".join(body) + "</table>"


def _figure(svg: str, caption: str) -> str:
    return f"<figure>{svg}<figcaption>{_e(caption)}</figcaption></figure>"


def _list(items: Iterable[Any]) -> str:
    items = list(items)
    return ", ".join(_e(x) for x in items) if items else "(none)"


def _sec_job(d: dict[str, Any]) -> str:
    j = d["job"]
    rows = [("input", j["input"]), ("input records", j["rows"]), ("quasi-identifiers", ", ".join(j["quasi_identifiers"])),
            ("sensitive (published unchanged)", ", ".join(j["sensitive"]) or "(none)"),
            ("insensitive (published unchanged)", ", ".join(j["insensitive"]) or "(none)"),
            ("identifiers (removed)", ", ".join(j["identifiers_removed"]) or "(none)"),
            ("models", ", ".join(j["models"]) or "(none)"), ("algorithm", j["algorithm"] or "(unknown)"),
            ("reference", j["reference"] or "n/a"), ("recoding", j["recoding"]),
            ("parameters", json.dumps(j["parameters"], sort_keys=True)), ("randomness", j["randomness"] or "n/a"),
            ("created", j["created"] or "n/a"),
            ("versions", ", ".join(f"{k} {v}" for k, v in j["versions"].items()) or "n/a")]
    out = [_kv(rows, key="job")]
    tm = j["timings"]
    if tm:
        out.append("<h3>Timings (seconds)</h3>" + _kv(tm.items(), key="timings"))
    head = "<tr><th>attribute</th><th>hierarchy</th><th>depth (levels above the values)</th><th>domain size</th></tr>"
    body = "".join(f"<tr><td>{_e(h['attribute'])}</td><td>{_e(h['kind'])}{' (numeric)' if h['numeric'] else ''}</td>"
                   f"{_num(h['depth'])}{_num(h['domain_size'])}</tr>" for h in j["hierarchies"])
    out.append(f"<h3>Hierarchies</h3><table data-key=\"hierarchies\">{head}{body}</table>")
    if j["warnings"]:
        out.append("<h3>Warnings</h3><ul>" + "".join(f"<li>{_e(w)}</li>" for w in j["warnings"]) + "</ul>")
    return "".join(out)


def _sec_verification(d: dict[str, Any]) -> str:
    v = d["verification"]
    au = d.get("audit")
    if au is None:
        made = d["job"]["verified_when_made"]
        out = [f"<p>Verified by the independent checker when the release was made: <strong>{_fmt(made)}</strong>. "
               "Each model's checker was run again for this report:</p>"]
    else:
        word = "<span class=\"pass\">PASSED</span>" if au["passed"] else "<span class=\"fail\">FAILED</span>"
        out = [f"<p>The release file was audited against its original (<code>ktype check</code>): {word}.</p>"]
        if au["findings"]:
            out.append("<ul data-key=\"findings\">" + "".join(f"<li class=\"fail\">{_e(f)}</li>" for f in au["findings"])
                       + "</ul><p class=\"fail\">A model verdict on a release that fails its audit proves nothing.</p>")
    if not v:
        return "".join(out) + "<p class=\"note\">No privacy model to verify.</p>"
    rows = []
    for r in v:
        if r["satisfied"] is None:
            verdict = f"<td class=\"fail\" data-verdict=\"error\">not checked: {_e(r.get('error'))}</td>"
        else:
            cls, word = ("pass", "PASS") if r["satisfied"] else ("fail", "FAIL")
            verdict = f"<td class=\"{cls}\" data-verdict=\"{word.lower()}\">{word}</td>"
        facts = ", ".join(f"{k}: {_fmt(x)}" for k, x in r["summary"].items() if k != "per")
        rows.append(f"<tr><td>{_e(r['model'])}</td>{verdict}<td>{_e(facts)}</td></tr>")
    out.append("<table data-key=\"verification\"><tr><th>model</th><th>verdict</th><th>checker's facts</th></tr>"
               + "".join(rows) + "</table>")
    return "".join(out)


def _sec_risk(d: dict[str, Any], plots: _Plots) -> str:
    rk = d["risk"]
    cols = [("input", "input (QIs published unchanged)"), ("release", "release")]
    head = "<tr><th>attacker model</th><th>measure</th>" + "".join(f"<th>{_e(t)}</th>" for _, t in cols) + "</tr>"
    rows = []
    for model in ("prosecutor", "journalist"):
        for key, label, pct in (("highest", "highest risk", False), ("average", "average risk", False),
                                ("records_above_threshold", f"records above threshold {rk['threshold']:g}", False),
                                ("share_above_threshold", f"share of records above threshold {rk['threshold']:g}", True)):
            cells = "".join(_num(rk[c][model][key], pct=pct, tag=f'data-risk="{c}.{model}.{key}"') for c, _ in cols)
            rows.append(f"<tr><td>{model}</td><td>{_e(label)}</td>{cells}</tr>")
    for key, label in (("marketer", "marketer: expected share re-identified"), ("sample_uniques", "sample uniques"),
                       ("records", "records"), ("suppressed", "suppressed"), ("classes", "equivalence classes")):
        cells = "".join(_num(rk[c][key], tag=f'data-risk="{c}.{key}"') for c, _ in cols)
        rows.append(f"<tr><td></td><td>{_e(label)}</td>{cells}</tr>")
    for kk in ("2", "3", "5", "10"):
        cells = ""
        for c, _ in cols:
            viol = rk[c]["records_violating_k_anonymity"]
            cnt = viol.get(kk, viol.get(int(kk)))
            share = cnt / rk[c]["records"] if rk[c]["records"] else 0.0
            cells += _num(cnt, tag=f'data-risk="{c}.records_violating_k_anonymity.{kk}"', suffix=f" ({100 * share:.1f} %)")
        rows.append(f"<tr><td></td><td>records with risk above 1/{kk} (violating {kk}-anonymity)</td>{cells}</tr>")
    out = [f"<p>Population information: {_e(rk['input']['population'])}. Release basis: {_e(rk['release']['basis'])}. "
           "The same numbers as <code>ktype risk RELEASE --original INPUT</code>.</p>",
           f"<table data-key=\"risk\">{head}{''.join(rows)}</table>"]
    dist_in = rk["input"]["prosecutor_risk_distribution"]
    dist_rel = rk["release"]["prosecutor_risk_distribution"]
    labels = list(dist_in)
    svg = _bars(plots, labels, {"input": [100 * dist_in[x] for x in labels], "release": [100 * dist_rel[x] for x in labels]},
                ylabel="% of records", rotate=True, h=3.4, every_label=True)
    out.append(_figure(svg, "Distribution of the per-record prosecutor risk (ARX's intervals): share of records per risk "
                            "interval, input vs release."))
    return "".join(out)


def _size_table(c: dict[str, Any], key: str) -> list[tuple[str, Any]]:
    return [("classes", c["classes"]), ("smallest", c["smallest"]), ("median", c["median"]), ("largest", c["largest"])]


def _size_plot(plots: _Plots, series: Mapping[str, Mapping[Any, int]], *, xlabel: str, ylabel: str) -> str:
    fig = plots.figure(6.4, 2.8)
    ax = fig.add_subplot()
    for name, counts in series.items():
        sizes = np.array([int(s) for s in counts], dtype=np.int64)
        recs = np.array([int(s) * int(n) for s, n in counts.items()], dtype=np.float64)
        if len(sizes) == 0:
            continue
        ax.plot(sizes, recs, marker="o", ms=3, lw=1, drawstyle="default", label=name)
    ax.set_xscale("log")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.legend(frameon=False)
    ax.spines[["top", "right"]].set_visible(False)
    return plots.render(fig)


def _sec_classes(d: dict[str, Any], plots: _Plots) -> str:
    c = d["classes"]
    out = ["<div class=\"grid\"><div><h3>Input (QIs unchanged)</h3>" + _kv(_size_table(c["input"], "input"), key="classes-input")
           + "</div>"]
    series = {"input": c["input"]["size_counts"]}
    if c["release"] is None:
        out.append("<div><h3>Release</h3><p class=\"note\">A freeform release publishes one value set per record: its "
                   "records form no equivalence classes (see the match graph).</p></div></div>")
    else:
        out.append("<div><h3>Release (published rows)</h3>" + _kv(_size_table(c["release"], "release"), key="classes-release")
                   + "</div></div>")
        series["release"] = c["release"]["size_counts"]
        if d["job"]["recoding"] == "local":
            out.append("<p class=\"note\">In a local recoding records with identical published boxes form a class, but "
                       "a record may also be matched by rows of other classes: its risk follows its matches (next section).</p>")
    out.append(_figure(_size_plot(plots, series, xlabel="equivalence class size", ylabel="records in classes of this size"),
                       "Equivalence class sizes: records per class size (log scale)."))
    return "".join(out)


def _sec_matching(d: dict[str, Any], plots: _Plots) -> str:
    mt = d["matching"]
    if mt is None:
        return (f"<p class=\"note\">Not applicable: a {_e(d['job']['recoding'])} recoding publishes equivalence classes; a "
                "record's risk is 1 / its class size.</p>")
    p = mt["posterior"]
    rows = [("records", p["records"]), ("match components", p["components"]), ("smallest component", p["min_size"]),
            ("largest component", p["max_size"]), ("components with exact posteriors", p["exact_components"]),
            ("records in components too large for exact posteriors", p["records_in_too_large_components"]),
            ("highest match posterior", p["max_posterior"]), ("mean of the records' highest posterior", p["mean_max_posterior"]),
            ("records with a posterior ≥ 1/2", p["records_posterior_at_least_half"]),
            ("records re-identified (posterior 1)", p["records_reidentified"])]
    out = ["<p>Each original record matches the released rows that may be its own (the consistency graph); an adversary "
           "who knows every original record and assumes every perfect matching equally likely assigns each record a "
           "posterior per matching row (Tassa, Mazza &amp; Gionis, §5.2; exact per match component, "
           f"up to {_e(p['max_component'])} records). {_e(p['note'])}.</p>", _kv(rows, key="matching")]
    mc = mt["match_counts"]
    out.append(_figure(_bars(plots, list(mc), {"records": list(mc.values())}, ylabel="records"),
                       "Matches per original record (the uniform posterior of ktype risk is 1 / matches)."))
    edges = mt["posterior_edges"]
    labels = [f"{edges[i]:.2f}–{edges[i + 1]:.2f}" for i in range(len(edges) - 1)]
    out.append(_figure(_bars(plots, labels, {"records": mt["posterior_hist"]}, ylabel="records", rotate=True),
                       "Highest exact match posterior per record (records in components with exact posteriors)."))
    return "".join(out)


def _sec_diversity(d: dict[str, Any]) -> str:
    dv = d["diversity"]
    if not dv:
        return ("<p class=\"note\">Not applicable: the release claims no ℓ-diversity, p-sensitivity or t-closeness model "
                "over a sensitive attribute.</p>")
    out = []
    for m in dv:
        out.append(f"<h3>{_e(m['model'])}</h3>")
        if "note" in m:
            out.append(f"<p class=\"note\">{_e(m['note'])}</p>")
            continue
        better = "higher" if m["higher_is_better"] else "lower"
        out.append(f"<p>{m['classes']:,} classes, {m['failing_classes']:,} failing; the {len(m['worst'])} worst by "
                   f"{_e(m['score_name'])} ({better} is better) on <code>{_e(m['sensitive'])}</code>:</p>")
        rows = "".join(
            f"<tr><td>{_e(', '.join(f'{k}={v}' for k, v in w['class'].items()))}</td>{_num(w['size'])}{_num(w['score'])}"
            f"<td class=\"{'pass' if w['satisfied'] else 'fail'}\">{'yes' if w['satisfied'] else 'no'}</td>"
            f"<td>{_e(', '.join(f'{k}: {v}' for k, v in w['values'].items()))}</td></tr>" for w in m["worst"])
        out.append(f"<table data-key=\"worst-{_e(m['model'])}\"><tr><th>class (published QI cells)</th><th>size</th>"
                   f"<th>{_e(m['score_name'])}</th><th>satisfied</th><th>most frequent sensitive values</th></tr>{rows}</table>")
    return "".join(out)


def _sec_utility(d: dict[str, Any], plots: _Plots) -> str:
    ms = d["measures"]
    rows = "".join(f"<tr><td>{_e(k)}</td>{_num(v, tag=_attr('data-measure', k))}</tr>" for k, v in ms.items())
    out = ["<p>The same numbers as <code>ktype metrics RELEASE --original INPUT</code> (lower is better, except "
           "precision).</p>", f"<table data-key=\"measures\"><tr><th>measure</th><th>value</th></tr>{rows}</table>"]
    if d["measures_skipped"]:
        out.append("<p class=\"note\">Not computed: " + "; ".join(f"{_e(k)} ({_e(v)})" for k, v in d["measures_skipped"].items())
                   + "</p>")
    pa = d["per_attribute"]
    head = "<tr><th>attribute</th><th>LM</th><th>NCP</th></tr>"
    body = ""
    for i, c in enumerate(pa["attributes"]):
        ncp = pa["ncp"][i] if pa["ncp"] is not None else None
        body += (f"<tr><td>{_e(c)}</td>{_num(pa['loss_metric'][i], tag=_attr('data-lm', c))}"
                 f"{_num(ncp, tag=_attr('data-ncp', c))}</tr>")
    out.append("<h3>Loss per attribute</h3><p>Mean over released rows (suppressed ones count as fully generalized); "
               "the mean over attributes is the table's LM and GCP.</p>"
               f"<table data-key=\"per-attribute\">{head}{body}</table>")
    series = {"LM": pa["loss_metric"]}
    if pa["ncp"] is not None:
        series["NCP"] = pa["ncp"]
    out.append(_figure(_bars(plots, pa["attributes"], series, ylabel="mean loss per cell", rotate=True),
                       "Information loss per attribute (0 = values kept, 1 = fully generalized)."))
    return "".join(out)


def _sec_generalization(d: dict[str, Any], plots: _Plots) -> str:
    g = d["generalization"]
    if g["kind"] == "levels":
        rows = "".join(f"<tr><td>{_e(c)}</td>{_num(lv)}{_num(h)}</tr>"
                       for c, lv, h in zip(g["attributes"], g["levels"], g["heights"]))
        svg = _bars(plots, g["attributes"], {"level": g["levels"], "height of the hierarchy": g["heights"]},
                    ylabel="level", rotate=True)
        return ("<p>Full-domain recoding: every value of an attribute is generalized to the same level of its hierarchy.</p>"
                f"<table data-key=\"levels\"><tr><th>attribute</th><th>level</th><th>hierarchy height</th></tr>{rows}</table>"
                + _figure(svg, "Generalization level per attribute, next to the height of its hierarchy."))
    rows = "".join(f"<tr><td>{_e(r['attribute'])}</td>{_num(r['mean_share'])}{_num(r['median_share'])}"
                   f"{_num(r['exact'], pct=True)}{_num(r['whole_domain'], pct=True)}</tr>" for r in g["attributes"])
    svg = _bars(plots, [r["attribute"] for r in g["attributes"]],
                {"mean share": [r["mean_share"] for r in g["attributes"]],
                 "median share": [r["median_share"] for r in g["attributes"]]}, ylabel="share of the domain", rotate=True)
    return ("<p>Share of its attribute's domain (values) that a published cell covers, over the published rows.</p>"
            "<table data-key=\"widths\"><tr><th>attribute</th><th>mean share</th><th>median share</th>"
            f"<th>cells kept exact</th><th>cells fully generalized (*)</th></tr>{rows}</table>"
            + _figure(svg, "Width of the published cells per attribute, as a share of the domain."))


def _sec_marginals(d: dict[str, Any], plots: _Plots) -> str:
    out = ["<p>Original counts per value next to the released counts, each published row spread uniformly over the "
           "values its cell covers (suppressed rows left out). Large domains are shown in runs of contiguous values.</p>"
           "<div class=\"grid\">"]
    for m in d["marginals"]:
        svg = _bars(plots, m["labels"], {"original": m["original"], "released (spread)": m["released"]},
                    ylabel="records", title=m["attribute"], w=5.0, h=2.8, rotate=True)
        out.append(_figure(svg, f"{m['attribute']}: original vs released"))
    return "".join(out) + "</div>"


def _sec_suppression(d: dict[str, Any]) -> str:
    s = d["suppression"]
    rows = [("input records", s["input_records"]), ("suppressed records", s["suppressed"]),
            ("published rows", s["published_rows"])]
    note = ("<p class=\"note\">Suppressed records are removed from the published file (unless written with "
            "include_suppressed); measures charge them as fully generalized.</p>" if s["suppressed"] else
            "<p class=\"note\">No record was suppressed.</p>")
    share = f"<p>Share suppressed: <strong>{100 * s['share']:.2f} %</strong>.</p>"
    return _kv(rows, key="suppression") + share + note


def _sec_lattice(d: dict[str, Any], plots: _Plots) -> str:
    lat = d["lattice"]
    if "note" in lat:
        return f"<p class=\"note\">{_e(lat['note'])}</p>"
    keys = ("algorithm", "measure", "nodes", "nodes_evaluated", "nodes_feasible", "nodes_infeasible", "nodes_unclassified",
            "nodes_pruned", "optimum", "value", "n_k_minimal", "k_minimal_complete", "monotone_feasibility", "time_s")
    rows = [(k, lat[k] if not isinstance(lat[k], list) else str(lat[k])) for k in keys if k in lat]
    out = [_kv(rows, key="lattice")]
    svg = _lattice_svg(plots, lat)
    if svg is None and not lat.get("heights"):
        out.append("<p class=\"note\">The search keeps no hierarchy heights, so its lattice is not drawn.</p>")
    elif svg is None:
        out.append(f"<p class=\"note\">The lattice has more than {MAX_LATTICE_NODES:,} nodes: not drawn.</p>")
    else:
        out.append(_figure(svg, "The generalization lattice by height. The search keeps counts, the optimum and its "
                                "k-minimal nodes, not every node's verdict: nodes above a k-minimal node are feasible "
                                "(feasibility is monotone), the others are drawn grey."))
    return "".join(out)


def render(data: Mapping[str, Any]) -> str:
    """The HTML page of :func:`collect`'s numbers (draws the plots; needs matplotlib)."""
    plots = _Plots()
    d = dict(data)
    bodies = {
        "job": _sec_job(d), "verification": _sec_verification(d), "risk": _sec_risk(d, plots),
        "classes": _sec_classes(d, plots), "matching": _sec_matching(d, plots), "diversity": _sec_diversity(d),
        "utility": _sec_utility(d, plots), "generalization": _sec_generalization(d, plots),
        "marginals": _sec_marginals(d, plots), "suppression": _sec_suppression(d), "lattice": _sec_lattice(d, plots),
    }
    j = d["job"]
    title = f"ktype release report — {j['algorithm'] or 'release'} on {j['input']}"
    nav = "<nav><ul>" + "".join(f"<li><a href=\"#{s}\">{_e(_TITLES[s])}</a></li>" for s in SECTIONS) + "</ul></nav>"
    sections = "".join(f"<section id=\"{s}\"><h2>{_e(_TITLES[s])}</h2>{bodies[s]}</section>" for s in SECTIONS)
    payload = json.dumps(d, sort_keys=True, allow_nan=False, default=str).replace("<", "\\u003c")
    verdicts = [r["satisfied"] for r in d["verification"]]
    audit_ok = d.get("audit") is None or d["audit"]["passed"]
    status = ("all models verified" if verdicts and audit_ok and all(v is True for v in verdicts)
              else "NOT VERIFIED" if verdicts or not audit_ok else "no model")
    return (
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
        f"<title>{_e(title)}</title><style>{_CSS}</style></head><body>"
        f"<header><h1>{_e(title)}</h1><p class=\"muted\">{j['rows']:,} records, {len(j['quasi_identifiers'])} "
        f"quasi-identifiers, {_e(j['recoding'])} recoding, models: {_list(j['models'])} — {_e(status)}. "
        f"Made {_e(j['created'] or 'n/a')} with ktype {_e(j['versions'].get('ktype', '?'))}.</p>"
        "<p class=\"steward\">For the data steward: this report shows properties of the <em>original</em> data "
        "(marginals, the risk of the input, sensitive values of classes). Do not publish it with the release.</p>"
        f"</header>{nav}<main>{sections}</main>"
        f"<script type=\"application/json\" id=\"ktype-report-data\">{payload}</script></body></html>\n"
    )


def report_html(release: Release, **options: Any) -> str:
    """The report of ``release`` as an HTML string (options as for :func:`collect`)."""
    return render(collect(release, **options))


def write_report(  # noqa: PLR0913
    release: Release,
    path: str | Path,
    *,
    input_label: str | None = None,
    threshold: float = 0.2,
    sampling_fraction: float | None = None,
    population_size: int | None = None,
    posterior: str = "uniform",
    max_component: int = 20,
    inputs: Iterable[str | Path | None] = (),
    force: bool = True,
    mkdirs: bool = True,
    audit: Any = None,
) -> Path:
    """Write the HTML report of ``release`` to ``path`` (``.html`` or ``.htm``), atomically.

    Parameters
    ----------
    release : Release
        A release from :func:`ktype.anonymize` (or :func:`ktype.audit.parse_release`); its
        dataset holds the original data the report compares it with.
    path : path
        The report file. Checked like a release's output path
        (:func:`ktype.io._files.check_output_path`): never one of ``inputs`` or the files the
        dataset was read from, never a link, FIFO, device or directory; an existing regular
        file is replaced when ``force`` (default), missing directories are created when
        ``mkdirs`` (default).
    input_label : str, optional
        How the input is named in the report (default: the dataset's source files).
    threshold, sampling_fraction, population_size, posterior
        As for ``ktype risk`` (:func:`ktype.risk.report.risk_report`).
    max_component : int, default 20
        Largest match component whose exact posteriors are drawn (local recodings).
    audit : AuditReport, optional
        The audit of the release file (:func:`report_file`): shown as the verification.

    Returns
    -------
    Path
        ``path``. A failure (bad input, missing matplotlib, a write error) leaves no file.
    """
    source = [*getattr(getattr(release, "dataset", None), "source_files", ()), *inputs]
    path = check_report_path(path, inputs=source, force=force, mkdirs=mkdirs)
    text = render(collect(release, threshold=threshold, sampling_fraction=sampling_fraction, population_size=population_size,
                          posterior=posterior, max_component=max_component, input_label=input_label, audit=audit))
    atomic_write_text(path, text, mkdirs=mkdirs)
    return path


def check_report_path(path: str | Path, *, inputs: Iterable[str | Path | None] = (), others: Mapping[str, Any] | None = None,
                      force: bool = True, mkdirs: bool = True) -> Path:
    """Refuse a report path before any work: not ``.html``/``.htm``, one of ``inputs``, another
    output of the run (``others``: role -> path), a link, FIFO, device or directory; an existing
    file unless ``force``; a missing directory unless ``mkdirs``
    (:func:`ktype.io._files.check_output_path`). For ``ktype anonymize ... --report out.html``."""
    path = Path(path)
    if path.suffix.lower() not in _SUFFIXES:
        raise InvalidParameterError(f"The report is an HTML file: name it with .html (got {path.name!r}).")
    return check_output_path(path, what="report", inputs=inputs, others=others, force=force, mkdirs=mkdirs)


def report_file(
    original: Any,
    released: str | Path,
    path: str | Path,
    model: Any = None,
    *,
    input_label: str | None = None,
    report_options: Mapping[str, Any] | None = None,
    force: bool = True,
    mkdirs: bool = True,
    **audit_options: Any,
) -> tuple[Path, Any]:
    """The report of a published release *file* (``ktype report RELEASE --original INPUT -o out.html``).

    The file is audited against ``original`` exactly as ``ktype check`` does
    (:func:`ktype.audit.audit` with ``model`` and ``audit_options``: roles, hierarchies,
    ``recoding``, ``sep``, ``missing``, ...), and the report of the release read back is
    written with the audit as its verification. Returns ``(path, audit report)``; the caller
    decides the exit status from ``audit_report.passed``. A file that cannot be read back as a
    release of ``original`` raises :class:`~ktype.exceptions.DataError` naming the findings
    (``ktype check`` lists them) and writes nothing.
    """
    from .audit import audit

    inputs = [released, *(audit_options.pop("inputs", ()) or ())]
    if isinstance(original, (str, Path)):
        inputs.append(original)
    check_report_path(path, inputs=inputs, force=force, mkdirs=mkdirs)
    rep = audit(original, released, model, **audit_options)
    if rep.release is None:
        found = "; ".join(str(f).rstrip(".") for f in rep.findings[:3]) or "no release could be parsed"
        raise DataError(f"{released} cannot be read back as a release of the original, so there is nothing to report: "
                        f"{found}. Run ktype check on it for every finding.")
    label = input_label or (str(original) if isinstance(original, (str, Path)) else None)
    out = write_report(rep.release, path, input_label=label, inputs=inputs, force=force, mkdirs=mkdirs, audit=rep,
                       **dict(report_options or {}))
    return out, rep
