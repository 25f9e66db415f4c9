"""The repository's own data (``data/``, the bundled Adult): every file is listed in
``data/README.md``, decompresses to its original (md5), has a PROVENANCE.md, and is found
by :mod:`ktype.testing.repo_data` -- never outside the repository."""

from __future__ import annotations

import gzip
import hashlib
import re

import pytest

from ktype.testing import repo_data

ROOT = repo_data.DATA_DIR.parent
LISTED = dict(
    (m.group(2), m.group(1))
    for m in re.finditer(r"^([0-9a-f]{32})  (\S+)$", (repo_data.DATA_DIR / "README.md").read_text(), re.M)
)
FOLDERS = sorted({key.split("/")[0] for key in LISTED})


def stored_files() -> dict[str, str]:
    """``<dataset>/<original name>`` -> the file as stored, for every data file of every folder."""
    out = {}
    for name in FOLDERS:
        for path in repo_data.dataset_dir(name).iterdir():
            if path.name != "PROVENANCE.md" and path.is_file():
                out[f"{name}/{path.name.removesuffix('.gz')}"] = str(path)
    return out


def test_data_folder_is_inside_the_repository():
    assert (ROOT / "pyproject.toml").is_file() and repo_data.DATA_DIR == ROOT / "data"
    assert FOLDERS == ["adult", "adult_uci", "cmc", "fars", "highdim", "nursery"]
    for name in FOLDERS:
        folder = repo_data.dataset_dir(name)
        assert folder.resolve().is_relative_to(ROOT), folder
        assert (folder / "PROVENANCE.md").is_file(), folder


def test_every_file_is_listed_and_every_listed_file_is_stored():
    assert set(stored_files()) == set(LISTED)


@pytest.mark.parametrize("name", FOLDERS)
def test_files_decompress_to_the_originals(name):
    for key, stored in stored_files().items():
        if key.startswith(f"{name}/"):
            path = repo_data.data_file(name, key.split("/", 1)[1])
            assert str(path) == stored
            raw = gzip.decompress(path.read_bytes()) if path.suffix == ".gz" else path.read_bytes()
            assert hashlib.md5(raw).hexdigest() == LISTED[key], key


def test_missing_files_are_errors_not_skips():
    with pytest.raises(FileNotFoundError, match=r"nothing\.csv \(or nothing\.csv\.gz\) not found"):
        repo_data.data_file("fars", "nothing.csv")
    with pytest.raises(FileNotFoundError, match="only in a source checkout"):
        repo_data.dataset_dir("no-such-dataset")


def test_readers():
    df = repo_data.read_csv("fars", "fars_int.csv", sep=";", dtype=str, usecols=["iage", "isex"])
    assert df.shape == (100_937, 2)
    h = repo_data.arx_hierarchies("highdim", "creditcard_int", ["BILL_AMT1", "SEX"])  # a .gz and a plain CSV
    assert h["BILL_AMT1"].name == "BILL_AMT1" and h["BILL_AMT1"].size > 20_000 and h["SEX"].size == 2
