"""The fragility study (cases/fragility.py, issue 29 deliverable 5) and its lognormal fit
(fem/studies/fragility.py): the maximum-likelihood fit recovers a known fragility and flags the
data that do not determine one; the rigid study on a tiny grid; its refusals; (slow) the FE runs on a
LocalCluster beside the rigid block, and a rerun that completes the missing point.

Block of SDNV105 unless said: 0.36 x 0.80 m, g tan alpha = 0.45 g, 2 alpha = 0.8457 rad.
"""
from __future__ import annotations

import csv
import json
import math
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from scipy import optimize, stats

from fem.studies import fragility as fit
from contact.references import rocking_base
from fem.loads import base_motion as bm

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "cases" / "fragility.py"
RECORDS = ROOT / "examples" / "records" / "fragility"
K1, K2 = str(RECORDS / "kt_1.csv"), str(RECORDS / "kt_2.csv")
G = 9.81
TAN_ALPHA = 0.45


def study(args, cwd=None, timeout=1800) -> tuple[int, str, str]:
    done = subprocess.run([sys.executable, str(SCRIPT), *map(str, args)], capture_output=True, text=True,
                          timeout=timeout, cwd=cwd)
    return done.returncode, done.stdout, done.stderr


def points_rows(folder: Path) -> list[dict]:
    with open(folder / "points.csv", newline="") as f:
        return list(csv.DictReader(f))


def truth(x, theta, beta):
    return stats.norm.cdf(np.log(np.asarray(x) / theta) / beta)


# ----------------------------------------------------------------------------------- the fit
THETA, BETA = 1.2, 0.4
LEVELS = np.geomspace(0.4, 3.2, 10)
TRIALS = np.full(LEVELS.size, 100)


def simulated(rng) -> np.ndarray:
    return rng.binomial(TRIALS, truth(LEVELS, THETA, BETA))


def test_the_fit_recovers_theta_and_beta_within_their_standard_errors():
    """10 stripes of 100 analyses from P = Phi(ln(x / 1.2) / 0.4), seeded: the fit is within 3 of its
    own standard errors of theta and beta (the MLE is asymptotically normal with those errors, checked
    in the next test: a correct fit falls outside with a chance of 0.3 % per parameter; the seed fixes
    the draw). The errors are small (ln theta to 0.03, beta to 0.03), so the bound is tight: a fit off
    by 10 % in theta or beta would fail."""
    f = fit.fit_lognormal(LEVELS, TRIALS, simulated(np.random.default_rng(29)))
    assert f.status == fit.FITTED and f.trials == 1000 and f.stripes == 10
    assert f.se_ln_theta < 0.03 and f.se_beta < 0.03
    assert abs(math.log(f.theta) - math.log(THETA)) < 3 * f.se_ln_theta, (f.theta, f.se_ln_theta)
    assert abs(f.beta - BETA) < 3 * f.se_beta, (f.beta, f.se_beta)
    np.testing.assert_allclose(f.probability(LEVELS), truth(LEVELS, f.theta, f.beta), rtol=1e-12)


def test_the_standard_errors_are_the_scatter_of_the_estimates():
    """200 seeded replicates of the same stripes: the estimates scatter by the standard errors the fit
    reports (their sample standard deviation within 15 % of the mean error: the sample deviation of 200
    draws is itself uncertain by 1/sqrt(400) = 5 %, so 3 of those), ln theta is unbiased (its mean within
    4 standard errors of the mean, 4 sd / sqrt(200), of ln 1.2), and beta's bias, O(1/N) for a maximum
    likelihood with N = 1000 analyses, is below a third of its standard error (0.14 of it here)."""
    rng = np.random.default_rng(2029)
    est = [fit.fit_lognormal(LEVELS, TRIALS, simulated(rng)) for _ in range(200)]
    assert all(f.fitted for f in est)
    ln_t, b = np.log([f.theta for f in est]), np.array([f.beta for f in est])
    se_t, se_b = np.mean([f.se_ln_theta for f in est]), np.mean([f.se_beta for f in est])
    assert np.std(ln_t, ddof=1) == pytest.approx(se_t, rel=0.15)
    assert np.std(b, ddof=1) == pytest.approx(se_b, rel=0.15)
    assert abs(np.mean(ln_t) - math.log(THETA)) < 4 * np.std(ln_t, ddof=1) / math.sqrt(len(est))
    assert abs(np.mean(b) - BETA) < se_b / 3


