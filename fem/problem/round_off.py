"""A round-off ensemble of a problem's run (``rockfem run FILE --round-off K``): the run repeated with
gravity moved by -K ... -1, +1 ... +K units in the last place, its statistics those of
:mod:`fem.studies.round_off`."""
from __future__ import annotations

from dataclasses import replace

from fem.problem.simulate import simulate
from fem.studies.round_off import ensemble, moved, offsets
from fem.time.interrupt import Interrupted


class RoundOff:
    """``--round-off K``: called by :func:`fem.problem.simulate` (its ``finish``) once the run is complete, the run
    repeated with gravity moved by -K ... -1, +1 ... +K ulps, each without files of its own; returns
    summary.json's ``round_off``: per stated check its values' min, median, max and spread, how many runs
    meet it, and the checks on which the runs disagree. A signal ends the ensemble with the runs it
    finished (``interrupted`` keeps it for the caller to raise)."""

    def __init__(self, problem, stages, settings: dict, k: int) -> None:
        self.problem, self.stages, self.settings, self.k = problem, stages, settings, k
        self.entry: dict | None = None
        self.interrupted = None
        self.runs = 0

    def __call__(self, outcome) -> dict:
        checks = [c for c in outcome.checks if c.get("stated")]
        values, verdicts = [[c["value"] for c in checks]], [[c["within_tolerance"] for c in checks]]
        failed, gravities = [], [self.problem.gravity]
        for k in offsets(self.k):
            gravity = moved(self.problem.gravity, k)
            try:
                other = simulate(replace(self.problem, gravity=gravity), self.stages, out=None, **self.settings)
            except (Interrupted, KeyboardInterrupt) as err:
                self.interrupted = err
                break
            gravities.append(gravity)
            if other.status != "complete":
                failed.append(f"{k:+d} ulp: {other.message}")
                continue
            theirs = {c["quantity"]: c for c in other.checks if c.get("stated")}
            same = [theirs.get(c["quantity"], {}) for c in checks]
            values.append([c.get("value") for c in same])
            verdicts.append([c.get("within_tolerance") for c in same])
        self.runs = len(gravities)  # the runs made, a failed one too
        entry = ensemble(self.k, [{"quantity": c["quantity"]} for c in checks], values, verdicts, failed,
                         self.interrupted is not None, lambda r: r["quantity"], runs=self.runs)
        self.entry = {"ulps": self.k, "input": "gravity", "gravities": gravities, **entry}
        return {"round_off": self.entry}

    def lines(self) -> list[str]:
        """The console line of the ensemble (none without one)."""
        e = self.entry
        if e is None:
            return []
        decided = ", ".join(e["decided_by_round_off"]) or "none"
        return [f"round-off ensemble ({e['runs']} of {e['asked']} runs, gravity moved by up to {self.k} ulps): "
                f"checks decided by round-off: {decided}"]
