"""The ``ktype`` command line.

Commands: ``anonymize``, ``check``, ``metrics``, ``datasets``, ``algorithms``.
Every flag can also come from a YAML or TOML file given with ``--config`` (keys are the
flag names with ``_`` or ``-``); flags on the command line win.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from .exceptions import KtypeError

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    help="ktype: publish microdata with k-type anonymity (k-anonymity, (k,k), k-concealment, ℓ-diversity, t-closeness).",
)


def _print_version(value: bool) -> None:
    if value:
        from . import __version__

        print(f"ktype {__version__}")
        raise typer.Exit(0)


@app.callback()
def _root(
    version: Annotated[bool, typer.Option("--version", callback=_print_version, is_eager=True,
                                          help="Print ktype's version and exit.")] = False,
) -> None:
    """ktype: publish microdata with k-type anonymity (k-anonymity, (k,k), k-concealment, ℓ-diversity, t-closeness)."""


#: Exit codes of every command, enforced in :func:`run` and documented in docs/guide.md.
EXIT_OK = 0  # done; for check/attack: every model satisfied, no violation found
EXIT_VIOLATION = 1  # a check failed or could not be verified, or an attack succeeded
EXIT_USAGE = 2  # the command line itself is wrong (unknown option, missing argument)
EXIT_DATA = 3  # the data, a parameter, a config or a file is wrong: the message says what to fix
EXIT_INTERNAL = 4  # a bug in ktype: the message says so (KTYPE_DEBUG=1 shows the traceback)
EXIT_INTERRUPTED = 130  # Ctrl-C (SIGINT)

err = Console(stderr=True, soft_wrap=True)  # messages hold paths: never break them
out = Console()


# ---------------------------------------------------------------------- helpers
#: config-file spellings of parameters whose Python name differs
_CONFIG_ALIASES = {"summary_path": "summary", "as_json": "json", "fmt": "format"}


def _config_keys(command: Any) -> dict[str, str]:
    """The keys a config file may hold for ``command`` (its options; ``keep`` = insensitive)
    and the kind of value each takes (``bool``, ``int``, ``float``, ``text``, ``list``)."""
    from ._config import option_kinds

    keys = {_CONFIG_ALIASES.get(p, p): kind for p, kind in option_kinds(command).items() if p != "config"}
    if "insensitive" in keys:
        keys["keep"] = keys["insensitive"]
    if "types" in keys:
        keys["type"] = keys["types"]  # read as an alias of types (see _reading)
    return keys


def _load_config(path: Path | None, allowed: dict[str, str] | set[str] | None = None) -> dict[str, Any]:
    """Read a YAML/TOML config. With ``allowed``, an unknown key is an error with a suggestion
    (a misspelled ``sensitve:`` must not silently publish a column unprotected), and with
    :func:`_config_keys`'s kinds a value of the wrong type is an error (``force: "no"``,
    ``k: true``). A key given twice is always an error (``k: 5`` then ``k: 1``)."""
    from ._config import DuplicateKeyError, check_types, parse_config

    if path is None:
        return {}
    if not path.exists():
        raise KtypeError(f"Config file not found: {path}")
    if not path.is_file():
        raise KtypeError(f"Config {str(path)!r} is not a file (a YAML or TOML file, e.g. --config job.yaml).")
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise KtypeError(f"Cannot read the config file {path}: {getattr(e, 'strerror', None) or e}.") from None
    try:
        cfg = parse_config(text, toml=path.suffix.lower() == ".toml")
    except DuplicateKeyError as e:
        raise KtypeError(f"Config file {path}: {e}; a later value would silently replace the earlier one. "
                         "Keep one.") from None
    except Exception as e:  # noqa: BLE001 - any parser error is a user error here
        raise KtypeError(f"Config file {path} is malformed: {e}") from None
    if not isinstance(cfg, dict):
        raise KtypeError(f"Config file {path} must hold a mapping of option names to values.")
    spelled: dict[str, str] = {}
    for k in cfg:
        norm = str(k).replace("-", "_")
        if norm in spelled:
            raise KtypeError(f"Config file {path} gives {norm!r} twice (as {spelled[norm]!r} and {str(k)!r}); keep one.")
        spelled[norm] = str(k)
    cfg = {str(k).replace("-", "_"): v for k, v in cfg.items()}
    if allowed is not None:
        import difflib

        for key in cfg:
            if key not in allowed:
                close = difflib.get_close_matches(key, sorted(allowed), n=1)
                hint = f" Did you mean {close[0]!r}?" if close else ""
                raise KtypeError(f"Unknown key {key!r} in config file {path}.{hint} Valid keys: {', '.join(sorted(allowed))}.")
    if isinstance(allowed, dict):
        cfg = check_types(cfg, allowed, path)
    if "type" in cfg and "types" in cfg:
        raise KtypeError(f"Config file {path} has both 'type' and 'types'; they are the same option, use one.")
    if "keep" in cfg:
        if "insensitive" in cfg:
            raise KtypeError(f"Config file {path} has both 'keep' and 'insensitive'; they are the same option, use one.")
        cfg["insensitive"] = cfg.pop("keep")
    return _resolve_config_paths(cfg, path.parent)


PATH_KEYS = ("input", "output", "summary", "original", "released")
_BUILTIN_HIERARCHIES = ("ordered", "flat", "dates")


def _resolve_config_paths(cfg: dict[str, Any], base: Path) -> dict[str, Any]:
    """Relative paths in a config file are relative to the config file's directory."""

    def res(v: Any) -> Any:
        if isinstance(v, str) and v and not Path(v).is_absolute():
            return str(base / v)
        return v

    for key in PATH_KEYS:
        if key in cfg and cfg[key] is not None:
            cfg[key] = res(cfg[key])

    def res_hier(spec: Any) -> Any:
        if isinstance(spec, str) and ":" not in spec and spec not in _BUILTIN_HIERARCHIES:
            return res(spec)
        return spec

    h = cfg.get("hierarchy")
    if isinstance(h, dict):
        cfg["hierarchy"] = {c: res_hier(v) for c, v in h.items()}
    elif isinstance(h, (list, str)):
        items = [h] if isinstance(h, str) else h
        fixed = []
        for item in items:
            if isinstance(item, str) and "=" in item:
                col, val = item.split("=", 1)
                fixed.append(f"{col}={res_hier(val.strip())}")
            else:
                fixed.append(item)
        cfg["hierarchy"] = fixed
    return cfg


def _pick(cli: Any, cfg: dict[str, Any], key: str, default: Any = None) -> Any:
    if cli not in (None, [], ()):
        return cli
    return cfg.get(key, default)


def _roles(cfg: dict[str, Any], qi: Any, sensitive: Any, identifier: Any, insensitive: Any, hierarchy: Any
           ) -> tuple[list[str], list[str], list[str], list[str], dict[str, Any]]:
    """Column roles and hierarchies from flags, else the config file."""
    return (_split(_pick(qi, cfg, "qi")), _split(_pick(sensitive, cfg, "sensitive")),
            _split(_pick(identifier, cfg, "identifier")), _split(_pick(insensitive, cfg, "insensitive")),
            _hierarchies(_pick(hierarchy, cfg, "hierarchy")))