def test_the_fit_is_the_maximum_of_bakers_likelihood():
    """Baker (2015)'s multiple-stripes likelihood, sum ln binom(z_j | n_j, Phi(ln(x_j / theta) / beta)),
    maximised here by Nelder-Mead on (ln theta, ln beta) from another start: the same theta and beta
    (to 1e-4) and the same log-likelihood (the fit's, without the binomial coefficients, to 1e-9)."""
    x, n, z = [0.3, 0.6, 0.9, 1.2, 1.8], [7, 9, 8, 10, 6], [0, 2, 3, 7, 5]

    def minus(p):
        return -np.sum(stats.binom.logpmf(z, n, truth(x, math.exp(p[0]), math.exp(p[1]))))

    best = optimize.minimize(minus, [0.5, 0.0], method="Nelder-Mead", options={"xatol": 1e-10, "fatol": 1e-13,
                                                                               "maxiter": 20000})
    f = fit.fit_lognormal(x, n, z)
    assert f.fitted
    assert f.theta == pytest.approx(math.exp(best.x[0]), rel=1e-4)
    assert f.beta == pytest.approx(math.exp(best.x[1]), rel=1e-4)
    constant = np.sum([math.log(math.comb(ni, zi)) for ni, zi in zip(n, z)])
    assert f.log_likelihood + constant == pytest.approx(-best.fun, abs=1e-9)


@pytest.mark.parametrize("x, n, z, status, bracket", [
    ([0.5, 1, 2], [5, 5, 5], [0, 0, 0], fit.NO_EXCEEDANCE, (2.0, None)),
    ([0.5, 1, 2], [5, 5, 5], [5, 5, 5], fit.ALL_EXCEEDED, (None, 0.5)),
    ([0.5, 1, 2], [5, 5, 5], [0, 0, 5], fit.SEPARATED, (1.0, 2.0)),  # complete separation
    ([0.5, 1, 2], [5, 5, 5], [0, 2, 5], fit.SEPARATED, (1.0, 1.0)),  # one mixed stripe: quasi-complete
    ([1.0], [10], [4], fit.SEPARATED, (1.0, 1.0)),  # one level: beta cannot be told
    ([0.5, 1, 2], [5, 5, 5], [5, 2, 0], fit.DECREASING, None),  # separated the other way
    ([0.5, 1, 2], [5, 5, 5], [3, 1, 2], fit.DECREASING, None),  # overlapping, its slope negative
    ([0.5, 1, 2], [0, 0, 0], [0, 0, 0], fit.NO_DATA, None),
])
def test_undetermined_fits_are_flagged_with_no_theta(x, n, z, status, bracket):
    f = fit.fit_lognormal(x, n, z)
    assert f.status == status and not f.fitted and f.theta is None and f.beta is None, f
    assert f.theta_bracket == bracket and f.message
    with pytest.raises(ValueError, match="no fitted fragility"):
        f.probability([1.0])


def test_the_fit_refuses_impossible_input():
    for x, n, z in (([0.0, 1], [5, 5], [0, 5]), ([1, 2], [5, 5], [0, 6]), ([1, 2], [5, 5], [0, -1]),
                    ([1, math.nan], [5, 5], [0, 5]), ([1, 2], [5, 5.5], [0, 5])):
        with pytest.raises(ValueError):
            fit.fit_lognormal(x, n, z)


def test_stripes_leave_undecided_analyses_out():
    levels, n, z = fit.stripes([1, 1, 2, 2, 2], [True, None, False, True, True])
    assert levels.tolist() == [1.0, 2.0] and n.tolist() == [1, 3] and z.tolist() == [1, 2]


