"""Strict reading of ``--config`` files (YAML or TOML).

* **A key given twice is an error** naming the key and both lines. PyYAML keeps the last
  of ``k: 5`` / ``k: 1`` silently (the release would be 1-anonymous); :class:`StrictLoader`
  refuses it, in nested mappings too (YAML merge keys ``<<`` still work). TOML already
  refuses a duplicate; its message gains the key's name.
* **Values have the option's type** (:func:`check_types`): a boolean option takes
  ``true``/``false``, never a string (``force: "no"`` is not true); a number takes a number,
  never a boolean (``k: true`` is not k = 1); a text or path option takes text. The kinds
  are :data:`OPTION_KINDS`, the one schema of every command's options and config keys.
* **Unknown keys are errors** with a suggestion (:func:`read_config`): a misspelled
  ``sensitve:`` must not silently publish a column unprotected.

The parsers of option values shared by the command line, configs and
:class:`ktype.job.AnonymizationJob` live here too (:func:`split_list`,
:func:`parse_hierarchies`, :func:`parse_options`).
"""

from __future__ import annotations

import difflib
import inspect
import re
import types
import typing
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from .exceptions import InvalidParameterError, KtypeError

__all__ = ["DuplicateKeyError", "parse_config", "option_kinds", "check_types", "OPTION_KINDS", "read_config",
           "split_list", "parse_hierarchies", "parse_options", "REST"]

#: ``insensitive: "*"`` (``--insensitive '*'``): every column without another role is released unchanged
REST = "*"

#: the kind of value each config key / command-line option takes, for every command: one
#: name and one type per concept (``bool``, ``int``, ``float``, ``text``, ``path``, ``list``
#: of text, ``map`` of COLUMN=VALUE pairs). ``tests/test_cli_contract.py`` checks that every
#: option of every command has its entry here, with this kind.
OPTION_KINDS: dict[str, str] = {
    # input and roles
    "input": "path", "dataset": "text", "original": "path", "released": "path", "data": "path", "prefix": "path",
    "rows": "int",
    "qi": "list", "sensitive": "list", "identifier": "list", "insensitive": "list", "hierarchy": "map",
    # reading
    "sep": "text", "encoding": "text", "type": "map", "na_values": "list", "missing": "map",
    # privacy requirement
    "model": "list", "protect": "text", "k": "int", "l": "float", "diversity": "text", "c": "float", "p": "int", "t": "float",
    "distance": "text",
    # algorithm
    "algorithm": "text", "option": "map", "rng": "int",
    # outputs
    "output": "path", "summary": "path", "format": "text", "csv_escape": "bool", "force": "bool", "mkdirs": "bool",
    "json": "bool",
    # check / metrics / risk
    "recoding": "text", "local": "bool", "threshold": "float", "population": "path", "sampling_fraction": "float",
    "population_size": "int", "weights": "text", "suda": "int", "posterior": "text",
    "verbose": "bool",
    # report / link / progress
    "report": "path", "external": "path", "on": "list", "progress": "bool",
    # web app / Dask
    "host": "text", "port": "int", "scheduler": "text",
}

#: other spellings accepted in a config file
ALIASES = {"keep": "insensitive", "types": "type", "options": "option"}
#: keys whose values are paths (relative to the config file's directory)
PATH_KEYS = tuple(k for k, kind in OPTION_KINDS.items() if kind == "path")
_BUILTIN_HIERARCHIES = ("ordered", "flat", "dates")


class DuplicateKeyError(KtypeError):
    """A mapping key given twice in a config file."""

    def __init__(self, key: Any, first_line: int, line: int) -> None:
        self.key, self.first_line, self.line = key, first_line, line
        super().__init__(f"key {key!r} is given twice (line {first_line} and line {line})")


