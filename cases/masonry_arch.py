"""A masonry arch of voussoirs: does it stand under its own weight, and under what horizontal
acceleration does it collapse? The finite-element run beside the limit analysis of its rigid blocks.

The arch (meshes.assemblies.arch): --voussoirs N voussoirs with radial joints, a semicircle of
centre-line radius --radius R and thickness t = --thickness-ratio x R, on two abutments whose bottoms
are held (the arch's own strength: the springings are dry joints that may hinge, the abutments do not
move). Each voussoir is 2 x 2 QUA4 elements (the builder's fewest) of stone (E --young, nu 0.2, rho
--density), every joint a Lagrange contact of friction --mu, found from the mesh, all one contact term
(fem.problem.Contact, merged).

Two runs, one flag apart:
* without --ramp-g: gravity ramped over 0.05 s and held to --t-end (3 s): the arch stands or
  collapses (summary.json ``collapse.collapsed``; fem.problem.collapse);
* with --ramp-g A: the self-weight ramped over 0.05 s from t = -0.25 s, then the base accelerated along +x by a
  smooth ramp from 0 to A g over --ramp-time (fem.loads.base_motion.Ramp) and held: the collapse
  multiplier |a_x| / g at the collapse's onset (``collapse.collapse_multiplier``) and the hinges.

The reference, recomputed for every run's geometry and friction (contact.references.limit_analysis:
the equilibrium linear program of Livesley 1978 on the voussoirs' own polygons): the minimum thickness
t/R at which the arch stands, its collapse multiplier lambda under the inertia of the ramp (a base
accelerated along +x loads the blocks along -x) and the joints where it hinges. summary.json
``limit_analysis``; the console prints both. For N = 15 and 27 the run stands 3 s at 1.02 times the
minimum thickness and collapses at 0.98 times it, and under a ramp to twice lambda over 10 s its
multiplier lies within 3 % of lambda at t/R = 0.15, 0.20 and 0.25, hinged at the same four joints
(tests/test_masonry_arch.py; the continuous arch's minimum, Milankovitch's t/R = 0.1075, Makris and
Alexakis 2013, is where N voussoirs tend as N grows).

Run::

    python cases/masonry_arch.py                                  # N 27, t/R 0.11: stands
    python cases/masonry_arch.py --thickness-ratio 0.104          # below the minimum: collapses
    python cases/masonry_arch.py --thickness-ratio 0.15 --ramp-g 0.3 --ramp-time 10
    python cases/masonry_arch.py --help

Outputs in --out (default results/masonry_arch): summary.json (``collapse``, ``limit_analysis``,
the energy books, the run's checks), report.md, history.csv (``moved``: the largest block motion over
its size), summary.png, and with --paraview the ParaView series (solution.xdmf).
Exit codes (fem.run.lifecycle): 0 done; 2 invalid input (one line naming the flag); 1 a failed run.
"""
from __future__ import annotations

if __name__ == "__main__":  # Ctrl-C while the imports load: exit 130, one line, no traceback
    from cases import early_exit  # noqa: F401

import math
import sys
import tempfile
from pathlib import Path

from contact.laws import Lagrange
from contact.references import limit_analysis as la
from fem import BaseMotion, Body, ElasticMaterial, Problem, Ramp, SelfWeight, Support, Uniform, simulate
from fem.constants import GRAVITY
from fem.problem import Collapse, Contact
from fem.run.lifecycle import (BadInput, CaseParser, add_run_flags, check_resources, command_line, estimate, execute,
                               finite, prepare_output)
from meshes.assemblies import arch, write


