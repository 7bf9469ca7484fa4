"""Energy books of a time integration, each term computed on its own.

The books of a run from its start (cumulated, [J])::

    KE + SE + D_damp + W_contact + W_friction + W_terms + D_num - W_ext - W_reac - E_0 = balance error

* KE = 1/2 v.M v and SE (strain energy) from the state (:class:`fem.model.Model`);
* W_ext = sum <f_ext>.[u], W_reac = sum <r>.[u] (supports and imposed motions), trapezoidal;
* D_damp = sum <f_damp>.[u], from the Rayleigh damping force;
* W_contact, W_friction: energy taken by the contact laws, from the laws' own variables (normal
  reaction R_N >= 0 and gap g, tangential reaction R_T and tangential relative displacement s),
  W_contact = -sum <R_N> [g], W_friction = -sum <R_T> [s] (see the terms' ``step_work``);
* W_terms: other force terms (discrete springs, buckling elements) from their own laws;
* D_num: the time scheme's algorithmic dissipation, from the scheme's own energy identity
  (below), not from what the other terms leave.

Notation: [x] = x1 - x0, <x> = (x0 + x1)/2 over a step, F = f_ext + r - f_int - f_damp - f_terms
the sum of all forces but inertia (reactions r on the constrained dofs).

Newmark / HHT (Krenk, "Energy conservation in Newmark based time integration algorithms",
CMAME 195 (2006) 6110-6124; Hughes, "The Finite Element Method", 1987, §9.3). Newmark's
kinematics give, exactly, [u] = dt <v> + dt^2 (beta - gamma/2) [a] and [v] = dt <a> + dt (gamma - 1/2) [a], so::

    [KE] = [u].M<a> - dt^2 (beta - gamma/2) [a].M<a> + dt (gamma - 1/2) <v>.M[a]

The scheme equates the inertia with a force f_s: M a_{n+1} = f_s,{n+1}. For Newmark and HHT with
MODI_EQUI='NON', f_s = F (equilibrium at t_{n+1}); for HHT 'OUI', on the free dofs,
f_s,{n+1} = (1 + alpha) F_{n+1} - alpha F_n (and f_s = F on constrained dofs, where the reactions
are defined by the unweighted equation). Then [KE] = [u].<F> + [u].(<f_s> - <F>) - X and the
scheme's dissipation is::

    D_num = X - [u].(<f_s> - <F>),     X = dt^2 (beta - gamma/2) [a].M<a> - dt (gamma - 1/2) <v>.M[a]

(zero for the trapezoidal rule, beta = 1/4, gamma = 1/2, alpha = 0). With D_num so defined the
balance error is sum [u].(M<a> - <f_s>) (the scheme's equilibrium, with the forces the books
know) + sum ([SE] - [u].<f_int>) (trapezoidal work of a nonlinear internal force; zero for small
strain) + sum (W_laws - [u].<f_terms>) (the laws' energies against the work of the forces they
put in the equations): it vanishes only when the residual the integrator solved contains exactly
the forces the books hold. Dropping a force, or the HHT term -alpha g_n, from the residual shows.

Moreau-Jean theta-method (Jean, "The non-smooth contact dynamics method", CMAME 177 (1999) 235-257;
Acary, "Energy conservation and dissipation properties of time-integration methods for nonsmooth
elastodynamics with contact", ZAMM 96 (2016) 585-603): M [v] = dt ((1 - theta) F_0 + theta F_1)
+ P with P = dt G^T R the contact impulse, [u] = dt ((1 - theta) v_0 + theta v_1), so
dt <v> = [u] - dt (theta - 1/2) [v] and::

    [KE] = [u].<F> + [u].G^T R - D_num,     D_num = (theta - 1/2) ([v].M[v] - [u].[F])

(for a linear spring F = -K u: (theta - 1/2)([v].M[v] + [u].K[u]) >= 0; zero for theta = 1/2).
The impulse's work [u].G^T R = R.[g] (exact for a gap linear in u) goes to W_contact / W_friction.
"""
from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import scipy.sparse as sp


@dataclass(frozen=True)
class Energies:
    """Cumulated energy terms since the start of the bookkeeping [J] (see the module docstring).

    external_work : sum <f_ext>.[u] (gravity and nodal forces).
    reaction_work : sum <r>.[u] at constrained dofs (work of imposed motions and supports).
    damping_dissipation : sum <f_damp>.[u] (Rayleigh).
    contact_work : energy taken by the normal contact laws, -sum <R_N> [g] (penalty: stored in the
        springs plus dissipated by their dashpots; Lagrange: taken at impacts).
    friction_work : energy taken by the tangential laws, -sum <R_T> [s] (Coulomb dissipation, plus
        what the tangential springs of a penalty law store).
    other_work : energy taken by the other force terms (discrete springs, buckling elements),
        from their own laws.
    numerical_dissipation : D_num, from the scheme's energy identity.
    initial : kinetic + strain energy when the bookkeeping started.
    """

    external_work: float = 0.0
    reaction_work: float = 0.0
    damping_dissipation: float = 0.0
    contact_work: float = 0.0
    friction_work: float = 0.0
    other_work: float = 0.0
    numerical_dissipation: float = 0.0
    initial: float = 0.0

    @property
    def term_work(self) -> float:
        """Energy taken by every force term: contact + friction + other [J]."""
        return self.contact_work + self.friction_work + self.other_work


