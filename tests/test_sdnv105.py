"""SDNV105 end to end: each modeling runs once (module fixtures, 7-20 s each). Every Code_Aster test of
the modeling is re-derived here from the run's raw CSV histories (history.csv, selfweight_history.csv)
with the benchmark's own post-processing (docs/references.md, "SDNV105: the post-processed quantities
and the test values": quantity, node, component, window, sign),
written in this file, and compared with the reference and tolerance of
cases/reference/code_aster_tests.json; summary.json and report.md are then checked against these
re-derived numbers. Also: the sharper claims of the README, the rigid-body reference, the energy
balance, the ParaView series against the histories and the run statistics."""
import csv
import json
import math
import re
from pathlib import Path

import meshio
import numpy as np
import pytest

from contact.references import rocking
from fem.mesh.read import read_mesh
from fem.io.results import read_series

ROOT = Path(__file__).resolve().parents[1]
CASES = ROOT / "cases"
from cases.sdnv105 import case as sdnv105_common  # noqa: E402  (only to run the cases as the scripts do; nothing of its post-processing)

REFERENCE = CASES / "reference" / "code_aster_tests.json"
# s, the benchmark's rigid-body first collision (docs/references.md, "SDNV105: the post-processed quantities
# and the test values")
FIRST_IMPACT = 0.05440978
KE = "ke"  # history column of the block kinetic energy (Code_Aster POST_ELEM ENER_CIN on BLOCK)


def _csv(path: Path) -> dict[str, np.ndarray]:
    """A CSV history as {column: float array}, read here (not with fem.io.results)."""
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    data = np.array(rows[1:], dtype=float).reshape(len(rows) - 1, len(rows[0]))
    return {c: data[:, j] for j, c in enumerate(rows[0])}


def _run(modeling: str, out: Path, *args: str) -> dict:
    code = sdnv105_common.run_case(modeling, ["--out", str(out), *args])
    assert code == 0
    summary = json.loads((out / "summary.json").read_text())
    summary["out"] = out
    summary["history"] = _csv(out / "history.csv")
    summary["selfweight"] = _csv(out / "selfweight_history.csv")
    summary["tilt"] = _csv(out / "tilt_history.csv")
    summary["report"] = (out / "report.md").read_text()
    return summary


@pytest.fixture(scope="module")
def run_a(tmp_path_factory):
    return _run("a", tmp_path_factory.mktemp("sdnv105a"))


@pytest.fixture(scope="module")
def run_b(tmp_path_factory):
    # --auto-steps: the benchmark's windows miss this run's second impact by 0.5 ms and sample the
    # penalty springs' post-impact oscillation at A with coarse steps (README, sdnv105b.py)
    return _run("b", tmp_path_factory.mktemp("sdnv105b"), "--auto-steps", "--no-paraview")


@pytest.fixture(scope="module")
def run_b_benchmark(tmp_path_factory):
    """b as `python cases/sdnv105b.py` runs it: the benchmark's windows, no --auto-steps."""
    return _run("b", tmp_path_factory.mktemp("sdnv105b_benchmark"), "--no-paraview")


@pytest.fixture(scope="module")
def run_c(tmp_path_factory):
    return _run("c", tmp_path_factory.mktemp("sdnv105c"), "--no-paraview")


@pytest.fixture(scope="module")
def run_d(tmp_path_factory):
    return _run("d", tmp_path_factory.mktemp("sdnv105d"), "--no-paraview")


# ------------------------------------------------------------------------------------------------
# The benchmark's post-processing, applied to the CSV histories
# ------------------------------------------------------------------------------------------------
def code_aster_records(modeling: str) -> list[dict]:
    """The SDNV105 records of a modeling in code_aster_tests.json, in file order."""
    data = json.loads(REFERENCE.read_text())
    return [r for r in data["records"] if r["case"] == "SDNV105" and r["modeling"] == modeling]


# End of Code_Aster's release run per modeling [s]: its "release run" / "whole run" windows. Code_Aster's
# c run stops at 0.145 s (records: "t in [0,0.145] s"), ours goes on to 0.33 s.
CODE_ASTER_END = {"a": 0.33, "b": 0.285, "c": 0.145}


class Extraction:
    """Values of the release history (t = 0 at the release) over a window lo < t < hi (or <= hi),
    inside Code_Aster's release run [0, end]; the self-weight phase from selfweight_history.csv."""

    def __init__(self, run: dict, end: float):
        self.h, self.sw = run["history"], run["selfweight"]
        self.t = self.h["t"]
        self.end = end

    def window(self, lo=None, hi=None, closed_hi=False) -> np.ndarray:
        t = self.t
        sel = t <= self.end + 1e-12
        if lo is not None:
            sel &= t > lo
        if hi is not None:
            sel &= (t <= hi) if closed_hi else (t < hi)
        assert sel.any(), f"empty window {lo} < t < {hi}"
        return sel

    def max(self, column, lo=None, hi=None, sign=1.0) -> float:
        return float((sign * self.h[column])[self.window(lo, hi)].max())

    def min(self, column, lo=None, hi=None, sign=1.0) -> float:
        return float((sign * self.h[column])[self.window(lo, hi)].min())

    def self_weight(self, column, how) -> float:
        sw = self.sw
        assert sw["t"][0] == -1.95 and sw["t"][-1] == pytest.approx(-0.825)  # the phase, -1.95 -> -0.825 s
        return float(getattr(np, how)(sw[column]))

    def integral(self, column, lo, at, sign=1.0) -> float:
        """int_lo^at of a history (CALC_FONCTION INTEGRE of the function restricted to the window):
        trapezoids on the samples, the function linear between samples (ends interpolated)."""
        t, f = self.t, sign * self.h[column]
        tt = np.concatenate([[lo], t[(t > lo) & (t < at)], [at]])
        ff = np.interp(tt, t, f)
        return float(np.sum(0.5 * (ff[1:] + ff[:-1]) * np.diff(tt)))

    def ke_peak(self, lo=None, hi=None, closed_hi=False) -> tuple[float, float]:
        """(largest block kinetic energy in the window, the instant of the row where it occurs)."""
        k = np.flatnonzero(self.window(lo, hi, closed_hi))
        best = k[np.argmax(self.h[KE][k])]
        return float(self.h[KE][best]), float(self.t[best])