def _split(values: list[str] | str | None) -> list[str]:
    if not values:
        return []
    if isinstance(values, str):
        values = [values]
    outl: list[str] = []
    for v in values:
        outl.extend(x.strip() for x in str(v).split(",") if x.strip())
    return outl


def _parse_hierarchy(spec: str) -> tuple[str, Any]:
    """``col=path.csv`` | ``col=ordered`` | ``col=flat`` | ``col=intervals:5,10,20`` | ``col=masking:1,2``."""
    if "=" not in spec:
        raise KtypeError(f"Hierarchy {spec!r} must look like COLUMN=SPEC (e.g. age=intervals:5,10,20 or zip=masking:1,2,3).")
    col, val = spec.split("=", 1)
    col, val = col.strip(), val.strip()
    for kind, example in (("intervals", "intervals:5,10,20"), ("masking", "masking:1,2,3")):
        if val.startswith(kind + ":"):
            parts = [x.strip() for x in val.split(":", 1)[1].split(",")]
            try:
                nums = [float(x) if kind == "intervals" and "." in x else int(x) for x in parts]
            except ValueError:
                what = "widths (numbers)" if kind == "intervals" else "numbers of trailing characters to mask (whole numbers)"
                raise KtypeError(f"Hierarchy {spec!r}: {kind} takes comma-separated {what}, e.g. {col}={example}.") from None
            return col, {kind: nums}
    return col, val  # a path, ordered, flat, dates or dates:month,quarter,year


def _hierarchies(specs: list[str] | dict | None) -> dict[str, Any]:
    if not specs:
        return {}
    if isinstance(specs, dict):
        return dict(specs)
    return dict(_parse_hierarchy(s) for s in specs)


def _parse_options(opts: list[str] | dict | None) -> dict[str, Any]:
    if not opts:
        return {}
    if isinstance(opts, dict):
        return dict(opts)
    res: dict[str, Any] = {}
    for o in opts:
        if "=" not in o:
            raise KtypeError(f"Option {o!r} must look like NAME=VALUE (e.g. mode=relaxed).")
        k, v = o.split("=", 1)
        res[k.strip().replace("-", "_")] = _coerce(v.strip())
    return res


def _coerce(v: str) -> Any:
    if v.lower() in ("true", "false"):
        return v.lower() == "true"
    for t in (int, float):
        try:
            return t(v)
        except ValueError:
            pass
    return v


def _load_dataset(
    input_path: Path | None, dataset: str | None, qi: list[str], sensitive: list[str], identifiers: list[str],
    hierarchies: dict[str, Any], sep: str | None, reading: dict[str, Any] | None = None,
    insensitive: list[str] | None = None,
):
    from .data.bundled import load_adult
    from .data.dataset import Dataset
    from .exceptions import UnassignedColumnsError
    from .risk.hipaa import with_identifier_hints

    if dataset:
        if dataset != "adult":
            raise KtypeError(f"Unknown bundled dataset {dataset!r}; `ktype datasets` lists them.")
        if identifiers:
            raise KtypeError("The bundled Adult data has no identifier columns; drop --identifier.")
        return load_adult(quasi_identifiers=qi or None, sensitive=sensitive if sensitive else ("salary-class",), insensitive=insensitive or ())
    if input_path is None:
        raise KtypeError("Give an input file (CSV or Parquet) or --dataset adult.")
    if not qi:
        raise KtypeError("Name the quasi-identifiers with --qi col1,col2,...")
    rd = reading or {}
    kw = {"types": rd.get("types"), "na_values": rd.get("na_values")}
    roles = {"quasi_identifiers": qi, "sensitive": sensitive, "identifiers": identifiers, "hierarchies": hierarchies,
             "missing": rd.get("missing"), "insensitive": insensitive or []}
    try:
        if input_path.suffix.lower() in (".parquet", ".pq"):
            return Dataset.from_parquet(input_path, **kw, **roles)
        return Dataset.from_csv(input_path, sep=sep, **kw, **roles)
    except UnassignedColumnsError as e:
        raise with_identifier_hints(e) from None


def _reading(types: list[str] | None, na_values: list[str] | None, missing: list[str] | None, cfg: dict[str, Any]) -> dict[str, Any]:
    """How to read the input: declared types, NA strings, missing-value policies (flags or config)."""
    from .data.types import normalize_types

    t = _pick(types, cfg, "type") or cfg.get("types")
    na = _pick(na_values, cfg, "na_values")
    if isinstance(na, str):
        na = [na]
    na_l = [x.strip() for v in (na or []) for x in str(v).split(",") if x.strip()]
    ms = _pick(missing, cfg, "missing")
    if isinstance(ms, list):
        parts = [x.strip() for v in ms for x in str(v).split(",") if x.strip()]
        if len(parts) == 1 and "=" not in parts[0]:
            ms = parts[0]
        else:
            ms = dict(p.split("=", 1) for p in parts if "=" in p)
            if len(ms) != len(parts):
                raise KtypeError("--missing takes POLICY (for every column) or COLUMN=POLICY,... with POLICY error, category or suppress.")
    return {"types": normalize_types(t), "na_values": na_l, "missing": ms}


def _hierarchy_files(hier: dict[str, Any]) -> list[Path]:
    return [Path(v) for v in hier.values() if isinstance(v, (str, Path)) and str(v) not in _BUILTIN_HIERARCHIES and ":" not in str(v)]


def _check_outputs(
    out_path: Path | None, sum_path: Path | None, inputs: list[Path | None], cfg: dict[str, Any],
    force: bool | None, mkdirs: bool | None, fmt: str | None, csv_escape: bool | None,
) -> tuple[str | None, bool]:
    """Refuse unsafe output paths before any work is done (see ``ktype._io.check_output_path``)."""
    from ._io import check_output_path, output_format

    force_b = bool(_pick(force, cfg, "force", False))
    mkdirs_b = bool(_pick(mkdirs, cfg, "mkdirs", False))
    escape = _pick(csv_escape, cfg, "csv_escape", True)
    out_fmt = None
    if out_path is not None:
        out_fmt = output_format(out_path, _pick(fmt, cfg, "format"))
        check_output_path(out_path, what="output", inputs=inputs, others={"summary": sum_path}, force=force_b, mkdirs=mkdirs_b)
    elif _pick(fmt, cfg, "format") is not None:
        raise KtypeError("--format needs an --output file.")
    side = _sidecar(out_path) if out_path is not None and out_fmt == "csv" else None
    if sum_path is not None:
        check_output_path(sum_path, what="summary", inputs=inputs, others={"output": out_path, "metadata sidecar": side},
                          force=force_b, mkdirs=mkdirs_b)
    if side is not None:
        check_output_path(side, what="metadata sidecar", inputs=inputs, others={"output": out_path}, force=force_b, mkdirs=True)
    return out_fmt, bool(escape)


def _sidecar(out: Path) -> Path:
    """Where a CSV release's metadata sidecar goes (``NAME.ktype.json``, issue #8)."""
    try:
        from .release import sidecar_path  # type: ignore[attr-defined]
    except ImportError:
        return out.with_name(out.stem + ".ktype.json")
    return sidecar_path(out)


def _fail(e: Exception, code: int = EXIT_DATA) -> None:
    err.print(f"[bold red]error:[/] {e}")
    raise typer.Exit(code)