@dataclass(frozen=True)
class StepWork:
    """Energy a force term took from the structure over one step [J]: ``contact`` (normal law),
    ``friction`` (tangential law), ``other`` (any other law)."""

    contact: float = 0.0
    friction: float = 0.0
    other: float = 0.0


def trapezoid(f0: np.ndarray, f1: np.ndarray, du: np.ndarray) -> float:
    """<f>.[u] = (f0 + f1)/2 . (u1 - u0) [J]."""
    return 0.5 * float((f0 + f1) @ du)


def law_work(r0: np.ndarray, r1: np.ndarray, jump: np.ndarray, weight0: float = 0.5) -> float:
    """Energy taken by a law with reaction r >= 0 resisting its measure (gap, slip) [J]:
    -sum (w0 r0 + (1 - w0) r1) [measure], terms with a non-finite measure left out (an unpaired
    node carries no force). ``weight0`` = 1/2: trapezoidal (position-level laws); 0: the step's
    mean force r1 (impulse laws of the theta-method)."""
    r = weight0 * r0 + (1.0 - weight0) * r1
    ok = np.isfinite(jump) & np.isfinite(r)
    return -float(np.sum(np.where(ok, r, 0.0) * np.where(ok, jump, 0.0)))


def newmark_dissipation(M: sp.spmatrix, dt: float, beta: float, gamma: float, du: np.ndarray,
                        a0: np.ndarray, a1: np.ndarray, v0: np.ndarray, v1: np.ndarray,
                        f_scheme0: np.ndarray, f_scheme1: np.ndarray, F0: np.ndarray, F1: np.ndarray) -> float:
    """D_num of one Newmark / HHT step [J] (module docstring)::

        D_num = dt^2 (beta - gamma/2) [a].M<a> - dt (gamma - 1/2) <v>.M[a] - [u].(<f_s> - <F>)

    Shapes (n_dofs,); M (n_dofs, n_dofs)."""
    Ma_jump = M @ (a1 - a0)
    x = dt * dt * (beta - 0.5 * gamma) * float(0.5 * (a0 + a1) @ Ma_jump) \
        - dt * (gamma - 0.5) * float(0.5 * (v0 + v1) @ Ma_jump)
    return x - 0.5 * float(du @ (f_scheme0 + f_scheme1 - F0 - F1))


def hht_scheme_force(alpha_f: float, F0: np.ndarray, F1: np.ndarray, free: np.ndarray) -> np.ndarray:
    """f_s,{n+1}: the force HHT equates with M a_{n+1}: (1 + alpha_f) F1 - alpha_f F0 on the free
    dofs, F1 on the others (their reactions come from the unweighted equation). (n_dofs,) [N]."""
    f = F1.copy()
    if alpha_f != 0.0:
        f[free] = (1.0 + alpha_f) * F1[free] - alpha_f * F0[free]
    return f


def theta_dissipation(M: sp.spmatrix, theta: float, dv: np.ndarray, du: np.ndarray, dF: np.ndarray) -> float:
    """D_num of one Moreau-Jean step [J]: (theta - 1/2) ([v].M[v] - [u].[F]) (module docstring)."""
    return (theta - 0.5) * (float(dv @ (M @ dv)) - float(du @ dF))


def book_step(e: Energies, du: np.ndarray, f_ext: tuple[np.ndarray, np.ndarray],
              reactions: tuple[np.ndarray, np.ndarray], f_damp: tuple[np.ndarray, np.ndarray], terms: StepWork,
              numerical: float) -> Energies:
    """The books after one step: trapezoidal works <f>.[u] of the external forces, the reactions
    and the damping force (each given at the step's start and end, (n_dofs,) [N]), the terms' own
    works and the scheme's dissipation [J]."""
    return replace(
        e,
        external_work=e.external_work + trapezoid(*f_ext, du),
        reaction_work=e.reaction_work + trapezoid(*reactions, du),
        damping_dissipation=e.damping_dissipation + trapezoid(*f_damp, du),
        contact_work=e.contact_work + terms.contact,
        friction_work=e.friction_work + terms.friction,
        other_work=e.other_work + terms.other,
        numerical_dissipation=e.numerical_dissipation + numerical,
    )
