"""Elastic bar hitting a rigid wall, and the periodic bar with a unilateral end: closed forms.

A straight elastic bar meshed as a plane-stress strip (meshes/bar.py: nx QUA4 along the length,
one across; with Poisson's ratio 0, the default, the strip is exactly a 1-D bar of P1 elements),
its end x = 0 in frictionless contact with a rigid plane. Two set-ups, each printed beside its
closed-form solution (docs/references.md: the bar against a wall, the periodic bar):

``--setup wall`` (Code_Aster SDNV100 data, V5.03.100, as a 1-D bar): length 0.2 m, E = 2e11 Pa,
rho = 8000 kg/m^3, square section 2 cm x 2 cm, speed V = 100 m/s towards a rigid wall 2 mm away.
1-D wave theory: contact starts at gap / V, lasts 2 L / c (c = sqrt(E / rho)), the contact stress is
rho c V throughout, the bar leaves with velocity +V as a rigid body, energy is conserved
(c = 5000 m/s, 2 L / c = 8e-5 s, rho c V = 4e9 Pa).

``--setup periodic`` (Dabaghi, Petrov, Pousin, Renard, "Convergence of mass redistribution method
for the one-dimensional wave equation with a unilateral constraint at the boundary", ESAIM: M2AN 48
(2014); GetFEM demo_dynamic_contact_1D.py): bar of length L = 1, rho = E = 1 (c = 1), section 1,
clamped at x = L, Signorini at x = 0, released at rest from u = (L - x) / 2. The solution has
period 3 L / c: free flight on [0, 1] L/c (the end moves at -c/2), contact on [1, 2] L/c with the
contact stress E / 2 (sigma(0) = -E/2), lift-off on [2, 3] L/c (the end moves at +c/2); the energy
E A L / 8 (1/8) is constant. --length, --young, --rho scale it (the defaults 1, 1, 1); the set-up
has no velocity and no gap: --velocity and --gap are refused with it (exit 2), rather than
silently ignored.

Model
-----
The strip has the width L / 10 (2 cm for SDNV100) and the thickness that gives the section area
(wall: 4e-4 m^2, SDNV100's 2 cm x 2 cm; periodic: 1 m^2, so that the energy is the reference's
1/8 per unit section). Small strain, no damping. Contact stress = total normal reaction of the two
end nodes / section area (compressive positive). With --poisson other than 0 the strip is no
longer a 1-D bar (lateral contraction and inertia): the wave closed forms are then shown without a
verdict.

--mass (default redistributed): "redistributed" frees the contact end's nodes of mass
(fem/model/mass.py, Khenous, Laborde, Renard 2008): their displacement is quasi-static, the semi-discrete
problem is well posed and energy conserving. The run starts with those nodes in static equilibrium
with the rest (fem/time/dynamics.py), so the periodic set-up's discrete initial energy is
(1 - h/L) E A L / 8, not E A L / 8 (both are reported: initial_energy, initial_energy_exact; the
energy ratios are against the discrete one). "consistent" / "lumped": the contact nodes carry mass.

--release (contact/multipliers.py, its docstring has the energy identity): with Newmark's
trapezoidal rule a step changes the energy by 1/2 (R_n g_{n+1} - R_{n+1} g_n). "immediate"
(Code_Aster's rule) opens a node as soon as its reaction would turn to traction, which gives back
energy never stored (the known energy gain of position-level contact); "delayed" keeps it closed
through that step and opens it in the next one: it never creates energy. "auto" (default) =
delayed with the redistributed mass (the massless end's reaction varies smoothly: the step of
adhesion costs about one step of contact duration, and the energy can only decrease), immediate
otherwise: with a mass on the contact nodes their reaction rings, and holding them closed glues
the bar to the wall (measured, consistent mass + delayed, SDNV100 wall: the contact stress
alternates between about +-370 rho c V (nx 20) and +-1480 rho c V (nx 80) and the bar never
leaves), so the consistent and lumped masses keep Code_Aster's rule, whose energy gain shows in
max_energy_ratio. (The library's third rule, "located", which cuts the step at the separation
instant, is not offered here.)

--method: "lagrange" (active set) and "augmented" (Alart-Curnier), contact/multipliers.py;
"penalty": contact/penalty.py shock springs (DIS_CHOC, no damping) at the two end nodes against
the plane, of total stiffness 100 E A / h (h = L / nx; per node half of it): a penetration
rho c V h / (100 E) = 5e-7 m on the SDNV100 wall at nx = 80, 0.02 % of an element; the energy the springs
store is part of the total energy; "theta": the Moreau-Jean theta-method with theta = 1/2
(fem/time/theta.py), velocity-level contact without rebound (contact.impacts.velocity_contact_from). The
theta-method needs a mass on every dof (its velocity is a state variable): with --method theta the
mass defaults to consistent (said on stdout and in summary.json), and --mass redistributed is
refused (exit 2). --release applies to lagrange and augmented only, --scheme and --alpha to the
Newmark family (refused with theta).

--scheme: "newmark" (average acceleration, beta = 1/4, gamma = 1/2: no numerical dissipation) or
"hht" (HHT-alpha with MODI_EQUI 'NON', --alpha, default -0.1).

Measured (summary.json)
-----------------------
From the step histories (contact stress sigma at the step ends, mean bar velocity = x-momentum /
mass, energies). A contact is a run of steps with compressive sigma (above 1e-9 of the reference
stress), runs closer than L / (2c) merged (chattering of a massive contact node); it starts at the
beginning of its first step and ends at the end of its last one.

* contact_start [s], contact_duration [s] of the first contact; mean_contact_stress [Pa]: mean of
  sigma over the steps of every contact; contacts: each contact's start, end, duration, mean;
* rebound_velocity [m/s, signed, + away from the wall]: wall, the mean bar velocity over the steps
  after the last contact force (compressive or, with the delayed release, tensile); periodic (the
  clamp takes momentum), the contact end's velocity over the middle half of the phase after the
  first contact (exact +c/2);
* initial_energy (kinetic + strain at t = 0, after the quasi-static start), initial_energy_exact;
  max_energy_ratio, final_energy_ratio (total = kinetic + strain + energy in the penalty springs,
  over the initial energy); energy_after_contacts: the ratio after each contact, at the middle of
  the contact-free phase that follows it (periodic: t = (3k + 2.5) L/c, k = 0, 1, ..., the lift-off
  phases, so that t_end = 12 L/c holds four; wall: one transit L/c after the exact separation);
* contact_stress_l2_error: sqrt(sum (sigma - sigma_ex)^2 / sum sigma_ex^2) over the step times,
  against the exact sigma(0, t) (periodic: E/2 for 1 < t c/L mod 3 < 2; wall: rho c V during the
  exact contact);
* exact: the closed-form values; checks: rows (quantity, value, reference, tolerance, kind,
  passed): wall, contact start within dt of gap / V, duration within 2 dt + h/c of 2 L/c, rebound
  within 2 % of V, mean contact stress within 5 % of rho c V; periodic, contact stress L2 error
  at most 0.25 and final energy ratio within 4 % of 1; both, max_energy_ratio at most 1 + 1e-8
  where the energy identity guarantees it (redistributed mass, delayed release, lagrange or
  augmented, Newmark), shown without a verdict otherwise.

Configuration: 'benchmark' when the physics is the set-up's reference data (--length, --young,
--rho, --poisson, --velocity, --gap at their defaults), else 'custom'; the mesh, the steps, the
method, the mass and the release change the discretisation, not the problem.

Outputs in --out (default results/bar_impact/<setup>; an earlier run's files are removed first):
summary.json (fem.run.lifecycle header), history.csv (t, iterations, u_end and v_end of the node (0, 0),
contact_stress, v_bar, penalty_energy, total_energy, energy_ratio, then the energy books of
fem.io.recorder: ke, strain_energy, ..., energy_balance_error), report.md, and unless --no-paraview
solution.xdmf (about 200 archived steps; ``--output-format pvd``: solution.pvd).

Run::

    python cases/bar_impact.py                                  # SDNV100 wall, nx 80
    python cases/bar_impact.py --setup periodic --nx 80         # four contacts, t = 12
    python cases/bar_impact.py --setup periodic --mass consistent   # the energy gain
    python cases/bar_impact.py --setup wall --method theta      # Moreau-Jean, consistent mass

Exit codes (fem.run.lifecycle): 0 the run completed (its checks are in summary.json), 1 the run failed,
2 bad input (one line naming the flag), 130 / 143 interrupted.
"""
from __future__ import annotations