def _strict_loader() -> type:
    import yaml

    class StrictLoader(yaml.SafeLoader):
        """``yaml.SafeLoader`` that refuses a key given twice in one mapping."""

        def construct_mapping(self, node: Any, deep: bool = False) -> Any:
            if isinstance(node, yaml.MappingNode):
                seen: dict[Any, int] = {}
                for key_node, _ in node.value:
                    if key_node.tag == "tag:yaml.org,2002:merge":
                        continue  # keys merged from an anchor may be overridden, as YAML says
                    key = self.construct_object(key_node, deep=True)
                    try:
                        first = seen.get(key)
                    except TypeError:  # an unhashable key: SafeLoader reports it
                        continue
                    line = key_node.start_mark.line + 1
                    if first is not None:
                        raise DuplicateKeyError(key, first, line)
                    seen[key] = line
            return super().construct_mapping(node, deep=deep)

    return StrictLoader


def parse_config(text: str, *, toml: bool) -> Any:
    """The config file's content; raises :class:`DuplicateKeyError` for a key given twice
    and the parser's own error for malformed text."""
    if toml:
        import tomllib

        try:
            return tomllib.loads(text)
        except tomllib.TOMLDecodeError as e:
            m = re.search(r"Cannot overwrite a value \(at line (\d+)", str(e))
            if not m:
                raise
            line = int(m.group(1))
            src = text.splitlines()[line - 1] if 0 < line <= len(text.splitlines()) else ""
            key = src.split("=", 1)[0].strip().strip("[]").strip() if src else "?"
            first = _first_toml_line(text, key, line)
            raise DuplicateKeyError(key, first, line) from None
    import yaml

    return yaml.load(text, Loader=_strict_loader()) or {}  # noqa: S506 - a SafeLoader subclass


def _first_toml_line(text: str, key: str, line: int) -> int:
    pat = re.compile(r"^\s*\[?\s*" + re.escape(key) + r"\s*(=|\])")
    for i, src in enumerate(text.splitlines()[: line - 1], start=1):
        if pat.match(src):
            return i
    return line


# ---------------------------------------------------------------------- value types
def _kind(annotation: Any) -> str:
    """``bool``, ``int``, ``float``, ``text`` or ``list`` for an option's annotation."""
    if typing.get_origin(annotation) is typing.Annotated:
        annotation = typing.get_args(annotation)[0]
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(annotation) if a is not type(None)]
        annotation = args[0] if len(args) == 1 else annotation
    if typing.get_origin(annotation) is list:
        return "list"
    if annotation is bool:
        return "bool"
    if annotation is int:
        return "int"
    if annotation is float:
        return "float"
    if annotation in (str, Path):
        return "text"
    return "any"


def option_kinds(command: Any) -> dict[str, str]:
    """Each parameter of a command (a typer function) and the kind of value it takes."""
    hints = typing.get_type_hints(command, include_extras=True)
    return {p: _kind(hints.get(p)) for p in inspect.signature(command).parameters}


_EXPECTED = {"bool": "true or false (a YAML/TOML boolean, unquoted)", "int": "an integer", "float": "a number",
             "text": "text", "list": "text or a list (or mapping) of values"}


def _type_name(value: Any) -> str:
    return {bool: "a boolean", int: "an integer", float: "a number", str: "text", list: "a list",
            dict: "a mapping"}.get(type(value), type(value).__name__)