QiOpt = Annotated[list[str] | None, typer.Option("--qi", help="Quasi-identifier columns (comma-separated or repeated).")]
SensOpt = Annotated[list[str] | None, typer.Option("--sensitive", "-s", help="Sensitive columns.")]
IdOpt = Annotated[list[str] | None, typer.Option("--identifier", help="Identifier columns (removed from the release).")]
InsOpt = Annotated[list[str] | None, typer.Option("--insensitive", help="Columns released unchanged and unprotected (config: keep:). Every column needs a role.")]
HierOpt = Annotated[list[str] | None, typer.Option("--hierarchy", "-H", help="COLUMN=SPEC with SPEC a hierarchy CSV path, ordered, flat, intervals:5,10,20, masking:1,2,3 or dates[:month,quarter,year,decade].")]
DatasetOpt = Annotated[str | None, typer.Option("--dataset", help="Use a bundled dataset instead of an input file (adult).")]
ConfigOpt = Annotated[Path | None, typer.Option("--config", help="YAML/TOML file holding any of these options.")]
def _sep_flag(value: str | None) -> str | None:
    if value is None:
        return None  # nothing to check: do not import the I/O stack (pandas) for the default
    from ._io import normalize_sep

    try:
        return normalize_sep(value)
    except KtypeError as e:
        raise typer.BadParameter(str(e)) from None


SepOpt = Annotated[str | None, typer.Option("--sep", callback=_sep_flag, help="CSV separator: one character, or \\t / tab for a tab (sniffed by default).")]
ForceOpt = Annotated[bool | None, typer.Option("--force", help="Replace an existing output file (never the input, a link or a device).")]
MkdirsOpt = Annotated[bool | None, typer.Option("--mkdirs", help="Create the output's missing parent directories.")]
FormatOpt = Annotated[str | None, typer.Option("--format", help="Output format csv or parquet (default: from the extension).")]
EscapeOpt = Annotated[bool | None, typer.Option("--csv-escape/--no-csv-escape", help="Neutralize spreadsheet formulas (=, +, -, @) in CSV text cells with a leading ' (default on).")]
TypeOpt = Annotated[list[str] | None, typer.Option("--type", help="Column types COLUMN=TYPE (text, int, float, date), comma-separated or repeated. Undeclared CSV columns are text unless unambiguously numeric.")]
NaOpt = Annotated[list[str] | None, typer.Option("--na-values", help="Strings that mean 'missing' (e.g. NA,?,null). Default: only empty cells.")]
MissingOpt = Annotated[list[str] | None, typer.Option("--missing", help="Missing-value policy: error (default), category or suppress; for all columns or COLUMN=POLICY.")]
ReadEscapeOpt = Annotated[bool | None, typer.Option("--csv-escape/--no-csv-escape", help="The CSV release was written with formula escaping (default on); --no-csv-escape reads cells verbatim.")]


# ---------------------------------------------------------------------- commands
@app.command()
def anonymize(
    input: Annotated[Path | None, typer.Argument(help="Input CSV or Parquet file.")] = None,
    dataset: DatasetOpt = None,
    qi: QiOpt = None,
    sensitive: SensOpt = None,
    identifier: IdOpt = None,
    insensitive: InsOpt = None,
    hierarchy: HierOpt = None,
    k: Annotated[int | None, typer.Option("--k", "-k", help="k of the k-type model.")] = None,
    model: Annotated[str | None, typer.Option("--model", help="k-type model for k: k-anonymity, kk-anonymity, k-concealment, ... (default: the algorithm's own, e.g. k-concealment for k_concealment, else k-anonymity)")] = None,
    l: Annotated[float | None, typer.Option("--l", "-l", help="ℓ of ℓ-diversity.")] = None,  # noqa: E741
    diversity: Annotated[str | None, typer.Option("--diversity", help="ℓ-diversity variant: distinct, entropy, recursive, frequency, transparent (default: the algorithm's own).")] = None,
    c: Annotated[float | None, typer.Option("--c", help="c of recursive (c,ℓ)-diversity.")] = None,
    p: Annotated[int | None, typer.Option("--p", help="p of p-sensitivity.")] = None,
    t: Annotated[float | None, typer.Option("--t", help="t of t-closeness.")] = None,
    distance: Annotated[str | None, typer.Option("--distance", help="t-closeness ground distance: equal, ordered, hierarchical.")] = None,
    algorithm: Annotated[str | None, typer.Option("--algorithm", "-a", help="Algorithm (see `ktype algorithms`).")] = None,
    option: Annotated[list[str] | None, typer.Option("--option", "-o", help="Algorithm option NAME=VALUE (repeatable).")] = None,
    rng: Annotated[int | None, typer.Option("--rng", help="Seed for randomized algorithms, for tests and audits. Default: secret OS entropy, never recorded. With a seed, anyone holding it and the input can reproduce the release.")] = None,
    output: Annotated[Path | None, typer.Option("--output", "-O", help="Release file (.csv or .parquet).")] = None,
    summary_path: Annotated[Path | None, typer.Option("--summary", help="Write the JSON summary to this file too.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the summary as JSON.")] = False,
    config: ConfigOpt = None,
    sep: SepOpt = None,
    force: ForceOpt = None,
    mkdirs: MkdirsOpt = None,
    fmt: FormatOpt = None,
    csv_escape: EscapeOpt = None,
    types: TypeOpt = None,
    na_values: NaOpt = None,
    missing: MissingOpt = None,
) -> None:
    """Anonymize a table, verify the result with the model's independent checker, write the release."""
    from .api import default_diversity, default_k_model, make_models
    from .measures import compute as compute_measures

    try:
        cfg = _load_config(config, _config_keys(anonymize))
        qi_l, sens_l, ids_l, ins_l, hier = _roles(cfg, qi, sensitive, identifier, insensitive, hierarchy)
        ds_name = _pick(dataset, cfg, "dataset")
        in_path = _pick(input, cfg, "input")
        in_path = Path(in_path) if in_path else None
        out_path = _pick(output, cfg, "output")
        out_path = Path(out_path) if out_path else None
        sum_path = _pick(summary_path, cfg, "summary")
        sum_path = Path(sum_path) if sum_path else None
        out_fmt, escape = _check_outputs(out_path, sum_path, [in_path, config, *_hierarchy_files(hier)], cfg, force, mkdirs, fmt, csv_escape)
        alg = _pick(algorithm, cfg, "algorithm", "mondrian")
        opts = _parse_options(_pick(option, cfg, "option"))
        t0 = time.perf_counter()
        ds = _load_dataset(in_path, ds_name, qi_l, sens_l, ids_l, hier, _pick(sep, cfg, "sep"), _reading(types, na_values, missing, cfg),
                           insensitive=ins_l)
        t_load = time.perf_counter() - t0
        kk = _pick(k, cfg, "k")
        ll = _pick(l, cfg, "l")
        from .algorithms import get_algorithm

        info = get_algorithm(alg)
        ll_div = _pick(diversity, cfg, "diversity")
        if ll_div is None and ll is not None:
            ll_div = default_diversity(info)  # the variant the algorithm's own model uses (as in Python)
        models = make_models(
            k=kk,
            l=ll,
            diversity=ll_div,
            c=_pick(c, cfg, "c"),
            p=_pick(p, cfg, "p"),
            t=_pick(t, cfg, "t"),
            distance=_pick(distance, cfg, "distance"),
            kind=_pick(model, cfg, "model", default_k_model(info)),
        )
        notices: list[str] = []  # the release's own warnings (deterministic variant, k = 1, ...) follow
        rng_value = _pick(rng, cfg, "rng")
        with err.status(f"[bold]{info.name}[/] on {ds.n:,} rows x {ds.r} QIs ..."):
            rel = info.func(ds, models, rng=rng_value, **opts)
        loss = compute_measures(rel)
        summary = {
            "input": str(in_path) if in_path else f"bundled:{ds_name}",
            "rows": ds.n,
            "quasi_identifiers": ds.quasi_identifiers,
            "sensitive": ds.sensitive,
            "published_unchanged": ds.sensitive + ds.insensitive,
            "removed_identifiers": ds.identifiers,
            "models": [str(m) for m in models],
            "verified": False,  # set once the release (and its file, if any) is verified
            "load_s": round(t_load, 3),
            **rel.summary(),
            "measures": loss,
            "risk": _prosecutor_risk_before_after(ds, rel),
        }
        summary["warnings"] = [*notices, *summary.get("warnings", [])]
        from ._io import atomic_write_text

        try:
            if out_path is not None:
                # save reads the file back and compares it with the release before keeping it
                rel.save(out_path, format=out_fmt, csv_escape=escape)
                summary["output"] = str(out_path)
                summary["output_read_back"] = {"rows": rel.n - rel.n_suppressed, "columns": len(rel._published_columns()),
                                               "identical_to_verified_release": True}
            summary["verified"] = True
            if sum_path is not None:
                atomic_write_text(sum_path, json.dumps(summary, indent=2, default=str))
        except OSError as e:
            raise KtypeError(f"Cannot write {e.filename or out_path}: {e.strerror or e}.") from None
    except KtypeError as e:
        _fail(e)
        return
    for w in summary["warnings"]:
        err.print(f"[bold yellow]{w}[/]")
    if as_json or cfg.get("json"):
        print(json.dumps(summary, indent=2, default=str))
        return
    tab = Table(title=f"ktype release — {info.name}", show_header=False)
    tab.add_row("input", summary["input"])
    tab.add_row("rows / QIs", f"{ds.n:,} / {ds.r}")
    mark = ("✓ verified by the independent checker; the written file read back identical" if out_path
            else "✓ verified by the independent checker")
    tab.add_row("models", ", ".join(summary["models"]) + f"  [green]{mark}[/]")
    tab.add_row("suppressed", str(rel.n_suppressed))
    tab.add_row("published unchanged", ", ".join(summary["published_unchanged"]) or "(none)")
    tab.add_row("removed identifiers", ", ".join(summary["removed_identifiers"]) or "(none)")
    tm = rel.provenance["timings"]
    tab.add_row(
        "time",
        f"{tm['algorithm_s']:.3f} s (+ {tm['verification_s']:.3f} s verification"
        + (f", + {tm['compile_s']:.2f} s one-time numba compilation)" if tm.get("compile_s", 0) >= 0.005 else ")"),
    )
    for name, v in loss.items():
        tab.add_row(name, f"{v:.6g}")
    rk = summary["risk"]
    if isinstance(rk["input"], dict) and isinstance(rk["release"], dict):
        tab.add_row("prosecutor risk", f"highest {rk['input']['highest']:.4g} → {rk['release']['highest']:.4g}, "
                    f"average {rk['input']['average']:.4g} → {rk['release']['average']:.4g} (input → release; ktype risk for more)")
    tab.add_row("output", str(out_path) if out_path else "(none; use --output FILE)")
    out.print(tab)


