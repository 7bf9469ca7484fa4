"""Every key of a problem file and what it means: the one source of the reader's key lists and of the
reference page docs/problem_keys.md.

    python docs/problem_keys.py      # writes docs/problem_keys.md

:data:`TABLES` holds each table of the file (its place, what it is, its keys with their meaning, unit and
default); the reader (fem/problem/file/build.py, fem/problem/file/checks.py) takes its
lists of known keys from here (:func:`keys`), so a key it accepts is a key this page documents.
The keys that come from a class's fields (a contact law's, a closed-form motion's, a steps kind's) are
documented here too and tests/test_problem_keys.py checks each field has its line; the physical range
of a number (fem/ranges.py; :data:`MATERIAL_RANGES` and the others below are the reader's, the ranges it
checks those numbers against) is added to its line by :func:`markdown`.
"""
from __future__ import annotations

from dataclasses import dataclass

from fem import ranges as r


@dataclass(frozen=True)
class Table:
    """A table of the problem file: ``place`` as it is written in TOML, ``what`` it states, and its
    ``keys``: (key, meaning) pairs, in the order the reader lists them."""

    place: str
    what: str
    keys: tuple[tuple[str, str], ...]

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(k for k, _ in self.keys)


NEWTON = ("rela", "Newton's relative residual bound, Code_Aster's RESI_GLOB_RELA"), \
         ("maxi", "Newton's absolute residual bound [N] when the loads vanish, RESI_GLOB_MAXI"), \
         ("max_iterations", "iterations before a step is cut"), \
         ("predictor", 'the first iterate: "constant_velocity", "constant_acceleration" or "none"')
HOLD = "supports of this stage only, a list of { group, components } tables (as [[supports]])"
FRICTION = "the friction coefficient of every pair in this stage (default: each pair's own mu)"
EVENTS = ('when the Lagrange and augmented pairs close and open: "immediate" (Code_Aster\'s, at the end of the '
          'step) or "located" (the step cut at the landing or the lift); default: as the stage before left them, '
          'at first located where the slave nodes are massless')
STAGE_NEWTON = "{ rela, maxi, max_iterations, predictor } (keys left out: the run's settings)"