if __name__ == "__main__":  # Ctrl-C while the imports load: exit 130, one line, no traceback
    from cases import early_exit  # noqa: F401

import argparse
import math
import sys
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from cases.bar.checks import checks, exact, measure
from cases.bar.config import Config, departures, resolve
from contact.laws import Augmented, Lagrange, MoreauJean, Penalty
from contact.zone import RigidPlane
from fem.io.results import series_format
from fem.io import output_folder
from fem.time.dynamics import NewtonSettings, State, energy_report
from fem.model.material import ElasticMaterial
from fem.io.recorder import NodeProbe
from fem.problem import Body, Pair, Problem, Release, Settings, Support, Uniform, assemble, run_stages
from fem.run.lifecycle import (CaseParser, Run, add_run_flags, add_series_flag, check_resources, command_line, count_steps, estimate,
                     execute, finite, prepare_output)
from meshes.bar import bar_strip

SETUPS = ("wall", "periodic")
METHODS = ("lagrange", "augmented", "penalty", "theta")
MASSES = ("consistent", "lumped", "redistributed")
RELEASES = ("auto", "immediate", "delayed")
SCHEMES = ("newmark", "hht")
THETA = 0.5
FRAMES = 200  # ParaView steps archived, about
NEWTON = NewtonSettings(rela=1e-10, max_iterations=30)