def _prosecutor_risk_before_after(ds: Any, rel: Any) -> dict[str, Any]:
    """Prosecutor re-identification risk of the input and of the release, for the summary
    (``ktype risk`` gives the journalist/marketer models, population uniqueness and SUDA)."""
    from .risk import reidentification_risk

    out: dict[str, Any] = {}
    for key, subject in (("input", ds), ("release", rel)):
        try:
            p = reidentification_risk(subject).prosecutor
        except (KtypeError, NotImplementedError) as e:
            out[key] = f"not computed: {e}"
            continue
        out[key] = {"highest": p.highest, "average": p.average, "threshold": p.threshold,
                    "records_above_threshold": p.records_above_threshold}
    return out


def _check_like(
    original: Path | None, released: Path, dataset: str | None, qi: list[str] | None, sensitive: list[str] | None,
    identifier: list[str] | None, hierarchy: list[str] | None, config: Path | None, sep: str | None, local: bool = False,
    csv_escape: bool | None = None, reading: tuple[Any, Any, Any] = (None, None, None),
    insensitive: list[str] | None = None,
):
    """Original dataset + a release file parsed back (with its metadata's recoding), for metrics and risk."""
    from .audit import parse_release
    from .release import read_release

    cfg = _load_config(config)
    original = _pick(original, cfg, "original")
    ds = _load_dataset(
        Path(original) if original else None,
        _pick(dataset, cfg, "dataset"),
        _split(_pick(qi, cfg, "qi")),
        _split(_pick(sensitive, cfg, "sensitive")),
        _split(_pick(identifier, cfg, "identifier")),
        _hierarchies(_pick(hierarchy, cfg, "hierarchy")),
        _pick(sep, cfg, "sep"),
        _reading(*reading, cfg),
        insensitive=_split(_pick(insensitive, cfg, "insensitive")),
    )
    pub, meta = read_release(released, sep=sep, csv_escape=_pick(csv_escape, cfg, "csv_escape", None))
    local = local or bool(cfg.get("local"))
    recoding = "local" if local else (meta or {}).get("recoding", "multidimensional")
    return ds, parse_release(ds, pub, recoding=recoding, metadata=meta), cfg