TABLES = (
    Table("(top level)", "the problem", (
        ("mesh", "the gmsh .msh file, relative to the problem file's folder (required)"),
        ("mass", 'the mass matrix: "consistent" (default), "lumped" or "redistributed" (the slave nodes of '
                 'every pair massless, each body keeping its mass, centre and inertia)'),
        ("gravity", "g [m/s^2], default 9.81"),
        ("thickness", "the out-of-plane thickness [m] of every body, default 1"),
        ("materials", "the named materials, [materials.NAME] tables"),
        ("bodies", "the deformable bodies, [[bodies]] tables"),
        ("supports", "the fixed components, [[supports]] tables"),
        ("pairs", "the contact pairs, [[pairs]] tables"),
        ("contacts", "contact among bodies found from the mesh, [[contacts]] tables"),
        ("stages", "the stages in order, [[stages]] tables (required)"),
        ("steps", "the time steps: one [steps] table for every stage, or a [steps.STAGE] table per stage"),
        ("scheme", "the time scheme's parameters, [scheme]"),
        ("output", "where and what the run writes, [output]"),
        ("point_masses", "discrete masses, [point_masses]"),
        ("node_groups", "node groups made of the mesh's groups, [node_groups]"),
        ("springs", "springs and dashpots, [[springs]] tables"),
        ("checks", "the quantities the run is graded by, [[checks]] tables"),
        ("energy_creation", "stop the run at a contact event that gives energy back, [energy_creation]"),
        ("collapse", "say whether an assembly of blocks collapsed, when, under what acceleration, [collapse]"),
    )),
    Table("[materials.NAME]", "a linear elastic material (plane stress), named NAME", (
        ("young", "Young's modulus E [Pa] (required)"),
        ("poisson", "Poisson's ratio nu (required)"),
        ("density", "density rho [kg/m^3] (required)"),
        ("rayleigh_stiffness", "Rayleigh damping a in C = a K + b M [s], Code_Aster's AMOR_ALPHA (default 0)"),
        ("rayleigh_mass", "Rayleigh damping b [1/s], Code_Aster's AMOR_BETA (default 0)"),
    )),
    Table("[[bodies]]", "a deformable body: a surface group of the mesh", (
        ("group", "the mesh's surface group (required)"),
        ("material", "a name of [materials] (required)"),
        ("name", "the body's label in the results (default: its group)"),
        ("overturn_angle", "the rotation [rad] at which it counts as overturned and the run stops "
                           "(default 2 atan(w/h) of its bounding box)"),
        ("mass", 'its own mass matrix, "consistent", "lumped" or "redistributed" (default: the problem\'s)'),
    )),
    Table("[[supports]]", "components held at zero (in the table's frame under a base motion)", (
        ("group", "a node, line or surface group (required)"),
        ("components", 'the held components, ["x", "y"] (default both)'),
    )),
    Table("[[pairs]]", "a contact pair; with the keys of its law below", (
        ("slave", "the slave side: a line group (or a node group for a rigid plane or a biplane) (required)"),
        ("master", "the master side: a line group (or give plane or biplane instead)"),
        ("plane", "a rigid plane instead of a master: { point = [x, y], normal = [nx, ny] }"),
        ("biplane", "node i of slave against node i of other: { other, direction, dist_1, dist_2 }"),
        ("law", '"lagrange" (default), "augmented", "penalty", "moreau_jean" or "buckling"'),
        ("mu", "Coulomb's friction coefficient (required, except for buckling)"),
        ("name", "the pair's label in the results (default slave/master)"),
        ("clearance", "an initial distance [m] added to the gap, Code_Aster's JEU (default 0)"),
    )),
    Table("[[contacts]]", "contact among bodies found from the mesh: every interface between two of the bodies a "
          "pair (the upper body's face the slave, the lower one's the master), one law; with the keys of its law", (
        ("law", '"lagrange" (default), "augmented", "penalty", "moreau_jean" or "buckling"'),
        ("mu", "Coulomb's friction coefficient (required, except for buckling)"),
        ("bodies", "the bodies' surface groups among which contact is found (default: every body)"),
        ("tolerance", "how far off one line two faces may lie and still face each other [m] (default 1e-9 of the "
                      "mesh's size)"),
        ("clearance", "an initial distance [m] added to every pair's gap, Code_Aster's JEU (default 0)"),
        ("merge", "true: every interface found in one contact term, one pair named name (default false: a pair "
                  "each; a wall of hundreds of bricks runs many times faster merged)"),
        ("name", "the merged pair's name and its slave line group (default CONTACT_<k>, k its rank from 1)"),
    )),
    Table("plane = { ... }", "a rigid plane as a pair's master", (
        ("point", "a point of the plane [x, y] [m]"),
        ("normal", "its normal towards the slave side [nx, ny]"),
    )),
    Table("biplane = { ... }", "a node-to-node pair along a direction, Code_Aster's BI_PLAN", (
        ("other", "the node group facing slave, node i against node i (required)"),
        ("direction", "the direction of the gap, [dx, dy] (default [1, 0])"),
        ("dist_1", "the slave's side distance [m], DIST_1 (default 0)"),
        ("dist_2", "the other's side distance [m], DIST_2 (default 0)"),
    )),
    Table('[[pairs]] law = "augmented"', "the augmented Lagrangian, Code_Aster's CONTINUE", (
        ("coef_cont", "the normal augmentation, a factor of the mean slave stiffness, COEF_CONT (default 1)"),
        ("coef_frot", "the tangential augmentation, COEF_FROT (default 1)"),
    )),
    Table('[[pairs]] law = "penalty"', "penalty shock springs, Code_Aster's DIS_CHOC", (
        ("normal_stiffness", "the normal stiffness [N/m] per node, RIGI_NOR (required)"),
        ("normal_damping", "the normal dashpot [N s/m], AMOR_NOR (default 0)"),
        ("tangential_stiffness", "the tangential stiffness [N/m] of the stick phase, RIGI_TAN (default 0)"),
        ("tangential_damping", "the tangential dashpot [N s/m], AMOR_TAN (default 0)"),
        ("tension_allowed", "true: the element acts while the node penetrates even when its dashpot pulls; "
                            "false (default): compression only"),
    )),
    Table('[[pairs]] law = "buckling"', "a shock element that buckles, DIS_CHOC with FLAMBAGE (no mu)", (
        ("stiffness", "the elastic stiffness [N/m], RIGI_NOR (required)"),
        ("critical_force", "the buckling force [N], FNOR_CRIT (required)"),
        ("post_force", "the plateau's force after buckling [N], FNOR_POST_FL (required)"),
        ("plateau", "the plateau's length [m], LARG_PLAT (default 0)"),
        ("fall", "the crush over which the force falls from the critical to the post-buckling force [m], ENFO_FL "
                 "(default 0)"),
        ("post_displacements", "the residual crushes of the later branches [m], DEPL_POST_FL (a list)"),
        ("post_stiffnesses", "their stiffnesses [N/m], RIGI_POST_FL (a list)"),
        ("damping", "the dashpot [N s/m], AMOR_NOR (default 0)"),
        ("fall_damping", "the dashpot after buckling [N s/m], AMOR_FL (default: damping)"),
        ("post_dampings", "the later branches' dashpots [N s/m], AMOR_POST_FL (a list; default: fall_damping each)"),
        ("criterion", 'CRIT_AMOR: "INCLUS" (default: the damping force counted in the buckling criterion) or "EXCLUS"'),
    )),
    Table("[[springs]]", "springs and dashpots from each node of a group to the ground or to another group", (
        ("group", "the node group (required)"),
        ("stiffness", "[kx, ky] [N/m] (default [0, 0])"),
        ("damping", "[cx, cy] [N s/m] (default [0, 0])"),
        ("other", "a node group of the same count, its nodes paired in order with group's (default: the ground)"),
        ("name", "the spring's label in the results"),
    )),
    Table("[point_masses]", "discrete masses: GROUP = mass", (
        ("GROUP", "a node or line group = the mass [kg] at each of its nodes"),
    )),
    Table("[node_groups]", "new node groups, each the union of the nodes of groups of the mesh (Code_Aster's "
          "DEFI_GROUP UNION): NAME = [GROUP, ...]", (
        ("NAME", 'the new group\'s name = the groups (of any dimension) whose nodes it gathers, e.g. CORNERS = '
                 '["O", "O1", "A"]: a pair\'s slave, a support, a spring or a check may name it'),
    )),
    Table('[[stages]] kind = "preload"', "quasi-static: gravity and the constant loads applied in static increments", (
        ("kind", '"preload"'),
        ("name", 'the stage\'s name (default "preload")'),
        ("steps", "the number of static increments (default 5)"),
        ("friction", FRICTION),
        ("duration", "its pseudo-time span [s] (default 1)"),
        ("hold", HOLD),
        ("newton", STAGE_NEWTON),
    )),
    Table('[[stages]] kind = "self_weight"', "a dynamic gravity ramp", (
        ("kind", '"self_weight"'),
        ("name", 'default "self-weight"'),
        ("start", "its start [s] (absolute time; default where the stage before ended)"),
        ("ramp_end", "the time [s] gravity is full (required, after start)"),
        ("end", "its end [s] (required)"),
        ("hold", HOLD),
        ("friction", FRICTION),
        ("contact_events", EVENTS),
        ("newton", STAGE_NEWTON),
    )),
    Table('[[stages]] kind = "tilt"', "one-node groups turned rigidly about a pivot", (
        ("kind", '"tilt"'),
        ("name", 'default "tilt"'),
        ("start", "its start [s] (default where the stage before ended)"),
        ("end", "its end [s] (required)"),
        ("angle", "the angle [rad] at full ramp (required)"),
        ("nodes", "the one-node groups turned (required)"),
        ("pivot", "the one-node group they turn about (required)"),
        ("ramp", "{ times, values }: the fraction of the angle in time, linear between its points"),
        ("hold", HOLD),
        ("friction", FRICTION),
        ("contact_events", EVENTS),
        ("newton", STAGE_NEWTON),
    )),
    Table('[[stages]] kind = "imposed_motion"', "displacements imposed on groups", (
        ("kind", '"imposed_motion"'),
        ("name", 'default "imposed motion"'),
        ("start", "its start [s] (default where the stage before ended)"),
        ("end", "its end [s] (required)"),
        ("motions", "a list of { group, component, value, ramp } tables (required)"),
        ("hold", HOLD),
        ("friction", FRICTION),
        ("contact_events", EVENTS),
        ("newton", STAGE_NEWTON),
    )),
    Table('[[stages]] kind = "release"', "the bodies let go where the stage before left them", (
        ("kind", '"release"'),
        ("name", 'default "release"'),
        ("start", "its start [s] (default where the stage before ended)"),
        ("end", "its end [s] (required)"),
        ("velocity", "initial velocities: { GROUP = [vx, vy] } [m/s]"),
        ("acceleration", 'the initial acceleration: "equilibrium" (default) or "zero"'),
        ("friction", FRICTION),
        ("contact_events", EVENTS),
        ("newton", STAGE_NEWTON),
    )),
    Table('[[stages]] kind = "base_motion"', "the table moved by a horizontal and a vertical acceleration", (
        ("kind", '"base_motion"'),
        ("name", 'default "base motion"'),
        ("duration", "its span [s] (required)"),
        ("x", "the horizontal acceleration: a record or a closed form (below)"),
        ("y", "the vertical acceleration, the same way"),
        ("contact_events", EVENTS),
        ("newton", STAGE_NEWTON),
    )),
    Table("newton = { ... }", "Newton's settings of a stage (Code_Aster's CONVERGENCE)", NEWTON),
    Table("ramp = { ... }", "a piecewise-linear function of time, constant outside its points", (
        ("times", "its times [s], increasing"),
        ("values", "its values, one per time"),
    )),
    Table("motions = [{ ... }]", "one imposed displacement", (
        ("group", "a node group (required)"),
        ("component", '"x" or "y" (required)'),
        ("value", "the displacement [m] at full ramp (required)"),
        ("ramp", "{ times, values } (default: constant)"),
    )),
    Table("x = { record = ... }", "a recorded accelerogram (CSV columns t, a_1, a_2, ... or PEER .AT2)", (
        ("record", "the file, relative to the problem file's folder (required)"),
        ("kind", '"record" (optional)'),
        ("column", "the acceleration column, 1 the first after t (default 1)"),
        ("units", '"m/s2" or "g" (default m/s2; g for .AT2)'),
        ("scale", "a factor on the record (default 1)"),
        ("baseline", 'the baseline correction, "polynomial" (default) or "none"'),
        ("peak_g", "the (corrected) record scaled so that its peak is peak_g g"),
    )),
    Table("x = { kind = ... }", 'a closed-form acceleration: kind "harmonic", "sine-pulse", "cosine-pulse" or "ramp"', (
        ("kind", "the closed form (required)"),
        ("amplitude", "A [m/s^2] (or amplitude_g)"),
        ("amplitude_g", "A [g] (or amplitude)"),
        ("frequency", "f [Hz] (harmonic, pulses)"),
        ("cycles", "the number of periods (harmonic; default: for ever)"),
        ("smooth_start", "the raised-cosine ramp-in [s] (harmonic; default 0)"),
        ("ramp_time", "T_r [s]: the smooth ramp up and down (ramp)"),
        ("hold_time", "T_h [s] held at A between them (ramp; default 0, inf: for ever)"),
        ("scale", "a factor on the motion (default 1)"),
    )),
    Table('[steps] kind = "events"', "event-driven steps: coarse between contact events, fine through them (default)", (
        ("kind", '"events"'),
        ("dt", "the coarse step [s] (required)"),
        ("dt_fine", "the fine step through events [s] (required)"),
        ("fine_after", "the fine span after a predicted impact or a status change [s] (default 3e-3)"),
        ("lookahead", "a closing predicted within this many coarse steps starts fine steps (default 1.5)"),
        ("growth", "the largest ratio of two successive coarse steps (default 2)"),
        ("tolerance", "the local error bound of a step (default none: steps grow to dt)"),
        ("archive_every", "a ParaView frame every this many steps (default 10)"),
    )),
    Table('[steps] kind = "uniform"', "a constant step", (
        ("kind", '"uniform"'),
        ("dt", "the step [s] (required)"),
        ("archive_every", "a ParaView frame every this many steps (default 10)"),
        ("alpha", "HHT alpha of these steps (default: [scheme]'s)"),
        ("theta", "Moreau-Jean theta of these steps (default: [scheme]'s)"),
    )),
    Table('[steps] kind = "windows"', "Code_Aster's list of time windows, each its own step and alpha", (
        ("kind", '"windows"'),
        ("rows", "[[t_start, t_end, dt, alpha, fine], ...] (a sixth item: modified equilibrium) (required)"),
        ("refine_dt", "in coarse windows, fine steps of this length [s] from a predicted impact (default: no refinement)"),
        ("refine_alpha", "its HHT alpha (default -0.2)"),
        ("refine_after", "how long past the impact the refinement lasts [s] (default 3e-3)"),
        ("settle", "true (default): fine windows and refinements go on by 1 ms (10 ms at most) while statuses change"),
        ("watch", 'the node groups whose status changes settle watches, ["O", "A"] (default: every contact node)'),
        ("archive_every", "a ParaView frame every this many steps (default 10)"),
        ("theta", "Moreau-Jean theta (default: [scheme]'s)"),
    )),
    Table('[steps] kind = "central_differences"', "explicit central differences (a problem of discrete masses)", (
        ("kind", '"central_differences"'),
        ("dt", "the step [s] (required)"),
        ("modes", "integrate the N lowest modes instead of the physical dofs (default: the dofs)"),
        ("archive_every", "a ParaView frame every this many steps (default 1)"),
    )),
    Table("[scheme]", "the time scheme", (
        ("alpha", "HHT alpha (default -0.1)"),
        ("theta", "Moreau-Jean theta (default 0.55)"),
        ("alpha_fine", "HHT alpha of the fine event-driven steps (default -0.2; 0 lets reactions alternate)"),
    )),
    Table("[energy_creation]", "stop the run, failed, at a contact event that gives back more than limit x scale of "
          "the energy the contacts took (a law that stores no energy only takes it: what comes back is the time "
          "scheme's, not the physics')", (
        ("scale", "the energy scale [J] (required): the energy at stake, e.g. a block's potential-energy drop to "
                  "its first impact"),
        ("limit", "the fraction of the scale an event may give back, in (0, 1] (default 0.01)"),
        ("stages", "the names of the dynamic stages watched (default: every one)"),
    )),
    Table("[collapse]", "the collapse verdict of an assembly of blocks (an arch, a wall): a block's motion is its "
          "nodes' largest displacement since the first dynamic stage began over its size (its bounding box's "
          "diagonal); summary.json collapse: collapsed, collapsed_at, onset_at, collapse_multiplier (under a "
          "ramp), mechanism (rotation or sliding), hinges", (
        ("displacement", "the motion at which the assembly has collapsed, in (0, 10] (default 0.1)"),
        ("onset", "the motion at which its collapse is seen to begin, 8 times it at most displacement "
                  "(default 0.001)"),
        ("stop", "end the run, complete, once collapsed (default true)"),
    )),
    Table("[output]", "where and what the run writes", (
        ("out", "the output folder (default results/<file stem>, from the current folder)"),
        ("paraview", "true: write the ParaView series (default false)"),
        ("format", '"xdmf" (NAME.xdmf over NAME.h5, default) or "pvd" (a .vtu a step)'),
    )),
    Table("[[checks]]", "a quantity the run is graded by, as Code_Aster's TEST_RESU (docs/problem.md, Checks)", (
        ("quantity", "rotation, rotation_rate, reaction, gap, penetration, friction_demand, displacement, "
                     "velocity, kinetic_energy, strain_energy, uplift_time, overturn_time, impact_time, impact_kinetic_energy, "
                     "or a node's shock (Code_Aster's POST_DYNA_MODA_T): shock_force, shock_instant, shock_duration, "
                     "shock_impulse, impact_velocity"),
        ("of", "the body, pair or one-node group it is read on"),
        ("node", "a slave node's group, for a pair's reaction, gap or shocks at that node"),
        ("component", '"x" or "y", for a displacement or a velocity, or a reaction at a node (its contact force on '
                      'the slave body)'),
        ("at", "the instant [s] it is read at (linear between steps)"),
        ("measure", '"max", "min", "max_abs" or "integral" over its window'),
        ("window", "[t0, t1] [s] (default the whole stage)"),
        ("ends", 'whether the window\'s ends belong to it: ["closed", "closed"] (default), "open" leaves one out'),
        ("result", '"value" (default) or "instant": the instant of the max or min'),
        ("impact", "the impact's or shock's number, 1 the first (impact and shock quantities)"),
        ("stage", "the dynamic stage whose history it reads (default the last)"),
        ("reference", "the reference value (required)"),
        ("tolerance", "the tolerance (required)"),
        ("criterion", '"relative" (default) or "absolute"'),
        ("source", "where the reference comes from (required)"),
        ("name", "the check's label"),
        ("gate", "true: graded as soon as its stage ends, the run stopping there, failed, if not met (a history "
                 "quantity with its stage named; default false)"),
    )),
)