# ----------------------------------------------------------------------------------- the rigid study
def rigid_alone(record: str, pga: float) -> rocking_base.BaseRockingResult:
    """The rigid block under the record scaled to ``pga`` (read here, baseline-corrected, its peak the PGA),
    to the record's end + 1 s: independent of the study's code."""
    history = bm.read_record(record, peak_g=pga, g=G)
    return rocking_base.rock_under_base_motion(0.18, 0.40, lambda t: -history.acceleration(t), history.duration + 1.0,
                                               g=G, rho=1450.0, n_samples_per_flight=801, max_step=1e-3)


def test_rigid_study_on_two_records_and_three_pgas(tmp_path):
    """--model rigid, 2 records x PGA 0.4, 1, 2.5 g: exit 0, the files; at 0.4 g (< g tan alpha) no
    record lifts the block; the fraction that overturns does not fall with the PGA (0, 1/2, 1 on these
    records); every point's outcome and peak rotation are those of the rigid block computed here from
    the record scaled to the PGA (to 1e-9). The fit of overturning has one mixed stripe between none and
    all: flagged as separated, no theta, in summary.json and report.md."""
    out = tmp_path / "rigid"
    code, stdout, err = study(["--model", "rigid", "--records", f"{K1},{K2}", "--scales", "2.5,0.4,1", "--out", out,
                               "--quiet"])
    assert code == 0, err
    assert {"summary.json", "points.csv", "fragility.png", "report.md"} <= {p.name for p in out.iterdir()}
    assert not (out / "fe").exists() and (out / "fragility.png").stat().st_size > 10_000
    rows = points_rows(out)
    assert [(r["record"], float(r["pga_g"])) for r in rows] == [(k, p) for k in ("kt_1", "kt_2") for p in (0.4, 1, 2.5)]
    for r in rows:
        res = rigid_alone(r["record_file"], float(r["pga_g"]))
        assert r["rigid_overturning"] == str(res.overturned) and r["rigid_uplift"] == str(res.uplift_time is not None)
        assert float(r["rigid_max_rotation"]) == pytest.approx(res.max_rotation, rel=1e-9)
        assert r["fe_status"] == "not run" and r["fe_overturning"] == ""
    low = [r for r in rows if float(r["pga_g"]) < TAN_ALPHA]
    assert low and all(r["rigid_uplift"] == "False" and r["rigid_rotation"] == "False" for r in low)
    fractions = [np.mean([r["rigid_overturning"] == "True" for r in rows if float(r["pga_g"]) == p]) for p in (0.4, 1, 2.5)]
    assert fractions == sorted(fractions) and fractions[0] == 0 and fractions[-1] == 1
    s = json.loads((out / "summary.json").read_text())
    assert s["status"] == "complete" and s["checks_met"] == s["checks_graded"] == 1
    over = s["fits"]["overturning"]["rigid"]
    assert over["status"] == fit.SEPARATED and over["theta"] is None and over["theta_bracket"] == [1.0, 1.0]
    assert over["stripes_n"] == [2, 2, 2] and over["stripes_z"] == [round(2 * f) for f in fractions]
    assert set(s["fits"]["overturning"]) == {"rigid"}
    assert "**separated**" in (out / "report.md").read_text()


def test_the_default_rigid_grid_fits_overturning(tmp_path):
    """The default grid (5 records x 8 PGAs) with the rigid block alone: its overturning fragility is
    determined, theta between the PGAs where the first and the last record overturn (0.8 and 2.5 g),
    beta positive; uplift is a step at g tan alpha = 0.45 g (every record lifts from 0.6 g, none at 0.4 g):
    flagged separated with theta in [0.4, 0.6] g."""
    out = tmp_path / "default-rigid"
    code, _, err = study(["--model", "rigid", "--out", out, "--quiet"])
    assert code == 0, err
    fits = json.loads((out / "summary.json").read_text())["fits"]
    over = fits["overturning"]["rigid"]
    assert over["status"] == fit.FITTED and 0.8 < over["theta"] < 2.5 and 0 < over["beta"] < 1.5
    assert over["trials"] == 40 and over["left_out"] == 0
    up = fits["uplift"]["rigid"]
    assert up["status"] == fit.SEPARATED and up["theta_bracket"] == [0.4, 0.6]