@app.command()
def check(
    released: Annotated[Path, typer.Argument(help="The released (published) file; its metadata (Parquet) or NAME.ktype.json sidecar (CSV) is read.")],
    original: Annotated[Path | None, typer.Option("--original", help="The original table (CSV/Parquet).")] = None,
    dataset: DatasetOpt = None,
    qi: QiOpt = None,
    sensitive: SensOpt = None,
    identifier: IdOpt = None,
    insensitive: InsOpt = None,
    hierarchy: HierOpt = None,
    model: Annotated[list[str] | None, typer.Option("--model", "-m", help="Model name(s): k-anonymity, kk-anonymity, k-concealment, distinct-l-diversity, t-closeness, ... Default: the models the release's metadata claims.")] = None,
    k: Annotated[int | None, typer.Option("--k", "-k")] = None,
    l: Annotated[float | None, typer.Option("--l", "-l")] = None,  # noqa: E741
    c: Annotated[float | None, typer.Option("--c")] = None,
    p: Annotated[int | None, typer.Option("--p")] = None,
    t: Annotated[float | None, typer.Option("--t")] = None,
    distance: Annotated[str | None, typer.Option("--distance")] = None,
    diversity: Annotated[str | None, typer.Option("--diversity", help="With --l and no --model: distinct, entropy, recursive, frequency.")] = None,
    recoding: Annotated[str | None, typer.Option("--recoding", help="How the release was recoded (full-domain, multidimensional, local, freeform) when it has no metadata; decides the scope of ℓ-diversity / t-closeness.")] = None,
    local: Annotated[bool, typer.Option("--local", help="Same as --recoding local.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print the audit and verdicts as JSON.")] = False,
    config: ConfigOpt = None,
    sep: SepOpt = None,
    csv_escape: ReadEscapeOpt = None,
    types: TypeOpt = None,
    na_values: NaOpt = None,
    missing: MissingOpt = None,
) -> None:
    """Audit a released file against its original, then check its models.

    The release file and its metadata are untrusted; the original and the roles, models and
    hierarchies given here are trusted. The audit: no identifier or undeclared column; every
    published row (all-* rows too) assigned to a distinct original record it generalizes;
    counts agree with the metadata.
    Exit 1 when any of it or any model fails, or a claim cannot be verified (metadata stale,
    missing or listing no model, a claimed algorithm that cannot have produced the release);
    exit 2 on a usage error.
    """
    from .api import make_models, models_from_names
    from .audit import audit
    from .data.dataset import read_table
    from .release import RECODINGS

    try:
        cfg = _load_config(config, _config_keys(check))
        names = _split(_pick(model, cfg, "model"))
        params = {"k": _pick(k, cfg, "k"), "l": _pick(l, cfg, "l"), "c": _pick(c, cfg, "c"), "p": _pick(p, cfg, "p"),
                  "t": _pick(t, cfg, "t"), "distance": _pick(distance, cfg, "distance")}
        div = _pick(diversity, cfg, "diversity")
        models: Any = None
        if names:
            if div is not None:
                raise KtypeError("--diversity only applies without --model; name the variant as the model, e.g. --model recursive-cl-diversity.")
            models = models_from_names(names, **params)
        elif any(v is not None for v in params.values()):
            models = make_models(diversity=div, **params)
        rec = "local" if local else _pick(recoding, cfg, "recoding")
        if rec is not None and rec not in RECODINGS:
            from ._validation import unknown_name

            raise unknown_name("recoding", str(rec), RECODINGS)
        qi_l, sens_l, ids_l, ins_l, hier = _roles(cfg, qi, sensitive, identifier, insensitive, hierarchy)
        ds_name = _pick(dataset, cfg, "dataset")
        orig_path = _pick(original, cfg, "original")
        sep_v = _pick(sep, cfg, "sep")
        if ds_name:
            orig: Any = _load_dataset(None, ds_name, qi_l, sens_l, ids_l, hier, sep_v, insensitive=ins_l)
        elif orig_path is None:
            raise KtypeError("Give the original table with --original FILE (or --dataset adult): a release is audited against it.")
        elif qi_l:
            orig = _load_dataset(Path(orig_path), None, qi_l, sens_l, ids_l, hier, sep_v,
                                 _reading(types, na_values, missing, cfg), insensitive=ins_l)
        else:  # roles from the release's metadata
            rd = _reading(types, na_values, missing, cfg)
            orig = read_table(Path(orig_path), sep=sep_v, types=rd["types"], na_values=rd["na_values"])
        report = audit(orig, released, models, quasi_identifiers=qi_l or None, sensitive=sens_l, identifiers=ids_l,
                       insensitive=ins_l, hierarchies=hier, recoding=rec, sep=sep_v,
                       csv_escape=_pick(csv_escape, cfg, "csv_escape", None),
                       missing=_reading(types, na_values, missing, cfg)["missing"])
        if models is None and not report.results and not report.findings:
            raise KtypeError("Say what to check: --model NAME with its parameters (e.g. --model k-anonymity --k 5), "
                             "or just --k 5 / --l 2 / --t 0.2.")
    except KtypeError as e:
        _fail(e)
        return
    if as_json or cfg.get("json"):
        print(json.dumps(report.to_dict(), indent=2, default=str))
    else:
        from rich.markup import escape

        f = report.facts
        if "published_rows" in f:
            out.print(f"release: {f.get('published_rows')} rows published of {f.get('input_records')} records "
                      f"({f.get('suppressed')} suppressed); metadata: {'yes' if f.get('metadata') else 'no'}; "
                      f"recoding: {f.get('recoding', '?')}")
        untrusted = f.get("untrusted_roles") or {}
        if untrusted:
            out.print("roles from the release metadata (untrusted; audited): "
                      + ", ".join(f"{c}={r}" for c, r in untrusted.items()))
        for finding in report.findings:
            out.print(f"[red]FAIL[/] {escape(str(finding))}")
        for r in report.results:
            mark = "[green]PASS[/]" if r.satisfied else "[red]FAIL[/]"
            out.print(f"{mark} {escape(r.model)}: {escape(str(r.summary))}")
        if report.findings and any(r.satisfied for r in report.results):
            out.print(f"[red]FAIL[/] the release fails its audit ({len(report.findings)} finding(s) above): a model "
                      "verdict on it proves nothing.")
    raise typer.Exit(EXIT_OK if report.passed else EXIT_VIOLATION)


@app.command()
def metrics(
    released: Annotated[Path, typer.Argument(help="The released (published) table.")],
    original: Annotated[Path | None, typer.Option("--original", help="The original table (CSV/Parquet).")] = None,
    dataset: DatasetOpt = None,
    qi: QiOpt = None,
    sensitive: SensOpt = None,
    identifier: IdOpt = None,
    insensitive: InsOpt = None,
    hierarchy: HierOpt = None,
    k: Annotated[int | None, typer.Option("--k", "-k", help="k, for measures that need it (average class size).")] = None,
    as_json: Annotated[bool, typer.Option("--json")] = False,
    config: ConfigOpt = None,
    sep: SepOpt = None,
    csv_escape: ReadEscapeOpt = None,
    types: TypeOpt = None,
    na_values: NaOpt = None,
    missing: MissingOpt = None,
) -> None:
    """Information-loss measures of a released table against its original."""
    from .measures import compute

    try:
        _load_config(config, _config_keys(metrics))  # unknown keys are errors here too
        ds, rel, cfg = _check_like(original, released, dataset, qi, sensitive, identifier, hierarchy, config, sep,
                                   csv_escape=csv_escape, reading=(types, na_values, missing), insensitive=insensitive)
        opts = {}
        if _pick(k, cfg, "k") is not None:
            opts["k"] = _pick(k, cfg, "k")
        vals = compute(rel, **opts)
    except KtypeError as e:
        _fail(e)
        return
    if as_json or cfg.get("json"):
        print(json.dumps(vals, indent=2))
        return
    tab = Table(title="information loss")
    tab.add_column("measure")
    tab.add_column("value", justify="right")
    for kx, v in vals.items():
        tab.add_row(kx, f"{v:.6g}")
    out.print(tab)


