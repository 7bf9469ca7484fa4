"""Mutation check: do the tests fail when the physics is wrong?

Each mutation below changes one line of the physics (a force left out of a residual, a sign, a
Gauss rule, a scheme's coefficient) in a scratch copy of the repository, then runs the tests named
for it there. A mutation is *caught* when at least one of them fails by an assertion (an
``AssertionError``: a statement about the physics), not merely by an exception such as a Newton
failure; otherwise it *SURVIVED*. One line per mutation::

    caught   <name>  by tests/...::test (AssertionError)
    SURVIVED <name>

Run:  python benchmarks/mutation_check.py [--only SUBSTRING] [--keep DIR] [--jobs N]
Exit code 0 when every mutation is caught, 1 when any survives or cannot be applied (its text is
no longer in the file: update the list). Not part of CI: it runs the selected tests once per
mutation (a few minutes).
"""
from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class Mutation:
    name: str
    file: str  # relative to the repository
    old: str  # must occur exactly once in the file
    new: str
    tests: tuple[str, ...]  # pytest node ids or files, relative to the repository


MUTATIONS = (
    # ---- energy books (tests/test_energy_balance.py) and time schemes
    Mutation("HHT: the -alpha g_n term dropped from the residual", "fem/dynamics.py",
             "R = Ma + (1.0 + af) * g - af * g0", "R = Ma + (1.0 + af) * g",
             ("tests/test_energy_balance.py",)),
    Mutation("HHT 'OUI': the Rayleigh damping force dropped from g_n (closed-form damped mode)", "fem/dynamics.py",
             "g0 = state.f_int + state.f_damp + state.f_terms - state.f_ext",
             "g0 = state.f_int + state.f_terms - state.f_ext",
             ("tests/test_damping.py",)),
    Mutation("HHT 'OUI': the Rayleigh damping force dropped from g_n (energy books)", "fem/dynamics.py",
             "g0 = state.f_int + state.f_damp + state.f_terms - state.f_ext",
             "g0 = state.f_int + state.f_terms - state.f_ext",
             ("tests/test_energy_balance.py",)),
    Mutation("AMOR_ALPHA x 1.5", "fem/model.py",
             "alpha = s.material.rayleigh_stiffness", "alpha = 1.5 * s.material.rayleigh_stiffness",
             ("tests/test_damping.py",)),
    Mutation("damping force halved in the residual (books keep the model's)", "fem/dynamics.py",
             "g = forces.internal + forces.damping + f_terms - f_ext\n        Ma = M @ a",
             "g = forces.internal + 0.5 * forces.damping + f_terms - f_ext\n        Ma = M @ a",
             ("tests/test_energy_balance.py",)),
    Mutation("penalty contact: normal force on the body 10 % too large", "contact/penalty.py",
             "local = -(tr.rn[:, None] * tr.wn + tr.rt[:, None] * tr.wt)",
             "local = -(1.1 * tr.rn[:, None] * tr.wn + tr.rt[:, None] * tr.wt)",
             ("tests/test_energy_balance.py",)),
    Mutation("penalty contact: friction force on the body halved", "contact/penalty.py",
             "local = -(tr.rn[:, None] * tr.wn + tr.rt[:, None] * tr.wt)",
             "local = -(tr.rn[:, None] * tr.wn + 0.5 * tr.rt[:, None] * tr.wt)",
             ("tests/test_energy_balance.py",)),
    Mutation("multiplier contact: force rows of the normal reactions 10 % too large", "fem/dynamics.py",
             "each.append(-lin.force_rows.transpose_times(trial.lam))",
             "each.append(-lin.force_rows.transpose_times(trial.lam * np.tile([1.1, 1.0], trial.lam.size // 2)))",
             ("tests/test_energy_balance.py",)),
    Mutation("multiplier contact: friction force on the body halved", "fem/dynamics.py",
             "each.append(-lin.force_rows.transpose_times(trial.lam))",
             "each.append(-lin.force_rows.transpose_times(trial.lam * np.tile([1.0, 0.5], trial.lam.size // 2)))",
             ("tests/test_energy_balance.py",)),
    Mutation("theta-method: the theta weighting of the new forces set to 1/2 in the residual only",
             "fem/theta.py", "R = Mdv - (1 - theta) * F0 - theta * F1 + f_mult",
             "R = Mdv - 0.5 * F0 - 0.5 * F1 + f_mult",
             ("tests/test_energy_balance.py",)),
)