# ----------------------------------------------------------------------------------- command line
def parse_args(argv=None) -> argparse.Namespace:
    p = CaseParser(prog="bar_impact.py", description=__doc__)
    p.add_argument("--setup", choices=SETUPS, default="wall",
                   help="wall: SDNV100 bar hitting a rigid wall; periodic: the clamped bar with a unilateral end "
                        "(default wall)")
    p.add_argument("--length", type=finite, default=None, help="bar length L [m], > 0 (wall 0.2, periodic 1)")
    p.add_argument("--young", type=finite, default=None, help="Young's modulus E [Pa], > 0 (wall 2e11, periodic 1)")
    p.add_argument("--rho", type=finite, default=None, help="density [kg/m^3], > 0 (wall 8000, periodic 1)")
    p.add_argument("--poisson", type=finite, default=0.0,
                   help="Poisson's ratio in (-1, 0.5) (default 0: the strip is a 1-D bar; otherwise the wave "
                        "closed forms get no verdict)")
    p.add_argument("--velocity", type=finite, default=None,
                   help="wall only: impact speed towards the wall [m/s], > 0 (default 100)")
    p.add_argument("--gap", type=finite, default=None,
                   help="wall only: initial gap to the wall [m], >= 0 (default 2e-3)")
    p.add_argument("--nx", type=int, default=None, help="elements along the bar (default wall 80, periodic 40)")
    p.add_argument("--dt", type=finite, default=None, help="time step [s], > 0 (default h / (2c), h = L / nx)")
    p.add_argument("--t-end", type=finite, default=None,
                   help="end of the run [s], > 0 (default wall: end of the exact contact + 2L/c; periodic: 12 L/c, "
                        "four periods)")
    p.add_argument("--method", choices=METHODS, default="lagrange",
                   help="contact: lagrange, augmented, penalty (shock springs, 100 EA/h), theta (Moreau-Jean "
                        "theta = 1/2, velocity-level contact)")
    p.add_argument("--mass", choices=MASSES, default=None,
                   help="mass matrix (default redistributed: the contact end's nodes massless; with --method "
                        "theta the default is consistent, and redistributed is refused)")
    p.add_argument("--release", choices=RELEASES, default="auto",
                   help="when a closed contact may open (lagrange, augmented): immediate (Code_Aster: creates "
                        "energy at openings), delayed (one step later: never creates energy), auto (default): "
                        "delayed with the redistributed mass, immediate with a mass on the contact nodes (whose "
                        "ringing reaction makes a step of adhesion absurd)")
    p.add_argument("--scheme", choices=SCHEMES, default="newmark",
                   help="newmark (average acceleration, default) or hht (HHT-alpha, MODI_EQUI 'NON')")
    p.add_argument("--alpha", type=finite, default=None, help="HHT alpha in (-1, 0], with --scheme hht (default -0.1)")
    p.add_argument("--out", type=Path, default=None,
                   help="output folder (default results/bar_impact/<setup>); an earlier run's files are removed")
    p.add_argument("--no-paraview", action="store_true", help="do not write the ParaView series solution.pvd")
    add_run_flags(p)
    add_series_flag(p)
    return p.parse_args(argv)