#: the physical range (fem.ranges) of each number of a material
MATERIAL_RANGES = {"young": r.MATERIAL_YOUNG, "poisson": r.POISSON, "density": r.DENSITY,
                   "rayleigh_stiffness": r.RAYLEIGH_ALPHA, "rayleigh_mass": r.RAYLEIGH_BETA}
#: the physical range (fem.ranges) of each number of a law (a list of numbers: each of them)
LAW_RANGES = {"mu": r.FRICTION, "coef_cont": r.AUGMENTATION, "coef_frot": r.AUGMENTATION,
              "normal_stiffness": r.STIFFNESS, "normal_damping": r.DASHPOT, "tangential_stiffness": r.STIFFNESS_OR_ZERO,
              "tangential_damping": r.DASHPOT, "stiffness": r.STIFFNESS, "critical_force": r.FORCE,
              "post_force": r.FORCE, "plateau": r.LENGTH_OR_ZERO, "fall": r.LENGTH_OR_ZERO, "damping": r.DASHPOT,
              "fall_damping": r.DASHPOT, "post_displacements": r.LENGTH_OR_ZERO, "post_stiffnesses": r.STIFFNESS,
              "post_dampings": r.DASHPOT}
#: the physical range of each number of a closed-form base motion (amplitude: checked in g, signed)
MOTION_RANGES = {"frequency": r.FREQUENCY, "cycles": r.CYCLES, "smooth_start": r.DURATION_OR_ZERO,
                 "ramp_time": r.DURATION, "hold_time": r.DURATION_OR_ZERO}