# One row per check of summary.json: Code_Aster records (indices in the modeling's records), the
# summary's (quantity, window), what the records must say (a substring of their quantity, and the
# kind of test: MAX, MIN, VALUE or INST for the instant of a maximum), and the extraction.
# Tangential forces and percussions are given with Code_Aster's sign (the force of the block on
# the table, or the discrete element's internal force VY in b): the opposite of the histories'
# rx (force of the table on the block), README "Signs".
# a and c share their first seven records (self-weight and release displacements)
AC_DISPLACEMENTS = [
    ((0,), "DY(C1) max", "self-weight", ("DY at node C1", "MAX"), lambda x: x.self_weight("dy_C1", "max")),
    ((1,), "DY(C1) min", "self-weight", ("DY at node C1", "MIN"), lambda x: x.self_weight("dy_C1", "min")),
    ((2,), "DY(O) min", "release", ("DY at corner O", "MIN"), lambda x: x.min("dy_O")),
    ((3, 4), "DY(O) max", "release", ("DY at corner O", "MAX"), lambda x: x.max("dy_O")),
    ((5,), "DY(A) min", "release", ("DY at corner A", "MIN"), lambda x: x.min("dy_A")),
    ((6,), "DY(A) max", "release", ("DY at corner A", "MAX"), lambda x: x.max("dy_A")),
]
A_CHECKS = [
    *AC_DISPLACEMENTS,
    ((7,), "VY(O) min", "t > 0.17", ("VY at corner O", "MIN"), lambda x: x.min("vy_O", lo=0.17)),
    ((8,), "RN(O) min", "release", ("normal reaction RN at O", "MIN"), lambda x: x.min("rn_O")),
    ((9,), "RN(O) max", "0.01-0.05", ("normal reaction RN at O", "MAX"), lambda x: x.max("rn_O", 0.01, 0.05)),
    ((10,), "RN(A) min", "release", ("normal reaction RN at A", "MIN"), lambda x: x.min("rn_A")),
    ((11,), "RN(A) max", "0.06-0.12", ("normal reaction RN at A", "MAX"), lambda x: x.max("rn_A", 0.06, 0.12)),
    ((12,), "percussion RN(A)", "0.0544-0.05449", ("normal percussion at A", "VALUE"),
     lambda x: x.integral("rn_A", 0.0544, 0.05449)),
    ((13,), "KE max", "all", ("block kinetic energy", "MAX"), lambda x: x.ke_peak()[0]),
    ((14,), "t(KE max)", "all", ("instant of max kinetic energy", "INST"), lambda x: x.ke_peak()[1]),
    *[row for lo, (ke, tk) in ((0.1, ((15, 16), (17, 18))), (0.15, ((19, 20), (21, 22))),
                               (0.22, ((23, 24), (25, 26))), (0.28, ((27, 28), (29, 30))))
      for row in ((ke, "KE max", f"t > {lo}", ("kinetic energy, max in window", "MAX"),
                   lambda x, lo=lo: x.ke_peak(lo)[0]),
                  (tk, "t(KE max)", f"t > {lo}", ("instant of max kinetic energy in window", "INST"),
                   lambda x, lo=lo: x.ke_peak(lo)[1]))],
]
B_CHECKS = [
    ((0,), "DY(O) min", "release", ("DY at corner O", "MIN"), lambda x: x.min("dy_O")),
    ((1, 2), "DY(O) max", "release", ("DY at corner O", "MAX"), lambda x: x.max("dy_O")),
    ((3,), "DY(A) min", "release", ("DY at corner A", "MIN"), lambda x: x.min("dy_A")),
    ((4,), "DY(A) max", "release", ("DY at corner A", "MAX"), lambda x: x.max("dy_A")),
    ((5, 6), "VY(O) min", "release", ("VY at corner O", "MIN"), lambda x: x.min("vy_O")),
    ((7,), "VY(A) min", "release", ("VY at corner A", "MIN"), lambda x: x.min("vy_A")),
    ((8,), "N(O) max", "0.01-0.05", ("normal force N in discrete spring at O", "MAX"),
     lambda x: x.max("rn_O", 0.01, 0.05)),
    ((9,), "N(A) max", "0.06-0.12", ("normal force N in discrete spring at A", "MAX"),
     lambda x: x.max("rn_A", 0.06, 0.12)),
    ((10,), "VY force (O) min", "0.01-0.05", ("tangential force VY in discrete spring at O", "MIN"),
     lambda x: x.min("rx_O", 0.01, 0.05, sign=-1.0)),
    ((11,), "VY force (A) max", "0.07-0.12", ("tangential force VY in discrete spring at A", "MAX"),
     lambda x: x.max("rx_A", 0.07, 0.12, sign=-1.0)),
    ((12,), "KE max", "all", ("block kinetic energy", "MAX"), lambda x: x.ke_peak()[0]),
    ((13,), "t(KE max)", "all", ("instant of max kinetic energy", "INST"), lambda x: x.ke_peak()[1]),
    ((14, 15), "KE max", "t > 0.1", ("kinetic energy, max in window", "MAX"), lambda x: x.ke_peak(0.1)[0]),
    ((16, 17), "t(KE max)", "t > 0.1", ("instant of max KE in window", "INST"), lambda x: x.ke_peak(0.1)[1]),
    ((18, 19), "t(KE max)", "t > 0.15", ("instant of max KE in window", "INST"), lambda x: x.ke_peak(0.15)[1]),
    ((20, 21), "t(KE max)", "t > 0.26", ("instant of max KE in window", "INST"), lambda x: x.ke_peak(0.26)[1]),
]
C_CHECKS = [
    *AC_DISPLACEMENTS,
    ((7, 8), "VY(O) min", "release", ("VY at corner O", "MIN"), lambda x: x.min("vy_O")),
    ((9,), "VY(A) min", "release", ("VY at corner A", "MIN"), lambda x: x.min("vy_A")),
    ((10,), "RN(O) min", "release", ("normal reaction RN at O", "MIN"), lambda x: x.min("rn_O")),
    ((11,), "RN(O) max", "0.01-0.05", ("normal reaction RN at O", "MAX"), lambda x: x.max("rn_O", 0.01, 0.05)),
    ((12,), "RN(A) min", "release", ("normal reaction RN at A", "MIN"), lambda x: x.min("rn_A")),
    ((13,), "RN(A) max", "0.06-0.12", ("normal reaction RN at A", "MAX"), lambda x: x.max("rn_A", 0.06, 0.12)),
    ((14,), "RX(O) min", "0.01-0.05", ("tangential reaction RX at O", "MIN"),
     lambda x: x.min("rx_O", 0.01, 0.05, sign=-1.0)),
    ((15,), "RX(A) max", "0.06-0.12", ("tangential reaction RX at A", "MAX"),
     lambda x: x.max("rx_A", 0.06, 0.12, sign=-1.0)),
    # the impulses of the contact force at A over the window (README "Modeling C's percussions")
    ((16,), "percussion IY(A)", "0.0544-0.0545", ("normal percussion at A", "MIN"),
     lambda x: abs(x.integral("ry_A", 0.0544, 0.0545))),
    ((17,), "percussion IX(A)", "0.0544-0.0545", ("tangential percussion at A", "MAX"),
     lambda x: x.integral("rx_A", 0.0544, 0.0545, sign=-1.0)),
    ((18,), "KE max", "all", ("block kinetic energy", "MAX"), lambda x: x.ke_peak()[0]),
    ((19,), "t(KE max)", "all", ("instant of max KE", "INST"), lambda x: x.ke_peak()[1]),
    ((20, 21), "KE max", "0.1 < t <= 0.145", ("kinetic energy, max in window", "MAX"),
     lambda x: x.ke_peak(0.1, 0.145, closed_hi=True)[0]),
    ((22, 23), "t(KE max)", "0.1 < t <= 0.145", ("instant of max KE in window", "INST"),
     lambda x: x.ke_peak(0.1, 0.145, closed_hi=True)[1]),
]
CHECKS = {"a": A_CHECKS, "b": B_CHECKS, "c": C_CHECKS}
C_PERCUSSIONS = {16, 17}  # record indices of c's two window percussions (strict xfail below)
B_RN_A = 9  # record index of b's N(A) max over 0.06-0.12 s
#: records of a decided by round-off: their verdict changes with the rounding of the arithmetic
#: (python cases/sdnv105a.py --round-off 4: KE max after 0.28 s spreads 1.014-1.160 J over the 9
#: runs, 8 within Code_Aster's 1.1187 +- 9 %). One run cannot be held to them; the slow
#: test_a_round_off_ensemble_meets_every_code_aster_test_by_its_median holds the ensemble's median.
A_ROUND_OFF = {28}