def check_types(cfg: dict[str, Any], kinds: dict[str, str], where: Path) -> dict[str, Any]:
    """Refuse a value of the wrong type for its option (the message names the key, what it
    takes and what it got). Numbers in a list become text (a column named ``2020``)."""
    out = dict(cfg)
    for key, value in cfg.items():
        kind = kinds.get(key, "any")
        if value is None or kind == "any":
            continue
        ok = {
            "bool": isinstance(value, bool),
            "int": isinstance(value, int) and not isinstance(value, bool),
            "float": isinstance(value, (int, float)) and not isinstance(value, bool),
            "text": isinstance(value, (str, Path)),
            "list": isinstance(value, (str, list, dict)),
        }[kind]
        if ok and kind == "list" and isinstance(value, list):
            bad = [v for v in value if isinstance(v, bool) or not isinstance(v, (str, int, float))]
            if bad:
                raise KtypeError(f"Config file {where}: key {key!r} must hold text values; got {bad[0]!r} "
                                 f"({_type_name(bad[0])}). Quote it.")
            out[key] = [v if isinstance(v, str) else str(v) for v in value]
        if ok:
            continue
        hint = ""
        if kind == "bool" and isinstance(value, str):
            hint = f" Text is not a boolean: write {key}: true or {key}: false."
        elif kind in ("int", "float") and isinstance(value, bool):
            hint = " A boolean is not a number."
        elif kind == "text" and isinstance(value, (bool, int, float)):
            hint = " Quote it if it is meant as text."
        raise KtypeError(f"Config file {where}: key {key!r} must be {_EXPECTED[kind]}; got {value!r} "
                         f"({_type_name(value)}).{hint}")
    return out


# ---------------------------------------------------------------------- parsing helpers
def split_list(values: Any) -> tuple[str, ...]:
    """``"a,b"``, ``["a", "b,c"]`` -> ``("a", "b", "c")`` (numbers become text: a column ``2020``)."""
    if values is None or values == "" or values == [] or values == ():
        return ()
    if isinstance(values, (str, int, float)):
        values = [values]
    out: list[str] = []
    for v in values:
        out.extend(x.strip() for x in str(v).split(",") if x.strip())
    return tuple(out)


def _parse_hierarchy(col: str, val: Any) -> Any:
    """``intervals:5,10,20`` / ``masking:1,2`` -> a mapping; anything else (a CSV path,
    ``ordered``, ``flat``, ``dates[:month,...]``, a Hierarchy or mapping) is kept."""
    if not isinstance(val, str):
        return val
    val = val.strip()
    for kind, example in (("intervals", "intervals:5,10,20"), ("masking", "masking:1,2,3")):
        if val.startswith(kind + ":"):
            parts = [x.strip() for x in val.split(":", 1)[1].split(",")]
            try:
                nums = [float(x) if kind == "intervals" and "." in x else int(x) for x in parts]
            except ValueError:
                what = "widths (numbers)" if kind == "intervals" else "numbers of trailing characters to mask (whole numbers)"
                raise InvalidParameterError(f"Hierarchy {col}={val}: {kind} takes comma-separated {what}, "
                                            f"e.g. {col}={example}.") from None
            return {kind: nums}
    return val


def parse_hierarchies(specs: Any) -> dict[str, Any]:
    """Hierarchies from a mapping ``{col: spec}`` or ``COLUMN=SPEC`` items (``-H age=intervals:5,10``)."""
    if not specs:
        return {}
    if isinstance(specs, Mapping):
        return {str(c): _parse_hierarchy(str(c), v) for c, v in specs.items()}
    items = [specs] if isinstance(specs, str) else list(specs)
    out = {}
    for s in items:
        if "=" not in str(s):
            raise InvalidParameterError(f"Hierarchy {s!r} must look like COLUMN=SPEC "
                                        "(e.g. age=intervals:5,10,20 or zip=masking:1,2,3).")
        col, val = str(s).split("=", 1)
        out[col.strip()] = _parse_hierarchy(col.strip(), val)
    return out


def _coerce(v: str) -> Any:
    if v.lower() in ("true", "false"):
        return v.lower() == "true"
    for t in (int, float):
        try:
            return t(v)
        except ValueError:
            pass
    return v


def parse_options(opts: Any) -> dict[str, Any]:
    """Algorithm options from a mapping or ``NAME=VALUE`` items (values typed: ``true`` is a
    boolean, ``0.04`` a number)."""
    if not opts:
        return {}
    if isinstance(opts, Mapping):
        return {str(k).replace("-", "_"): v for k, v in opts.items()}
    items = [opts] if isinstance(opts, str) else list(opts)
    res: dict[str, Any] = {}
    for o in items:
        if "=" not in str(o):
            raise InvalidParameterError(f"Option {o!r} must look like NAME=VALUE (e.g. mode=relaxed).")
        k, v = str(o).split("=", 1)
        res[k.strip().replace("-", "_")] = _coerce(v.strip())
    return res


