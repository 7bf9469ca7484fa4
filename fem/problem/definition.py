"""A user's problem as data: a mesh whose physical groups the user named, the bodies, supports and
contact pairs stated on those names, gravity and the mass matrix.

    problem = Problem("stack.msh",
                      bodies=[Body("PLINTH", concrete), Body("BRICK_1", granite)],
                      supports=[Support("FLOOR_BASE")],
                      pairs=[Pair("BRICK_1_BOTTOM", "PLINTH_TOP", Lagrange(mu=0.6))])

Nothing here knows a contact law: a pair holds a law object (:mod:`contact.laws`) that builds its own
term (``law.build(model, slave, master, located)``) and says which time scheme it needs
(``law.scheme``: ``"newmark"`` or ``"theta"``). :func:`assemble` turns the data into the model and
terms a simulation integrates, checking every group name first: a wrong one is refused as
:class:`fem.ranges.BadInput` naming the key and the groups the mesh has.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Mapping

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components

from fem import ranges
from fem.constants import GRAVITY
from fem.mesh.check import check_mesh
from fem.mesh.mesh import Mesh, MeshError
from fem.mesh.read import read_mesh
from fem.model.assembly import KINEMATICS, Model
from fem.model.mass import MASS_KINDS
from fem.model.material import ElasticMaterial
from fem.problem import interfaces
from fem.ranges import BadInput
from fem.stage.discrete import SpringProperties, Springs

COMPONENTS = ("x", "y")


@dataclass(frozen=True)
class Body:
    """A deformable body: the surface group ``group`` of the mesh, its ``material`` (each of its numbers
    refused outside its physical range: ElasticMaterial.check_ranges, BadInput naming
    ``bodies.LABEL.material.FIELD``).

    overturn_angle : |rotation| [rad] at which the body counts as overturned (the run stops there);
        None: 2 atan(w / h) of the body's bounding box (w wide, h high), the angle at which a
        rectangular block rocking on a base corner has passed its balance point by as much again.
    name : label in histories and reports (default: the group).
    mass : the body's own mass matrix, "consistent", "lumped" (HRZ) or "redistributed" (the slave
        nodes of its pairs massless, the body keeping its mass, centre and inertia: fem.model.mass);
        None: the problem's."""

    group: str
    material: ElasticMaterial
    overturn_angle: float | None = None
    name: str | None = None
    mass: str | None = None

    def __post_init__(self) -> None:
        if callable(getattr(self.material, "check_ranges", None)):  # each field within its physical range
            self.material.check_ranges(f"bodies.{self.label}.material")

    @property
    def label(self) -> str:
        return self.name or self.group


@dataclass(frozen=True)
class Support:
    """The nodes of ``group`` held fixed in ``components`` (in the frame of the moving base when a
    base motion is applied: Code_Aster DDL_IMPO with the run in the table's frame)."""

    group: str
    components: tuple[str, ...] = COMPONENTS


@dataclass(frozen=True)
class Pair:
    """Contact of the slave line (or node) group ``slave`` on the master line group ``master`` (node
    to segment), on a rigid plane (an object with ``point`` and unit ``normal``, pointing toward the
    slave: :class:`contact.zone.RigidPlane`) or on the nodes of another node group
    (:class:`contact.zone.BiPlane`: an obstacle naming its ``groups``), with the law ``law``
    (:mod:`contact.laws`, its own Coulomb coefficient). ``clearance``: Code_Aster's JEU [m], added to
    the geometric gap (the surfaces that far apart when they touch geometrically; a shock element
    ``clearance`` above its plane). ``name``: label in histories and reports (default ``slave/master``)."""

    slave: str
    master: object
    law: object
    name: str | None = None
    clearance: float = 0.0

    def __post_init__(self) -> None:
        c = self.clearance
        if isinstance(c, bool) or not isinstance(c, (int, float)) or not math.isfinite(c):
            raise BadInput(f"pairs.{self.label}.clearance: a finite number of metres, got {c!r}")
        ranges.check_key(f"pairs.{self.label}.clearance", c, ranges.GAP, signed=True)

    @property
    def label(self) -> str:
        master = self.master if isinstance(self.master, str) else getattr(self.master, "name", "plane")
        return self.name or f"{self.slave}/{master}"