def _meets(value: float, record: dict) -> bool:
    """Code_Aster's TEST_FONCTION: |value - reference| <= PRECISION (ABSOLU) or PRECISION |reference|."""
    ref, tol = record["reference"], record["tolerance"]
    assert record["criterion"] in ("ABSOLU", "RELATIF")
    return abs(value - ref) <= (tol if record["criterion"] == "ABSOLU" else tol * abs(ref))


@pytest.mark.parametrize("modeling", ["a", "b", "c"])
def test_every_code_aster_record_is_checked_once_and_as_it_reads(modeling):
    """The tables above cover each record of the modeling exactly once, and each record says what
    its row extracts (quantity, kind of test, and the bounds of a window given in numbers)."""
    records = code_aster_records(modeling)
    used = sorted(i for row in CHECKS[modeling] for i in row[0])
    assert used == list(range(len(records)))
    for indices, _, window, (what, kind), _ in CHECKS[modeling]:
        for i in indices:
            r = records[i]
            assert what in r["quantity"], (i, r["quantity"])
            assert r["test_type"].endswith("(INST)") if kind == "INST" else r["test_type"].startswith(kind), (i, r)
            for bound in re.findall(r"\d+\.\d+", window):
                assert re.search(rf"(?<![\d.]){re.escape(bound)}(?!\d)", r["window"]), (i, bound, r["window"])


def _record_cases(modeling: str, skip=()):
    out = []
    for indices, quantity, window, _, extract in CHECKS[modeling]:
        for i in indices:
            if i in skip:
                continue
            marks = ()
            if modeling == "b" and i == B_RN_A:
                marks = pytest.mark.xfail(strict=True, reason=(
                    "docs/departures.md, modeling B's sticking stiffness "
                    "(test_b_benchmark_schedule_meets_every_code_aster_test): RN(A) max "
                    "in 0.06-0.12 s is the peak of the sticking spring's ringing after A's slip stops; it grows "
                    "as the steps resolve it: 3759, 3773, 3938, 4187 N with --auto-steps at --dt 1.25e-3, "
                    "6.25e-4, 3.125e-4, 1.5625e-4 s, vs <= 3615.8 N"))
            if modeling == "c" and i in C_PERCUSSIONS:
                marks = pytest.mark.xfail(strict=True, reason=(
                    "the impulses over the 0.1 ms window 0.0544-0.0545 s are discretisation quantities (the "
                    "impact acts within one step): normal 39.2 N s at dt 1e-5 (39.3 at 5e-6, 51.4 at 2e-5) vs "
                    "Code_Aster's 41.9, tangential 10.5 vs 11.3; the tests require >= 41.66 and >= 11.27"))
            out.append(pytest.param(modeling, i, extract, marks=marks,
                                    id=f"{modeling}-{i:02d}-{quantity} {window}".replace(" ", "_")))
    return out