def _parse_missing(ms: Any) -> str | dict[str, str] | None:
    """``category`` (every column) or ``{col: policy}`` from text, a list of items or a mapping."""
    if ms is None or ms == [] or ms == ():
        return None
    if isinstance(ms, Mapping):
        return {str(k): str(v) for k, v in ms.items()}
    items = [ms] if isinstance(ms, str) else list(ms)
    parts = [x.strip() for v in items for x in str(v).split(",") if x.strip()]
    if len(parts) == 1 and "=" not in parts[0]:
        return parts[0]
    pairs = dict(p.split("=", 1) for p in parts if "=" in p)
    if len(pairs) != len(parts):
        raise InvalidParameterError("--missing takes POLICY (for every column) or COLUMN=POLICY,... "
                                    "with POLICY error, category or suppress.")
    return {k.strip(): v.strip() for k, v in pairs.items()}


# ---------------------------------------------------------------------- config files
def read_config(source: str | Path | Mapping[str, Any] | None, kinds: Mapping[str, str], *,
                what: str = "config") -> dict[str, Any]:
    """A config file (YAML or TOML) or mapping, checked against ``kinds`` (key -> kind).

    Keys may be spelled with ``-`` or ``_``; ``keep`` is ``insensitive``, ``types`` is
    ``type``. An unknown key, a key given twice (``k: 5`` then ``k: 1``) and a value of the
    wrong type (``force: "no"``, ``k: true``) are errors naming the key. Relative paths in a
    file are relative to the file's directory.
    """
    if source is None:
        return {}
    base: Path | None = None
    if isinstance(source, Mapping):
        cfg: Any = dict(source)
        where: Path | str = "(mapping)"
    else:
        path = Path(source)
        where = path
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
        base = path.parent
    if not isinstance(cfg, dict):
        raise KtypeError(f"Config file {where} must hold a mapping of option names to values.")
    spelled: dict[str, str] = {}
    norm_cfg: dict[str, Any] = {}
    for k, v in cfg.items():
        norm = str(k).replace("-", "_")
        canon = ALIASES.get(norm, norm) if norm not in kinds else norm
        if canon in spelled:
            first, second = spelled[canon], str(k)
            if first.replace("-", "_") != second.replace("-", "_"):  # an alias: keep/insensitive, type/types
                raise KtypeError(f"Config file {where} has both {first!r} and {second!r}; they are the same option, "
                                 "use one.")
            raise KtypeError(f"Config file {where} gives {canon!r} twice (as {first!r} and {second!r}); keep one.")
        spelled[canon] = str(k)
        norm_cfg[canon] = v
    allowed = dict(kinds)
    for key in norm_cfg:
        if key not in allowed:
            close = difflib.get_close_matches(key, sorted(allowed), n=1)
            hint = f" Did you mean {close[0]!r}?" if close else ""
            raise KtypeError(f"Unknown key {key!r} in {what} {where}.{hint} Valid keys: {', '.join(sorted(allowed))}.")
    legacy = {k: ("text" if v == "path" else "list" if v == "map" else v) for k, v in allowed.items()}
    for key, kind in allowed.items():  # a map takes a mapping, text or a list of COL=VALUE
        if kind == "map" and isinstance(norm_cfg.get(key), dict):
            legacy[key] = "any"
    out = check_types(norm_cfg, legacy, where if isinstance(where, Path) else Path(str(where)))
    if base is not None:
        out = _resolve_paths(out, base)
    return out


def _resolve_paths(cfg: dict[str, Any], base: Path) -> dict[str, Any]:
    """Relative paths in a config file are relative to the config file's directory."""

    def res(v: Any) -> Any:
        if isinstance(v, str) and v and not Path(v).is_absolute():
            return str(base / v)
        return v

    for key in PATH_KEYS:
        if cfg.get(key) is not None:
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
