"""The repository does not point at documents outside it.

Papers are cited by authors, venue and section; ktype's own design decisions are written
down in ``docs/`` (``docs/design/``). What is forbidden are pointers to notes that only
exist next to the repository: paths into a ``shared/`` folder of notes or papers, the
design and style notes that used to live there, the file names of the per-paper reading
notes, and the notes' own section, pitfall and tag markers ("the spec", a section sign or
a pitfall number after the word "spec"). A reader with the repository and the papers must
be able to follow every reference.

Scanned: ``src/``, ``docs/``, ``benchmarks/``, ``tools/`` and ``README.md`` (text files), except
this file, which spells the forbidden forms out to test that they are found.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCANNED = ("src", "tests", "docs", "benchmarks", "tools", "experiments", "README.md")
SKIPPED_DIRS = {"__pycache__", ".hypothesis", ".pytest_cache"}
TEXT_SUFFIXES = {".py", ".md", ".txt", ".toml", ".json", ".yaml", ".yml", ".cfg", ".ini", ".rst", ".csv", ".sh"}

#: this file: it spells the forbidden forms out (its tests plant them in throw-away trees)
CHECKER = "tests/test_self_contained.py"

#: what each pattern catches -> the pattern
FORBIDDEN: dict[str, re.Pattern[str]] = {
    "a path into the shared notes or papers": re.compile(r"\bshared/(?:specs|papers)\b"),
    "the design or style notes kept outside the repository": re.compile(r"\b(?:DESIGN|STYLE)\.md\b"),
    "a reading-note or paper file name": re.compile(
        r"\b(?:ciriani-et-al|doka-et-al|gionis-tassa|tassa-mazza-gionis|xiao-tao-koudas)_[\w-]+\.(?:md|txt)\b"
    ),
    "a numbered pitfall of the reading notes": re.compile(r"\bpitfalls?\s+P?\d", re.IGNORECASE),
    "a section, pitfall or tag of the reading notes": re.compile(
        r"\bspecs?\s*(?:§|P\d|\[[A-Z]|pitfall|variant|notes?\b)", re.IGNORECASE
    ),
    "the reading notes named as 'the spec'": re.compile(
        r"\b(?:the|freeform|survey|project|k-concealment|Tassa)\s+spec(?:'s)?\b|\bspec's\b", re.IGNORECASE
    ),
}

#: Files exempted from the scan. It held the files other engineers were editing when this
#: test was written (architecture issue #23, step 10); all of them have been fixed, so it is
#: empty and the scan covers the whole tree. Never add an entry: fix the reference instead
#: (cite the paper's own section, or move the substance into docs/design/).
#: test_allow_list_only_shrinks fails on an entry whose file has no reference left.
ALLOWED: frozenset[str] = frozenset()


def scanned_files(root: Path = ROOT) -> list[Path]:
    """The text files under the scanned roots (compiled caches and binary files excluded)."""
    out = []
    for name in SCANNED:
        top = root / name
        paths = [top] if top.is_file() else sorted(top.rglob("*")) if top.is_dir() else []
        for path in paths:
            rel = path.relative_to(root)
            if (path.is_file() and path.suffix in TEXT_SUFFIXES and not SKIPPED_DIRS & set(rel.parts)
                    and rel.as_posix() != CHECKER):
                out.append(path)
    return out


def references(root: Path = ROOT) -> dict[str, list[str]]:
    """``relative path -> ["line N: <what> in '<text>'", ...]`` for every forbidden reference."""
    found: dict[str, list[str]] = {}
    for path in scanned_files(root):
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        for n, line in enumerate(text.splitlines(), 1):
            for what, pattern in FORBIDDEN.items():
                if pattern.search(line):
                    found.setdefault(path.relative_to(root).as_posix(), []).append(f"line {n}: {what} in {line.strip()!r}")
    return found


def _in_source_checkout() -> None:
    if not (ROOT / "docs").is_dir() or not (ROOT / "pyproject.toml").is_file():
        pytest.skip("not a source checkout: docs/ and pyproject.toml are not beside src/")


def test_no_reference_outside_the_repository():
    _in_source_checkout()
    assert len(scanned_files()) > 100  # the scan is not vacuous
    bad = {path: hits for path, hits in references().items() if path not in ALLOWED}
    assert not bad, (
        "references to documents outside the repository (cite the paper by authors, venue and section, "
        "or describe the design decision in docs/design/):\n"
        + "\n".join(f"{path}: {hit}" for path, hits in sorted(bad.items()) for hit in hits)
    )


def test_allow_list_only_shrinks():
    _in_source_checkout()
    found = references()
    stale = sorted(path for path in ALLOWED if path not in found)
    assert not stale, f"no reference left in {stale}: remove them from ALLOWED in {Path(__file__).name}"


@pytest.mark.parametrize(
    ("where", "line"),
    [
        ("src/ktype/planted.py", "# see shared/specs/doka-et-al_freeform-generalization.md §3.5\n"),
        ("src/ktype/planted.py", "x = 1  # the text is in ../shared/papers/\n"),
        ("docs/planted.md", "The layering follows DESIGN.md.\n"),
        ("benchmarks/planted.py", '"""Style as in STYLE.md."""\n'),
        ("tools/planted.py", "# notes: xiao-tao-koudas_transparent-anonymization.md\n"),
        ("tests/test_planted.py", '"""Fixture of the spec §3.7(a)."""\n'),
        ("src/ktype/planted.py", "# Spec §7.1 item 3\n"),
        ("src/ktype/planted.py", "# identity fixed, spec P8\n"),
        ("src/ktype/planted.py", "# uniform-depth hierarchies, survey §8 pitfall 10\n"),
        ("docs/planted.md", "* never the input row order (pitfall P4)\n"),
        ("docs/planted.md", "exactly the spec's values\n"),
        ("README.md", "Numbers from the freeform spec.\n"),
    ],
)
def test_planted_reference_is_found(tmp_path, where, line):
    """A planted reference in a throw-away tree is reported, with its file and line."""
    (tmp_path / "README.md").write_text("ktype\n")  # an otherwise clean tree
    f = tmp_path / where
    f.parent.mkdir(parents=True, exist_ok=True)
    f.write_text("ok = True\n" + line)
    found = references(tmp_path)
    assert list(found) == [where] and found[where][0].startswith("line 2: "), found


@pytest.mark.parametrize(
    "line",
    [
        "def res_hier(spec: Any) -> Any:\n",
        "for spec in MODEL_TABLE:\n",
        "rng follows Scientific Python SPEC 7\n",
        "spec = importlib.util.spec_from_file_location(name, path)\n",
        "Doka et al., ASIA CCS 2015, §2.2; docs/design/transparency.md R4\n",
        "an inspect.signature spec of the function\n",
    ],
)
def test_ordinary_uses_of_the_word_pass(tmp_path, line):
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "ok.py").write_text(line)
    assert references(tmp_path) == {}