def _assert_record(run: dict, modeling: str, index: int, extract) -> None:
    record = code_aster_records(modeling)[index]
    value = extract(Extraction(run, CODE_ASTER_END[modeling]))
    assert _meets(value, record), (f"{record['quantity']} ({record['window']}): {value!r} vs reference "
                                   f"{record['reference']} ({record['criterion']} {record['tolerance']}); "
                                   f"Code_Aster computed {record['aster_value']}")


@pytest.mark.parametrize("modeling, index, extract",
                         [*_record_cases("a", skip=A_ROUND_OFF), *_record_cases("b"), *_record_cases("c")])
def test_code_aster_record(modeling, index, extract, request):
    """One Code_Aster test of modeling a, b (--auto-steps) or c, from the histories (a's records
    decided by round-off: by the ensemble, below)."""
    _assert_record(request.getfixturevalue(f"run_{modeling}"), modeling, index, extract)


@pytest.mark.slow
def test_a_round_off_ensemble_meets_every_code_aster_test_by_its_median(tmp_path):
    """`python cases/sdnv105a.py --round-off 4`: nine runs, the tilt moved by -4 ... +4 ulps. From
    the nine runs' own histories: the median of every Code_Aster quantity meets its test; the
    quantities up to the third impact (KE max after 0.15 s, at 0.209 s) agree to 1e-3 over the runs,
    the later ones (VY(O) after 0.17 s, KE after 0.22 and 0.28 s) spread by 1-14 %; report.md's
    round-off rows are the histories' range."""
    out = tmp_path / "a"
    summary = _run("a", out, "--no-paraview", "--round-off", "4")
    ensemble = summary["round_off"]
    assert ensemble["status"] == "complete" and ensemble["runs"] == 9 and ensemble["failed"] == []
    runs = [summary] + [{"history": _csv(out / "round_off" / f"tilt_{k:+d}ulp" / "history.csv"),
                         "selfweight": _csv(out / "round_off" / f"tilt_{k:+d}ulp" / "selfweight_history.csv")}
                        for k in (-4, -3, -2, -1, 1, 2, 3, 4)]
    records = code_aster_records("a")
    rows = {(r["quantity"], r["window"]): r for r in ensemble["checks"]}
    for indices, quantity, window, _, extract in A_CHECKS:
        values = np.array([extract(Extraction(run, CODE_ASTER_END["a"])) for run in runs])
        median = float(np.median(values))
        for i in indices:
            assert _meets(median, records[i]), (quantity, window, i, median, records[i]["reference"])
        row = rows[(quantity, window)]
        assert row["min"] == pytest.approx(values.min(), rel=1e-12, abs=1e-300)
        assert row["max"] == pytest.approx(values.max(), rel=1e-12, abs=1e-300)
        if window in ("self-weight", "release", "0.01-0.05", "0.06-0.12", "0.0544-0.05449", "all", "t > 0.1",
                      "t > 0.15"):
            assert values.max() - values.min() <= 1e-3 * abs(median) + 1e-15, (quantity, window, values)


@pytest.mark.parametrize("modeling, index, extract", _record_cases("b", skip={B_RN_A}))
def test_b_benchmark_schedule_meets_the_code_aster_tests_but_rn_a(run_b_benchmark, modeling, index, extract):
    """b with the benchmark's windows (no --auto-steps): every test but N(A) max over 0.06-0.12 s."""
    _assert_record(run_b_benchmark, modeling, index, extract)


@pytest.mark.xfail(strict=True, reason=(
    "every Code_Aster test of b with its benchmark schedule (docs/departures.md, modeling B's sticking "
    "stiffness) not met yet: after the first impact A slides until ~0.059 s; the sticking "
    "spring (RIGI_TAN 3e10 N/m with AMOR_TAN 1e4 N s/m) rings when the slip stops, so RN(A) max in "
    "0.06-0.12 s is ~3836 N (coarse samples) or 3730-3860 N (resolved with fine steps) vs <= 3615.8 N"))
def test_b_benchmark_schedule_meets_every_code_aster_test(run_b_benchmark):
    x = Extraction(run_b_benchmark, CODE_ASTER_END["b"])
    records = code_aster_records("b")
    failing = [(quantity, window, i) for indices, quantity, window, _, extract in B_CHECKS for i in indices
               if not _meets(extract(x), records[i])]
    assert failing == []


def _report_rows(report: str) -> dict[tuple[str, str], list[str]]:
    """The checks table of report.md: (quantity, window) -> its cells."""
    rows = {}
    for line in report.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 10 and cells[0] not in ("quantity", "---"):
            rows[(cells[0], cells[1])] = cells
    return rows


def _close_6_digits(printed: str, value: float) -> bool:
    """A number printed with 6 significant digits (report.md) against its full value."""
    return float(printed) == value if value == 0 else abs(float(printed) - value) <= 5e-6 * abs(value)


@pytest.mark.parametrize("name, modeling", [("run_a", "a"), ("run_b", "b"), ("run_b_benchmark", "b"),
                                            ("run_c", "c")])