@dataclass(frozen=True)
class Spring:
    """Linear springs and dashpots (Code_Aster DIS_T, K_T_D_N / A_T_D_N) from each node of the node
    group ``group`` to the ground, or to the nodes of ``other`` (same count, paired in order: K_T_D_L):
    ``stiffness`` (kx, ky) [N/m], ``damping`` (cx, cy) [N s/m] (fem.stage.discrete.Springs)."""

    group: str
    stiffness: tuple = (0.0, 0.0)
    damping: tuple = (0.0, 0.0)
    other: str | None = None
    name: str | None = None

    @property
    def label(self) -> str:
        return self.name or (self.group if self.other is None else f"{self.group}-{self.other}")


@dataclass(frozen=True)
class Contact:
    """Contact among bodies found from the mesh instead of stated pair by pair (fem.problem.interfaces): every
    interface between two of the bodies ``bodies`` (their surface groups; empty: every body of the problem)
    a node-to-segment :class:`Pair` with the law ``law``, named ``SLAVE/MASTER`` after the two bodies: its
    master the lower body's whole face (the left one's for a vertical interface), its slave the upper
    body's edges that face it; the pair's line groups ``SLAVE>MASTER`` and ``MASTER<SLAVE`` are added to
    the mesh. ``tolerance`` [m]: how far off one line two faces may lie and still face each other (default
    1e-9 of the mesh's bounding-box diagonal: a mesh file's coincident points). ``clearance``: every pair's
    Code_Aster JEU [m], as :class:`Pair`'s. ``merge``: the interfaces found make one pair, one contact term,
    named ``name`` (default ``CONTACT_<k>``, k its rank among the contacts from 1), its slave the line group
    of that name gathering every interface's slave edges and its master a
    :class:`fem.problem.interfaces.Joints` naming them: the same contact points, each slave node pairing
    only on its own interface's master, computed as one term (a wall of 200 bricks: its 575 joints one
    term's Python a Newton iteration instead of 575; docs/performance.md); the run then reports the
    contact as one pair (its history columns, penetration, impacts) and the collapse's hinges joint by joint."""

    law: object
    bodies: tuple = ()
    tolerance: float | None = None
    clearance: float = 0.0
    merge: bool = False
    name: str | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "bodies", tuple(self.bodies))
        if self.tolerance is not None and not (isinstance(self.tolerance, (int, float)) and math.isfinite(self.tolerance)
                                               and self.tolerance > 0):
            raise BadInput(f"contacts.tolerance: a finite number of metres > 0, got {self.tolerance!r}")
        Pair("contacts", "contacts", self.law, clearance=self.clearance)  # the clearance's own refusal
        if not isinstance(self.merge, bool):
            raise BadInput(f"contacts.merge: true or false, got {self.merge!r}")
        if self.name is not None and not (isinstance(self.name, str) and self.name.strip()):
            raise BadInput(f"contacts.name: a non-empty name, got {self.name!r}")


