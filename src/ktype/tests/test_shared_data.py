"""Tests and benchmarks find the shared data beside the repository first (CI's layout)."""

from __future__ import annotations

from ktype.testing import shared_data


def test_search_order(monkeypatch, tmp_path):
    monkeypatch.setenv("KTYPE_SHARED_DATA", str(tmp_path))
    c = shared_data.candidates()
    assert c[0] == shared_data._REPO.parent / "shared" / "data"
    assert c[1:] == [tmp_path, shared_data.Path("/work/shared/data")]


def test_env_used_when_nothing_beside(monkeypatch, tmp_path):
    monkeypatch.setattr(shared_data, "_REPO", tmp_path / "repo")
    monkeypatch.setenv("KTYPE_SHARED_DATA", str(tmp_path))
    assert shared_data.shared_data_dir() == tmp_path
    (tmp_path / "shared" / "data").mkdir(parents=True)
    assert shared_data.shared_data_dir() == tmp_path / "shared" / "data"  # beside the repository wins


def test_repository_root_is_the_checkout():
    assert (shared_data._REPO / "pyproject.toml").exists()