def test_summary_and_report_are_the_values_derived_from_the_histories(name, modeling, request):
    """summary.json's checks and report.md's table hold the values re-derived here from the histories
    (summary: to 1e-12, the same numbers summed in another order; report: to its 6 printed
    digits), the verdicts that Code_Aster's tolerances give them, and the records' references,
    tolerances and Code_Aster values."""
    run = request.getfixturevalue(name)
    records = code_aster_records(modeling)
    x = Extraction(run, CODE_ASTER_END[modeling])
    summary = {(c["quantity"], c["window"]): c for c in run["checks"]}
    report = _report_rows(run["report"])
    assert len(summary) == len(run["checks"]) == len(report) == len(CHECKS[modeling])
    for indices, quantity, window, _, extract in CHECKS[modeling]:
        value, recs = extract(x), [records[i] for i in indices]
        verdict = all(_meets(value, r) for r in recs)
        check, cells = summary[(quantity, window)], report[(quantity, window)]
        assert math.isclose(check["value"], value, rel_tol=1e-12, abs_tol=0.0), (quantity, window)
        assert check["within_tolerance"] is verdict, (quantity, window)
        assert check["reference_rigid"] == recs[0]["reference"]
        assert check["tolerance"] == [r["tolerance"] for r in recs]
        assert {r["aster_value"] for r in recs} == {check["code_aster"]}
        assert _close_6_digits(cells[2], value), (quantity, window, cells[2], value)
        assert _close_6_digits(cells[5], recs[0]["aster_value"])
        assert cells[9].split(" ")[0] == ("yes" if verdict else "**no**"), (quantity, window, cells[9])


# ------------------------------------------------------------------------------------------------
# Impacts, statistics
# ------------------------------------------------------------------------------------------------
def _impacts(h: dict, chatter: float = 0.01) -> list[tuple[float, str, float]]:
    """(instant, corner, block kinetic energy before) of each impact: a corner whose contact status
    turns from open (0) to closed; closings within 10 ms of the previous impact are its rebounds
    (chatter of the corner on the table, 3-5 ms in d). The energy before is the largest of the second
    half of the flight that ends there (the first half still rings from the previous impact). The
    pivot O re-closing in the first 10 ms (settling at the release) is not an impact."""
    t, events = h["t"], []
    for corner in "OA":
        status = h[f"status_{corner}"]
        events += [(float(t[k]), corner) for k in np.flatnonzero((status[1:] != 0) & (status[:-1] == 0)) + 1
                   if not (corner == "O" and t[k] < 0.01)]
    out = []
    for t_hit, corner in sorted(events):
        if out and t_hit - out[-1][0] < chatter:
            continue
        t_prev = out[-1][0] if out else 0.0
        flight = (t > t_prev + 0.5 * (t_hit - t_prev)) & (t <= t_hit)
        out.append((t_hit, corner, float(h[KE][flight].max())))
    return out


@pytest.mark.parametrize("name", ["run_a", "run_b", "run_c", "run_d"])
def test_summary_and_report_impacts_are_the_histories(name, request):
    """summary.json's impacts (instant, corner; the kinetic energy before, 1e-12) and report.md's
    impact table (instants to its 6 decimals) are the impacts found here in the status columns."""
    run = request.getfixturevalue(name)
    mine = _impacts(run["history"])
    assert len(mine) >= 5
    assert [(i["time"], i["corner"]) for i in run["impacts"]] == [(t, c) for t, c, _ in mine]
    for imp, (_, _, ke) in zip(run["impacts"], mine):
        assert imp["ke_before"] == pytest.approx(ke, rel=1e-12)
    section = run["report"].split("## Impacts")[1].split("##")[0]
    rows = [line.strip("|").split("|") for line in section.splitlines() if line.startswith("| 0.")]
    assert [(float(r[0]), r[1].strip()) for r in rows] == [(round(t, 6), c) for t, c, _ in mine]


def test_report_states_the_summary_run_statistics(run_a, run_b, run_c, run_d):
    for run in (run_a, run_b, run_c, run_d):
        s = run["run"]
        assert (f"Run: {s['steps']} steps, {s['newton_iterations']} Newton iterations, "
                f"{s['subdivisions']} sub-steps") in run["report"]


@pytest.mark.parametrize("name", ["run_a", "run_b", "run_c", "run_d"])
def test_run_statistics_are_the_steps_and_iterations_of_the_histories(name, request):
    """summary.json's steps and Newton iterations are those of the three histories: one row per step,
    but the first row of each, the states at -1.95 s, -1.05 s (the tilt's restart) and 0 s (0 iterations)."""
    run = request.getfixturevalue(name)
    sw, tilt, h = run["selfweight"], run["tilt"], run["history"]
    assert (sw["iterations"][0], tilt["iterations"][0], h["iterations"][0]) == (0, 0, 0)
    assert tilt["t"][0] == pytest.approx(-1.05) and tilt["t"][0] in sw["t"]
    steps = (len(sw["t"]) - 1) + (len(tilt["t"]) - 1) + (len(h["t"]) - 1)
    iterations = int(sw["iterations"].sum() + tilt["iterations"].sum() + h["iterations"].sum())
    assert (run["run"]["steps"], run["run"]["newton_iterations"]) == (steps, iterations)


def test_histories_hold_one_row_per_step(run_a, run_b, run_c, run_d):
    """What the statistics test reads: strictly increasing times; the self-weight history from its
    initial state at -1.95 s (0 iterations) to -0.825 s; the tilt history from its restart state at
    -1.05 s (0 iterations; its first step, 7.5 ms later, >= 1) to 0; the release history from its
    initial state at 0."""
    for run in (run_a, run_b, run_c, run_d):
        sw, tilt, h = run["selfweight"], run["tilt"], run["history"]
        for hist in (sw, tilt, h):
            assert np.all(np.diff(hist["t"]) > 0)
        assert sw["t"][0] == -1.95 and sw["iterations"][0] == 0 and sw["t"][-1] == pytest.approx(-0.825)
        assert tilt["t"][0] == pytest.approx(-1.05) and tilt["iterations"][0] == 0
        assert tilt["t"][1] == pytest.approx(-1.05 + 0.0075) and tilt["iterations"][1] >= 1
        assert tilt["t"][-1] == 0.0 and h["t"][0] == 0.0 and h["iterations"][0] == 0