# ----------------------------------------------------------------------------------- refusals
CONTRACT_IMPOSSIBLE = [
    (["--scales", "0,1"], ("--scales", "> 0")),
    (["--scales", "1,x"], ("--scales", "v1,v2")),
    (["--scales", "1,1.0"], ("--scales", "repeated")),
    (["--scales", "30"], ("--scales 30", "physical range")),
    (["--records", "no_such.csv"], ("--records no_such.csv", "no such record file")),
    (["--records", f"{K1},{K1}"], ("--records", "repeated")),
    (["--model", "fem"], ("--model", "invalid choice")),
    (["--rotation-threshold", "0"], ("--rotation-threshold", "> 0")),
    (["--rotation-threshold", "0.9"], ("--rotation-threshold", "overturn angle")),
    (["--workers", "0"], ("--workers", ">= 1")),
    (["--scheduler", "somewhere"], ("--scheduler", "tcp://")),
    (["--time-limit", "-5"], ("--time-limit", "> 0")),
    (["--model", "rigid", "--", "--mu", "0.5"], ("after --", "--model rigid")),
    (["--", "--no-such", "1"], ("after -- --no-such", "no such flag")),
]
#: refusals of flags after -- (tests/test_contract.py appends its --out, which would come after -- there)
AFTER_DASHES = [
    (["--", "--t-end", "3"], ("after -- --t-end", "sets it itself")),
    (["--", "--mu", "-1"], ("--mu", ">= 0", "cases/shaking_table.py")),
    (["--", "--dt", "0.5"], ("--dt", "cases/shaking_table.py")),
]


@pytest.mark.parametrize("flags, words", CONTRACT_IMPOSSIBLE + AFTER_DASHES,
                         ids=lambda v: " ".join(v) if isinstance(v, list) else "")
def test_bad_input_is_one_line_exit_2_and_writes_nothing(tmp_path, flags, words):
    code, stdout, err = study(["--out", "out", *flags], cwd=tmp_path, timeout=300)
    lines = err.strip().splitlines()
    assert code == 2 and stdout == "" and len(lines) == 1 and lines[0].startswith("error: "), (code, err)
    assert all(w in lines[0] for w in words), lines[0]
    assert list(tmp_path.iterdir()) == []


def test_a_bad_record_file_is_refused_naming_it(tmp_path):
    bad = tmp_path / "bad.csv"
    bad.write_text("t,a\n0,0\n0.01,nan\n")
    code, stdout, err = study(["--model", "rigid", "--records", bad, "--out", tmp_path / "out"], timeout=300)
    assert code == 2 and err.startswith(f"error: --records {bad}") and "not a finite number" in err, err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.csv"]


# ----------------------------------------------------------------------------------- FE (slow)
@pytest.mark.slow
def test_fe_and_rigid_on_one_record_at_two_pgas(tmp_path):
    """--model both, kt_1 at 0.4 and 1 g on a LocalCluster of 2 workers: both FE runs complete and
    every outcome of both models is decided; at 0.4 g (< g tan alpha) neither block lifts, at 1 g both
    overturn (the rigid block at 1.74 s); each FE run's own rigid reference is the one the study
    computed (a graded check). A rerun after one point's folder is removed runs that point alone."""
    out = tmp_path / "both"
    args = ["--records", K1, "--scales", "0.4,1", "--workers", "2", "--out", out, "--quiet"]
    code, stdout, err = study(args)
    assert code == 0, err
    rows = points_rows(out)
    assert len(rows) == 2 and all(r["fe_status"] == "complete" for r in rows)
    for r in rows:
        for model in ("fe", "rigid"):
            assert all(r[f"{model}_{m}"] in ("True", "False") for m in ("overturning", "uplift", "rotation")), r
        assert Path(r["fe_folder"]).is_dir()
    low, high = rows
    assert [low[k] for k in ("fe_uplift", "rigid_uplift", "fe_overturning", "rigid_overturning")] == ["False"] * 4
    assert [high[k] for k in ("fe_overturning", "rigid_overturning", "fe_rotation")] == ["True"] * 3
    assert float(high["fe_overturn_time"]) == pytest.approx(float(high["rigid_overturn_time"]), rel=0.05)
    s = json.loads((out / "summary.json").read_text())
    assert s["status"] == "complete" and s["fe"]["complete"] == 2 and s["checks_met"] == s["checks_graded"] == 3
    assert set(s["fits"]["overturning"]) == {"fe", "rigid"}
    shutil.rmtree(Path(high["fe_folder"]))
    code, _, err = study(args)
    assert code == 0, err
    s = json.loads((out / "summary.json").read_text())
    assert s["fe"]["reused"] == 1 and s["fe"]["complete"] == 2
    assert [r["fe_overturning"] for r in points_rows(out)] == ["False", "True"]