@dataclass(frozen=True)
class Problem:
    """A problem stated on the mesh's own group names.

    mesh : a :class:`fem.mesh.mesh.Mesh` or the path of a gmsh ``.msh`` file.
    bodies, supports, pairs : the :class:`Body`, :class:`Support` and :class:`Pair` entries.
    gravity : g [m/s^2], acting along -y (0: none).
    mass : "consistent", "lumped" or "redistributed" (the slave nodes of every pair massless, each
        body keeping its mass, centre and inertia: fem.model.mass): every body's unless it states its
        own (Body.mass).
    thickness : out-of-plane thickness [m] (plane stress).
    point_masses : node group -> mass [kg] added at each of its nodes (with no body: a problem of
        discrete masses, SDND's one-dof oscillators).
    springs : the :class:`Spring` s (discrete springs and dashpots to the ground or between nodes).
    kinematics : "total_lagrangian" (large rotations, default) or "small_strain".
    node_groups : new node group -> the groups (of any dimension) whose nodes it gathers, Code_Aster's
        DEFI_GROUP CREA_GROUP_NO UNION: ``{"CORNERS": ("O", "O1", "A")}`` makes one slave of three
        corner nodes (:func:`with_node_groups`).
    contacts : the :class:`Contact` s: contact among bodies found from the mesh, one law each (the pairs
        they find follow the stated ``pairs``).
    """

    mesh: object
    bodies: tuple
    supports: tuple = ()
    pairs: tuple = ()
    gravity: float = GRAVITY
    mass: str = "consistent"
    thickness: float = 1.0
    point_masses: Mapping[str, float] = field(default_factory=dict)
    kinematics: str = "total_lagrangian"
    springs: tuple = ()
    node_groups: Mapping[str, tuple] = field(default_factory=dict)
    contacts: tuple = ()

    def __post_init__(self) -> None:
        for name in ("bodies", "supports", "pairs", "springs", "contacts"):
            object.__setattr__(self, name, tuple(getattr(self, name)))
        for name, parts in dict(self.node_groups).items():
            if not (isinstance(name, str) and name and isinstance(parts, (tuple, list)) and parts
                    and all(isinstance(g, str) and g for g in parts)):
                raise BadInput(f"node_groups.{name}: expected a list of group names, got {parts!r}")
        if not self.bodies and not self.point_masses:
            raise BadInput("bodies: a problem needs at least one body or point mass")
        if self.kinematics not in KINEMATICS:
            raise BadInput(f"kinematics: {self.kinematics!r} is not one of {', '.join(KINEMATICS)}")
        if self.mass not in MASS_KINDS:
            raise BadInput(f"mass: {self.mass!r} is not one of {', '.join(MASS_KINDS)}")
        for b in self.bodies:
            if b.mass is not None and b.mass not in MASS_KINDS:
                raise BadInput(f"bodies.{b.label}.mass: {b.mass!r} is not one of {', '.join(MASS_KINDS)}")
        for name in ("gravity", "thickness"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) \
                    or value < 0 or (name == "thickness" and value == 0):
                raise BadInput(f"{name}: must be a finite number {'>' if name == 'thickness' else '>='} 0, "
                               f"got {value!r}")
        ranges.check_key("gravity", self.gravity, ranges.GRAVITY_OR_ZERO)
        ranges.check_key("thickness", self.thickness, ranges.LENGTH)
        for group, mass in dict(self.point_masses).items():
            ranges.check_key(f"point_masses.{group}", mass, ranges.MASS_OR_ZERO)
        for sp_ in self.springs:
            for key, kind in (("stiffness", ranges.STIFFNESS_OR_ZERO), ("damping", ranges.DASHPOT)):
                values = getattr(sp_, key)
                for value in values if isinstance(values, (tuple, list)) else ():
                    if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value) \
                            and value >= 0:  # else Springs' own refusal at assemble
                        ranges.check_key(f"springs.{sp_.label}.{key}", value, kind)
        groups = [b.group for b in self.bodies]
        twice = sorted({x for x in groups if groups.count(x) > 1})
        if twice:
            raise BadInput(f"bodies: the group {twice[0]!r} is given to two bodies (a group is one body, one material)")
        labels = [b.label for b in self.bodies]
        twice = sorted({x for x in labels if labels.count(x) > 1})
        if twice:
            raise BadInput(f"bodies: {twice[0]!r} is named twice")
        pair_labels = [p.label for p in self.pairs]
        twice = sorted({x for x in pair_labels if pair_labels.count(x) > 1})
        if twice:
            raise BadInput(f"pairs: {twice[0]!r} is named twice")
        for s in self.supports:
            bad = [c for c in s.components if c not in COMPONENTS]
            if bad or not s.components:
                raise BadInput(f"supports: {s.group!r}: components must be among {COMPONENTS}, got {s.components!r}")
        for c in self.contacts:
            if not isinstance(c, Contact):
                raise BadInput(f"contacts: a fem.problem.Contact, got {type(c).__name__}")
            unknown = [b for b in c.bodies if b not in groups]
            if unknown:
                raise BadInput(f"contacts.bodies: {unknown[0]!r} is not a body of the problem; the bodies: "
                               f"{', '.join(groups) or 'none'}")
        schemes = {getattr(p.law, "scheme", None) for p in (*self.pairs, *self.contacts)}
        if None in schemes:
            raise BadInput("pairs: a law must be one of contact.laws (it builds its term and names its scheme)")
        if len(schemes) > 1:
            raise BadInput("pairs: velocity-level (MoreauJean) and position-level laws cannot be mixed in one "
                           "problem: they need different time schemes")

    @property
    def scheme_kind(self) -> str:
        """"theta" when the pairs are velocity-level (Moreau–Jean), else "newmark"."""
        return next((p.law.scheme for p in self.pairs), "newmark")