def test_b_benchmark_schedule_lists_its_automatic_refinements(run_b_benchmark):
    """The second impact comes before the benchmark's window 0.13375-0.145 s: it is caught, and every
    automatic refinement is reported in summary.json with its interval and its cause; the history
    shows fine steps (2.5e-5 s) throughout each reported interval."""
    refinements = run_b_benchmark["run"]["automatic_refinements"]
    assert refinements
    t = run_b_benchmark["history"]["t"]
    for r in refinements:
        assert 0.0 <= r["from"] < r["to"] <= 0.285 + 1e-12
        assert "predicted_impact" in r or r.get("reason")
        inside = (t > r["from"] + 1e-12) & (t <= r["to"] + 1e-12)
        k = np.flatnonzero(inside)
        assert k.size and np.all(t[k] - t[k - 1] <= 2.5e-5 * (1 + 1e-9))
    impacts = [r["predicted_impact"] for r in refinements if "predicted_impact" in r]
    assert any(0.132 < t < 0.13375 for t in impacts)


# ------------------------------------------------------------------------------------------------
# Physics and the README's claims
# ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["a", "b", "c", "d"])
def test_first_impact_and_reactions_before_it(name, request):
    """First impact (instant of the first kinetic-energy maximum) within 0.2 % of 0.05440978 s: the
    peak is sampled at a step, and d's step is 1e-4 s = 0.18 % of it (measured: a, c +0.0004 %,
    b -0.064 %, d -0.018 %). Before it, RN(O) max within 1 % of 3580 N (Code_Aster's own tolerance
    for it; measured 3599.5-3608 N) and max |RT|/RN within 1 % of the document's 0.3212 (the exact
    nonlinear rigid block's largest ratio is 0.3204; measured 0.3188-0.3201, at most 0.8 % below);
    no slip at the pivot corner O (slip increment since the release < 1e-7 m: sticking, to the
    Newton tolerance)."""
    h = request.getfixturevalue(f"run_{name}")["history"]
    t = h["t"]
    first = t <= 0.06
    t_first = t[first][np.argmax(h[KE][first])]
    assert t_first == pytest.approx(FIRST_IMPACT, rel=2e-3)
    window = (t > 0.01) & (t < 0.05)
    assert h["rn_O"][window].max() == pytest.approx(3580.0, rel=0.01)
    assert (np.abs(h["rt_O"][window]) / h["rn_O"][window]).max() == pytest.approx(0.3212, rel=0.01)
    before = t < t_first - 2e-4
    assert np.abs(h["slip_O"][before] - h["slip_O"][0]).max() < 1e-7


def _rel(value: float, reference: float) -> float:
    return abs(value - reference) / abs(reference)


@pytest.mark.parametrize("name", ["a", "c"])
def test_kinetic_energy_peaks_close_to_code_aster(name, request):
    """README: "first kinetic-energy peak 7.2918 J at 0.05441 s (7.2897 J at 0.0544 s), peaks after
    0.1 s and 0.15 s within 0.9 %" (modeling a; c is the same mesh, scheme and schedule, its contact
    enforced by augmented Lagrangian, and ends at 0.145 s in Code_Aster: its first two peaks are held
    to the same claims). From the histories, against Code_Aster's own values (VALE_CALC):
    the first peak within 0.03 % (measured 0.028 % in both) and at Code_Aster's instant to within one
    fine step (1e-5 s); the later peaks within 0.9 % (measured a 0.31 % and 0.88 %, c 0.20 %) and their
    instants within 0.2 % (regression bound: measured a 0.03 % and 0.11 %, i.e. 0.04 ms and 0.23 ms,
    c 0.03 %)."""
    run = request.getfixturevalue(f"run_{name}")
    records = code_aster_records(name)
    x = Extraction(run, CODE_ASTER_END[name])
    ke, tk = x.ke_peak()
    i_ke, i_t = {"a": (13, 14), "c": (18, 19)}[name]  # KE max and its instant, whole run
    ke_ref, tk_ref = records[i_ke]["aster_value"], records[i_t]["aster_value"]
    assert _rel(ke, ke_ref) <= 3e-4, (ke, ke_ref)
    assert abs(tk - tk_ref) <= 1e-5 * (1 + 1e-6), (tk, tk_ref)
    windows = {"a": [(0.1, None, 15, 17), (0.15, None, 19, 21)], "c": [(0.1, 0.145, 20, 22)]}[name]
    for lo, hi, i_ke, i_t in windows:
        ke, tk = x.ke_peak(lo, hi, closed_hi=hi is not None)
        assert _rel(ke, records[i_ke]["aster_value"]) <= 0.009, (lo, ke)
        assert _rel(tk, records[i_t]["aster_value"]) <= 0.002, (lo, tk)


def test_readme_numbers_of_modeling_a(run_a):
    """Regression values: the numbers the README states for modeling A ("Modeling A against Code_Aster's
    own values"), as printed there, re-derived from the histories. Everything up to the second impact
    is pinned; the later peaks are not: they move by percents with the rounding of the arithmetic
    (README "Speed": over tilts 4 ulps either side of 0.01 rad, the peak after 0.22 s spans 8.2 %,
    after 0.28 s 9.5 %), so Code_Aster's own tolerances hold them (test_code_aster_record)."""
    x = Extraction(run_a, CODE_ASTER_END["a"])
    assert f"{x.max('dy_A'):.5e}" == "3.59998e-03"
    assert round(x.max("rn_O", 0.01, 0.05), 2) == 3599.53
    assert round(x.max("rn_A", 0.06, 0.12), 2) == 3597.93
    ke, tk = x.ke_peak()
    assert (round(ke, 4), round(tk, 5)) == (7.2918, 0.05441)
    assert round(x.ke_peak(0.1)[0], 4) == 4.7239


