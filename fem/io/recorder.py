"""Record a run as it goes: CSV time histories of chosen node quantities and energies, a ParaView
time series of the fields, and run statistics (steps, Newton iterations, sub-steps, wall time, and
the stepping time: the time spent inside the step generators, without recording or ParaView).

Shared by every case script, so none of them repeats recording code.
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterator, Sequence

import numpy as np

from fem.constants import GRAVITY
from fem.time.dynamics import State, StepResult, energy_report
from fem.loads.applied import component_index
from fem.model.assembly import Model
from fem.io.results import HistoryWriter, TimeSeriesWriter

QUANTITIES = ("u", "v", "a", "reaction")


@dataclass(frozen=True)
class NodeProbe:
    """A history column: ``quantity`` (u [m], v [m/s], a [m/s^2], reaction [N]) of ``component``
    ('x'/'y') at the single node of group ``group``, stored under ``name`` (e.g. ``dy_C1``)."""

    name: str
    group: str
    quantity: str
    component: str

    def __post_init__(self) -> None:
        if self.quantity not in QUANTITIES:
            raise ValueError(f"probe {self.name!r}: unknown quantity {self.quantity!r}; choose from {QUANTITIES}")


ENERGY_COLUMNS = ("ke", "strain_energy", "gravity_potential", "external_work", "reaction_work",
                  "damping_dissipation", "contact_work", "friction_work", "term_work", "numerical_dissipation",
                  "energy_balance_error")


class RunRecorder:
    """Writes ``history.csv`` (one row per step) and ``solution.xdmf`` (archived steps; fem.io.results' format) in ``directory``.

    Parameters
    ----------
    model : the model.
    directory : output folder (created).
    probes : node quantities to put in the history.
    history_name, series_name : file base names.
    kinetic_group : region whose kinetic energy is the ``ke`` column (default: whole model).
    extra_columns, extra : more history columns and a function of the step result returning them
        (e.g. contact reactions), called after every step.
    write_series : write the ParaView series (archived steps).
    gravity : the run's gravity (gx, gy) [m/s^2], whose potential the ``gravity_potential`` column books.
    """

    def __init__(self, model: Model, directory: str | Path, probes: Sequence[NodeProbe] = (),
                 history_name: str = "history", series_name: str = "solution",
                 kinetic_group: str | None = None, write_series: bool = True,
                 extra_columns: Sequence[str] = (), extra: Callable[[StepResult], dict] | None = None,
                 gravity: Sequence[float] = (0.0, -GRAVITY)) -> None:
        self.model = model
        self.directory = Path(directory)
        self.directory.mkdir(parents=True, exist_ok=True)
        self.probes = tuple(probes)
        self._probe_dofs = np.array([2 * model.mesh.node(p.group) + component_index(p.component) for p in self.probes],
                                    dtype=np.int64)
        self.kinetic_group = kinetic_group
        self._gravity = model.gravity_force(tuple(gravity))
        self.history = HistoryWriter(self.directory / f"{history_name}.csv",
                                     ["t", "iterations", *[p.name for p in self.probes], *extra_columns,
                                      *ENERGY_COLUMNS])
        self.extra = extra
        groups = [s.group for s in model.sets]
        self.series = TimeSeriesWriter(self.directory, model.mesh, groups, series_name) if write_series else None
        self.steps = 0
        self.newton_iterations = 0
        self.substeps = 0
        #: seconds spent inside the step generators drained through :func:`timed_steps` (None: none was)
        self.stepping_s: float | None = None
        self._t0 = time.perf_counter()
        self.last: StepResult | None = None

    def set_gravity(self, gravity: Sequence[float]) -> None:
        """The gravity (gx, gy) [m/s^2] whose potential the next rows book (a history that goes on
        through stages of other gravities: fem.problem.simulate)."""
        self._gravity = self.model.gravity_force(tuple(gravity))

    def record(self, result: StepResult) -> dict[str, float]:
        """Append the history row of a step (and the fields if archived); returns the row."""
        s = result.state
        if result.substeps > 0:  # a step (a phase's initial state has none), whatever was recorded before
            self.steps += 1
            self.newton_iterations += result.iterations
            self.substeps += max(0, result.substeps - 1)
        self.last = result
        values = {"u": s.u, "v": s.v, "a": s.a, "reaction": s.reactions}
        energy = energy_report(self.model, s, self._gravity)
        ke = energy["kinetic"] if self.kinetic_group is None else self.model.kinetic_energy(s.v, self.kinetic_group)
        row = {"t": s.t, "iterations": float(result.iterations)}
        for p, d in zip(self.probes, self._probe_dofs):
            row[p.name] = float(values[p.quantity][d])
        if self.extra is not None:
            row.update(self.extra(result))
        row.update(ke=ke, strain_energy=energy["strain"], gravity_potential=energy["gravity_potential"],
                   external_work=energy["external_work"], reaction_work=energy["reaction_work"],
                   damping_dissipation=energy["damping_dissipation"], contact_work=energy["contact_work"],
                   friction_work=energy["friction_work"], term_work=energy["term_work"],
                   numerical_dissipation=energy["numerical_dissipation"],
                   energy_balance_error=energy["balance_error"])
        self.history.append(row)
        if result.archived and self.series is not None:
            self.write_fields(s)
        return row

    def write_fields(self, state) -> None:
        """One ParaView step: displacement, velocity, acceleration (3-vectors), reactions, cell
        stresses (PK2 and Cauchy, Voigt xx, yy, xy) [SI]."""
        n = self.model.mesh.n_nodes
        stresses = self.model.cell_stresses(state.u)
        self.series.write(
            state.t,
            point_data={
                "displacement": state.u.reshape(n, 2),
                "velocity": state.v.reshape(n, 2),
                "acceleration": state.a.reshape(n, 2),
                "reaction": state.reactions.reshape(n, 2),
            },
            cell_data={"stress_pk2": stresses["pk2"], "stress_cauchy": stresses["cauchy"]},
        )

    def run_statistics(self) -> dict[str, float]:
        """wall_s (since the recorder was made), steps, newton_iterations, subdivisions, and
        stepping_s when the steps came through :func:`timed_steps`."""
        stats = {"wall_s": time.perf_counter() - self._t0, "steps": self.steps,
                 "newton_iterations": self.newton_iterations, "subdivisions": self.substeps}
        if self.stepping_s is not None:
            stats["stepping_s"] = self.stepping_s
        return stats

    def close(self) -> None:
        self.history.close()
        if self.series is not None:
            self.series.close()

    def __enter__(self) -> "RunRecorder":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


#: the counts a run adds up over its phases, stages or parts
STATISTICS = ("steps", "newton_iterations", "subdivisions", "stepping_s")


def add_statistics(stats: dict, part: dict, before: dict | None = None) -> None:
    """Add to the running totals ``stats`` the STATISTICS of ``part`` (a recorder's run_statistics, an
    outcome's stats), less those of ``before`` (the same recorder's before a stage it goes on
    through); a count ``part`` does not have is left as it is."""
    for key in STATISTICS:
        if key in part:
            stats[key] = stats.get(key, 0) + part[key] - (before or {}).get(key, 0)


def add_run_statistics(stats: dict, recorder: RunRecorder) -> None:
    """Add a recorder's steps, Newton iterations, sub-steps and stepping time (when it has one) to
    the running totals ``stats`` (a run of several phases, each with its recorder)."""
    add_statistics(stats, recorder.run_statistics())


def timed_steps(recorder: RunRecorder, steps: Iterator[StepResult]) -> Iterator[StepResult]:
    """The results of ``steps``, the time spent computing each one (inside the generator: the
    integrator's predict, assemble, solve, update) added to ``recorder.stepping_s`` [s]; what the
    caller does between two results (recording, ParaView) is not counted. Returns the generator's
    return value."""
    if recorder.stepping_s is None:
        recorder.stepping_s = 0.0
    while True:
        t0 = time.perf_counter()
        try:
            result = next(steps)
        except StopIteration as done:
            return done.value
        finally:  # a step that fails (Newton, a signal) counts too
            recorder.stepping_s += time.perf_counter() - t0
        yield result


@dataclass(frozen=True)
class Recorded:
    """What :func:`record_steps` drained: the last result's state (the skipped first one's when
    nothing followed it; None for no result) and the generator's return value."""

    state: State | None
    value: object


def record_steps(recorder: RunRecorder, steps: Iterator[StepResult], rows: list[dict] | None = None,
                 skip_first: bool = False, on_archived: Callable[[float, np.ndarray], None] | None = None) -> Recorded:
    """Record every result of ``steps`` (an :func:`fem.time.dynamics.integrate` or
    :func:`fem.time.stepping.run_with_events` generator) into ``recorder`` and ``rows`` (if given), the
    first one not when ``skip_first`` (the state the run starts from, already recorded);
    ``on_archived(t, u)`` after each archived step (e.g. the contact's ParaView series). Returns the
    last state and the generator's return value (run_with_events: its fine spans). The time spent
    inside ``steps`` is added to the recorder's stepping time (:func:`timed_steps`)."""
    steps = timed_steps(recorder, steps)
    state, first = None, True
    while True:
        try:
            result = next(steps)
        except StopIteration as done:
            return Recorded(state, done.value)
        state = result.state
        if not (first and skip_first):
            row = recorder.record(result)
            if rows is not None:
                rows.append(row)
            if on_archived is not None and result.archived:
                on_archived(state.t, state.u)
        first = False


def rows_as_arrays(rows: list[dict]) -> dict[str, np.ndarray]:
    """History rows (:meth:`RunRecorder.record`'s) as one array per column, {} for no row."""
    return {k: np.array([r[k] for r in rows]) for k in rows[0]} if rows else {}