MUTATIONS += (
    # ---- elements (tests/test_elements.py)
    Mutation("QUA8 stiffness rule 3x3 -> 2x2 Gauss points", "fem/elements.py",
             "_q8_grad, _gauss_square(3), _gauss_square(3)", "_q8_grad, _gauss_square(2), _gauss_square(3)",
             ("tests/test_elements.py",)),
    Mutation("a Gauss weight altered: Dunavant's w_a of the TRIA6 mass rule", "fem/elements.py",
             "a, wa = 0.445948490915965, 0.223381589678011", "a, wa = 0.445948490915965, 0.233381589678011",
             ("tests/test_elements.py",)),
    Mutation("a Gauss weight altered: the first weight of the square rules x 1.01", "fem/elements.py",
             "    W = np.outer(w, w)\n", "    W = np.outer(w, w)\n    W[0, 0] *= 1.01\n",
             ("tests/test_elements.py",)),
    Mutation("total-Lagrangian tangent: initial-stress term dropped", "fem/model.py",
             "K += _geometric(_tensor(S_total), s.grad, s.dvol)", "pass",
             ("tests/test_elements.py",)),
    Mutation("total-Lagrangian tangent: the damping stress's u-derivative dropped", "fem/model.py",
             "K += alpha * _bt_d_b(Bw, D, _strain_operator(Hv, s.grad))", "pass",
             ("tests/test_elements.py",)),
    # ---- contact
    Mutation("Lagrange/augmented: no slip -> stick switch on slip reversal", "contact/multipliers.py",
             "reverses = (ds * f_old > 0) | (augmented & (f_new != f_old))",
             "reverses = np.zeros_like(f_old, dtype=bool)",
             ("tests/test_friction.py",)),
    Mutation("Lagrange/augmented: friction sign flipped in the slip equation", "contact/multipliers.py",
             "rt - mu * f * (rn - self.rho_n * gap)", "rt + mu * f * (rn - self.rho_n * gap)",
             ("tests/test_friction.py",)),
    Mutation("penalty: Coulomb cap sign flipped", "contact/penalty.py",
             "np.where(slip, cap * sign, 0.0)", "np.where(slip, -cap * sign, 0.0)",
             ("tests/test_friction.py",)),
    Mutation("theta-method: index set from the gap at the step start, not the midpoint", "contact/impacts.py",
             "predicted = self.zone.geometry(self.points, u0 + 0.5 * dt * v0).gap",
             "predicted = self.zone.geometry(self.points, u0).gap",
             ("tests/test_theta_index_set.py",)),
)


MUTATIONS += (
    # ---- outputs (tests/test_paraview_fields.py) and reports from raw histories (tests/test_sdnv105.py)
    Mutation("ParaView stress_cauchy written as the second Piola-Kirchhoff stress", "fem/recorder.py",
             '"stress_cauchy": stresses["cauchy"]', '"stress_cauchy": stresses["pk2"]',
             ("tests/test_paraview_fields.py",)),
    Mutation("Cauchy stress without the division by det F", "fem/model.py",
             'sig = np.einsum("eqiI,eqIJ,eqjJ->eqij", F, St, F) / detF[..., None, None]',
             'sig = np.einsum("eqiI,eqIJ,eqjJ->eqij", F, St, F)',
             ("tests/test_paraview_fields.py",)),
    Mutation("ParaView velocity written as the displacement", "fem/recorder.py",
             '"velocity": state.v.reshape(n, 2)', '"velocity": state.u.reshape(n, 2)',
             ("tests/test_paraview_fields.py",)),
    Mutation("support reactions computed with the wrong sign", "fem/dynamics.py",
             "    reactions[cdofs] = reactions_c\n", "    reactions[cdofs] = -reactions_c\n",
             ("tests/test_paraview_fields.py",)),
    Mutation("contact.pvd: RN and RT swapped", "contact/output.py",
             '"rn": state.rn, "rt": state.rt,', '"rn": state.rt, "rt": state.rn,',
             ("tests/test_paraview_fields.py",)),
    Mutation("SDNV105 summary: RX(O) min with the history's sign", "cases/sdnv105_common.py",
             '"rx_O_min_1": lambda: float(-R["rx_O"][_in(t, 0.01, 0.05)].max()),',
             '"rx_O_min_1": lambda: float(R["rx_O"][_in(t, 0.01, 0.05)].min()),',
             ("tests/test_sdnv105.py::test_summary_and_report_are_the_values_derived_from_the_histories",)),
    Mutation("SDNV105 summary: percussion integrates RN(O) instead of RN(A)", "cases/sdnv105_common.py",
             '"percussion_A": lambda: impulse(t, R["rn_A"], 0.0544, 0.05449),',
             '"percussion_A": lambda: impulse(t, R["rn_O"], 0.0544, 0.05449),',
             ("tests/test_sdnv105.py::test_summary_and_report_are_the_values_derived_from_the_histories",)),
    Mutation("SDNV105 d at dt = 2e-4 s instead of the benchmark's 1e-4 s", "cases/sdnv105_common.py",
             '"d": Modeling("d", "theta", "sdnv105_quad4", True, 0.33, 1e-4, 1e-4,',
             '"d": Modeling("d", "theta", "sdnv105_quad4", True, 0.33, 2e-4, 2e-4,',
             ("tests/test_sdnv105.py::test_d_impacts_follow_the_rigid_body_reference",)),
)