def test_d_impacts_follow_the_rigid_body_reference(run_d):
    """Theta-scheme, dt = 1e-4 s: the five impact instants (found here in the status columns) within
    0.2 % of the event-driven rigid block (exact rocking equation, the document's impact law), as
    the README claims (measured: +0.16 % at the first impact, one step late, then -0.002 % to -0.197 %),
    on the corners A, O, A, O, A. The kinetic energy before each impact is never above the rigid
    block's (the theta-scheme with theta = 0.55 only removes energy; 0.1 % margin for sampling the
    first peak) and within 2 % of it (regression bound: measured 0.04 % to 1.50 %, growing with the
    scheme's dissipation over the flights)."""
    rigid = rocking.rock(0.18, 0.40, 0.01, model="nonlinear", n_impacts=5)
    impacts = _impacts(run_d["history"])[:5]
    assert len(impacts) == 5
    assert [c for _, c, _ in impacts] == ["A", "O", "A", "O", "A"] == list(rigid.impact_corner)
    for (t_hit, _, ke), t_ref, ke_ref in zip(impacts, rigid.impact_times, rigid.ke_before):
        assert _rel(t_hit, t_ref) <= 2e-3, (t_hit, t_ref)
        assert ke <= ke_ref * (1 + 1e-3) and _rel(ke, ke_ref) <= 0.02, (ke, ke_ref)


@pytest.mark.parametrize("name", ["a", "b", "c", "d"])
def test_energy_balance_closes(name, request):
    """The books of the release, re-derived from history.csv here: KE + strain + gravity potential +
    Rayleigh damping + contact and friction work + the scheme's dissipation - support work stays
    constant within 1e-5 of the potential-energy drop to the first impact (the README's figure:
    every term is computed on its own (fem.stage.energy), so the error is the residual Newton leaves
    at RESI_GLOB_RELA = 1e-6, summed over the run; measured 1.8e-6 to 4.2e-6). The summary's figure
    is the same. Damping, the dissipative schemes (HHT alpha < 0 in the impact windows,
    theta = 0.55) and, in b and d, friction have given no energy back by the end of the run."""
    run = request.getfixturevalue(f"run_{name}")
    h = run["history"]
    total = (h["ke"] + h["strain_energy"] + h["gravity_potential"] + h["damping_dissipation"] + h["contact_work"]
             + h["friction_work"] + h["numerical_dissipation"] - h["reaction_work"])
    first = h["t"] <= h["t"][np.argmax(h["ke"])]
    drop = h["gravity_potential"][0] - h["gravity_potential"][first].min()
    error = np.abs(total - total[0]).max() / drop
    e = run["energy"]
    assert error < 1e-5
    assert e["relative_error"] == pytest.approx(error, rel=1e-6, abs=1e-12)
    assert e["potential_drop"] == pytest.approx(drop, rel=1e-9)
    # (cumulated, not per step: the trapezoidal <f_damp>.[u] of an HHT step also holds
    # dt^2 (beta - gamma/2) <f_damp>.[a], which the release step and impact steps can make negative:
    # down to -1.4e-5 of the drop in b's release step, -1.3e-4 J in one of d's impact steps)
    assert h["damping_dissipation"].min() >= -1e-4 * drop and h["damping_dissipation"][-1] > 0.01 * drop
    assert h["numerical_dissipation"][-1] > 0
    if name in ("b", "d"):
        assert h["friction_work"][-1] >= 0
    else:  # position-level Lagrange: at an opening step the trapezoid still holds the closed step's
        # R_T against the lifting node's slip, the tangential side of the energy the contact gives
        # back (measured -0.039 J in a, -0.047 J in c: below 1 % of the drop)
        assert h["friction_work"][-1] > -0.01 * drop
    # the history's own balance column is the same books, from t = 0 of the release (it counts the
    # table's kinetic energy, which the ke column of the block leaves out: 1.6e-8 J at most in a)
    np.testing.assert_allclose(h["energy_balance_error"] - h["energy_balance_error"][0], total - total[0],
                               rtol=0, atol=1e-6 * drop)


@pytest.mark.slow
def test_a_late_peaks_depend_on_the_fine_step(run_a, tmp_path):
    """Why the peaks after 0.22 s are not held to 3 % of Code_Aster's values (README): with
    position-level Lagrange contact and HHT, the energy an impact takes depends on the fine step.
    The peak after 0.15 s moves by more than 10 % between dt_fine 1e-5 (the benchmark's, ours
    within 1 % of Code_Aster's there) and 2e-5 (measured 2.84 J and 2.31 J)."""
    coarse = _run("a", tmp_path, "--dt-fine", "2e-5", "--t-end", "0.23", "--no-paraview")

    def peak(h):  # the peak before the third impact, read from the history of each run
        window = (h["t"] > 0.15) & (h["t"] <= 0.23)
        return float(h[KE][window].max())

    ke_1e5, ke_2e5 = peak(run_a["history"]), peak(coarse["history"])
    assert abs(ke_2e5 - ke_1e5) > 0.10 * ke_1e5


# ------------------------------------------------------------------------------------------------
# ParaView series against the histories
# ------------------------------------------------------------------------------------------------
def _rows_at(h: dict, times) -> np.ndarray:
    """History rows of the given instants (exact: the .xdmf and the CSV both hold the double)."""
    rows = [np.flatnonzero(h["t"] == t) for t in times]
    assert all(r.size == 1 for r in rows), "a ParaView step at an instant the history does not hold"
    return np.array([int(r[0]) for r in rows])


