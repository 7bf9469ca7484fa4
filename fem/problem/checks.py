"""Checks a problem states, as Code_Aster's TEST_RESU: a quantity of the run, where and when, against a
reference with a tolerance and its source.

    Check("rotation", of="BLOCK", measure="max_abs", reference=0.166, tolerance=0.02,
          source="Lagrange run, dt_fine 1e-4 (docs/problem.md)")
    Check("displacement", of="C1", component="y", stage="self-weight", measure="max",
          reference=-1.6e-7, tolerance=0.05, source="SDNV105 A, Code_Aster")
    Check("impact_time", of="base", impact=1, reference=0.3118, tolerance=1e-3, criterion="absolute",
          source="rigid block, Housner")

A check reads one of the run's histories (the stage ``stage``, default the last dynamic stage) or its
events:

=====================  ==========  =================================================  ======
quantity               of          the history column or event                        unit
=====================  ==========  =================================================  ======
rotation               a body      its best-fit rigid rotation ``theta[BODY]``         rad
rotation_rate          a body      ``omega[BODY]``                                     rad/s
reaction               a pair      the pair's normal force ``rn[PAIR]`` (``node``:     N
                                   at that slave node alone, ``rn[PAIR@NODE]``; with
                                   ``component`` x or y, that node's contact force
                                   on the slave body, ``rx[PAIR@NODE]``: Code_Aster
                                   tests the block's force on the table, its opposite)
gap                    a pair      its largest open gap (``node``: that node's gap)    m
penetration            a pair      its largest penetration ``penetration[PAIR]``       m
friction_demand        a pair      ``|sum RT| / sum RN``                               --
displacement           a node      ``u`` of ``component`` x or y (``ux[NODE]``)        m
velocity               a node      ``v`` of ``component`` (``vx[NODE]``)               m/s
kinetic_energy         body / --   ``ke[BODY]`` (a body's, Code_Aster ENER_CIN on its   J
                                   group), ``ke`` (the whole model's)
strain_energy          --          the whole model's ``strain_energy`` (the books'      J
                                   elastic energy: a tilt that strains a block)
uplift_time            body/pair   the first instant a pair of it opens by LIFT        s
overturn_time          a body      the instant its rotation reached its limit          s
impact_time            pair / --   the instant of impact number ``impact`` (1 first)  s
impact_kinetic_energy  pair / --   ``ke`` at the last step before that impact          J
shock_force            a pair      the largest normal force of shock number ``impact``  N
                                   at the slave node ``node`` (Code_Aster's
                                   POST_DYNA_MODA_T F_MAX: fem.problem.shocks)
shock_instant          a pair      its instant (INSTANT)                              s
shock_duration         a pair      its duration (T_CHOC)                              s
shock_impulse          a pair      its impulse (IMPULSION)                            N s
impact_velocity        a pair      the node's normal velocity as it begins            m/s
                                   (V_IMPACT, negative approaching)
=====================  ==========  =================================================  ======

A history quantity is read ``at`` an instant (linear between the steps on either side) or reduced
over a ``window`` [t0, t1] (both ends included; ``ends`` ("open", "closed") excludes the first, as Code_Aster's
filter INST > t0 does; default the whole stage) by ``measure``: "max", "min",
"max_abs" (the largest |x|, returned with its sign dropped) or "integral" (trapezoidal rule, the ends
interpolated: an impulse, Code_Aster's CALC_FONCTION INTEGRE); ``result`` "instant" takes the
instant of the max/min instead of the value (``t(KE max)``).

Graded as TEST_RESU (``criterion`` CRITERE): "relative" |value - reference| <= tolerance |reference|,
"absolute" |value - reference| <= tolerance. A quantity the run never reached (it stopped before the
instant or the window's end, no such impact, never lifted) has no value and is **not met**: a stated
check is never passed by default.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from fem.problem.shocks import shock_table
from fem.ranges import BadInput, number

#: quantity -> (what ``of`` names: "body", "pair", "node", "body|pair", "pair?" / "body?" (one or nothing),
#: None (nothing); unit; a series read at an instant or over a window (True) or an event (False))
QUANTITIES = {
    "rotation": ("body", "rad", True),
    "rotation_rate": ("body", "rad/s", True),
    "reaction": ("pair", "N", True),
    "gap": ("pair", "m", True),
    "penetration": ("pair", "m", True),
    "friction_demand": ("pair", "", True),
    "displacement": ("node", "m", True),
    "velocity": ("node", "m/s", True),
    "kinetic_energy": ("body?", "J", True),
    "strain_energy": (None, "J", True),
    "uplift_time": ("body|pair", "s", False),
    "overturn_time": ("body", "s", False),
    "impact_time": ("pair?", "s", False),
    "impact_kinetic_energy": ("pair?", "J", False),
    "shock_force": ("pair", "N", False),
    "shock_instant": ("pair", "s", False),
    "shock_duration": ("pair", "s", False),
    "shock_impulse": ("pair", "N s", False),
    "impact_velocity": ("pair", "m/s", False),
}
#: the shock quantities (a row of a node's shock table, fem.problem.shocks) -> its field
SHOCKS = {"shock_force": "force", "shock_instant": "instant", "shock_duration": "duration",
          "shock_impulse": "impulse", "impact_velocity": "velocity"}
#: the quantities of an impact or shock by its number (``impact``)
NUMBERED = ("impact_time", "impact_kinetic_energy", *SHOCKS)
MEASURES = ("max", "min", "max_abs", "integral")
#: a pair's largest penetration over the run may reach this fraction of its contact elements' size
#: (and of its clearance, when it has one): beyond it the contact no longer holds the surfaces apart
#: at the scale the mesh resolves (a penalty stiffness far too soft for the bodies it carries)
PENETRATION_LIMIT = 0.1
#: at the end of a preload no body may have moved by more than this fraction of its size (the
#: diagonal of its bounding box): a settlement under gravity strains a body by rho g H / E, at most
#: fem.ranges.SELF_WEIGHT_STRAIN = 0.1 for the materials the ranges admit
PRELOAD_MOVE_LIMIT = 0.1
#: a contact node's reaction may alternate up and down at most this many steps in a row
#: (fem.problem.observe.PairWatch.alternation): a period-2 mode that a damped scheme lets die from a
#: landing's full reaction to 1 % of it in ln(0.01) / ln((1 + alpha) / (1 - alpha)) steps (23 at HHT
#: alpha = -0.1, 11 at -0.2); SDNV105 A's benchmark run, fine steps of 1e-5 s around its impacts, rings
#: for 21 at most; Newmark's alpha = 0 does not damp it (a shaking table run: 1,293 steps)
ALTERNATION_LIMIT = 100
CRITERIA = ("relative", "absolute")
ENDS = ("closed", "open")  # a window's end included (t >= t0, t <= t1) or not (t > t0, t < t1)
RESULTS = ("value", "instant")
COMPONENTS = ("x", "y")


def _finite(where: str, x, low: float | None = None) -> float:
    if isinstance(x, bool) or not isinstance(x, (int, float)) or not math.isfinite(x):
        raise BadInput(f"{where}: expected a finite number, got {x!r}")
    if low is not None and x < low:
        raise BadInput(f"{where}: expected a number >= {number(low)}, got {number(x)}")
    return float(x)


@dataclass(frozen=True)
class Check:
    """A quantity of the run graded against ``reference`` (module docstring).

    quantity : one of :data:`QUANTITIES`.  reference : the expected value (in the quantity's unit).
    tolerance : >= 0, relative (a fraction of |reference|) or absolute (the quantity's unit) by
        ``criterion``.  source : where the reference comes from (a benchmark, a closed form, a paper).
    of : the body, pair or node group (one node) it reads.  node : a pair quantity at one slave node
        (a one-node group of the pair's slave).  component : "x" or "y" of a node quantity.
    at : an instant [s].  measure : "max", "min", "max_abs" or "integral" over ``window`` (t0, t1) [s]
        (None: the whole stage).  ends : ("closed" or "open", "closed" or "open"): whether the window's
        start and end instants belong to it (Code_Aster's FILTRE CRIT_COMP GE / GT, LE / LT).
        result : "value", or "instant" of the max / min.
    impact : the impact's number (1: the first) of an impact quantity.  stage : the dynamic stage whose
        history it reads (None: the last dynamic stage).  name : its label (default from the fields).
    gate : graded as soon as its ``stage`` ends, and the run stops there, failed, when it is not met: the
        stages after it do not start from a state the problem says is wrong (a tilt that did not reach
        its angle, a block that did not settle). A history quantity of a named stage only.
    """

    quantity: str
    reference: float
    tolerance: float
    source: str
    of: str | None = None
    node: str | None = None
    component: str | None = None
    at: float | None = None
    measure: str | None = None
    window: tuple | None = None
    ends: tuple = ("closed", "closed")
    result: str = "value"
    impact: int | None = None
    stage: str | None = None
    criterion: str = "relative"
    name: str | None = None
    gate: bool = False

    def __post_init__(self) -> None:
        head = f"checks.{self.label}"
        if self.quantity not in QUANTITIES:
            raise BadInput(f"{head}.quantity: {self.quantity!r} is not one of {', '.join(QUANTITIES)}")
        owner, _, series = QUANTITIES[self.quantity]
        _finite(f"{head}.reference", self.reference)
        _finite(f"{head}.tolerance", self.tolerance, 0.0)
        if not isinstance(self.source, str) or not self.source.strip():
            raise BadInput(f"{head}.source: say where the reference comes from (a benchmark, a closed form, a "
                           f"paper), got {self.source!r}")
        if self.criterion not in CRITERIA:
            raise BadInput(f"{head}.criterion: {self.criterion!r} is not one of {', '.join(CRITERIA)}")
        if self.criterion == "relative" and self.reference == 0:
            raise BadInput(f"{head}.criterion: a relative tolerance of a zero reference: give criterion "
                           f"\"absolute\" (a tolerance in {QUANTITIES[self.quantity][1] or 'the quantity'})")
        if self.result not in RESULTS:
            raise BadInput(f"{head}.result: {self.result!r} is not one of {', '.join(RESULTS)}")
        if owner in ("body", "pair", "node", "body|pair") and not (isinstance(self.of, str) and self.of):
            raise BadInput(f"{head}.of: {self.quantity} is read of a {owner.replace('|', ' or a ')}: name it")
        if owner is None and self.of is not None:
            raise BadInput(f"{head}.of: {self.quantity} is the whole run's: leave out of (got {self.of!r})")
        if self.node is not None and self.quantity not in ("reaction", "gap", *SHOCKS):
            raise BadInput(f"{head}.node: only a pair's reaction, gap or shocks are read at one of its nodes")
        if self.quantity in SHOCKS and self.node is None:
            raise BadInput(f"{head}.node: a shock is a node's (Code_Aster's NOEUD): name the slave node's group")
        if owner == "node" and self.component is None:
            raise BadInput(f"{head}.component: x or y of the node's quantity")
        if self.component is not None and owner != "node" and not (self.quantity == "reaction" and self.node):
            raise BadInput(f"{head}.component: " + ("a reaction's component is read at one node: name it (node)"
                                                    if self.quantity == "reaction" else
                                                    f"{self.quantity} has no component"))
        if self.component is not None and self.component not in COMPONENTS:
            raise BadInput(f"{head}.component: {self.component!r} is not x or y")
        if series:
            if (self.at is None) == (self.measure is None):
                raise BadInput(f"{head}: give at (an instant) or measure ({', '.join(MEASURES)}), one of them")
            if self.at is not None:
                _finite(f"{head}.at", self.at)
                if self.window is not None:
                    raise BadInput(f"{head}.window: a window goes with a measure, not with at")
            elif self.measure not in MEASURES:
                raise BadInput(f"{head}.measure: {self.measure!r} is not one of {', '.join(MEASURES)}")
            if self.result == "instant" and self.measure not in ("max", "min", "max_abs"):
                raise BadInput(f"{head}.result: the instant of a max, min or max_abs only")
            if self.impact is not None:
                raise BadInput(f"{head}.impact: only for the impact and shock quantities ({', '.join(NUMBERED)})")
        else:
            for key in ("at", "measure", "window"):
                if getattr(self, key) is not None:
                    raise BadInput(f"{head}.{key}: {self.quantity} is an instant of the run, not a history")
            if self.result != "value":
                raise BadInput(f"{head}.result: {self.quantity} is already an instant")
            if self.quantity in NUMBERED:
                if isinstance(self.impact, bool) or not isinstance(self.impact, int) or self.impact < 1:
                    raise BadInput(f"{head}.impact: the impact's number, 1 for the first, got {self.impact!r}")
            elif self.impact is not None:
                raise BadInput(f"{head}.impact: only for the impact and shock quantities ({', '.join(NUMBERED)})")
        if self.window is not None:
            w = tuple(self.window)
            if len(w) != 2:
                raise BadInput(f"{head}.window: expected [t0, t1], got {self.window!r}")
            t0, t1 = (_finite(f"{head}.window", x) for x in w)
            if not t1 > t0:
                raise BadInput(f"{head}.window: expected t0 < t1, got [{number(t0)}, {number(t1)}]")
            object.__setattr__(self, "window", (t0, t1))
        ends = tuple(self.ends) if isinstance(self.ends, (tuple, list)) else None
        if ends is None or len(ends) != 2 or any(e not in ENDS for e in ends):
            raise BadInput(f"{head}.ends: expected two of {', '.join(ENDS)} (the window's start, its end), "
                           f"got {self.ends!r}")
        object.__setattr__(self, "ends", ends)
        if not isinstance(self.gate, bool):
            raise BadInput(f"{head}.gate: true or false, got {self.gate!r}")
        if self.gate and not (series and self.stage):
            raise BadInput(f"{head}.gate: a gate is graded when its stage ends: a history quantity with its stage "
                           f"named (stage = \"...\")" if series else
                           f"{head}.gate: {self.quantity} is an event of the whole run, not of a stage's end")
        if ends != ("closed", "closed") and (self.window is None or self.measure == "integral"):
            raise BadInput(f"{head}.ends: " + ("an integral's ends are interpolated, neither open nor closed"
                                               if self.window is not None else "the ends of a window: give one"))

    @property
    def label(self) -> str:
        """The check's name, or one made of its fields (``rotation[BLOCK] max_abs``)."""
        if self.name:
            return self.name
        of = "" if self.of is None else f"[{self.of}{'@' + self.node if self.node else ''}]"
        comp = self.component or ""
        when = (f" at {number(self.at)} s" if self.at is not None else
                f" {self.measure}" + ("" if self.window is None else f" {self._interval()} s")
                if self.measure else f" {self.impact}" if self.impact else "")
        return f"{'t(' if self.result == 'instant' else ''}{self.quantity}{comp}{of}{when}{')' if self.result == 'instant' else ''}"

    def _interval(self) -> str:
        """The window as written in a label: ``0.01-0.05``, or ``(0.01, 0.05]`` with an open end."""
        t0, t1 = (number(x) for x in self.window)
        if self.ends == ("closed", "closed"):
            return f"{t0}-{t1}"
        return f"{'(' if self.ends[0] == 'open' else '['}{t0}, {t1}{')' if self.ends[1] == 'open' else ']'}"

    def column(self) -> str | None:
        """The history column a series quantity reads (None for an event)."""
        of, node = self.of, self.node
        return {"rotation": f"theta[{of}]", "rotation_rate": f"omega[{of}]",
                "reaction": f"r{self.component or 'n'}[{of}@{node}]" if node else f"rn[{of}]",
                "gap": f"gap[{of}@{node}]" if node else f"max_gap[{of}]", "penetration": f"penetration[{of}]",
                "friction_demand": f"friction_demand[{of}]", "displacement": f"u{self.component}[{of}]",
                "velocity": f"v{self.component}[{of}]",
                "kinetic_energy": f"ke[{of}]" if of else "ke", "strain_energy": "strain_energy"}.get(self.quantity)

    def unit(self) -> str:
        return "s" if self.result == "instant" else QUANTITIES[self.quantity][1]


def node_probes(checks) -> list[tuple[str, str, str, str]]:
    """The node columns the checks read: ``(name, group, quantity, component)`` of fem.io.recorder.NodeProbe."""
    out = {}
    for c in checks:
        if c.quantity in ("displacement", "velocity"):
            q = "u" if c.quantity == "displacement" else "v"
            out[c.column()] = (c.column(), c.of, q, c.component)
    return list(out.values())


def kinetic_bodies(checks) -> list[str]:
    """The bodies whose own kinetic energy the checks read (``ke[BODY]`` columns), in order."""
    return list(dict.fromkeys(c.of for c in checks if c.quantity == "kinetic_energy" and c.of is not None))


def pair_nodes(checks) -> dict[str, set]:
    """pair label -> the slave node groups the checks read a pair quantity at."""
    out: dict[str, set] = {}
    for c in checks:
        if c.node is not None:
            out.setdefault(c.of, set()).add(c.node)
    return out


def validate(checks, bodies, pairs, node_groups, stages) -> None:
    """Refuse (BadInput naming ``checks.NAME.KEY``) a check whose body, pair, node or stage the problem does
    not have, or whose instant or window lies outside its stage's planned times. ``bodies``, ``pairs``:
    labels; ``node_groups``: group -> number of nodes; ``stages``: name -> (t_start, t_end) of the
    dynamic stages, in order (a preload has no history to check)."""
    names = [c.label for c in checks]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise BadInput(f"checks: {twice[0]!r} is stated twice (give one a name)")
    for c in checks:
        head = f"checks.{c.label}"
        owner = QUANTITIES[c.quantity][0]
        if c.of is not None:
            known = {"body": bodies, "body?": bodies, "pair": pairs, "pair?": pairs, "body|pair": [*bodies, *pairs],
                     "node": [g for g, n in node_groups.items() if n == 1]}[owner]
            if c.of not in known:
                what = {"node": "a node group of one node", "body|pair": "a body or a pair"}.get(
                    owner, "a " + owner.rstrip("?"))
                raise BadInput(f"{head}.of: {c.of!r} is not {what} of the problem; it has: "
                               f"{', '.join(sorted(known)) or 'none'}")
        if c.node is not None and node_groups.get(c.node) != 1:
            raise BadInput(f"{head}.node: {c.node!r} is not a node group of one node of the mesh")
        if not stages:
            raise BadInput(f"{head}: the stages have no dynamic stage, no history to check")
        if c.stage is not None and c.stage not in stages:
            raise BadInput(f"{head}.stage: {c.stage!r} is not a dynamic stage; the stages: {', '.join(stages)}")
        t0, t1 = stages[c.stage] if c.stage is not None else list(stages.values())[-1]
        tol = 1e-9 * max(1.0, abs(t0), abs(t1))
        for key, times in (("at", [c.at] if c.at is not None else []), ("window", list(c.window or ()))):
            for t in times:
                if not t0 - tol <= t <= t1 + tol:
                    raise BadInput(f"{head}.{key}: {number(t)} s lies outside its stage "
                                   f"({c.stage or 'the last dynamic stage'}: {number(t0)} to {number(t1)} s)")


def _series(c: Check, h: dict) -> tuple[float | None, str]:
    """The value of a series check on the history ``h`` (name -> array), or None and why."""
    col = c.column()
    if not h or col not in h:
        return None, "the stage has no history" if not h else f"no column {col} in the history"
    t, x = np.asarray(h["t"], dtype=float), np.asarray(h[col], dtype=float)
    if c.at is not None:
        if not t[0] - 1e-12 <= c.at <= t[-1] + 1e-12:
            return None, f"not reached: the history runs from {t[0]:.6g} to {t[-1]:.6g} s"
        return float(np.interp(c.at, t, x)), ""
    lo, hi = c.window if c.window is not None else (float(t[0]), float(t[-1]))
    if hi > t[-1] + 1e-9 * max(1.0, abs(hi)):
        return None, f"not reached: the run stopped at t = {t[-1]:.6g} s, before the window's end {hi:.6g} s"
    if c.measure == "integral":
        inside = (t > lo) & (t < hi)
        tt = np.concatenate([[lo], t[inside], [hi]])
        xx = np.concatenate([[np.interp(lo, t, x)], x[inside], [np.interp(hi, t, x)]])
        return float(np.trapezoid(xx, tt)), ""
    after = t > lo if c.ends[0] == "open" else t >= lo
    inside = after & ((t < hi) if c.ends[1] == "open" else (t <= hi))
    if not np.any(inside):
        return None, f"no step in the window [{lo:.6g}, {hi:.6g}] s"
    y = {"max": x, "min": -x, "max_abs": np.abs(x)}[c.measure]
    k = np.flatnonzero(inside)[int(np.argmax(y[inside]))]
    if c.result == "instant":
        return float(t[k]), ""
    return float(abs(x[k]) if c.measure == "max_abs" else x[k]), ""


def _shock(c: Check, h: dict) -> tuple[float | None, str]:
    """The value of a shock check: a field of shock number ``c.impact`` of the node's table (fem.problem.shocks)
    on the history ``h``."""
    rn, gap = f"rn[{c.of}@{c.node}]", f"gap[{c.of}@{c.node}]"
    if not h or rn not in h:
        return None, "the stage has no history" if not h else f"no column {rn} in the history"
    table = shock_table(h["t"], h[rn], h[gap])
    if len(table) < c.impact:
        return None, f"{len(table)} shock(s) of {c.of} at {c.node} in the run, no shock {c.impact}"
    value = table[c.impact - 1][SHOCKS[c.quantity]]
    if value is None:
        return None, (f"shock {c.impact} is still closed at the history's end" if c.quantity != "impact_velocity"
                      else f"shock {c.impact} is closed from the history's start")
    return float(value), ""


def _event(c: Check, outcome) -> tuple[float | None, str]:
    """The value of an event check (an instant, an impact's kinetic energy) from the outcome."""
    if c.quantity == "overturn_time":
        at = outcome.bodies.get(c.of, {}).get("overturned_at")
        return (at, "") if at is not None else (None, f"{c.of} did not overturn")
    if c.quantity == "uplift_time":
        where = outcome.bodies if c.of in outcome.bodies else outcome.pairs
        at = where.get(c.of, {}).get("uplift_time")
        return (at, "") if at is not None else (None, f"{c.of} never lifted")
    impacts = [i for i in outcome.impacts if c.of is None or i["pair"] == c.of]
    if len(impacts) < c.impact:
        return None, f"{len(impacts)} impact(s){' of ' + c.of if c.of else ''} in the run, no impact {c.impact}"
    hit = impacts[c.impact - 1]
    if c.quantity == "impact_time":
        return float(hit["time"]), ""
    ke = ke_before(outcome.histories, hit["time"])
    return (ke, "") if ke is not None else (None, "no kinetic energy recorded before the impact")


def ke_before(histories: dict, t: float) -> float | None:
    """``ke`` [J] at the last step before the instant ``t`` in the history that holds it (None: none)."""
    for h in histories.values():
        times = np.asarray(h.get("t", ()), dtype=float)
        if times.size and "ke" in h and times[0] < t <= times[-1]:
            return float(h["ke"][int(np.searchsorted(times, t)) - 1])
    return None


def grade(c: Check, value: float | None, note: str = "") -> dict:
    """A check's row: value, reference, error, verdict (None value: not met)."""
    ref = c.reference
    if value is None:
        error, met = None, False
    else:
        error = abs(value - ref) / abs(ref) if c.criterion == "relative" and ref != 0 else abs(value - ref)
        bound = c.tolerance * abs(ref) if c.criterion == "relative" else c.tolerance
        met = bool(abs(value - ref) <= bound)
    row = {"quantity": c.label, "value": value, "unit": c.unit(), "reference": ref, "tolerance": c.tolerance,
           "criterion": c.criterion, "error": error, "source": c.source, "within_tolerance": met, "stated": True}
    if note:
        row["note"] = note
    return row


def evaluate(checks, outcome, last_stage: str | None) -> list[dict]:
    """Every check graded on ``outcome`` (its histories by stage, impacts, bodies, pairs);
    ``last_stage``: the last dynamic stage's name (the default history)."""
    rows = []
    for c in checks:
        if QUANTITIES[c.quantity][2]:
            stage = c.stage or last_stage
            value, note = _series(c, outcome.histories.get(stage, {}))
        elif c.quantity in SHOCKS:
            value, note = _shock(c, outcome.histories.get(c.stage or last_stage, {}))
        else:
            value, note = _event(c, outcome)
        rows.append(grade(c, value, note))
    return rows


def gate(checks, stage: str, history: dict) -> list[dict]:
    """The rows of the gates of ``stage`` (checks with ``gate`` and that stage) graded on its ``history``
    (name -> array) as it ended; a row not met stops the run (:func:`gate_failure`)."""
    return [grade(c, *_series(c, history)) for c in checks if c.gate and c.stage == stage]


def gate_failure(rows: list[dict], stage: str) -> str | None:
    """The message of the first gate of ``rows`` not met at the end of ``stage`` (None: every one met)."""
    for r in rows:
        if not r["within_tolerance"]:
            value = "no value" if r["value"] is None else f"{r['value']:.6g} {r['unit']}".rstrip()
            why = f" ({r['note']})" if r.get("note") else ""
            return (f"the stage {stage!r} ended without meeting its gate {r['quantity']}: {value}{why} against "
                    f"{r['reference']:.6g} within {r['tolerance']:.3g} ({r['criterion']}); the stages after it "
                    f"did not run")
    return None


class PhysicalCheckFailed(RuntimeError):
    """A check every run makes failed where going on would compute nonsense (a preload that threw a body
    away): the run ends "failed" with this message, naming the body or pair, the instant and the remedy."""


def physical_row(quantity: str, value: float | None, limit: float, source: str, note: str = "") -> dict:
    """A row of a check every run makes: ``value`` graded against ``limit`` (value <= limit: met; None:
    no verdict, the check does not apply)."""
    row = {"quantity": quantity, "value": value, "unit": "", "reference": 0.0, "tolerance": limit,
           "criterion": "absolute", "error": value, "source": source,
           "within_tolerance": None if value is None else bool(value <= limit)}
    if note:
        row["note"] = note
    return row


def penetration_row(pair: str, penetration: float, size: float | None, clearance: float = 0.0,
                    at: float | None = None) -> dict:
    """The check of a pair's largest penetration [m] against :data:`PENETRATION_LIMIT` of ``size``, its
    contact elements' size [m] (and of ``clearance`` [m] when > 0); no verdict without a size (a node on
    a rigid plane or against another node: discrete shock elements, whose compression is their law);
    ``at``: the instant of the largest penetration [s], named in the note of a failed row."""
    scale = size if not clearance > 0 or size is None else min(size, clearance)
    what = "contact element size" if not clearance > 0 else "min(contact element size, clearance)"
    if scale is None or not scale > 0:
        return physical_row(f"penetration[{pair}] / {what}", None, PENETRATION_LIMIT,
                            "every run: a contact holds its surfaces apart",
                            f"largest penetration {penetration:.3g} m; no contact element size (discrete contact)")
    ratio = penetration / scale
    note = "" if ratio <= PENETRATION_LIMIT else (
        f"{pair}: the surfaces interpenetrate by {penetration:.3g} m{'' if at is None else f' at t = {at:.6g} s'}, "
        f"{ratio:.3g} of {what} {scale:.3g} m: the contact "
        f"is far too soft for the bodies it carries (a penalty normal_stiffness: see docs/problem.md) or the pair's "
        f"normal points the wrong way")
    return physical_row(f"penetration[{pair}] / {what}", ratio, PENETRATION_LIMIT,
                        "every run: a contact holds its surfaces apart", note)


def alternation_row(pair: str, steps: int, node: str | None = None, began: float | None = None) -> dict:
    """The check of a pair's reaction alternation: the most steps in a row one closed node's reaction
    went up and down in turn (fem.problem.observe.PairWatch.alternation) against :data:`ALTERNATION_LIMIT`;
    ``node``: that node's name, ``began``: the instant the stretch began [s]."""
    note = "" if steps <= ALTERNATION_LIMIT else (
        f"{pair}: the normal reaction of node {node} goes up and down in turn at every step for {steps} steps from "
        f"t = {began:.6g} s: the time scheme does not damp the contact's period-2 mode (Newmark's average "
        f"acceleration, HHT alpha = 0, keeps it), and the friction it drives is not physical: take HHT alpha "
        f"-0.1 or below (alpha_fine -0.2; docs/problem.md, \"Reactions that alternate\")")
    return physical_row(f"reaction alternation[{pair}] (steps in a row)", steps, ALTERNATION_LIMIT,
                        "every run: a closed contact's reaction follows the motion, not the step", note)
