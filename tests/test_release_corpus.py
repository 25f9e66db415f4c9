"""Every release of a fixed corpus stays byte-identical across refactorings.

The corpus: every registered algorithm, with its first model at the small test parameters and a
fixed seed, on samples of the bundled Adult data (two sizes) and of the synthetic CENSUS
generator. The SHA-256 of each release's published table (``to_pandas(include_suppressed=True)``
as CSV, in the release's own canonical row order) is committed in
``release_corpus.json``. A change that alters any release fails here; a change meant to alter
releases regenerates the file on purpose:

    python tests/test_release_corpus.py --update

and says in its commit which releases changed and why.
"""

from __future__ import annotations

import hashlib
import json
import sys
from functools import cache
from pathlib import Path

import numpy as np
import pytest

from ktype.algorithms import all_algorithms, get_algorithm
from ktype.data.dataset import Dataset

CORPUS_FILE = Path(__file__).with_name("release_corpus.json")
#: exact searches exponential in the domain (a MIP, K-Optimize's set enumeration) run on the smallest sample only
TINY_ONLY = {"freeform_mip", "k_optimize"}


@cache
def corpus_dataset(name: str) -> Dataset:
    from ktype.data.bundled import load_adult
    from ktype.datasets.synthetic import census_dataset

    if name.startswith("adult"):
        n = int(name.removeprefix("adult"))
        full = load_adult(quasi_identifiers=["sex", "age", "race", "education"], sensitive=("salary-class",))
        rows = np.sort(np.random.default_rng(n).choice(full.n, size=n, replace=False))
        return full.subset(rows)
    if name.startswith("census"):
        return census_dataset(int(name.removeprefix("census")), rng=7, quasi_identifiers=["Age", "Gender", "Education Level", "Marital Status"], sensitive=["Occupation"])
    raise KeyError(name)


DATASETS = ("adult14", "adult300", "census400")


def corpus_cases() -> list[tuple[str, str]]:
    cases = []
    for info in all_algorithms():
        for ds in DATASETS:
            if info.name in TINY_ONLY and ds != "adult14":
                continue
            cases.append((info.name, ds))
    return cases


def corpus_release(algorithm: str, dataset: str):
    """The corpus release, or ``error:NAME`` when the algorithm refuses the case."""
    from ktype.testing.algorithm_checks import _call, default_model

    info = get_algorithm(algorithm)
    ds = corpus_dataset(dataset)
    try:
        return _call(info, ds, default_model(info.models[0]), seed=0)
    except Exception as exc:  # a refusal is part of the corpus too: it must stay the same refusal
        return f"error:{type(exc).__name__}"


def release_digest(algorithm: str, dataset: str, rel=None) -> str:
    rel = corpus_release(algorithm, dataset) if rel is None else rel
    if isinstance(rel, str):
        return rel
    text = rel.to_pandas(include_suppressed=True).to_csv(index=False)
    return hashlib.sha256(text.encode()).hexdigest()


def _expected() -> dict[str, str]:
    return json.loads(CORPUS_FILE.read_text())


@pytest.mark.parametrize(("algorithm", "dataset"), corpus_cases())
def test_release_is_unchanged(algorithm: str, dataset: str) -> None:
    expected = _expected().get(f"{algorithm}/{dataset}")
    assert expected is not None, f"{algorithm}/{dataset} is not in the corpus: regenerate it (see the module docstring)"
    rel = corpus_release(algorithm, dataset)
    assert release_digest(algorithm, dataset, rel) == expected
    if not isinstance(rel, str):  # the file writer's text is pandas' (with line breaks quoted), byte for byte
        from ktype.io import _csvtext

        table = _csvtext.escape_csv_cells(rel.to_pandas())
        fast = _csvtext._fast_to_csv(table, ",", True)
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(_csvtext, "_fast_to_csv", lambda *a: None)
            assert fast is None or fast == _csvtext._to_csv(table, ",", True)


def test_corpus_covers_every_registered_algorithm() -> None:
    assert {k.split("/")[0] for k in _expected()} == {a.name for a in all_algorithms()}


if __name__ == "__main__":
    if sys.argv[1:] != ["--update"]:
        raise SystemExit("usage: python tests/test_release_corpus.py --update")
    import time

    digests = {}
    for a, d in corpus_cases():
        t0 = time.process_time()
        digests[f"{a}/{d}"] = release_digest(a, d)
        print(f"{a}/{d}: {time.process_time() - t0:.2f} CPU s", flush=True)
    CORPUS_FILE.write_text(json.dumps(digests, indent=1, sort_keys=True) + "\n")
    print(f"{len(digests)} releases written to {CORPUS_FILE}")