@app.command()
def risk(
    data: Annotated[Path | None, typer.Argument(help="The input table (input mode) or, with --original/--dataset, the released table.")] = None,
    original: Annotated[Path | None, typer.Option("--original", help="Release mode: the original table (CSV/Parquet) the release was made from.")] = None,
    dataset: DatasetOpt = None,
    qi: QiOpt = None,
    sensitive: SensOpt = None,
    identifier: IdOpt = None,
    insensitive: InsOpt = None,
    hierarchy: HierOpt = None,
    threshold: Annotated[float | None, typer.Option("--threshold", help="Records with risk strictly above it are 'at risk' (default 0.2).")] = None,
    population: Annotated[Path | None, typer.Option("--population", help="Population table (CSV/Parquet) the data was sampled from: exact journalist/marketer risk.")] = None,
    sampling_fraction: Annotated[float | None, typer.Option("--sampling-fraction", help="Share of the population in the data: estimated journalist/marketer risk, population uniqueness, individual risk.")] = None,
    population_size: Annotated[int | None, typer.Option("--population-size", help="Population size N (instead of --sampling-fraction).")] = None,
    weights: Annotated[str | None, typer.Option("--weights", help="Column of sampling weights for the individual risk.")] = None,
    suda_size: Annotated[int | None, typer.Option("--suda", help="Find minimal sample uniques up to this size (SUDA; at most 6; 0 = off).")] = None,
    posterior: Annotated[str | None, typer.Option("--posterior", help="Local recodings: uniform (1/#matches) or exact matching posterior.")] = None,
    local: Annotated[bool, typer.Option("--local", help="Treat the release as a k-type local recoding (risk from matches).")] = False,
    as_json: Annotated[bool, typer.Option("--json")] = False,
    config: ConfigOpt = None,
    sep: SepOpt = None,
) -> None:
    """Re-identification risk (prosecutor, journalist, marketer), population uniqueness, individual
    risk, special uniques, risk drivers and identifier hints - of an input table, or of a release
    (with --original or --dataset) next to its input."""
    from .data.dataset import read_table
    from .risk import identifier_hints
    from .risk.report import risk_report

    try:
        cfg = _load_config(config, _config_keys(risk))
        as_json = bool(_pick(as_json or None, cfg, "json", False))
        ds_name = _pick(dataset, cfg, "dataset")
        orig = _pick(original, cfg, "original")
        data_path = _pick(data, cfg, "data")
        release_mode = data_path is not None and (orig is not None or ds_name is not None)
        qi_l = _split(_pick(qi, cfg, "qi"))
        if release_mode:
            ds, subject, cfg = _check_like(orig, Path(data_path), ds_name, qi, sensitive, identifier, hierarchy, config, sep,
                                           bool(_pick(local, cfg, "local", False)), insensitive=insensitive)
            from .release import read_release

            # hints are about what is published: a column released as '*' needs no advice
            hints_frame, _meta = read_release(Path(data_path), sep=_pick(sep, cfg, "sep"))
        else:
            in_path = Path(data_path) if data_path is not None else None
            if in_path is not None and not qi_l:
                hints = identifier_hints(read_table(in_path, sep=_pick(sep, cfg, "sep")))
                advice = "".join(f"\n  hint: {h}" for h in hints)
                raise KtypeError(f"Name the quasi-identifiers with --qi col1,col2,... to measure the risk of {in_path}.{advice}")
            ds = _load_dataset(in_path, ds_name, qi_l, _split(_pick(sensitive, cfg, "sensitive")),
                               _split(_pick(identifier, cfg, "identifier")), _hierarchies(_pick(hierarchy, cfg, "hierarchy")),
                               _pick(sep, cfg, "sep"), insensitive=_split(_pick(insensitive, cfg, "insensitive")))
            subject, hints_frame = ds, ds.data
        pop = _pick(population, cfg, "population")
        rep = risk_report(
            subject,
            population=Path(pop) if pop else None,
            sampling_fraction=_pick(sampling_fraction, cfg, "sampling_fraction"),
            population_size=_pick(population_size, cfg, "population_size"),
            threshold=float(_pick(threshold, cfg, "threshold", 0.2)),
            posterior=_pick(posterior, cfg, "posterior", "uniform"),
            suda_max_size=int(_pick(suda_size, cfg, "suda", 0)),
            weights=_pick(weights, cfg, "weights"),
            hints_frame=hints_frame,
        )
    except KtypeError as e:
        _fail(e)
        return
    if as_json:
        print(json.dumps(rep, indent=2, default=str))
        return
    _print_risk(rep)


def _fmt_num(v: Any) -> str:
    if v is None:
        return "n/a"
    if isinstance(v, float):
        return f"{v:.4g}"
    return f"{v:,}" if isinstance(v, int) else str(v)


def _print_risk(rep: dict[str, Any]) -> None:
    cols = (["release"] if "release" in rep else []) + ["input"]
    head = {"release": "release", "input": "input QIs unchanged" if "release" in rep else "input"}
    tab = Table(title=f"re-identification risk (threshold {rep['threshold']:g}; population: {rep['input']['population']})")
    tab.add_column("attacker model")
    tab.add_column("measure")
    for c in cols:
        tab.add_column(head[c], justify="right")
    for model in ("prosecutor", "journalist"):
        for key, label in (("highest", "highest risk"), ("average", "average risk"),
                           ("share_above_threshold", "share of records above threshold")):
            tab.add_row(model, label, *[_fmt_num(rep[c][model][key]) for c in cols])
    tab.add_row("marketer", "expected share re-identified", *[_fmt_num(rep[c]["marketer"]) for c in cols])
    tab.add_row("", "sample uniques", *[_fmt_num(rep[c]["sample_uniques"]) for c in cols])
    tab.add_row("", "records violating 2/3/5/10-anonymity",
                *["/".join(f"{v:,}" for v in rep[c]["records_violating_k_anonymity"].values()) for c in cols])
    tab.add_row("", "records (suppressed)", *[f"{rep[c]['records']:,} ({rep[c]['suppressed']:,})" for c in cols])
    out.print(tab)
    if "release" in rep:
        out.print(f"release basis: {rep['release']['basis']}")
    pu = rep.get("population_uniqueness")
    if pu:
        t2 = Table(title=f"population uniqueness (N = {pu['population_size']:,}, sampling fraction {pu['sampling_fraction']:.4g})")
        t2.add_column("model")
        t2.add_column("population uniques", justify="right")
        t2.add_column("share of population", justify="right")
        for m, v in pu["population_uniques"].items():
            label = f"{m} (uses {pu['dankar_model']})" if m == "dankar" else m
            t2.add_row(label, _fmt_num(v), _fmt_num(pu["population_uniqueness"][m]))
        if "population_uniques_exact" in pu:
            t2.add_row("exact (population table)", _fmt_num(pu["population_uniques_exact"]), "")
        out.print(t2)
        for m, why in pu.get("unavailable", {}).items():
            out.print(f"[yellow]{m}: n/a[/] ({why})")
    ir = rep.get("individual_risk")
    if ir:
        out.print(f"individual risk ({ir['of']}, Benedetti-Franconi): highest {_fmt_num(ir['highest'])}, "
                  f"average {_fmt_num(ir['average'])}, expected re-identifications {_fmt_num(ir['expected_reidentifications'])}")
    sd = rep.get("suda")
    if sd:
        contrib = ", ".join(f"{a} {v:.0f}%" for a, v in sorted(sd["contribution_percent"].items(), key=lambda kv: -kv[1]))
        out.print(f"SUDA (MSUs up to {sd['max_size']} attributes): {sd['records_with_msu']:,} records with an MSU, "
                  f"{sd['msus']:,} MSUs {sd['msus_by_size']}; highest score {sd['highest_score']:g}; contribution: {contrib}")
    dr = rep.get("drivers")
    if dr:
        t3 = Table(title=f"risk drivers (baseline: {dr['baseline']['uniques']:,} sample uniques)")
        for c in ("attribute", "distinct values", "uniques if removed", "uniques if generalized one level", "generalized by"):
            t3.add_column(c, justify="left" if c in ("attribute", "generalized by") else "right")
        for row in dr["attributes"]:
            t3.add_row(row["attribute"], _fmt_num(row["distinct_values"]), _fmt_num(row["uniques_removed"]),
                       _fmt_num(row["uniques_generalized"]), row["generalized_by"])
        out.print(t3)
    for h in rep.get("identifier_hints", []):
        out.print(f"[yellow]hint:[/] {h['column']!r} looks like {h['category']} ({h['reason']}); "
                  "declare it an identifier (--identifier) or generalize it (HIPAA Safe Harbor)")


