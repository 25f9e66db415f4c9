"""The issue #12 patient table, end to end through the CLI, in CSV and Parquet.

A synthetic 5,000-row table with names, SSNs, ZIP codes with leading zeros, ISO admission
dates, missing ages, unicode ethnicities, a cost column and a formula-looking note:
anonymize (Mondrian with ranges incl. date ranges; flash with masking, intervals and a date
hierarchy; missing ages as a category) -> release -> check -> metrics.
"""

import hashlib
import json

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from ktype.cli import app

runner = CliRunner()
N = 5000


def patients(seed: int = 12) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    zips = np.array(["02139", "02138", "02141", "02142", "01002", "01003", "07030", "07302"])
    eth = np.array(["Māori", "Sámi", "Hispanic/Latino", "Han Chinese", "Yorùbá", "Ελληνική", "Deutsch"])
    age = pd.array(rng.integers(18, 95, N), dtype="Int64")
    age[rng.random(N) < 0.03] = pd.NA  # a few missing ages (empty cells in the CSV)
    days = rng.integers(0, 3 * 365, N)
    admission = (pd.Timestamp("2021-01-01") + pd.to_timedelta(days, unit="D")).strftime("%Y-%m-%d")
    return pd.DataFrame(
        {
            "name": [f"Person {i}" for i in range(N)],
            "ssn": [f"{rng.integers(100, 999)}-{rng.integers(10, 99)}-{i:04d}" for i in range(N)],
            "zip": zips[rng.integers(0, len(zips), N)],
            "age": age,
            "admission": admission,
            "ethnicity": eth[rng.integers(0, len(eth), N)],
            "cost": np.round(rng.gamma(2.0, 1500.0, N), 2),
            "note": np.where(rng.random(N) < 0.01, "=HYPERLINK(\"http://evil\")", "ok"),
        }
    )


ROLES = ["--qi", "zip,age,admission,ethnicity", "--sensitive", "cost", "--identifier", "name,ssn",
         "--insensitive", "note", "--type", "admission=date", "--missing", "age=category"]
FLASH_H = ["-H", "zip=masking:1,2,3", "-H", "age=intervals:10,20,40", "-H", "admission=dates:month,quarter,year"]


def sha(p):
    return hashlib.sha256(p.read_bytes()).hexdigest()


@pytest.mark.parametrize("fmt", ["csv", "parquet"])
@pytest.mark.parametrize("algorithm,hier", [("mondrian", ["-H", "zip=masking:1,2,3"]), ("flash", FLASH_H)])
def test_patient_table_end_to_end(tmp_path, fmt, algorithm, hier):
    df = patients()
    src = tmp_path / f"patients.{fmt}"
    if fmt == "csv":
        df.to_csv(src, index=False)
    else:
        df.to_parquet(src, index=False)
    before = sha(src)
    out = tmp_path / f"release.{fmt}"
    summ = tmp_path / "summary.json"
    res = runner.invoke(app, ["anonymize", str(src), *ROLES, *hier, "-a", algorithm, "-k", "10", "-O", str(out),
                              "--summary", str(summ), "--json"])
    assert res.exit_code == 0, res.output
    summary = json.loads(summ.read_text())
    assert summary["verified"] is True and summary["rows"] == N
    pub = pd.read_csv(out, dtype=str, keep_default_na=False) if fmt == "csv" else pd.read_parquet(out).astype(str)
    assert "name" not in pub.columns and "ssn" not in pub.columns
    zips = set(pub["zip"]) - {"*"}
    assert zips and all(z.startswith("0") for z in zips), zips  # leading zeros kept through masking
    assert set(pub["ethnicity"]) & {"Māori", "Sámi", "Ελληνική", "*"}
    if algorithm == "mondrian":
        assert any(".." in a for a in pub["admission"]), "date ranges are written [lo..hi]"
    else:
        assert set(pub["admission"]) <= {f"{y}-{m:02d}" for y in (2021, 2022, 2023) for m in range(1, 13)} | {
            f"{y}-Q{q}" for y in (2021, 2022, 2023) for q in range(1, 5)} | {"2021", "2022", "2023", "*"}
    if fmt == "csv":
        assert "'=HYPERLINK(\"http://evil\")" in set(pub["note"])
    common = ["--original", str(src), *ROLES, *hier]
    chk = runner.invoke(app, ["check", str(out), *common, "--model", "k-anonymity", "-k", "10"])
    assert chk.exit_code == 0, chk.output
    too_strict = runner.invoke(app, ["check", str(out), *common, "--model", "k-anonymity", "-k", str(N)])
    assert too_strict.exit_code == 1
    met = runner.invoke(app, ["metrics", str(out), *common, "--json"])
    assert met.exit_code == 0, met.output
    assert all(np.isfinite(v) for v in json.loads(met.stdout).values())
    assert sha(src) == before
    sidecar = [out.stem + ".ktype.json"] if out.suffix == ".csv" else []  # a CSV release's metadata
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([src.name, out.name, summ.name, *sidecar])
