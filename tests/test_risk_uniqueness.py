"""Population uniqueness estimators against simulated truth and exact model identities.

Error bounds (asserted here, documented in docs/risk.md): CENSUS-schema population of
60,000 records on five QIs (11 % population uniques), Dankar's rule within
[0.75, 1.45] x truth at sampling fractions 0.05 and 0.1, within [0.85, 1.2] x truth at
0.3 and 0.5; Pitman on a simulated Pitman population within 20 %.
"""

import os

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import ktype
from ktype._grouping import group_rows
from ktype.datasets import census
from ktype.exceptions import DataError, InvalidParameterError
from ktype.risk import dankar_uniques, pitman_uniques, population_uniqueness, snb_uniques, zayatz_uniques
from ktype.risk.uniqueness import _snb_probabilities, pitman_fit, shlosser_classes

FULL = os.environ.get("KTYPE_FULL") == "1"


def _crp(n: int, theta: float, alpha: float, rng: np.random.Generator) -> np.ndarray:
    """Table of each of n customers in a Pitman-Yor Chinese restaurant (sequential, test only)."""
    tables = np.zeros(n, dtype=np.int64)
    sizes = np.zeros(n, dtype=float)
    K = 0
    for i in range(n):
        if rng.random() * (theta + i) < theta + K * alpha or K == 0:
            tables[i] = K
            sizes[K] = 1
            K += 1
        else:
            w = sizes[:K] - alpha
            j = int(np.searchsorted(np.cumsum(w), rng.random() * w.sum()))
            tables[i] = min(j, K - 1)
            sizes[tables[i]] += 1
    return tables