@app.command()
def attack(
    released: Annotated[Path, typer.Argument(help="The released (published) table.")],
    algorithm: Annotated[str, typer.Option("--algorithm", "-a", help="Algorithm the adversary assumes: tailor, ace, hybrid, mask, opt_gen, vul_gen, mondrian_ldiv.")],
    l: Annotated[int, typer.Option("--l", "-l", help="The ℓ the release was made with.")],  # noqa: E741
    original: Annotated[Path | None, typer.Option("--original", help="The original table: its identifiers and QIs are the adversary's external source.")] = None,
    dataset: DatasetOpt = None,
    qi: QiOpt = None,
    sensitive: SensOpt = None,
    identifier: IdOpt = None,
    hierarchy: HierOpt = None,
    as_json: Annotated[bool, typer.Option("--json")] = False,
    config: ConfigOpt = None,
    sep: SepOpt = None,
) -> None:
    """Reverse-engineering attack by an adversary who knows the algorithm (exact; tiny tables only).

    Prints every individual's posterior risk. Exits 1 when some risk exceeds 1/ℓ, and when no
    candidate instance yields the release under the assumed algorithm (that algorithm cannot
    have produced it, so the risks, all 0/0, prove nothing); 0 only when the release is a
    possible output and every risk is at most 1/ℓ.
    """
    from .attacks.transparent import attack as run_attack

    try:
        ds, rel, cfg = _check_like(original, released, dataset, qi, sensitive, identifier, hierarchy, config, sep)
        rep = run_attack(rel, algorithm, l)
    except KtypeError as e:
        _fail(e)
        return
    res = rep.to_dict()
    if as_json:
        print(json.dumps(res, indent=2))
    else:
        tab = Table(title=f"algorithm-aware attack ({rep.algorithm}, ℓ = {rep.l}; bound {res['bound']})")
        tab.add_column("individual")
        tab.add_column("risk", justify="right")
        for o, r in rep.risk.items():
            mark = " [red]> 1/ℓ[/]" if r * rep.l > 1 else ""
            tab.add_row(str(o), f"{r} ({float(r):.3f}){mark}")
        out.print(tab)
        if not rep.consistent:
            verdict = (f"[red]{rep.algorithm} cannot have produced this release[/]: no candidate instance yields it, "
                       "so the risks (0/0) show nothing")
        elif rep.succeeded:
            verdict = "[red]attack succeeds[/]"
        else:
            verdict = "[green]attack fails: risk ≤ 1/ℓ for everyone[/]"
        out.print(f"{verdict}; {rep.positive_instances} of {rep.candidates} candidate instances can yield this release")
    raise typer.Exit(EXIT_VIOLATION if rep.succeeded or not rep.consistent else EXIT_OK)


@app.command()
def anatomy(
    input: Annotated[Path | None, typer.Argument(help="Input CSV or Parquet file.")] = None,
    output: Annotated[Path | None, typer.Option("--output", "-O", help="Prefix P of the two tables: P.qi.csv and P.sensitive.csv.")] = None,
    algorithm: Annotated[str, typer.Option("--algorithm", "-a", help="Transparent algorithm whose partition is published: tailor, ace, hybrid.")] = "hybrid",
    l: Annotated[int | None, typer.Option("--l", "-l", help="ℓ of transparent ℓ-diversity.")] = None,  # noqa: E741
    dataset: DatasetOpt = None,
    qi: QiOpt = None,
    sensitive: SensOpt = None,
    identifier: IdOpt = None,
    hierarchy: HierOpt = None,
    rng: Annotated[int | None, typer.Option("--rng", help="Seed, for tests and audits. Default: secret OS entropy, never recorded.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the summary as JSON.")] = False,
    config: ConfigOpt = None,
    sep: SepOpt = None,
    force: ForceOpt = None,
    mkdirs: MkdirsOpt = None,
) -> None:
    """Publish a transparent algorithm's partition as anatomy: a QI table and a sensitive table
    joined by a group ID (Xiao, Tao & Koudas, TODS 2010, §2.1). Checked before it is written."""
    from ._io import check_output_path
    from .algorithms.transparent.anatomy import anatomize, anatomy_paths, write_anatomy

    try:
        cfg = _load_config(config, _config_keys(anatomy))
        qi_l, sens_l, ids_l, _ins, hier = _roles(cfg, qi, sensitive, identifier, None, hierarchy)
        in_path = _pick(input, cfg, "input")
        in_path = Path(in_path) if in_path else None
        prefix = _pick(output, cfg, "output")
        if prefix is None:
            raise KtypeError("Give the output prefix with --output P (writes P.qi.csv and P.sensitive.csv).")
        prefix = Path(prefix)
        ll = _pick(l, cfg, "l")
        if ll is None:
            raise KtypeError("Give ℓ with --l (e.g. --l 4).")
        force_b, mkdirs_b = bool(_pick(force, cfg, "force", False)), bool(_pick(mkdirs, cfg, "mkdirs", False))
        paths = anatomy_paths(prefix)
        inputs = [in_path, config, *_hierarchy_files(hier)]
        for what, path, other in (("QI table", paths[0], paths[1]), ("sensitive table", paths[1], paths[0])):
            check_output_path(path, what=what, inputs=inputs, others={"other table": other}, force=force_b, mkdirs=mkdirs_b)
        ds = _load_dataset(in_path, _pick(dataset, cfg, "dataset"), qi_l, sens_l, ids_l, hier, _pick(sep, cfg, "sep"))
        with err.status(f"[bold]{algorithm}[/] anatomy on {ds.n:,} rows ..."):
            an = anatomize(ds, _pick(algorithm, cfg, "algorithm", "hybrid"), int(ll), rng=_pick(rng, cfg, "rng"))
        try:
            write_anatomy(an, prefix)
        except OSError as e:
            raise KtypeError(f"Cannot write {e.filename or prefix}: {e.strerror or e}.") from None
    except (KtypeError, NotImplementedError) as e:
        _fail(e)
        return
    summary = {**an.provenance, "rows": ds.n, "removed_identifiers": ds.identifiers, "verified": True,
               "qi_table": str(paths[0]), "sensitive_table": str(paths[1]), "warnings": an.warnings()}
    for w in summary["warnings"]:
        err.print(f"[bold yellow]{w}[/]")
    if as_json:
        print(json.dumps(summary, indent=2, default=str))
        return
    tab = Table(title=f"ktype anatomy — {an.provenance['algorithm']}", show_header=False)
    for key, val in summary.items():
        if key != "warnings":  # printed above, on stderr
            tab.add_row(str(key), ", ".join(val) if isinstance(val, list) else str(val))
    out.print(tab)