def _copy(dest: Path) -> None:
    ignore = shutil.ignore_patterns(".git", "results", "__pycache__", "*.egg-info", ".pytest_cache")
    shutil.copytree(ROOT, dest, ignore=ignore, dirs_exist_ok=True)


_FAILED = re.compile(r"^FAILED (\S+)(?: - (.*))?$", re.M)


def _kind(message: str) -> str:
    """'AssertionError' for a failed assertion (pytest shows ``assert ...``, ``AssertionError: ...``
    or ``Failed: ...`` from pytest.raises / pytest.fail), else the exception's name."""
    message = (message or "").strip()
    if message.startswith(("assert", "AssertionError", "Failed:")):
        return "AssertionError"
    head = message.split(":", 1)[0]
    return head.rsplit(".", 1)[-1] if head else "error"


def check(m: Mutation, scratch: Path) -> tuple[str, str]:
    """Apply ``m`` in ``scratch``, run its tests, restore. Returns (verdict, detail)."""
    path = scratch / m.file
    if not path.is_file():
        return "STALE", f"no file {m.file}"
    original = path.read_text()
    count = original.count(m.old)
    if count != 1:
        return "STALE", f"the text to mutate occurs {count} times in {m.file}"
    path.write_text(original.replace(m.old, m.new))
    try:
        env = dict(os.environ, PYTHONPATH=str(scratch), PYTHONDONTWRITEBYTECODE="1", COLUMNS="1000")
        p = subprocess.run([sys.executable, "-m", "pytest", "-q", "-rf", "-p", "no:cacheprovider", "-x", "-n", "0",
                            "-m", "not slow", *m.tests], cwd=scratch, env=env, capture_output=True, text=True,
                           timeout=1800)
    finally:
        path.write_text(original)
    if p.returncode == 0:
        return "SURVIVED", ""
    found = _FAILED.findall(p.stdout)
    failures = [(node, _kind(message)) for node, message in found]
    physics = [(node, message) for node, message in found if _kind(message) == "AssertionError"]
    if physics:
        node, message = physics[0]
        return "caught", f"by {node}: {' '.join(message.split())[:90]}"
    if failures:
        return "SURVIVED", "only by " + ", ".join(f"{n} ({k or 'error'})" for n, k in failures[:2])
    return "SURVIVED", f"pytest exit {p.returncode}: " + (p.stdout.strip().splitlines() or ["?"])[-1]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", default="", help="run the mutations whose name contains this text")
    parser.add_argument("--keep", default=None, help="scratch folder to use (kept); default a temporary one")
    parser.add_argument("--jobs", type=int, default=1, help="mutations run at once (one scratch copy each)")
    args = parser.parse_args(argv)
    todo = [m for m in MUTATIONS if args.only.lower() in m.name.lower()]
    if not todo:
        print(f"error: --only {args.only!r} matches no mutation", file=sys.stderr)
        return 2
    base = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="rockfem-mutations-"))
    scratches = [base / f"copy{j}" for j in range(max(1, args.jobs))]
    for s in scratches:
        _copy(s)
    start = time.perf_counter()
    free = list(scratches)

    def one(m: Mutation):
        scratch = free.pop()
        try:
            return m, *check(m, scratch)
        finally:
            free.append(scratch)

    bad = 0
    width = max(len(m.name) for m in todo)
    with ThreadPoolExecutor(len(scratches)) as pool:
        for m, verdict, detail in pool.map(one, todo):
            bad += verdict != "caught"
            print(f"{verdict:8s} {m.name:{width}s}  {detail}", flush=True)
    print(f"{len(todo) - bad} of {len(todo)} mutations caught in {time.perf_counter() - start:.0f} s")
    if not args.keep:
        shutil.rmtree(base, ignore_errors=True)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