@dataclass
class Assembled:
    """What a simulation integrates: the mesh, the model, one term per pair (in the problem's order),
    the node indices of each body and the mesh checks' warnings."""

    problem: Problem
    mesh: Mesh
    model: Model
    terms: list
    body_nodes: dict
    warnings: tuple
    springs: list = field(default_factory=list)  # one fem.stage.discrete.Springs per Spring
    contact_search: dict | None = None  # what finding the problem's contacts did (fem.problem.interfaces)

    def all_terms(self) -> list:
        """Every force term the stages integrate: the pairs' contact terms, then the springs."""
        return [*self.terms, *self.springs]

    def body_weight(self) -> float:
        """The weight of the bodies [N]: g times their mass (the scale of the Newton residuals)."""
        return self.problem.gravity * self.model.total_mass()


def load_mesh(mesh) -> Mesh:
    """A Mesh, or a gmsh file read (a missing or unreadable file refused naming it)."""
    if isinstance(mesh, Mesh):
        return mesh
    path = Path(mesh)
    if not path.is_file():
        raise BadInput(f"mesh: no such file {str(path)!r}")
    try:
        return read_mesh(path)
    except (ValueError, OSError) as err:
        said = str(err)
        for named in (f"{path}: ", f"{str(path)!r}: "):  # the reader's message names the file already
            said = said[len(named):] if said.startswith(named) else said
        raise BadInput(f"mesh {path}: {said}") from None


def with_node_groups(mesh: Mesh, node_groups: Mapping[str, tuple]) -> Mesh:
    """``mesh`` with the node groups ``node_groups`` added (name -> the groups whose nodes it gathers: their
    union, sorted); ``mesh`` itself when there are none. A name the mesh has already, or a part it does not
    have, is refused naming ``node_groups.NAME``."""
    if not node_groups:
        return mesh
    added = dict(mesh.node_groups)
    for name, parts in node_groups.items():
        if name in mesh.node_groups or name in mesh.cell_groups:
            raise BadInput(f"node_groups.{name}: the mesh has a group of that name already: choose another name")
        for g in parts:
            if g not in mesh.node_groups:
                have = ", ".join(sorted(mesh.node_groups)) or "none"
                raise BadInput(f"node_groups.{name}: the mesh has no group {g!r}; it has: {have}")
        added[name] = np.unique(np.concatenate([mesh.node_groups[g] for g in parts]))
    return Mesh(mesh.points, mesh.cell_groups, added)


def need_group(mesh: Mesh, key: str, group: str, dims: tuple[int, ...]) -> None:
    """Refuse a group the mesh does not have (or of the wrong dimension), naming the key."""
    if group in mesh.cell_groups and mesh.cell_groups[group].dim in dims:
        return
    if 0 in dims and group in mesh.node_groups:
        return
    kinds = {2: "surface", 1: "line", 0: "node"}
    wanted = " or ".join(kinds[d] for d in dims)
    have = sorted(g for g, c in mesh.cell_groups.items() if c.dim in dims)
    if 0 in dims:
        have = sorted(set(have) | set(mesh.node_groups))
    found = f" (it is a {kinds[mesh.cell_groups[group].dim]} group)" if group in mesh.cell_groups else ""
    raise BadInput(f"{key}: the mesh has no {wanted} group {group!r}{found}; it has: {', '.join(have) or 'none'}")


def _within(mesh: Mesh, group: str, body: str) -> bool:
    """Every node of the node or line group ``group`` is a node of the body's surface group ``body``."""
    nodes = mesh.nodes(group) if group in mesh.node_groups else np.unique(mesh.cell_groups[group].connectivity)
    return bool(np.isin(nodes, np.unique(mesh.cell_groups[body].connectivity)).all())


def _group_nodes(mesh: Mesh, group: str) -> np.ndarray:
    """The nodes of a node, line or surface group."""
    return mesh.nodes(group) if group in mesh.node_groups else np.unique(mesh.cell_groups[group].connectivity)