def steps_of(cfg: Config) -> float:
    return count_steps([(0.0, cfg.t_end, cfg.dt)])


# ----------------------------------------------------------------------------------- model
def build(cfg: Config):
    """The bar as a problem (fem.problem), assembled, its stage (the bar let go: at -v0 towards the wall,
    or from the periodic setup's stretch) with its steps, and the state it starts from."""
    mesh = bar_strip(cfg.length, cfg.width, cfg.nx)
    wall_x = -cfg.gap if cfg.setup == "wall" else 0.0
    if cfg.method == "penalty":
        law = Penalty(0.5 * cfg.penalty_stiffness, tension_allowed=True)
    elif cfg.method == "theta":
        law = MoreauJean()
    else:
        law = Augmented() if cfg.method == "augmented" else Lagrange()
    problem = Problem(mesh, [Body("BAR", ElasticMaterial(cfg.young, cfg.poisson, cfg.rho), mass=cfg.mass)],
                      [Support("END1")] if cfg.setup == "periodic" else [],
                      [Pair("END0", RigidPlane((wall_x, 0.0), (1.0, 0.0)), law, name="end")],
                      gravity=0.0, thickness=cfg.thickness, kinematics="small_strain")
    assembled = assemble(problem)
    term = assembled.terms[0]
    if cfg.method != "theta":  # the release rule asked (--release); a landing closes at the step's end
        term.closing, term.release = "immediate", cfg.release
    n_steps = max(1, int(steps_of(cfg)))
    archive = max(1, math.ceil(n_steps / FRAMES))
    steps = (Uniform(cfg.dt, archive, theta=THETA) if cfg.method == "theta" else
             Uniform(cfg.dt, archive, alpha=cfg.alpha if cfg.scheme == "hht" else 0.0))
    u0 = np.zeros(assembled.model.n_dofs)
    if cfg.setup == "periodic":
        u0[0::2] = 0.5 * (cfg.length - mesh.points[:, 0])
    stage = Release(cfg.t_end, velocity={"BAR": (-cfg.velocity, 0.0)} if cfg.setup == "wall" else {},
                    newton=NEWTON, name=cfg.setup)
    return assembled, stage, steps, State(t=0.0, u=u0, v=np.zeros(assembled.model.n_dofs))


# ----------------------------------------------------------------------------------- run
EXTRA = ("contact_stress", "v_bar", "penalty_energy", "total_energy", "energy_ratio")


@dataclass
class BarColumns:
    """The case's history columns (an observer of fem.problem.Settings): the contact stress, the bar's
    mean velocity, the penalty springs' energy, the total energy and its ratio to the initial one; and
    the rows kept for the measures."""

    cfg: Config
    assembled: object

    def __post_init__(self) -> None:
        model, mesh = self.assembled.model, self.assembled.mesh
        ex = np.zeros(model.n_dofs)
        ex[0::2] = 1.0
        self.mass_x = model.mass @ ex  # x-momentum weights; mass_x @ v / mass = mean bar velocity
        self.mass = float(self.mass_x @ ex)
        self.p0 = 2 * mesh.node("P0")
        self.rows: dict[str, list] = {k: [] for k in ("t", "v_end", *EXTRA)}
        self.e_initial: list[float] = []

    def columns(self) -> list[str]:
        return list(EXTRA)

    def observe(self, result) -> dict:
        cfg, model, s = self.cfg, self.assembled.model, result.state
        cs = self.assembled.terms[0].state()
        k_node = 0.5 * cfg.penalty_stiffness
        pen = 0.5 * k_node * float(np.sum(np.maximum(-cs.gap, 0.0) ** 2)) if cfg.method == "penalty" else 0.0
        total = model.kinetic_energy(s.v) + model.strain_energy(s.u) + pen
        if not self.e_initial:
            self.e_initial.append(total)
        row = {"contact_stress": float(cs.rn.sum()) / cfg.area, "v_bar": float(self.mass_x @ s.v) / self.mass,
               "penalty_energy": pen, "total_energy": total,
               "energy_ratio": total / self.e_initial[0] if self.e_initial[0] > 0 else math.nan}
        self.rows["t"].append(s.t)
        self.rows["v_end"].append(float(s.v[self.p0]))
        for k in EXTRA:
            self.rows[k].append(row[k])
        return row