@app.command("check-anatomy")
def check_anatomy_cmd(
    prefix: Annotated[Path, typer.Argument(help="Prefix P of P.qi.csv and P.sensitive.csv.")],
    l: Annotated[float, typer.Option("--l", "-l", help="ℓ to check (frequency ℓ-diversity of every group).")],  # noqa: E741
    original: Annotated[Path | None, typer.Option("--original", help="The original table: the groups must be a split of its records.")] = None,
    dataset: DatasetOpt = None,
    qi: Annotated[list[str] | None, typer.Option("--qi", help="The quasi-identifier columns of the QI table; any other column fails the check.")] = None,
    sensitive: SensOpt = None,
    identifier: IdOpt = None,
    sep: SepOpt = None,
    as_json: Annotated[bool, typer.Option("--json")] = False,
) -> None:
    """Check an anatomy release, whose two tables are untrusted: the QI table holds only the
    declared quasi-identifiers (--qi, or the original's) beside the group ID, the tables join,
    every group is ℓ-diverse, and (with --original) some split of the original's records into
    the groups yields exactly both tables. Exit 1 if any of it fails or cannot be shown."""
    from .algorithms.transparent.anatomy import check_anatomy, read_anatomy

    try:
        an = read_anatomy(prefix)
        ds = None
        if original is not None or dataset:
            if not sensitive:
                sensitive = [an.sensitive_column]
            ds = _load_dataset(original, dataset, _split(qi), _split(sensitive), _split(identifier), {}, sep)
        res = check_anatomy(an, l, ds, quasi_identifiers=_split(qi) or None)
    except KtypeError as e:
        _fail(e)
        return
    if as_json:
        print(json.dumps({"model": res.model, "satisfied": res.satisfied, **res.summary}, indent=2, default=str))
    else:
        mark = "[green]PASS[/]" if res.satisfied else "[red]FAIL[/]"
        out.print(f"{mark} {res.model}: {res.summary}")
        for why in res.summary.get("reasons", []):
            out.print(f"[red]FAIL[/] {why}")
    raise typer.Exit(EXIT_OK if res.satisfied else EXIT_VIOLATION)


@app.command()
def datasets() -> None:
    """List the bundled datasets."""
    from .data.bundled import bundled_datasets

    tab = Table(title="bundled datasets")
    tab.add_column("name")
    tab.add_column("description")
    for kx, v in bundled_datasets().items():
        tab.add_row(kx, v)
    out.print(tab)


def _algorithm_entry(a: Any) -> dict[str, Any]:
    """One registered algorithm as plain data (``ktype algorithms --json`` / ``--verbose``)."""
    return {"name": a.name, "recoding": a.recoding, "models": [m.__name__ for m in a.models],
            "optimal": bool(a.optimal), "randomized": bool(a.randomized),
            "options": {kx: v for kx, v in a.options.items()}, "description": a.description,
            "reference": a.reference}


@app.command()
def algorithms(
    as_json: Annotated[bool, typer.Option("--json", help="Print every algorithm's capabilities, options and description as JSON.")] = False,
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="Also print each algorithm's options, description and reference.")] = False,
) -> None:
    """List the registered algorithms and their capabilities.

    The table (name, recoding, models, randomized) fits 80 columns without cutting a name;
    --verbose adds each algorithm's options, description and reference, --json all of it."""
    from rich.markup import escape

    from .algorithms import all_algorithms

    entries = [_algorithm_entry(a) for a in all_algorithms()]
    if as_json:
        print(json.dumps(entries, indent=2, default=repr))
        return
    if verbose:
        for e in entries:
            out.print(f"[bold]{escape(e['name'])}[/] ({e['recoding']}; {'optimal, ' if e['optimal'] else ''}"
                      f"{'randomized' if e['randomized'] else 'deterministic'})")
            out.print(f"  models: {', '.join(e['models'])}")
            if e["options"]:
                out.print("  options: " + escape(", ".join(f"{kx}={v!r}" for kx, v in e["options"].items())))
            if e["description"]:
                out.print(f"  {escape(e['description'])}")
            if e["reference"]:
                out.print(f"  reference: {escape(e['reference'])}")
        return
    name_w = max(len(e["name"]) for e in entries)
    tab = Table(title="algorithms (--verbose: options and descriptions; --json: everything)")
    tab.add_column("name", no_wrap=True, min_width=name_w)
    tab.add_column("recoding", no_wrap=True)
    tab.add_column("models", overflow="fold")
    tab.add_column("randomized", no_wrap=True)
    for e in entries:
        tab.add_row(e["name"], e["recoding"], ", ".join(e["models"]), "yes" if e["randomized"] else "no")
    out.print(tab)


def run(argv: Sequence[str] | None = None) -> int:
    """Run one ``ktype`` command line and return its exit code (the table at the top).

    Every outcome goes through here: no traceback reaches a user. A :class:`KtypeError`
    (bad data, parameter, config or file) or an unusable path prints its message (exit 3); a command-line
    mistake prints the usage error (exit 2); Ctrl-C prints ``interrupted`` (exit 130); any
    other exception is a bug in ktype and says so (exit 4; ``KTYPE_DEBUG=1`` re-raises it).
    """
    import os

    from typer._click.exceptions import ClickException

    try:
        rv = app(args=list(argv) if argv is not None else None, standalone_mode=False, prog_name="ktype")
    except typer.Exit as e:
        return int(e.exit_code)
    except (typer.Abort, KeyboardInterrupt):
        err.print("[bold red]interrupted[/]: nothing was written (outputs are complete or absent).")
        return EXIT_INTERRUPTED
    except ClickException as e:
        e.show()
        return EXIT_USAGE
    except KtypeError as e:
        err.print(f"[bold red]error:[/] {e}")
        return EXIT_DATA
    except NotImplementedError as e:
        err.print(f"[bold red]error:[/] not implemented: {e}")
        return EXIT_DATA
    except OSError as e:  # a path the user gave cannot be read or written
        where = f" {e.filename!r}" if getattr(e, "filename", None) else ""
        err.print(f"[bold red]error:[/] cannot use{where}: {e.strerror or e}.")
        return EXIT_DATA
    except Exception as e:  # a bug: say so in one line, never a traceback
        if os.environ.get("KTYPE_DEBUG") == "1":
            raise
        err.print(f"[bold red]internal error[/] (a bug in ktype; please report it with the command line): "
                  f"{type(e).__name__}: {e}. Set KTYPE_DEBUG=1 to see the traceback.")
        return EXIT_INTERNAL
    return int(rv) if isinstance(rv, int) else EXIT_OK


def main() -> None:
    """Console entry point: :func:`run` on ``sys.argv``."""
    sys.exit(run())


if __name__ == "__main__":  # pragma: no cover
    main()