def _in_one_part(mesh: Mesh, pair: Pair, bodies) -> str | None:
    """The label of the body one connected part of which (its cells linked through shared nodes) holds
    every node of both the slave and the master group of ``pair``, or None. Two parts of one surface
    group (blocks stacked in one region, their joint a pair) are two bodies to a pair."""
    if not isinstance(pair.master, str):
        return None
    nodes = np.union1d(_group_nodes(mesh, pair.slave), _group_nodes(mesh, pair.master))
    for b in bodies:
        conn = mesh.cell_groups[b.group].connectivity
        if not np.isin(nodes, conn).all():
            continue
        n = mesh.n_nodes
        links = sp.coo_matrix((np.ones(conn.shape[0] * (conn.shape[1] - 1)),
                               (np.repeat(conn[:, 0], conn.shape[1] - 1), conn[:, 1:].ravel())), shape=(n, n))
        _, part = connected_components(links, directed=False)
        if np.unique(part[nodes]).size == 1:
            return b.label
    return None


def assemble(problem: Problem) -> Assembled:
    """The model, contact terms and springs of ``problem`` (BadInput naming the key for a wrong group
    name, a floating body, a crack or a contact surface that is not one)."""
    mesh = with_node_groups(load_mesh(problem.mesh), problem.node_groups)
    for b in problem.bodies:
        need_group(mesh, f"bodies.{b.label}.group", b.group, (2,))
        if b.overturn_angle is not None and not (0 < b.overturn_angle < math.pi):
            raise BadInput(f"bodies.{b.label}.overturn_angle: must lie in (0, pi) rad, got {b.overturn_angle!r}")
    search = None
    if problem.contacts:  # the pairs found join the stated ones (the bodies as they were)
        mesh, problem, search = _contacts(mesh, problem)
    for s in problem.supports:
        need_group(mesh, f"supports.{s.group}", s.group, (1, 0))
    for p in problem.pairs:
        need_group(mesh, f"pairs.{p.label}.slave", p.slave, (1, 0))
        if isinstance(p.master, str):
            need_group(mesh, f"pairs.{p.label}.master", p.master, (1,))
        for g in getattr(p.master, "groups", ()):  # an obstacle between node groups (BiPlane)
            need_group(mesh, f"pairs.{p.label}.master", g, (1, 0))
    for g in problem.point_masses:
        need_group(mesh, f"point_masses.{g}", g, (1, 0))
    for sp_ in problem.springs:
        for key, g in (("group", sp_.group), ("other", sp_.other)):
            if g is not None:
                need_group(mesh, f"springs.{sp_.label}.{key}", g, (1, 0))
    regions = {b.group: b.material for b in problem.bodies}
    used = Mesh(mesh.points, {k: v for k, v in mesh.cell_groups.items() if k in regions or v.dim == 1},
                mesh.node_groups)
    surfaces = [(p.slave, p.master) for p in problem.pairs if isinstance(p.master, str)]
    surfaces += [face for p in problem.pairs for face in getattr(p.master, "interfaces", ())]
    supported = ([s.group for s in problem.supports]
                 + [p.slave for p in problem.pairs if not isinstance(p.master, str) and not getattr(p.master, "groups", ())
                    and not getattr(p.master, "interfaces", ())]
                 + [s.group for s in problem.springs if s.other is None])
    try:
        warnings = check_mesh(used, tuple(supported), surfaces)
    except (MeshError, ValueError) as err:
        for p in problem.pairs:  # a pair inside one body leaves it floating: say that, not "a floating part"
            body = _in_one_part(mesh, p, problem.bodies)
            if body is not None:
                raise BadInput(f"pairs.{p.label}: slave {p.slave} and master {p.master} lie in one body ({body}): "
                               "a contact pair joins two bodies (its slave on one, its master on the other)") from None
        raise BadInput(f"mesh: {err}") from None
    kinds = {b.group: b.mass or problem.mass for b in problem.bodies}
    # a pair's slave nodes lose their mass when they belong to a body whose mass is redistributed
    redistributed = {p.slave for p in problem.pairs
                     if any(kinds[b.group] == "redistributed" and _within(mesh, p.slave, b.group) for b in problem.bodies)}
    uniform = set(kinds.values()) == {"lumped"} and not redistributed
    try:
        model = Model(mesh, regions, thickness=problem.thickness, kinematics=problem.kinematics,
                      mass="redistributed" if redistributed else "lumped" if uniform else "consistent",
                      massless=tuple(p.slave for p in problem.pairs if p.slave in redistributed),
                      lumped_regions=() if uniform else tuple(g for g, k in kinds.items() if k == "lumped"),
                      point_masses=dict(problem.point_masses) or None)
    except (MeshError, ValueError) as err:
        raise BadInput(f"bodies: {err}") from None
    terms = []
    for p in problem.pairs:
        try:
            terms.append(p.law.build(model, p.slave, p.master, located=p.slave in redistributed,
                                     clearance=float(p.clearance)))
        except ValueError as err:
            raise BadInput(f"pairs.{p.label}: {err}") from None
    springs = []
    for sp_ in problem.springs:
        try:
            springs.append(Springs(mesh, sp_.group, SpringProperties(tuple(sp_.stiffness), tuple(sp_.damping)),
                                   sp_.other))
        except ValueError as err:
            raise BadInput(f"springs.{sp_.label}: {err}") from None
    body_nodes = {b.label: np.unique(mesh.cell_groups[b.group].connectivity) for b in problem.bodies}
    return Assembled(problem, mesh, model, terms, body_nodes, tuple(warnings), springs, search)