#: the physical range of each number of a steps table (after STEP_BOUNDS' signs)
STEP_RANGES = {"dt": r.TIME_STEP, "dt_fine": r.TIME_STEP, "tolerance": r.STEP_TOLERANCE, "refine_dt": r.TIME_STEP,
               "refine_after": r.DURATION_OR_ZERO, "fine_after": r.DURATION_OR_ZERO, "lookahead": r.LOOKAHEAD,
               "growth": r.STEP_GROWTH, "archive_every": r.ARCHIVE_EVERY, "modes": r.MODES}

_BY_PLACE = {t.place: t for t in TABLES}


def table(place: str) -> Table:
    """The table written ``place`` (KeyError naming it if there is none)."""
    return _BY_PLACE[place]


def keys(place: str) -> tuple[str, ...]:
    """The keys of the table written ``place``, in order."""
    return table(place).names


def table_ranges() -> dict[str, dict]:
    """place -> {key: the fem.ranges.Range the reader checks that key's numbers against}."""
    laws = [t.place for t in TABLES if t.place.startswith("[[pairs]]")]
    steps = [t.place for t in TABLES if t.place.startswith("[steps]")]
    return {"[materials.NAME]": MATERIAL_RANGES, **{p: LAW_RANGES for p in laws},
            "x = { kind = ... }": MOTION_RANGES, **{p: STEP_RANGES for p in steps}}


def markdown(ranges: dict[str, dict] | None = None) -> str:
    """The reference page: one section per table, a row per key; ``ranges``: place -> {key: Range} (the
    physical range added to the key's line)."""
    ranges = table_ranges() if ranges is None else ranges
    lines = ["# Problem file keys", "",
             "Every key of a problem file, table by table, generated from the reader's own list of keys",
             "(`python docs/problem_keys.py`; a test checks this page is its output).",
             "How the file is read, its overrides and its refusals: [Your own problem](problem.md).", ""]
    for t in TABLES:
        lines += [f"## `{t.place}`", "", t.what[0].upper() + t.what[1:] + ".", "", "| key | meaning |", "|---|---|"]
        for key, meaning in t.keys:
            kind = ranges.get(t.place, {}).get(key)
            extra = f"; physical range {kind.interval()}" if kind is not None else ""
            lines.append(f"| `{key}` | {meaning}{extra} |")
        lines.append("")
    return "\n".join(lines)
