"""ktype.dask when a worker dies mid-run: Dask re-runs the lost work and the release is the
one of a run without the failure, or, when the work cannot be recovered, the run fails with
:class:`~ktype.exceptions.ClusterError` and leaves nothing at the output path (docs/scale.md).

The worker is killed for real: the partition function calls ``os._exit`` inside the worker
process while the release is being written, and the nanny restarts the process.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("dask.dataframe")
pytest.importorskip("distributed")

import dask  # noqa: E402
import dask.dataframe as dd  # noqa: E402

import ktype.dask as kd  # noqa: E402
from ktype.exceptions import ClusterError  # noqa: E402
from ktype.models.kanonymity import KAnonymity  # noqa: E402

ROLES = dict(quasi_identifiers=["age", "zip"], sensitive=["disease"], identifiers=["name"],
             hierarchies={"age": {"intervals": [5, 10, 20, 40]}, "zip": {"masking": [1, 2, 3, 5]}})


def frame(n: int = 1200, seed: int = 8) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame({
        "age": rng.integers(20, 60, n),
        "zip": rng.choice(["10055", "10023", "10165", "10224", "20001", "20002"], n),
        "disease": rng.choice(["flu", "cold", "cancer", "hiv"], n),
        "name": [f"p{i}" for i in range(n)],
    })


def sorted_rows(df: pd.DataFrame) -> pd.DataFrame:
    return df.astype(str).sort_values(list(df.columns)).reset_index(drop=True)


def with_killer(rel, marker=None):
    """The release with a partition function that kills its worker process: once (when the
    marker file does not exist yet; it is created first), or every time (``marker=None``)."""

    def killer(part: pd.DataFrame) -> pd.DataFrame:  # nested: shipped to the workers by value
        import os

        if len(part) and (marker is None or not os.path.exists(marker)):
            if marker is not None:
                open(marker, "w").close()
            os._exit(1)
        return part

    return dataclasses.replace(rel, frame=rel.frame.map_partitions(killer, meta=rel.frame._meta))


def _wait_until_the_scheduler_forgets(client, timeout: float = 30.0) -> None:
    """Wait until the scheduler holds no task (the failed run's are released)."""
    import time

    deadline = time.monotonic() + timeout
    while client.run_on_scheduler(lambda dask_scheduler: len(dask_scheduler.tasks)):
        assert time.monotonic() < deadline, "the scheduler kept the failed run's tasks"
        time.sleep(0.05)


@pytest.fixture(scope="module")
def cluster_client():
    from distributed import Client, LocalCluster

    # one retry: a task whose worker dies twice fails the computation (the default allows 3 deaths)
    with dask.config.set({"distributed.scheduler.allowed-failures": 1}), \
            LocalCluster(n_workers=2, threads_per_worker=1, processes=True, memory_limit="1536MiB",
                         dashboard_address=":0") as cluster, Client(cluster) as c:
        yield c


def test_a_worker_killed_once_is_recovered_and_the_release_is_unchanged(cluster_client, tmp_path):
    tab = kd.from_dask(dd.from_pandas(frame(), npartitions=3), scheduler=cluster_client, **ROLES)
    rel = kd.flash(tab, KAnonymity(4))
    kd.write_release(rel, tmp_path / "plain")
    marker = tmp_path / "killed"
    kd.write_release(with_killer(rel, str(marker)), tmp_path / "recovered")
    assert marker.exists()  # a worker did die during the write
    pd.testing.assert_frame_equal(sorted_rows(pd.read_parquet(tmp_path / "recovered")),
                                  sorted_rows(pd.read_parquet(tmp_path / "plain")))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["killed", "plain", "recovered"]


def test_a_worker_that_keeps_dying_fails_the_run_cleanly(cluster_client, tmp_path):
    tab = kd.from_dask(dd.from_pandas(frame(seed=9), npartitions=3), scheduler=cluster_client, **ROLES)
    rel = kd.flash(tab, KAnonymity(4))
    out = tmp_path / "release"
    with pytest.raises(ClusterError, match="KilledWorker.*Nothing was published.*memory-limit"):
        kd.write_release(with_killer(rel), out)
    assert list(tmp_path.iterdir()) == []  # no release, no temporary directory
    # the cluster is usable again afterwards, and the same release can then be written, once the
    # scheduler has let go of the failed run's tasks: it forgets them asynchronously, and a task
    # still marked as failed there fails the next run that asks for the same key (1 CI run in 4)
    _wait_until_the_scheduler_forgets(cluster_client)
    kd.write_release(rel, out)
    assert len(pd.read_parquet(out)) == tab.n - rel.n_suppressed


def test_errors_raised_in_a_task_keep_their_type(cluster_client, tmp_path):
    """Only the distributed runtime's own failures become ClusterError: an exception raised by
    the code of a task (here a DataError from a partition function) reaches the caller as it
    is, and the failed write leaves nothing."""
    from distributed import KilledWorker

    from ktype.dask._engine import _is_cluster_failure
    from ktype.exceptions import DataError

    def refuse(part: pd.DataFrame) -> pd.DataFrame:
        if len(part):
            raise DataError("a partition the task refuses")
        return part

    tab = kd.from_dask(dd.from_pandas(frame(seed=10), npartitions=3), scheduler=cluster_client, **ROLES)
    rel = kd.flash(tab, KAnonymity(3))
    bad = dataclasses.replace(rel, frame=rel.frame.map_partitions(refuse, meta=rel.frame._meta))
    with pytest.raises(DataError, match="the task refuses"):
        kd.write_release(bad, tmp_path / "release")
    assert list(tmp_path.iterdir()) == []
    assert _is_cluster_failure(KilledWorker("task", "worker", 1))
    assert not _is_cluster_failure(DataError("x")) and not _is_cluster_failure(RuntimeError("boom"))