def _contacts(mesh: Mesh, problem: Problem) -> tuple[Mesh, Problem, dict]:
    """The pairs of ``problem.contacts`` found on ``mesh`` (fem.problem.interfaces): the mesh with their line
    groups, the problem with them after its stated pairs (and no contacts left to find), and what the
    search did (summary.json ``contact_search``)."""
    size = float(np.hypot(*np.ptp(mesh.points[:, :2], axis=0)))
    pairs, records, names = list(problem.pairs), [], {p.label for p in problem.pairs}

    def owner(group: str) -> str | None:  # the body holding every node of a stated pair's group
        return next((b.group for b in problem.bodies if group in mesh.cell_groups or group in mesh.node_groups
                     if _within(mesh, group, b.group)), None)

    stated = {frozenset((owner(p.slave), owner(p.master))): p.label for p in problem.pairs if isinstance(p.master, str)}
    for rank, c in enumerate(problem.contacts, start=1):
        bodies = list(c.bodies) or [b.group for b in problem.bodies]
        found, search = interfaces.find(mesh, bodies, c.tolerance if c.tolerance is not None else 1e-9 * size)
        groups = [(f"{f.slave}>{f.master}", f"{f.master}<{f.slave}") for f in found]
        for (slave, master), f in zip(groups, found):
            if frozenset((f.slave, f.master)) in stated:
                raise BadInput(f"contacts: the bodies {f.slave} and {f.master} are joined by the stated pair "
                               f"{stated[frozenset((f.slave, f.master))]!r} already: drop the pair or leave one of "
                               f"them out of the contact's bodies")
            if slave in mesh.cell_groups or master in mesh.cell_groups or f"{f.slave}/{f.master}" in names:
                raise BadInput(f"contacts: the bodies {f.slave} and {f.master} are joined twice (a stated pair or "
                               f"another contact names {f.slave}/{f.master} or its groups): state them once")
            names.add(f"{f.slave}/{f.master}")
        mesh = interfaces.with_interfaces(mesh, found, groups)
        labels = [f"{f.slave}/{f.master}" for f in found]
        if c.merge:
            name = c.name or f"CONTACT_{rank}"
            if name in mesh.cell_groups or name in mesh.node_groups or name in names:
                raise BadInput(f"contacts.name: {name!r} is a group of the mesh or a pair's name already: name the "
                               "merged contact otherwise")
            names.add(name)
            if found:
                mesh = interfaces.with_union(mesh, name, [s for s, _ in groups])
                pairs.append(Pair(name, interfaces.Joints(name, tuple(groups), tuple(labels)), c.law, name,
                                  c.clearance))
        else:
            pairs += [Pair(slave, master, c.law, label, c.clearance) for (slave, master), label in zip(groups, labels)]
        records.append({"bodies": bodies, "pairs": labels, **({"merged_into": name} if c.merge else {}),
                        **search.record()})
    return mesh, replace(problem, pairs=tuple(pairs), contacts=()), {"contacts": records}