def parse_args(argv=None):
    p = CaseParser(prog="masonry_arch.py", description=__doc__)
    p.add_argument("--voussoirs", type=int, default=27, help="N, the number of voussoirs (27)")
    p.add_argument("--radius", type=finite, default=1.0, help="R, the centre line's radius [m] (1)")
    p.add_argument("--thickness-ratio", type=finite, default=0.11, help="t / R (0.11)")
    p.add_argument("--mu", type=finite, default=0.8, help="Coulomb coefficient of the joints (0.8)")
    p.add_argument("--young", type=finite, default=2e10, help="E of the stone [Pa] (2e10)")
    p.add_argument("--density", type=finite, default=2500.0, help="rho of the stone [kg/m^3] (2500)")
    p.add_argument("--ramp-g", type=finite, default=None,
                   help="the base's horizontal acceleration ramped to this [g] (default: none, self-weight only)")
    p.add_argument("--ramp-time", type=finite, default=10.0, help="the ramp's duration [s] (10)")
    p.add_argument("--t-end", type=finite, default=None, help="end of the run [s] (3 s, or the ramp's time)")
    p.add_argument("--dt", type=finite, default=None, help="time step [s] (2e-3, 5e-3 under a ramp)")
    p.add_argument("--paraview", action="store_true", help="write the ParaView series")
    p.add_argument("--out", type=Path, default=Path("results/masonry_arch"), help="output folder")
    add_run_flags(p)
    a = p.parse_args(argv)
    if not 3 <= a.voussoirs <= 200:
        raise BadInput(f"--voussoirs: an integer from 3 to 200, got {a.voussoirs}")
    for flag, value in (("--radius", a.radius), ("--young", a.young), ("--density", a.density),
                        ("--ramp-time", a.ramp_time)):
        if not value > 0:
            raise BadInput(f"{flag}: must be > 0, got {value:g}")
    if not 0.01 <= a.thickness_ratio <= 1.0:
        raise BadInput(f"--thickness-ratio: t / R from 0.01 to 1, got {a.thickness_ratio:g}")
    if not 0 <= a.mu <= 10:
        raise BadInput(f"--mu: from 0 to 10, got {a.mu:g}")
    if a.ramp_g is not None and not 0 < abs(a.ramp_g) <= 5:
        raise BadInput(f"--ramp-g: a ramp to between 0 and 5 g (not 0), got {a.ramp_g:g}")
    for flag, value in (("--t-end", a.t_end), ("--dt", a.dt)):
        if value is not None and not value > 0:
            raise BadInput(f"{flag}: must be > 0, got {value:g}")
    return a


def limit_analysis(assembly, mu: float, ramp_g: float | None, n: int, radius: float) -> dict:
    """The rigid blocks' reference for this arch: its minimum thickness t/R, and under a ramp its
    multiplier and hinges (the blocks loaded against the base's acceleration)."""
    blocks, joints, _, labels = la.of_assembly(assembly, mu)
    reference = {"minimum_thickness_ratio": la.thinnest(lambda r: la.of_assembly(arch(n, radius, r * radius, base=False),
                                                                                 mu), bracket=(0.01, 0.9)),
                 "stands": la.stands(blocks, joints)}
    if ramp_g is not None:
        state = la.collapse_multiplier(blocks, joints, direction=-math.copysign(1.0, ramp_g))
        reference["collapse_multiplier"] = state.multiplier
        reference["hinges"] = [labels[k] for k, _ in state.hinges]
    return reference


def arch_problem(folder: Path, n: int, radius: float, ratio: float, mu: float, young: float = 2e10,
                 density: float = 2500.0):
    """(the assembly, its Problem): the arch of ``n`` voussoirs, centre-line radius ``radius`` [m],
    thickness ``ratio`` x radius, 2 x 2 QUA4 a voussoir of stone (E ``young`` [Pa], nu 0.2, rho
    ``density`` [kg/m^3]) on held abutments, its joints found from the mesh written in ``folder``
    (``arch.msh``), each a Lagrange contact of friction ``mu``, all of them one contact term ``JOINTS``
    (fem.problem.Contact ``merge``: the run of a pair each, twice as fast)."""
    assembly = arch(n, radius, ratio * radius, size=10 * radius, base=False)  # the fewest elements: 2 x 2 a voussoir
    stone = ElasticMaterial(young=young, poisson=0.2, density=density)
    problem = Problem(write(assembly, Path(folder) / "arch.msh"), bodies=[Body(b.name, stone) for b in assembly.bodies],
                      supports=[Support(g) for g in assembly.held],
                      contacts=[Contact(Lagrange(mu=mu), merge=True, name="JOINTS")])
    return assembly, problem