def test_pitman_recovers_parameters_and_population_uniques():
    rng = np.random.default_rng(3)
    N = 20_000
    pop = _crp(N, theta=60.0, alpha=0.6, rng=rng)
    truth = int((np.bincount(pop) == 1).sum())
    idx = rng.choice(N, N // 10, replace=False)
    s = np.bincount(pop[idx])
    theta, alpha = pitman_fit(s[s > 0])
    assert alpha == pytest.approx(0.6, abs=0.1)
    est = pitman_uniques(s[s > 0], N)
    assert est == pytest.approx(truth, rel=0.2)


def test_snb_moment_probabilities_equal_bruteforce_sum():
    for alpha, beta, pi in [(0.5, 0.3, 0.1), (2.0, 0.6, 0.4), (1.2, 0.05, 0.7)]:
        m = np.arange(1, 4000)
        pF = stats.nbinom.pmf(m - 1, alpha, beta)  # F - 1 ~ NB(alpha, beta)
        p1 = float((pF * stats.binom.pmf(1, m, pi)).sum())
        p2 = float((pF * stats.binom.pmf(2, m, pi)).sum())
        got = _snb_probabilities(alpha, beta, pi)
        assert got == pytest.approx((p1, p2), rel=1e-8)


def test_snb_recovers_population_uniques_under_its_own_model():
    rng = np.random.default_rng(11)
    K, alpha, beta = 40_000, 0.8, 0.4
    F = 1 + stats.nbinom.rvs(alpha, beta, size=K, random_state=rng)
    truth = int((F == 1).sum())
    pi = 0.3
    f = rng.binomial(F, pi)
    # with the true number of population classes the moment equations recover the truth
    assert snb_uniques(f[f > 0], int(F.sum()), n_classes=K) == pytest.approx(truth, rel=0.05)
    # Shlosser's estimate of that number overestimates it here (+14 %), and the uniques by +35 %
    assert shlosser_classes(f[f > 0], pi) == pytest.approx(K, rel=0.2)
    assert snb_uniques(f[f > 0], int(F.sum())) == pytest.approx(truth, rel=0.4)


def test_zayatz_is_exact_when_everything_is_unique():
    sizes = np.ones(500, dtype=np.int64)
    assert zayatz_uniques(sizes, 5000) == pytest.approx(5000)
    assert zayatz_uniques(np.array([2, 3, 4]), 100) == 0.0


def test_shlosser_with_full_sample_counts_classes():
    assert shlosser_classes(np.array([1, 1, 2, 5]), 1.0) == 4


def _census_population(N: int):
    qis = ["Age", "Gender", "Race", "Marital Status", "Education Level"]
    pop = census(N, rng=1)[qis]
    X = np.column_stack([pd.factorize(pop[c])[0] for c in qis])
    gid, _ = group_rows(X)
    return pop, qis, gid, int((np.bincount(gid) == 1).sum())


BOUNDS = {0.05: (0.75, 1.45), 0.1: (0.75, 1.45), 0.3: (0.85, 1.2), 0.5: (0.85, 1.2)}


@pytest.mark.parametrize("pi", [0.05, 0.1, 0.3, 0.5] if FULL else [0.1, 0.3])
def test_dankar_against_simulated_census_truth(pi):
    N = 60_000
    pop, qis, gid, truth = _census_population(N)
    rng = np.random.default_rng(7)
    for _ in range(3 if FULL else 1):
        idx = np.sort(rng.choice(N, int(pi * N), replace=False))
        s = np.bincount(gid[idx])
        est, model = dankar_uniques(s[s > 0], N)
        lo, hi = BOUNDS[pi]
        assert lo * truth <= est <= hi * truth, (pi, model, est / truth)


def test_population_table_gives_exact_count_and_estimates():
    N = 8000
    pop, qis, gid, truth = _census_population(N)
    sample = pop.iloc[::4].reset_index(drop=True)
    pu = population_uniqueness(sample, quasi_identifiers=qis, population=pop)
    assert pu.exact == truth
    assert pu.population_size == N and pu.sampling_fraction == pytest.approx(len(sample) / N)
    assert set(pu.estimates) == {"pitman", "zayatz", "snb", "dankar"}
    assert pu.estimates["dankar"] == (pu.estimates["zayatz"] if pu.dankar_model == "zayatz" else pu.estimates[pu.dankar_model])
    size = sample.groupby(qis)["Age"].transform("size")
    assert pu.sample_uniques == int((size == 1).sum())


def test_no_sample_uniques_gives_zero_and_errors():
    pu = population_uniqueness(np.array([2, 3, 5]), sampling_fraction=0.5)
    assert all(v == 0 for v in pu.estimates.values())
    with pytest.raises(DataError, match="exactly one"):
        population_uniqueness(np.array([1, 2]))
    with pytest.raises(InvalidParameterError, match="'models' parameter"):
        population_uniqueness(np.array([1, 2]), sampling_fraction=0.5, models=["bogus"])
    with pytest.raises(DataError, match="smaller than the sample"):
        population_uniqueness(np.array([1, 2]), population_size=2)


def test_dataset_input():
    ds = ktype.load_adult(n=3000)
    pu = population_uniqueness(ds, sampling_fraction=0.1)
    size = ds.data.groupby(ds.quasi_identifiers)["age"].transform("size")
    assert pu.sample_uniques == int((size == 1).sum())
    assert 0 <= pu.estimates["dankar"] <= pu.population_size


def _pitman_inputs(sizes):
    from ktype.risk.uniqueness import _counts

    i, c, n, K, _ = _counts(np.asarray(sizes))
    cnt = np.zeros(int(i.max()) + 1, dtype=np.int64)
    cnt[i] = c
    return n, K, (K - np.cumsum(cnt))[1 : int(i.max())].astype(float)


@pytest.mark.parametrize("closed", [True, False])
@pytest.mark.parametrize("alpha", [0.05, 0.4, 0.93])
@pytest.mark.parametrize("s", [-3.0, 0.5, 4.0, 9.0])
def test_pitman_gradient_and_hessian_equal_finite_differences(alpha, s, closed):
    """Both branches (digamma closed forms, explicit sums) against central differences."""
    from ktype.risk.uniqueness import _pitman_newton_terms

    sizes = np.random.default_rng(1).zipf(1.8, 400).clip(max=60)
    n, K, cum = _pitman_inputs(sizes)
    _, g, h = _pitman_newton_terms(alpha, s, n, K, cum, closed=closed)
    eps = 1e-4  # central differences: truncation ~eps², and the digamma differences keep ~1e-12 relative
    for j in range(2):
        du = np.zeros(2)
        du[j] = eps
        fp, gp, _ = _pitman_newton_terms(alpha + du[0], s + du[1], n, K, cum, closed=closed)
        fm, gm, _ = _pitman_newton_terms(alpha - du[0], s - du[1], n, K, cum, closed=closed)
        assert (fp - fm) / (2 * eps) == pytest.approx(g[j], rel=1e-5, abs=1e-4)
        assert (gp - gm) / (2 * eps) == pytest.approx(h[:, j], rel=1e-4, abs=1e-3)


def test_pitman_fit_is_at_least_as_likely_as_scipys_lbfgsb():
    """The Newton fit ends at a likelihood no lower than L-BFGS-B's (numeric gradient) from the
    same three starts, on the class sizes of the bundled Adult under several QI sets."""
    import math

    from scipy import optimize

    from ktype import load_adult
    from ktype.risk.uniqueness import _pitman_negloglik

    X = load_adult().X
    for cols in ([0, 1, 2, 3, 4, 5, 6, 7], [0, 3, 5], [1, 2], [2, 4, 6, 7]):
        _, sizes = np.unique(X[:, cols], axis=0, return_counts=True)
        n, K, cum = _pitman_inputs(sizes)
        reference = min(
            optimize.minimize(_pitman_negloglik, np.array([a0, math.log(th0 + a0)]), args=(None, None, n, K, cum),
                              method="L-BFGS-B", bounds=[(0.0, 1.0 - 1e-9), (math.log(1e-9), math.log(1e12))]).fun
            for a0, th0 in ((0.1, float(K)), (0.5, float(K) / 10), (0.9, 1.0))
        )
        theta, alpha = pitman_fit(sizes)
        ours = _pitman_negloglik(np.array([alpha, math.log(theta + alpha)]), None, None, n, K, cum)
        assert ours <= reference + 1e-9 * abs(reference)


# ---------------------------------------------------------------------------- issue #31, section 5
def _adult_sizes() -> np.ndarray:
    from ktype.risk._common import class_sizes, coded

    c = coded(ktype.load_adult(), None)
    gid, g = c.class_ids()
    return class_sizes(gid, g)


def _snb_reference(alpha: float, beta: float, pi: float) -> tuple[float, float]:
    """``(log p1, log p2)`` from the closed form in 80-digit decimal arithmetic."""
    from decimal import Decimal, localcontext

    with localcontext() as ctx:
        ctx.prec = 80
        a, b, p = Decimal(alpha), Decimal(beta), Decimal(pi)
        d = (1 - p) * (1 - b)
        D = 1 - d
        lp1 = p.ln() + a * (b.ln() - D.ln()) + (1 + a * d / D).ln()
        lp2 = (2 * p.ln() + a.ln() + (1 - b).ln() + a * b.ln() + (2 - (1 - a) * d).ln() - Decimal(2).ln()
               - (a + 2) * D.ln())
        return float(lp1), float(lp2)


@pytest.mark.parametrize("pi", [0.9, 0.1, 1e-3, 1e-4, 1e-5, 1e-6])
def test_snb_log_probabilities_match_80_digit_reference(pi):
    """The log-space SNB terms agree with the closed form evaluated in 80-digit decimals,
    also where the floating-point formula underflowed (``D**(alpha+2)`` -> 0 -> ZeroDivisionError)."""
    import math

    from ktype.risk.uniqueness import _snb_log_probabilities

    for alpha in (1e-3, 0.5, 2.0, 50.0, 1e4):
        for beta in (1e-12, 1e-4, 0.3, 0.999999):
            got = _snb_log_probabilities(alpha, math.log(beta), math.log1p(-beta), pi)
            ref = _snb_reference(alpha, beta, pi)
            for g, r in zip(got, ref):
                assert math.isfinite(g)
                assert g == pytest.approx(r, rel=1e-10, abs=1e-10), (alpha, beta, pi)


def test_snb_at_the_us_population_and_fractions_down_to_1e_6():
    """population_uniqueness(adult, population_size=317_238_626) raised ZeroDivisionError in
    SNB; now every estimator is available down to a sampling fraction of 10^-6, each
    estimate lies in [0, N], and SNB equals the direct formula where that one worked."""
    sizes = _adult_sizes()
    n = int(sizes.sum())
    pu = population_uniqueness(sizes, population_size=317_238_626)
    assert pu.unavailable == {} and pu.dankar_model == "pitman"
    assert all(np.isfinite(v) and 0 <= v <= 317_238_626 for v in pu.estimates.values())
    for f in (0.5, 0.1, 1e-2, 1e-3, 1e-4, 1e-5, 1e-6):
        pu = population_uniqueness(sizes, sampling_fraction=f)
        assert pu.unavailable == {}, (f, pu.unavailable)
        assert all(np.isfinite(v) and 0 <= v <= pu.population_size for v in pu.estimates.values()), f
        assert pu.dankar_model == ("pitman" if f <= 0.1 else pu.dankar_model)
    # where the floating-point formula worked (fraction >= 1e-3), log space gives the same value
    assert snb_uniques(sizes, int(round(n / 0.1))) == pytest.approx(89446.94473415219, rel=1e-9)
    assert snb_uniques(sizes, int(round(n / 0.001))) == pytest.approx(8391499.306352932, rel=1e-9)


def test_cli_risk_at_the_us_population_exits_0():
    from typer.testing import CliRunner

    from ktype.cli import app

    res = CliRunner().invoke(app, ["risk", "--dataset", "adult", "--population-size", "317238626", "--json"])
    assert res.exit_code == 0, res.output
    import json

    pu = json.loads(res.stdout)["population_uniqueness"]
    assert pu["dankar_model"] == "pitman" and pu["unavailable"] == {}
    assert pu["population_uniques"]["snb"] is not None


def test_a_failing_estimator_does_not_take_the_others_down(monkeypatch):
    """An estimator that raises is reported unavailable with its reason; the others are
    computed and Dankar's rule still picks among them."""
    from ktype.risk import uniqueness as U

    sizes = np.array([1] * 50 + [2] * 30 + [5] * 20)

    def boom(*a, **k):
        raise ZeroDivisionError("float division by zero")

    monkeypatch.setitem(U._ESTIMATORS, "snb", boom)
    pu = population_uniqueness(sizes, sampling_fraction=0.3)
    assert np.isnan(pu.estimates["snb"]) and pu.unavailable["snb"] == "ZeroDivisionError: float division by zero"
    assert np.isfinite(pu.estimates["pitman"]) and np.isfinite(pu.estimates["zayatz"])
    assert pu.dankar_model == "zayatz" and pu.estimates["dankar"] == pu.estimates["zayatz"]
    assert pu.to_dict()["unavailable"] == {"snb": "ZeroDivisionError: float division by zero"}
    assert np.isnan(snb_uniques(np.array([1, 1, 3]), 100))  # the public function: nan, no exception
    monkeypatch.setitem(U._ESTIMATORS, "pitman", boom)
    pu = population_uniqueness(sizes, sampling_fraction=0.05)
    assert pu.dankar_model == "zayatz" and set(pu.unavailable) == {"pitman", "snb"}
    assert dankar_uniques(sizes, 2000)[1] == "zayatz"
    monkeypatch.setitem(U._ESTIMATORS, "zayatz", boom)
    pu = population_uniqueness(sizes, sampling_fraction=0.05)
    assert np.isnan(pu.estimates["dankar"]) and pu.dankar_model == "none"
    assert "neither Pitman nor Zayatz" in pu.unavailable["dankar"]
    # the command line prints the reason and exits 0
    from typer.testing import CliRunner

    from ktype.cli import app

    monkeypatch.setitem(U._ESTIMATORS, "zayatz", U._zayatz)
    res = CliRunner().invoke(app, ["risk", "--dataset", "adult", "--sampling-fraction", "0.3"])
    assert res.exit_code == 0, res.output
    assert "snb: n/a (ZeroDivisionError: float division by zero)" in " ".join(res.stdout.split())


def test_hypergeometric_probability_of_one_equals_exact_fractions():
    """Zayatz's P(X = 1) (computed without scipy.stats) against exact rational arithmetic and
    scipy.stats.hypergeom: within 1e-12 relative of the exact value, in small and million-size
    populations, and 0 where one marked record cannot be drawn."""
    from fractions import Fraction
    from math import comb

    from scipy import stats

    from ktype.risk.uniqueness import hypergeom_pmf_one

    def exact(N, m, n):
        if m < 1 or N - m < n - 1:
            return 0.0
        return float(Fraction(m * comb(N - m, n - 1), comb(N, n)))

    rng = np.random.default_rng(5)
    cases = [(10, np.arange(0, 11), 10), (5000, np.array([1, 2, 3]), 5000), (7, np.array([7]), 1)]
    for _ in range(40):
        N = int(rng.integers(1, 3000))
        cases.append((N, rng.integers(0, N + 1, 6), int(rng.integers(1, N + 1))))
    for _ in range(5):
        N = int(rng.integers(10**5, 2 * 10**6))
        cases.append((N, rng.integers(1, 40, 6), int(rng.integers(1, 3000))))
    for N, m, n in cases:
        got = hypergeom_pmf_one(N, m, n)
        want = np.array([exact(N, int(x), n) for x in m])
        assert np.allclose(got, want, rtol=1e-12, atol=1e-300), (N, m, n)
        assert np.allclose(got, stats.hypergeom.pmf(1, N, m, n), rtol=1e-7, atol=1e-300)


def test_snb_solver_finds_the_roots_scipy_least_squares_finds():
    """SNB's moment equations are solved by a Levenberg-Marquardt written in the module (no
    scipy.optimize import on the cold path); on random samples it must reach every solution
    scipy's ``least_squares(method="lm")`` reaches, with the same estimate, and whatever it
    returns must solve the equations."""
    import math

    from scipy import optimize
    from scipy.special import log_expit

    from ktype.risk.uniqueness import _counts, _levenberg_marquardt, _snb_log_probabilities

    rng = np.random.default_rng(5)
    compared = 0
    for _ in range(30):
        sizes = rng.geometric(rng.uniform(0.2, 0.9), size=int(rng.integers(50, 3000)))
        N = int(sizes.sum() / rng.choice([0.5, 0.1, 0.01, 0.001]))
        i, c, n, _, c1 = _counts(sizes)
        c2 = int(c[i == 2].sum())
        if c1 == 0 or c2 == 0:
            continue
        pi = n / N
        log_k, log_c1, log_c2 = math.log(shlosser_classes(sizes, pi)), math.log(c1), math.log(c2)

        def resid(x, pi=pi, log_k=log_k, log_c1=log_c1, log_c2=log_c2):
            a = math.exp(min(max(float(x[0]), -40.0), 40.0))
            b = min(max(float(x[1]), -60.0), 60.0)
            lp1, lp2 = _snb_log_probabilities(a, float(log_expit(b)), float(log_expit(-b)), pi)
            return np.array([log_k + lp1 - log_c1, log_k + lp2 - log_c2])

        with np.errstate(all="ignore"):
            ours = min((_levenberg_marquardt(resid, np.array([a0, b0])) for a0 in (-2.0, 0.0, 2.0)
                        for b0 in (-4.0, 0.0, 4.0)), key=lambda t: t[1] if np.isfinite(t[1]) else np.inf)
            theirs = min((optimize.least_squares(resid, np.array([a0, b0]), method="lm", xtol=1e-12, ftol=1e-12)
                          for a0 in (-2.0, 0.0, 2.0) for b0 in (-4.0, 0.0, 4.0)),
                         key=lambda r: r.cost if np.isfinite(r.cost) else np.inf)
        assert 0.5 * float(resid(ours[0]) @ resid(ours[0])) == pytest.approx(ours[1], abs=1e-15)
        if theirs.cost <= 1e-8:  # scipy solved it: so must we, with the same estimate
            compared += 1
            assert ours[1] <= 1e-8
            u_ours = snb_uniques(sizes, N)
            u_theirs = math.exp(log_k + math.exp(theirs.x[0]) * float(log_expit(theirs.x[1])))
            assert u_ours == pytest.approx(u_theirs, rel=1e-7)
    assert compared >= 15
