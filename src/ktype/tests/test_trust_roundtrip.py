"""Issue #8 (trust), property test: a written release re-checks with the in-memory numbers,
and a mutated release is caught wherever the model is violated.

For every registered algorithm, on random tables (rows drawn from the bundled Adult data,
as in the common check suite): the release written as CSV and as Parquet, read back and
audited (models and scope from its metadata), gives the same verdicts, the same summary
numbers and the same per-record verdicts as the in-memory verification. Mutations of the
published table — one row replaced by all ``*``, one cell narrowed to its record's exact
value, one row dropped, one row duplicated — are judged exactly like the corresponding
in-memory release (whose rows are linked to their records), so the file check is never
more lenient than the truth.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from hypothesis import HealthCheck, Phase, assume, given, settings
from hypothesis import strategies as st

from ktype.algorithms import all_algorithms, get_algorithm
from ktype.audit import audit
from ktype.release import read_release
from ktype.testing.algorithm_checks import _call, default_model, fixture_dataset

#: freeform releases publish value-set cells ({a,b}), which the file audit does not parse yet
#: (it raises NotImplementedError, tested below); every other registered algorithm is covered
#: "mask" publishes perturbed values (a baseline attacked in the transparency paper), not a generalization:
#: the audit rightly reports its rows as generalizing no original record
NAMES = [a.name for a in all_algorithms() if a.recoding != "freeform" and a.name != "mask"]
FREEFORM = [a.name for a in all_algorithms() if a.recoding == "freeform"]
#: few examples, small tables, no shrinking: the whole file stays within a minute or two
SETTINGS = settings(max_examples=2, deadline=None, derandomize=True, phases=[Phase.explicit, Phase.generate],
                    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])


def _release(name: str, seed: int):
    info = get_algorithm(name)
    ds = fixture_dataset(n=16, seed=seed)
    model = default_model(info.models[0])
    try:
        model.validate(ds)
    except Exception:  # noqa: BLE001 - infeasible on this draw: nothing to check
        assume(False)
    return ds, _call(info, ds, model, seed=seed)


def _same(file_results, mem_results):
    assert [r.model for r in file_results] == [r.model for r in mem_results]
    for a, b in zip(file_results, mem_results):
        assert a.satisfied == b.satisfied, (a.model, a.summary, b.summary)
        assert a.summary == b.summary, a.model
        assert a.per == b.per and np.array_equal(a.per_record, b.per_record), a.model


def _mutated(rel, row, lo=None, hi=None, suppress=False):
    """The in-memory truth of a mutated file: row ``row`` changed, still linked to its record."""
    new_lo, new_hi, sup = rel.lo.copy(), rel.hi.copy(), rel.suppressed.copy()
    if lo is not None:
        new_lo[row], new_hi[row] = lo, hi
    if suppress:
        sup[row] = True
        new_lo[row], new_hi[row] = 0, rel.dataset.domain_sizes - 1
    return dataclasses.replace(rel, lo=new_lo, hi=new_hi, suppressed=sup)


@pytest.mark.parametrize("name", NAMES)
@SETTINGS
@given(seed=st.integers(0, 10_000), pick=st.integers(0, 10_000))
def test_written_release_rechecks_like_memory_and_mutations_are_caught(name, seed, pick, tmp_path):
    ds, rel = _release(name, seed)
    mem = [m.check(rel) for m in rel.models]
    assert all(r.satisfied for r in mem)
    for suffix in (".parquet", ".csv"):  # the CSV one is mutated below
        path = rel.save(tmp_path / f"rel-{seed}{suffix}")
        rep = audit(ds, path)
        assert not rep.findings, [str(f) for f in rep.findings]
        assert rep.passed and rep.facts["suppressed"] == rel.n_suppressed
        _same(rep.results, mem)
    pub, meta = read_release(path)
    pub = pub.astype(object)
    m = len(pub)
    assume(m > 0)
    row = pick % m  # published row i is release row i (suppressed rows sort last)
    models = list(rel.models)

    def verdict(table, **kw):
        return audit(ds, table.reset_index(drop=True), models, recoding=rel.recoding, **kw)

    def truth(mut):
        return all(mdl.check(mut).satisfied for mdl in models)

    # transparency is judged with the algorithm's private state in memory; from a file only
    # the published table is known, so there the file check may be stricter, never laxer
    exact = not any(type(mdl).__name__ == "TransparentLDiversity" for mdl in models)

    def same_as_truth(rep, mut):
        want = truth(mut)
        assert want or not rep.passed, "the file check passed a release whose model is violated"
        if exact:
            assert rep.passed == want

    # one row replaced by all `*`: still a generalization; the models decide, as in memory
    star = pub.copy()
    star.loc[row, ds.quasi_identifiers] = "*"
    rep = verdict(star)
    assert not rep.findings
    same_as_truth(rep, _mutated(rel, row, lo=0, hi=ds.domain_sizes - 1))
    # one cell narrowed to its record's own value: still a generalization; same rule
    j = pick % ds.r
    col, h = ds.quasi_identifiers[j], ds.hierarchies[j]
    x = int(ds.X[rel.source[row], j])
    narrow = pub.copy()
    narrow.loc[row, col] = str(h.labels(np.array([x]), np.array([x]))[0])
    lo, hi = rel.lo[row].copy(), rel.hi[row].copy()
    lo[j] = hi[j] = x
    rep = verdict(narrow)
    assert not rep.findings
    same_as_truth(rep, _mutated(rel, row, lo=lo, hi=hi))
    # one row dropped: without metadata it reads as one more suppressed record ...
    dropped = pub.drop(index=row)
    rep = verdict(dropped)
    assert not rep.findings and rep.facts["suppressed"] == rel.n_suppressed + 1
    same_as_truth(rep, _mutated(rel, row, suppress=True))
    # ... and with the metadata the count no longer adds up
    assert any(f.check == "counts" for f in verdict(dropped, metadata=meta).findings)
    # one row duplicated: with every record published, there is no record left for it
    dup = pub.iloc[list(range(m)) + [row]]
    rep = verdict(dup, metadata=meta)
    assert not rep.passed and rep.findings
    if rel.n_suppressed == 0:
        assert any(f.check == "counts" for f in verdict(dup).findings)


@pytest.mark.skipif(not FREEFORM, reason="no freeform algorithm registered")
def test_freeform_file_audit_is_a_clear_not_implemented(tmp_path):
    ds = fixture_dataset(n=12, seed=1)
    info = get_algorithm(FREEFORM[0])
    rel = _call(info, ds, default_model(info.models[0]))
    path = rel.save(tmp_path / "ff.csv")
    pub, _ = read_release(path)
    if not pub[ds.quasi_identifiers].astype(str).apply(lambda c: c.str.startswith("{")).any().any():
        return  # this draw published no value set: nothing unsupported to report
    with pytest.raises(NotImplementedError, match="freeform"):
        audit(ds, path)
