"""Strict reading of ``--config`` files (YAML or TOML).

* **A key given twice is an error** naming the key and both lines. PyYAML keeps the last
  of ``k: 5`` / ``k: 1`` silently (the release would be 1-anonymous); :class:`StrictLoader`
  refuses it, in nested mappings too (YAML merge keys ``<<`` still work). TOML already
  refuses a duplicate; its message gains the key's name.
* **Values have the option's type** (:func:`check_types`): a boolean option takes
  ``true``/``false``, never a string (``force: "no"`` is not true); a number takes a number,
  never a boolean (``k: true`` is not k = 1); a text or path option takes text. The types
  come from the command's own signature (:func:`option_kinds`).
"""

from __future__ import annotations

import inspect
import re
import types
import typing
from pathlib import Path
from typing import Any

from .exceptions import KtypeError

__all__ = ["DuplicateKeyError", "parse_config", "option_kinds", "check_types"]


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
            "text": isinstance(value, str),
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