def simulate(cfg: Config, out: Path) -> tuple[dict, dict]:
    """Run the stage writing history.csv (and the ParaView series) in ``out`` as it goes
    (fem.problem.run_stages); returns the histories (arrays) and run statistics. A Newton failure or
    an interruption propagates, the history up to it on disk."""
    assembled, stage, steps, state = build(cfg)
    columns = BarColumns(cfg, assembled)
    probes = (NodeProbe("u_end", "P0", "u", "x"), NodeProbe("v_end", "P0", "v", "x"))
    outcome = run_stages(assembled, [stage], out, Settings(steps=steps, newton=NEWTON, probes=probes,
                                                          paraview=cfg.paraview, observers=(columns,),
                                                          body_watches=()), state=state)
    outcome.reraise()
    stats = {k: v for k, v in outcome.stats.items() if k != "stepping_s"}
    books = energy_report(assembled.model, outcome.state)
    return {k: np.asarray(v, dtype=float) for k, v in columns.rows.items()}, {**stats, "energy_books": books}


def parameters(cfg: Config) -> dict:
    p = asdict(cfg)
    p.update(wave_speed=cfg.c, h=cfg.h, penalty_stiffness=cfg.penalty_stiffness if cfg.method == "penalty" else None,
             theta=THETA if cfg.method == "theta" else None)
    return p


def _fmt(x) -> str:
    return "-" if x is None else f"{x:.6g}"


def table(cfg: Config, m: dict, ex: dict) -> list[tuple[str, object, object]]:
    rows = [("contact start [s]", m["contact_start"], ex["contact_start"]),
            ("contact duration [s]", m["contact_duration"], ex["contact_duration"]),
            ("mean contact stress [Pa]", m["mean_contact_stress"], ex["mean_contact_stress"]),
            ("rebound velocity [m/s]" if cfg.setup == "wall" else "end velocity after contact [m/s]",
             m["rebound_velocity"], ex["rebound_velocity"]),
            ("initial energy [J]", m["initial_energy"], ex["initial_energy"]),
            ("max energy ratio", m["max_energy_ratio"], 1.0),
            ("max energy ratio - 1", None if m["max_energy_ratio"] is None else m["max_energy_ratio"] - 1, 0.0),
            ("final energy ratio", m["final_energy_ratio"], 1.0),
            ("contact stress L2 error", m["contact_stress_l2_error"], 0.0)]
    for t, r in zip(m["energy_after_contacts_times"], m["energy_after_contacts"]):
        rows.append((f"energy ratio at t = {t:.6g} s", r, 1.0))
    return rows


