"""Contact results: per-node histories (CSV), a ParaView point-set series of the contact nodes, and
impulses (Code_Aster's percussions) integrated from the reaction histories.

Works with any contact term that has ``state() -> ContactState`` (Lagrange, augmented Lagrangian,
penalty shock springs). Forces are forces [N]; impulses are integrals of forces [N s] and are
named as such.
"""
from __future__ import annotations

from pathlib import Path
from typing import Mapping

import numpy as np

from fem.mesh.mesh import Mesh
from fem.io.results import HistoryWriter, PointSetSeriesWriter

from contact.state import ContactState

QUANTITIES = ("status", "gap", "rn", "rt", "rx", "ry", "slip")


def _values(state: ContactState) -> dict[str, np.ndarray]:
    force = state.force
    return {"status": state.status.astype(float), "gap": state.gap, "rn": state.rn, "rt": state.rt,
            "rx": force[:, 0], "ry": force[:, 1], "slip": state.slip}


class ContactRecorder:
    """Records contact quantities of named nodes after every step.

    Parameters
    ----------
    mesh : the mesh (node names and coordinates).
    terms : mapping zone label -> contact term (e.g. ``{"base": contact}``).
    directory : output folder.
    nodes : node groups (one node each) whose quantities go to ``contact_history.csv`` as columns
        ``<quantity>_<group>`` (status 0 open / 1 stick / 2 slip, gap [m], rn, rt, rx, ry [N],
        slip [m]); default: none.
    series : also write ``contact.xdmf`` (or ``.pvd``, fem.io.results) (every contact node as a point with its quantities,
        displaced positions) on archived steps.
    history : write ``contact_history.csv``.
    """

    def __init__(self, mesh: Mesh, terms: Mapping[str, object], directory: str | Path,
                 nodes: tuple[str, ...] = (), series: bool = True, history: bool = True) -> None:
        self.mesh = mesh
        self.terms = dict(terms)
        self.directory = Path(directory)
        self.nodes = tuple(nodes)
        self._where: list[tuple[object, int]] = []
        for name in self.nodes:
            node = mesh.node(name)
            for term in self.terms.values():
                hit = np.flatnonzero(term.state().nodes == node)
                if hit.size:
                    self._where.append((term, int(hit[0])))
                    break
            else:
                raise ValueError(f"node group {name!r} is not a contact node of any zone in {sorted(self.terms)}")
        columns = ["t"] + [f"{q}_{n}" for n in self.nodes for q in QUANTITIES]
        self.history = HistoryWriter(self.directory / "contact_history.csv", columns) if history else None
        self.series = PointSetSeriesWriter(self.directory, "contact") if series else None

    def record(self, t: float, u: np.ndarray, archived: bool = True) -> dict[str, float]:
        """Append the history row at time t (displacement u for the point positions)."""
        row = {"t": t}
        for name, (term, k) in zip(self.nodes, self._where):
            values = _values(term.state())
            row.update({f"{q}_{name}": float(values[q][k]) for q in QUANTITIES})
        if self.history is not None:
            self.history.append(row)
        if archived and self.series is not None:
            states = [term.state() for term in self.terms.values()]
            nodes = np.concatenate([s.nodes for s in states])
            x = self.mesh.points[nodes] + u.reshape(-1, 2)[nodes]
            data = {q: np.concatenate([_values(s)[q] for s in states]) for q in QUANTITIES}
            data["force"] = np.concatenate([s.force for s in states])
            self.series.write(t, x, data)
        return row

    def close(self) -> None:
        if self.history is not None:
            self.history.close()
        if self.series is not None:
            self.series.close()

    def __enter__(self) -> "ContactRecorder":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def impulse(t: np.ndarray, force: np.ndarray, t_start: float, t_end: float) -> float:
    """Impulse [N s] of a force history [N] over [t_start, t_end]: trapezoidal rule on the samples,
    with the force interpolated linearly at the window ends (Code_Aster CALC_FONCTION INTEGRE
    of a reaction restricted to a window)."""
    t = np.asarray(t, dtype=float)
    force = np.asarray(force, dtype=float)
    if not t_end > t_start:
        raise ValueError(f"impulse window must have t_end > t_start, got [{t_start}, {t_end}]")
    inside = (t > t_start) & (t < t_end)
    tt = np.concatenate([[t_start], t[inside], [t_end]])
    ff = np.concatenate([[np.interp(t_start, t, force)], force[inside], [np.interp(t_end, t, force)]])
    return float(np.trapezoid(ff, tt))


def lift_impacts(t: np.ndarray, ke: np.ndarray, status: Mapping[str, np.ndarray], gap: Mapping[str, np.ndarray],
                 lift: float = 1e-6, after: float = 0.005) -> list[dict]:
    """Impacts of named contact nodes (e.g. a block's base corners) from their histories: a node
    closing (status 0 -> not 0) after an open stretch in which its gap exceeded ``lift`` [m]
    (elastic flutter of a node that never left the table is not an impact).

    t, ke : (n,) times [s] and the body's kinetic energy [J]; status, gap : name -> (n,) arrays.
    Each impact: ``time`` (first closed sample), ``corner``, ``ke_before`` (largest ke over the
    last 40 % of the open stretch: the approach) and ``ke_after`` (smallest ke over the next
    ``after`` s), in time order."""
    impacts = []
    for name, st in status.items():
        closed = np.asarray(st) != 0
        g = np.asarray(gap[name], dtype=float)
        k = 1
        while k < closed.size:
            if closed[k] and not closed[k - 1]:
                start = k - 1
                while start > 0 and not closed[start - 1]:
                    start -= 1
                if np.nanmax(g[start:k]) > lift:
                    window = (t > t[start] + 0.6 * (t[k] - t[start])) & (t <= t[k])
                    post = (t > t[k]) & (t <= t[k] + after)
                    impacts.append({"time": float(t[k]), "corner": name,
                                    "ke_before": float(ke[window].max()) if window.any() else float("nan"),
                                    "ke_after": float(ke[post].min()) if post.any() else float("nan")})
            k += 1
    return sorted(impacts, key=lambda i: i["time"])