# ----------------------------------------------------------------------------------- contract rows
# for tests/test_contract.py, as every script's (in its process, --out added)
CONTRACT_SHORT = (["--model", "rigid", "--records", f"{K1},{K2}", "--scales", "0.4,1", "--rotation-threshold", "0.2",
                   "--quiet", "--force"], "custom")


def check_rigid_short(result) -> None:
    """--records (2), --scales (2), --model rigid (no FE folder), --rotation-threshold 0.2 (kt_2 at 1 g
    peaks at 0.22 rad: above it), --quiet (nothing on stderr), --force (kept)."""
    assert result.code == 0 and result.err == "", result.err
    rows = points_rows(result.folder)
    assert [(r["record"], r["pga_g"]) for r in rows] == [("kt_1", "0.4"), ("kt_1", "1.0"), ("kt_2", "0.4"), ("kt_2", "1.0")]
    kt2 = rows[3]
    assert 0.2 < float(kt2["rigid_max_rotation"]) < 0.3 and kt2["rigid_rotation"] == "True"
    s = result.summary()
    assert s["parameters"]["rotation_threshold"] == 0.2 and s["parameters"]["force"] is True
    assert not (result.folder / "fe").exists()


def check_fe_point(where: str, model: str):
    def check(result) -> None:
        """One FE point (kt_1 at 0.4 g: no uplift) on the cluster named, --time-limit kept, the record
        and its PGA given to it; --model fe: no rigid outcome."""
        assert result.code == 0, result.err
        s = result.summary()
        assert s["fe"]["where"] == where and s["fe"]["complete"] == 1 and s["parameters"]["time_limit"] == 600
        (row,) = points_rows(result.folder)
        assert row["fe_status"] == "complete" and row["fe_uplift"] == "False"
        assert (row["rigid_uplift"] == "False") if model == "both" else (row["rigid_uplift"] == "")
        point = json.loads((Path(row["fe_folder"]) / "summary.json").read_text())
        assert point["parameters"]["record"] == K1 and point["parameters"]["amplitude_g"] == 0.4
        assert point["parameters"]["excitation"] == "record" and point["parameters"]["paraview"] is False
    return check


def _contract_runs():
    from test_sweep import CONTRACT_PORT, dask_cluster

    fe = ("--records", K1, "--scales", "0.4", "--time-limit", "600", "--quiet")
    return [
        ("rigid-short", tuple(CONTRACT_SHORT[0]), check_rigid_short, None),
        ("fe-local", ("--model", "fe", *fe, "--workers", "1"),
         check_fe_point("a LocalCluster of 1 workers", "fe"), None),
        ("both-scheduler", ("--model", "both", *fe, "--scheduler", f"tcp://127.0.0.1:{CONTRACT_PORT}"),
         check_fe_point(f"tcp://127.0.0.1:{CONTRACT_PORT}", "both"),
         lambda: dask_cluster(1, CONTRACT_PORT)),
    ]


CONTRACT_FLAG_RUNS = _contract_runs()