def print_report(cfg: Config, summary: dict, notes: list[str]) -> str:
    """The table computed vs exact and the checks, on stdout; returns it as markdown for report.md."""
    m, ex = summary["measured"], summary["exact"]
    head = (f"bar impact, --setup {cfg.setup} ({summary['configuration']}): L = {cfg.length:g} m, "
            f"E = {cfg.young:g} Pa, rho = {cfg.rho:g} kg/m^3, nu = {cfg.poisson:g}, c = {cfg.c:.6g} m/s"
            + (f", V = {cfg.velocity:g} m/s, gap = {cfg.gap:g} m" if cfg.setup == "wall" else "")
            + f"; nx = {cfg.nx}, dt = {cfg.dt:.6g} s, t_end = {cfg.t_end:.6g} s; {cfg.method}, {cfg.mass} mass"
            + (f", release {cfg.release}" if cfg.release != "none" else "")
            + (f", HHT alpha {cfg.alpha:g}" if cfg.scheme == "hht" else ""))
    lines = [head, *notes]
    lines.append(f"{'quantity':36s} {'computed':>14s} {'exact':>14s}")
    for name, value, ref in table(cfg, m, ex):
        lines.append(f"{name:36s} {_fmt(value):>14s} {_fmt(ref):>14s}")
    lines.append(f"{'check':36s} {'value':>14s} {'reference':>14s} {'tolerance':>10s} {'kind':>9s} {'ok':>4s}")
    for c in summary["checks"]:
        ok = {True: "yes", False: "NO", None: "-"}[c["passed"]]
        lines.append(f"{c['quantity']:36s} {_fmt(c['value']):>14s} {_fmt(c['reference']):>14s} "
                     f"{_fmt(c['tolerance']):>10s} {c['kind']:>9s} {ok:>4s}")
    run = summary["run"]
    lines.append(f"{run['steps']} steps, {run['newton_iterations']} Newton iterations, {run['wall_s']:.1f} s")
    text = "\n".join(lines)
    print(text)
    return "# Bar impact\n\n```\n" + text + "\n```\n"


def _main(argv) -> int:
    args = parse_args(argv)
    cfg = resolve(args)
    est = estimate(nodes=2 * (cfg.nx + 1.0), cells=float(cfg.nx), nodes_per_cell=4, steps=steps_of(cfg),
                   row_bytes=200.0)
    check_resources(est, force=args.force, what=f"--dt {cfg.dt:g} s to --t-end {cfg.t_end:g} s with --nx {cfg.nx}",
                    remedy="a larger --dt, a shorter --t-end, a smaller --nx")
    build(cfg)  # a model or contact refused by the library: exit 2 before anything is written
    out = prepare_output(args.out if args.out is not None else Path("results/bar_impact") / cfg.setup)
    notes = []
    if cfg.method == "theta" and not cfg.mass_given:
        notes.append("note: --method theta: the mass is consistent (the default redistributed mass leaves the "
                     "contact nodes without mass, and the Moreau-Jean scheme needs a mass on every dof)")
    if cfg.alpha is not None and cfg.alpha < -1.0 / 3.0:
        print(f"warning: --alpha {cfg.alpha:g} is outside [-1/3, 0]: HHT is then first-order accurate and damps "
              "strongly", file=sys.stderr)
    gone = departures(cfg)
    record = Run.start(out, f"bar_impact_{cfg.setup}", command_line("cases/bar_impact.py", argv),
                       "custom" if gone else "benchmark", parameters(cfg), t_end=cfg.t_end, quiet=args.quiet)
    h, stats = simulate(cfg, out)
    ex = exact(cfg)
    m = measure(cfg, h)
    rows = checks(cfg, m, ex)
    summary = {**{k: m[k] for k in ("contact_duration", "contact_start", "rebound_velocity", "mean_contact_stress",
                                    "max_energy_ratio", "final_energy_ratio", "initial_energy")},
               "initial_energy_exact": ex["initial_energy"],
               "energy_after_contacts": m["energy_after_contacts"],
               "energy_after_contacts_times": m["energy_after_contacts_times"],
               "contact_stress_l2_error": m["contact_stress_l2_error"],
               "contacts": m["contacts"], "exact": ex, "measured": m, "departures": gone,
               "notes": [n.removeprefix("note: ") for n in notes],
               "checks": rows, "all_passed": all(r["passed"] is not False for r in rows),
               "run": {k: v for k, v in stats.items() if k != "energy_books"}, "energy_books": stats["energy_books"]}
    summary = record.final("complete", summary)
    text = print_report(cfg, summary, notes)
    output_folder.write_text(out / "report.md", text)
    summary = record.close()  # summary.json last
    print(f"results: {out}/ (summary.json, history.csv, report.md{', solution.' + series_format() if cfg.paraview else ''})")
    return 0


def main(argv=None) -> int:
    """Run the case (exit codes: fem.run.lifecycle)."""
    return execute(_main, argv)


if __name__ == "__main__":
    sys.exit(main())