def arch_stages(ramp_g: float | None = None, ramp_time: float = 10.0, t_end: float | None = None) -> list:
    """Without ``ramp_g``: gravity ramped over 0.05 s, held to ``t_end`` (3 s). With it: the same self-weight
    from t = -0.25 s to 0, then the base's acceleration ramped along +x to ``ramp_g`` g over ``ramp_time``
    [s] and held, to ``t_end`` (the ramp's time). (Dynamic, not a static Preload: in a static increment
    a joint node that carries nothing may flip open and closed at every iteration, the preload of a
    thick arch's joints then failing on round-off.)"""
    if ramp_g is None:
        return [SelfWeight(start=0.0, ramp_end=0.05, end=t_end or 3.0)]
    return [SelfWeight(start=-0.25, ramp_end=-0.2, end=0.0),
            BaseMotion(duration=t_end or ramp_time, x=Ramp(ramp_g * GRAVITY, ramp_time, math.inf))]


def _with_relative_errors(checks) -> list[dict]:
    """The run's checks with the cases' ``rel_error``: a relative check's error, None for a bound."""
    return [{**c, "rel_error": c.get("error") if c.get("criterion") == "relative" else None} for c in checks]


def _main(argv) -> int:
    a = parse_args(argv)
    n, radius = a.voussoirs, a.radius
    stages = arch_stages(a.ramp_g, a.ramp_time, a.t_end)
    dt = a.dt or (2e-3 if a.ramp_g is None else 5e-3)
    t_end = stages[-1].end if a.ramp_g is None else stages[-1].duration
    check_resources(estimate(4 * (n + 2), n + 2, 4, t_end / dt), force=a.force,
                    what=f"--dt {a.dt or dt:g} s to --t-end {t_end:g} s")
    prepare_output(a.out)  # refused (a file, a folder another run holds) before the limit analysis runs
    with tempfile.TemporaryDirectory(prefix="rockfem_arch_") as tmp:
        assembly, problem = arch_problem(Path(tmp), n, radius, a.thickness_ratio, a.mu, a.young, a.density)
        reference = limit_analysis(assembly, a.mu, a.ramp_g, n, radius)
        outcome = simulate(problem, stages, out=a.out, quiet=a.quiet, case="masonry_arch",
                           command=command_line("cases/masonry_arch.py", argv),
                           parameters={k: v for k, v in vars(a).items() if k != "out"},
                           finish=lambda outcome: {"limit_analysis": reference, "checks": _with_relative_errors(
                               outcome.checks)}, steps=Uniform(dt),
                           collapse=Collapse(), paraview=a.paraview)
    c = outcome.collapse or {}
    print(f"arch of {n} voussoirs, t/R = {a.thickness_ratio:g}, mu = {a.mu:g}: {outcome.status}")
    print(f"  limit analysis: stands from t/R = {reference['minimum_thickness_ratio']:.5f}"
          f" ({'stands' if reference['stands'] else 'cannot stand'} at {a.thickness_ratio:g})")
    verdict = {True: f"collapsed at t = {c.get('collapsed_at')} s", False: f"stands to t = {outcome.t_reached:g} s",
               None: "undecided"}[c.get("collapsed")]
    print(f"  finite elements: {verdict}")
    if a.ramp_g is not None:
        lam, found = reference["collapse_multiplier"], c.get("collapse_multiplier")
        print(f"  collapse multiplier: limit analysis {lam:.4f}, finite elements "
              + (f"{found:.4f} ({100 * (found / lam - 1):+.2f} %)" if found is not None else "none (no collapse)"))
        print(f"  hinges: limit analysis {', '.join(reference['hinges'])}")
        print(f"          finite elements {', '.join(c.get('hinges') or []) or 'none'}")
    if outcome.energy:
        print(f"  energy books error: {100 * outcome.energy['relative_error']:.3g} % of the input")
    print(f"results: {a.out}/summary.json")
    return 0 if outcome.status == "complete" else 1


def main(argv=None) -> int:
    """Run the case (exit codes: fem.run.lifecycle)."""
    return execute(_main, argv)


if __name__ == "__main__":
    sys.exit(main())
