"""Plane-stress continuum model: element geometry computed once, vectorised assembly of internal
forces, tangent, mass, Rayleigh damping and gravity.

Kinematics
----------
``"total_lagrangian"`` (Code_Aster ``GROT_GDEP``): deformation gradient F = I + grad_X u,
Green-Lagrange strain E = (F^T F - I)/2, second Piola-Kirchhoff stress S = D : E (Saint-Venant-
Kirchhoff, plane stress), nodal internal force f_a = int_V0 F S grad_X N_a dV0. A rigid rotation
gives F = R, E = 0, S = 0: no force, whatever the angle.

``"small_strain"`` (``PETIT``): eps = sym(grad u), sigma = D : eps, linear. A rigid rotation of
angle theta gives a spurious strain (cos(theta) - 1) in both directions.

Damping (Code_Aster convention, AMOR_ALPHA multiplies stiffness, AMOR_BETA mass)
--------------------------------------------------------------------------------
Stiffness-proportional damping is written as a viscous stress S_d = alpha D : dE/dt with
dE/dt = sym(F^T grad_X v); its nodal force is int F S_d grad N dV0. In small strain it is exactly
alpha K v; with large rotations it vanishes for any rigid motion (dE/dt = 0), unlike alpha K0 v.
Mass-proportional damping beta M v resists rigid motion by construction (as in Code_Aster).

Dofs: node i carries dofs 2i (x) and 2i+1 (y). Units SI: forces in N, for the given thickness.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Sequence

import numpy as np
import scipy.sparse as sp

from fem.model import continuum
from fem.model.elements import ReferenceElement, reference_element
from fem.model.mass import MASS_KINDS, MassTransfer, mass_transfer
from fem.model.material import ElasticMaterial
from fem.mesh.mesh import Mesh, MeshError
from fem.model.sparsity import SparsityPattern

KINEMATICS = ("total_lagrangian", "small_strain")


@dataclass(frozen=True)
class ElementSet:
    """Geometry of the cells of one region, computed once in the reference configuration.

    Attributes
    ----------
    group : cell group name; material : its :class:`ElasticMaterial`; element : reference element.
    connectivity : (n_el, n_en) node indices.
    dofs : (n_el, 2 n_en) global dofs, node-major (x, y per node).
    grad : (n_el, n_qp, n_en, 2) dN_a/dX_J at the stiffness quadrature points [1/m].
    dvol : (n_el, n_qp) quadrature weight * det J * thickness [m^3].
    mass_shape : (n_qpm, n_en) N_a at the mass quadrature points.
    mass_dvol : (n_el, n_qpm) weight * det J * thickness at the mass points [m^3].
    """

    group: str
    material: ElasticMaterial
    element: ReferenceElement
    connectivity: np.ndarray
    dofs: np.ndarray
    grad: np.ndarray
    dvol: np.ndarray
    mass_shape: np.ndarray
    mass_dvol: np.ndarray

    @property
    def n_elements(self) -> int:
        return int(self.connectivity.shape[0])


@dataclass(frozen=True)
class InternalForces:
    """Internal and damping forces at a state (u, v) and their derivatives.

    Attributes
    ----------
    internal : (n_dofs,) f_int(u) [N].
    damping : (n_dofs,) f_damp(u, v) [N] (stiffness- and mass-proportional Rayleigh).
    stiffness : d(f_int + f_damp)/du, CSR (n_dofs, n_dofs) [N/m], or None if not requested.
    damping_matrix : d f_damp / dv, CSR [N s/m], or None.
    """

    internal: np.ndarray
    damping: np.ndarray
    stiffness: sp.csr_matrix | None = None
    damping_matrix: sp.csr_matrix | None = None


def _jacobians(points: np.ndarray, conn: np.ndarray, element: ReferenceElement, xi: np.ndarray):
    """det J (n_el, n_qp) and inverse J (n_el, n_qp, 2, 2) at reference points xi (n_qp, 2)."""
    dN = element.shape_grad(xi)  # (nq, nen, 2)
    X = points[conn]  # (ne, nen, 2)
    J = np.einsum("eai,qaj->eqij", X, dN)  # dX_i/dxi_j
    det = J[..., 0, 0] * J[..., 1, 1] - J[..., 0, 1] * J[..., 1, 0]
    return det, J, dN


def build_element_set(mesh: Mesh, group: str, material: ElasticMaterial, thickness: float) -> ElementSet:
    """Precompute the reference-configuration geometry of the cells of ``group``.

    Raises
    ------
    MeshError : missing group, group of lines, or an inverted / degenerate cell (det J <= 0).
    """
    block = mesh.cells(group)
    if block.dim != 2:
        raise MeshError(f"cell group {group!r} holds {block.cell_type!r} cells, not surface cells: "
                        "a material can only be assigned to a surface group")
    element = reference_element(block.cell_type)
    conn = np.asarray(block.connectivity, dtype=np.int64)
    rule, mrule = element.stiffness_rule, element.mass_rule
    det, J, dN = _jacobians(mesh.points, conn, element, rule.points)
    mdet, _, _ = _jacobians(mesh.points, conn, element, mrule.points)
    bad = np.flatnonzero((det <= 0).any(axis=1) | (mdet <= 0).any(axis=1))
    if bad.size:
        e = int(bad[0])
        raise MeshError(
            f"cell {e} of group {group!r} (nodes {conn[e].tolist()}) is inverted or degenerate "
            f"(Jacobian determinant {det[e].min():.3e} <= 0); {bad.size} such cell(s) in the group"
        )
    Jinv = np.linalg.inv(J)  # dxi_j/dX_J
    grad = np.einsum("qaj,eqjJ->eqaJ", dN, Jinv)
    dofs = np.stack([2 * conn, 2 * conn + 1], axis=-1).reshape(conn.shape[0], -1)
    return ElementSet(
        group=group,
        material=material,
        element=element,
        connectivity=conn,
        dofs=dofs,
        grad=grad,
        dvol=det * rule.weights[None, :] * thickness,
        mass_shape=element.shape(mrule.points),
        mass_dvol=mdet * mrule.weights[None, :] * thickness,
    )


class Model:
    """A plane-stress body (or several) on a mesh.

    Parameters
    ----------
    mesh : :class:`fem.mesh.mesh.Mesh`.
    regions : mapping (or sequence of pairs) cell-group name -> :class:`ElasticMaterial`
        (Code_Aster AFFE_MATERIAU / AFFE_MODELE C_PLAN).
    thickness : out-of-plane thickness [m], > 0 (default 1 m).
    kinematics : ``"total_lagrangian"`` (default, large rotations) or ``"small_strain"``.
    lumped_mass : HRZ-lumped (diagonal) mass instead of the consistent mass (same as mass="lumped").
    point_masses : node group -> mass [kg] added to every node of the group in x and y
        (Code_Aster discrete element DIS_T, M_T_D_N); such nodes need no region.
    mass : "consistent" (default), "lumped" (HRZ) or "redistributed": the nodes of the groups
        ``massless`` (contact surfaces) carry no mass, each body keeping its total mass, centre of
        mass and second moments of mass (:mod:`fem.model.mass`); their dofs are :attr:`massless_dofs`,
        quasi-static in the time integrators.
    massless : node or line groups freed of mass when mass="redistributed".
    lumped_regions : regions whose element masses are HRZ-lumped while the others' are consistent
        (a body's own mass option, fem.problem.Body: "lumped" beside "consistent" or "redistributed").

    Nodes that belong to no region and carry no point mass have neither stiffness nor mass; their
    dofs are listed in :attr:`unused_dofs` and the time integrators hold them at zero.
    """

    def __init__(
        self,
        mesh: Mesh,
        regions: Mapping[str, ElasticMaterial] | Sequence[tuple[str, ElasticMaterial]],
        thickness: float = 1.0,
        kinematics: str = "total_lagrangian",
        lumped_mass: bool = False,
        point_masses: Mapping[str, float] | None = None,
        mass: str | None = None,
        massless: Sequence[str] = (),
        lumped_regions: Sequence[str] = (),
    ) -> None:
        mass = mass if mass is not None else ("lumped" if lumped_mass else "consistent")
        if mass not in MASS_KINDS:
            raise ValueError(f"unknown mass matrix {mass!r}; choose one of {MASS_KINDS}")
        if lumped_mass and mass != "lumped":
            raise ValueError(f"lumped_mass=True contradicts mass={mass!r}")
        if (mass == "redistributed") != bool(massless):
            raise ValueError("mass='redistributed' needs the groups of its massless nodes (massless=...), "
                             "and massless groups need mass='redistributed'")
        if not (np.isfinite(thickness) and thickness > 0):
            raise ValueError(f"thickness must be > 0 m, got {thickness}")
        if kinematics not in KINEMATICS:
            raise ValueError(f"unknown kinematics {kinematics!r}; choose one of {KINEMATICS}")
        items = list(regions.items()) if isinstance(regions, Mapping) else list(regions)
        point_masses = dict(point_masses or {})
        if not items and not point_masses:
            raise ValueError("a model needs at least one region (cell group, material) or point mass")
        for group, m in point_masses.items():
            if not (np.isfinite(m) and m > 0):
                raise ValueError(f"point mass on {group!r} must be > 0 kg, got {m}")
        self.mesh = mesh
        self.thickness = float(thickness)
        self.kinematics = kinematics
        self.mass_kind = mass
        self.lumped_mass = mass == "lumped"
        unknown = sorted(set(lumped_regions) - {g for g, _ in items})
        if unknown:
            raise ValueError(f"lumped region {unknown[0]!r} is not a region of the model")
        self.lumped_regions = frozenset(lumped_regions)
        self.n_dofs = 2 * mesh.n_nodes
        self.sets = tuple(build_element_set(mesh, g, m, self.thickness) for g, m in items)
        self.pattern = SparsityPattern.from_element_dofs(self.n_dofs, [s.dofs for s in self.sets])
        sizes = np.cumsum([0] + [s.dofs.size * s.dofs.shape[1] for s in self.sets])
        #: the regions fused by element type (fem.model.continuum), each with its slots in ``pattern``
        self.kernels = continuum.fuse(self.sets, [self.pattern.slot[a:b] for a, b in zip(sizes[:-1], sizes[1:])])
        self._last_evaluation: tuple | None = None  # (u, ForceEvaluation) of the last evaluate
        self.point_mass = np.zeros(mesh.n_nodes)  # (n_nodes,) lumped discrete masses [kg]
        for group, m in point_masses.items():
            self.point_mass[mesh.nodes(group)] += m
        used = np.zeros(self.n_dofs, dtype=bool)
        used[np.repeat(self.point_mass > 0, 2)] = True
        for s in self.sets:
            used[s.dofs.ravel()] = True
        self.unused_dofs = np.flatnonzero(~used)
        self.transfer: MassTransfer | None = None
        if mass == "redistributed":
            nodes = np.unique(np.concatenate([np.asarray(mesh.nodes(g), dtype=np.int64) for g in massless]))
            if np.any(self.point_mass[nodes] > 0):
                raise ValueError("a massless (contact) node carries a point mass: mass redistribution needs its "
                                 "nodes free of any mass")
            self.transfer = mass_transfer(mesh.points, [s.connectivity for s in self.sets], nodes, self.n_dofs)
        #: (n,) dofs without mass (quasi-static in the time integrators); empty unless redistributed
        self.massless_dofs = (self.transfer.massless_dofs if self.transfer is not None
                              else np.zeros(0, dtype=np.int64))
        self._element_masses = [self._element_mass(s) for s in self.sets]
        self.mass = self._assemble_mass()
        betas = [s.material.rayleigh_mass for s in self.sets]
        self.mass_damping = self._assemble_mass(betas) if any(betas) else None

    # ----------------------------------------------------------------------------- mass, loads
    def _element_mass(self, s: ElementSet) -> np.ndarray:
        """Element mass matrices (ne, 2 nen, 2 nen) [kg], consistent or HRZ-lumped (the model's mass, or
        the region's own: ``lumped_regions``)."""
        N = s.mass_shape
        m = s.material.density * np.einsum("qa,qb,eq->eab", N, N, s.mass_dvol)
        if self.lumped_mass or s.group in self.lumped_regions:
            diag = np.einsum("eaa->ea", m)
            total = m.sum(axis=(1, 2))
            m = np.einsum("ea,ab->eab", diag * (total / diag.sum(axis=1))[:, None], np.eye(N.shape[1]))
        ne, nen, _ = m.shape
        M = np.zeros((ne, nen, 2, nen, 2))
        M[:, :, 0, :, 0] = m
        M[:, :, 1, :, 1] = m
        return M.reshape(ne, 2 * nen, 2 * nen)

    def _assemble_mass(self, factors: Sequence[float] | None = None) -> sp.csr_matrix:
        """Mass matrix [kg], each region's block scaled by ``factors`` (default 1); redistributed
        (P^T M P, fem.model.mass) when the model's mass is."""
        if factors is not None:
            M = self.pattern.assemble([f * m for f, m in zip(factors, self._element_masses)])
        else:
            M = self.pattern.assemble(self._element_masses)
            M.data[self.pattern.diagonal] += np.repeat(self.point_mass, 2)
        return M if self.transfer is None else self.transfer.redistribute(M)

    def gravity_force(self, acceleration: Sequence[float]) -> np.ndarray:
        """Nodal body force (n_dofs,) [N] of a uniform acceleration field g (2,) [m/s^2]:
        f_a = int rho N_a g dV."""
        g = np.asarray(acceleration, dtype=float)
        f = (self.point_mass[:, None] * g).ravel()
        for s in self.sets:
            nodal = s.material.density * np.einsum("qa,eq->ea", s.mass_shape, s.mass_dvol)  # (ne, nen) kg
            continuum.add_scattered(f, np.ascontiguousarray(s.dofs, dtype=np.int64).ravel(), (nodal[..., None] * g).ravel())
        return f  # the continuum's body force, also with a redistributed mass (fem.model.mass)

    def total_mass(self, group: str | None = None) -> float:
        """Mass [kg] of the whole model (regions and point masses) or of one region."""
        regions = sum(s.material.density * s.mass_dvol.sum() for s in self.sets if group is None or s.group == group)
        return float(regions + (self.point_mass.sum() if group is None else 0.0))

    def kinetic_energy(self, v: np.ndarray, group: str | None = None) -> float:
        """0.5 v^T M v [J], of the whole model or of one region (Code_Aster POST_ELEM ENER_CIN);
        with a redistributed mass, of the transferred velocity P v (fem.model.mass), so that the regions'
        energies add up to the model's."""
        if group is None:
            return 0.5 * float(v @ (self.mass @ v))
        if self.transfer is not None:
            v = self.transfer.matrix @ v
        for s, m in zip(self.sets, self._element_masses):
            if s.group == group:
                ve = v[s.dofs]
                return 0.5 * float(np.einsum("em,emn,en->", ve, m, ve))
        raise MeshError(f"model has no region {group!r}; regions: {[s.group for s in self.sets]}")

    # ----------------------------------------------------------------------------- forces
    def evaluate(self, u: np.ndarray, v: np.ndarray | None = None) -> "ForceEvaluation":
        """Internal and damping forces at (u, v), their derivatives and the strain energy on demand
        (:class:`ForceEvaluation`, from the same kinematics, not computed again; fem.model.continuum).

        Parameters
        ----------
        u, v : (n_dofs,) displacement [m] and velocity [m/s] (v = None: no damping force).
        """
        n = self.n_dofs
        large = self.kinematics == "total_lagrangian"
        f_int, f_damp, states = np.zeros(n), np.zeros(n), []
        for k in self.kernels:
            fi, fd, state = continuum.evaluate(k, u, v, large)
            continuum.add_scattered(f_int, k.dofs.ravel(), fi.ravel())
            if fd is not None:
                continuum.add_scattered(f_damp, k.dofs.ravel(), fd.ravel())
            states.append(state)
        if self.mass_damping is not None and v is not None:
            f_damp += self.mass_damping @ v
        evaluation = ForceEvaluation(self, u, v, f_int, f_damp, states)
        self._last_evaluation = (u.copy(), evaluation)
        return evaluation

    def evaluated(self, u: np.ndarray, v: np.ndarray, internal: np.ndarray, damping: np.ndarray, strain_energy: float,
                  smallest_jacobian: float) -> "EvaluatedForces":
        """What :meth:`evaluate` gives at (u, v), given by a compiled loop that computed it with the same loops
        (contact.newton_loop): the forces [N], the strain energy [J] and the smallest det F (+inf in small
        strain); kept as the last evaluation (:meth:`strain_energy` at u reads it). No tangent."""
        evaluation = EvaluatedForces(u, v, internal, damping, strain_energy, smallest_jacobian)
        self._last_evaluation = (u.copy(), evaluation)
        return evaluation

    def forces(self, u: np.ndarray, v: np.ndarray | None = None, tangent: bool = True) -> InternalForces:
        """Internal force, damping force and (optionally) their derivatives at (u, v).

        Parameters
        ----------
        u, v : (n_dofs,) displacement [m] and velocity [m/s] (v = None: no damping force).
        tangent : also assemble d(f_int + f_damp)/du and d f_damp/dv.
        """
        ev = self.evaluate(u, v)
        if not tangent:
            return InternalForces(ev.internal, ev.damping)
        K_data, C_data = ev.tangent_data()
        K = self.pattern.matrix(K_data)
        C = self.pattern.matrix(C_data)
        if self.mass_damping is not None:
            C = C + self.mass_damping
        return InternalForces(ev.internal, ev.damping, K, C)

    def stiffness(self, u: np.ndarray | None = None) -> sp.csr_matrix:
        """Tangent stiffness d f_int / du at u (default: the undeformed state) [N/m]."""
        u = np.zeros(self.n_dofs) if u is None else u
        return self.forces(u, None, tangent=True).stiffness

    def strain_energy(self, u: np.ndarray) -> float:
        """Stored elastic energy [J]: sum over regions of int 1/2 S : E dV0 (from the last
        evaluation when it was at this u: a step's books reuse its convergence check's)."""
        if self._last_evaluation is not None:
            at, last = self._last_evaluation
            if at.shape == u.shape and np.array_equal(at, u):
                return last.strain_energy()
        return self.evaluate(u).strain_energy()

    def cell_stresses(self, u: np.ndarray) -> dict[str, dict[str, np.ndarray]]:
        """Cell-averaged stresses per region: ``{"pk2": {group: (ne, 3)}, "cauchy": {group: (ne, 3)}}``
        in Voigt order (xx, yy, xy) [Pa]. Cauchy = F S F^T / det F (in-plane); equal to PK2 in
        small strain."""
        pk2, cauchy = {}, {}
        for k, state in zip(self.kernels, self.evaluate(u)._states):  # tensors (2, 2, nq, ne)
            F = np.broadcast_to(np.eye(2)[:, :, None, None], state.S.shape) if state.F is None else state.F
            sigma = np.einsum("iIqe,IJqe,jJqe->ijqe", F, state.S, F) / jacobian(F)
            w = k.dvol / k.dvol.sum(axis=0)
            for group, cells in k.regions:
                pk2[group] = np.einsum("kqe,qe->ek", _voigt_stress(state.S)[..., cells], w[:, cells])
                cauchy[group] = np.einsum("kqe,qe->ek", _voigt_stress(sigma)[..., cells], w[:, cells])
        order = [s.group for s in self.sets]
        pk2, cauchy = ({g: d[g] for g in order} for d in (pk2, cauchy))
        return {"pk2": pk2, "cauchy": cauchy}


class ForceEvaluation:
    """Forces of a :class:`Model` at one state (u, v), with their derivatives computed on demand.

    Attributes: internal, damping (n_dofs,) [N]. :meth:`tangent_data` gives the element parts of
    d(f_int + f_damp)/du [N/m] and d f_damp/dv [N s/m] as data (nnz,) on ``model.pattern`` (the
    mass-proportional damping, ``model.mass_damping``, is not in them).
    """

    def __init__(self, model: "Model", u, v, internal: np.ndarray, damping: np.ndarray, states) -> None:
        self.model, self.u, self.v = model, u, v
        self.internal, self.damping = internal, damping
        self._states = states
        self._tangent = None

    def tangent_data(self) -> tuple[np.ndarray, np.ndarray]:
        """(K_data, C_data), each (model.pattern.nnz,): material + geometric stiffness (with the
        derivative of the stiffness-proportional damping force in u), and alpha K_material."""
        if self._tangent is None:
            parts = [continuum.tangent(k, state) for k, state in zip(self.model.kernels, self._states)]
            self._tangent = (self._assemble([K for K, _ in parts]), self._assemble([C for _, C in parts]))
        return self._tangent

    def combined_tangent_data(self, c_k: float, c_v: float) -> np.ndarray:
        """Data (model.pattern.nnz,) of c_k K + c_v C, with K and C those of :meth:`tangent_data`,
        assembled once (fem.model.continuum.combined_tangent: one cell product instead of two)."""
        if self._tangent is not None:
            K_data, C_data = self._tangent
            return c_k * K_data + c_v * C_data
        return self._assemble([continuum.combined_tangent(k, state, c_k, c_v)
                               for k, state in zip(self.model.kernels, self._states)])

    def _assemble(self, cells) -> np.ndarray:
        """Pattern data (nnz,) of one cell-matrix array (m, m, ne) per kernel (None: nothing)."""
        data = np.zeros(self.model.pattern.nnz)
        for k, matrices in zip(self.model.kernels, cells):
            if matrices is not None:
                continuum.add_scattered(data, k.slot, matrices.ravel())  # += np.bincount(k.slot, matrices)
        return data

    def smallest_jacobian(self) -> float:
        """Smallest J = det F over every quadrature point (total Lagrangian; +inf in small strain,
        where F is not formed). J <= 0 is an element turned inside out: a state no body reaches,
        where a Saint-Venant-Kirchhoff material has spurious equilibria Newton can converge to."""
        smallest = np.inf
        for state in self._states:
            F = state.F
            if F is not None and F.size:
                smallest = min(smallest, float(continuum.smallest_determinant(F)))  # np.min(jacobian(F))
        return smallest

    def strain_energy(self) -> float:
        """Stored elastic energy at this state [J]."""
        return sum(continuum.strain_energy(k, state) for k, state in zip(self.model.kernels, self._states))


@dataclass(frozen=True)
class EvaluatedForces:
    """A :class:`ForceEvaluation`'s values computed elsewhere (:meth:`Model.evaluated`): internal, damping
    (n_dofs,) [N], the strain energy [J] and the smallest det F at (u, v)."""

    u: np.ndarray
    v: np.ndarray
    internal: np.ndarray
    damping: np.ndarray
    energy: float
    jacobian: float

    def strain_energy(self) -> float:
        return self.energy

    def smallest_jacobian(self) -> float:
        return self.jacobian


def jacobian(F: np.ndarray) -> np.ndarray:
    """J = det F of a deformation-gradient field (2, 2, ...): (...)."""
    return F[0, 0] * F[1, 1] - F[0, 1] * F[1, 0]


def _voigt_stress(T: np.ndarray) -> np.ndarray:
    """Symmetric stress tensor fields (2, 2, ...) -> Voigt (3, ...) (xx, yy, xy), no factor 2."""
    return np.stack([T[0, 0], T[1, 1], 0.5 * (T[0, 1] + T[1, 0])])