def test_paraview_series_are_the_histories_at_the_archived_steps(run_a):
    """solution.xdmf / contact.xdmf of the release, selfweight.xdmf and tilt.xdmf: every step at an
    instant of its history; at some 25 archived steps (every 20th, and those of the first impact,
    0.0543-0.0547 s), the written displacements (DY at O and A, DX and DY at C1), velocities (VY at
    O and A) and the contact points O and A of contact.xdmf (status, gap, rn, rt, rx, ry, slip, at their
    current position X + u) equal the history's row bit for bit (both hold float64)."""
    out = Path(run_a["out"])
    mesh = read_mesh(ROOT / "meshes" / "sdnv105_quad4.msh")
    node = {name: mesh.node(name) for name in ("O", "A", "C1")}
    h = run_a["history"]
    solution, contact = read_series(out / "solution.xdmf"), read_series(out / "contact.xdmf")
    times = [t for t, _ in solution]
    assert times == [t for t, _ in contact] and times[0] == 0.0 and times[-1] == pytest.approx(0.33)
    _rows_at(h, times)
    picked = sorted(set(range(0, len(times), 20)) | {len(times) - 1}
                    | {k for k, t in enumerate(times) if 0.0543 <= t <= 0.0547})
    statuses, loaded = set(), 0
    for k, row in zip(picked, _rows_at(h, [times[k] for k in picked])):
        m, c = solution[k][1], contact[k][1]
        u, v = m.point_data["displacement"], m.point_data["velocity"]
        assert u[node["O"], 1] == h["dy_O"][row] and u[node["A"], 1] == h["dy_A"][row]
        assert (u[node["C1"], 0], u[node["C1"], 1]) == (h["dx_C1"][row], h["dy_C1"][row])
        assert v[node["O"], 1] == h["vy_O"][row] and v[node["A"], 1] == h["vy_A"][row]
        for corner in ("O", "A"):
            at = np.flatnonzero(np.all(c.points[:, :2] == mesh.points[node[corner]] + u[node[corner], :2], axis=1))
            assert at.size == 1, (corner, times[k])
            for q in ("status", "gap", "rn", "rt", "rx", "ry", "slip"):
                assert c.point_data[q][at[0]] == h[f"{q}_{corner}"][row], (q, corner, times[k])
        statuses |= {int(h["status_A"][row])}
        loaded += h["rn_A"][row] > 1e3
    assert {0, 1} <= statuses and loaded >= 3  # the premise: A open, and closed under load, among them
    for name, hist in (("selfweight", run_a["selfweight"]), ("tilt", run_a["tilt"])):
        steps = read_series(out / f"{name}.xdmf")
        rows = _rows_at(hist, [t for t, _ in steps])
        for (t, frame), row in list(zip(steps, rows))[:: max(1, len(steps) // 5)]:
            u = frame.point_data["displacement"]
            assert (u[node["C1"], 0], u[node["C1"], 1]) == (hist["dx_C1"][row], hist["dy_C1"][row])
    for png in ("kinetic_energy.png", "uplift.png", "reactions.png"):
        assert (out / png).stat().st_size > 10_000


def test_a_run_writes_a_fixed_set_of_files_whatever_its_steps(run_a):
    """The benchmark's run (4,157 steps; 390 archived in the release's series) writes at most 20 files, none
    named after a step: the series are NAME.xdmf + NAME.h5 (fem.io.xdmf), however many steps they hold."""
    out = Path(run_a["out"])
    names = sorted(p.name for p in out.iterdir() if p.is_file() and not p.name.startswith("."))
    assert len(names) <= 20, names
    assert not [n for n in names if re.search(r"_\d{6}\.", n)], names
    for series in ("solution", "contact", "selfweight", "tilt"):
        assert {f"{series}.xdmf", f"{series}.h5"} <= set(names)
    assert len(read_series(out / "solution.xdmf")) > 10 * len(names)  # steps are not files


# ------------------------------------------------------------------------------------------------
# Command line, custom configurations
# ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("argv, message", [
    (["--tilt-angle", "0.5"], "--tilt-angle must lie in"),
    (["--mu=-0.1"], "--mu must be >= 0"),
    (["--young=-6e11"], "Young's modulus must be > 0"),
    (["--dt", "0"], "--dt must be > 0"),
    (["--width", "0"], "--width must be > 0"),
])
def test_impossible_values_are_rejected(argv, message, tmp_path, capsys):
    assert sdnv105_common.run_case("a", [*argv, "--out", str(tmp_path)]) == 2
    assert message in capsys.readouterr().err


def test_unknown_modeling(capsys):
    assert sdnv105_common.run_case("e", []) == 2
    assert "unknown modeling 'e'" in capsys.readouterr().err


@pytest.mark.parametrize("width, height, tilt", [(0.30, 0.90, 0.008), (0.40, 0.60, 0.02)])
def test_other_blocks_rock_like_the_rigid_reference(width, height, tilt, tmp_path):
    """Another block and tilt (modeling a, --auto-steps, to the first impact): the first impact and
    the kinetic energy before it (found here in the history) follow the rigid-body reference of that
    geometry within 0.2 %: before its first impact the elastic block (eigenfrequencies far above the
    rocking's) rocks as the rigid one, and the automatic refinement resolves the impact with 1e-5 s
    steps (0.02 % of these first flights). Measured: instants +0.009 % and +0.003 %, energies
    -0.015 % and -0.026 % (the benchmark block: +0.0004 % and -0.002 %)."""
    out = _run("a", tmp_path, "--width", str(width), "--height", str(height), "--tilt-angle", str(tilt),
               "--auto-steps", "--no-paraview", "--t-end", "0.12")
    rigid = rocking.rock(width / 2, height / 2, tilt, model="nonlinear", n_impacts=1)
    t_hit, corner, ke = _impacts(out["history"])[0]
    assert corner == "A"
    assert t_hit == pytest.approx(rigid.impact_times[0], rel=2e-3)
    assert ke == pytest.approx(rigid.ke_before[0], rel=2e-3)
    assert (out["impacts"][0]["time"], out["impacts"][0]["corner"]) == (t_hit, corner)


@pytest.mark.parametrize("name", ["run_a", "run_b", "run_c", "run_d", "run_b_benchmark"])
def test_default_runs_are_benchmark_runs_graded_against_code_aster(name, request):
    """The scripts' defaults (time-step options apart) are the benchmark: configuration 'benchmark',
    every check with Code_Aster's value and a verdict (summary.json as fem.run.lifecycle writes it)."""
    s = request.getfixturevalue(name)
    assert s["status"] == "complete" and s["configuration"] == "benchmark" and s["departures"] == []
    assert {"command", "version", "parameters", "t_reached"} <= set(s)
    assert s["checks"] and all(c["code_aster"] is not None and c["within_tolerance"] is not None
                               for c in s["checks"])
