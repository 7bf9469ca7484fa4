"""A round-off ensemble: a run repeated with one input moved by a few units in the last place (ulps), and
per check the spread of its values and how many of the runs meet it.

Moving an input by k ulps (x -> the k-th float after or before it, :func:`moved`) changes a result as a
different order of the same floating-point operations would; a quantity whose values spread over the
ensemble, or a check that some runs meet and others miss, is decided by the rounding of the arithmetic,
not by the model (a rocking block's late impacts: SDNV105's ``--round-off``, ``rockfem run --round-off``).
"""
from __future__ import annotations

import numpy as np

#: the largest K of an ensemble of 2K + 1 runs
ROUND_OFF_MAX = 16


def moved(x: float, ulps: int) -> float:
    """``x`` moved by ``ulps`` units in the last place (numpy.nextafter, towards +inf for ulps > 0)."""
    for _ in range(abs(ulps)):
        x = float(np.nextafter(x, np.inf if ulps > 0 else -np.inf))
    return x


def offsets(k: int) -> list[int]:
    """The ulps of the runs besides the first: -k ... -1, +1 ... +k."""
    return [*range(-k, 0), *range(1, k + 1)]


def ensemble_rows(values: list[list], verdicts: list[list]) -> list[dict]:
    """Per check i, from ``values[r][i]`` and ``verdicts[r][i]`` of each run r (None: the run has none):
    ``runs`` (the values), ``min``, ``median``, ``max``, ``spread`` = (max - min) / |median| (None for a zero
    or missing median), ``graded`` (the verdicts) and ``met`` (the verdicts that are met)."""
    rows = []
    for i in range(len(values[0]) if values else 0):
        got = np.array([v[i] for v in values if v[i] is not None], dtype=float)
        graded = [v[i] for v in verdicts if v[i] is not None]
        median = float(np.median(got)) if got.size else None
        rows.append({"runs": int(got.size), "min": float(got.min()) if got.size else None, "median": median,
                     "max": float(got.max()) if got.size else None,
                     "spread": (float(got.max() - got.min()) / abs(median)) if median else None,
                     "graded": len(graded), "met": sum(bool(g) for g in graded)})
    return rows


def decided_by_round_off(rows: list[dict]) -> list[dict]:
    """The rows of an ensemble on whose verdict its runs disagree (some meet the check, some miss it)."""
    return [r for r in rows if 0 < r["met"] < r["graded"]]


def ensemble(k: int, ids: list[dict], values: list[list], verdicts: list[list], failed: list[str],
             interrupted: bool, label, runs: int | None = None) -> dict:
    """A summary.json's ``round_off`` entry: ``k`` ulps, whether it was ``interrupted``, ``runs`` of the 2k + 1
    asked (default the runs with values: ``values`` and ``verdicts`` per run, the first the run itself), the
    ``failed`` ones (a line each), per check its ``ids`` (what names it) and :func:`ensemble_rows`, and
    ``label(row)`` of each row :func:`decided_by_round_off`."""
    rows = [{**i, **row} for i, row in zip(ids, ensemble_rows(values, verdicts))]
    return {"ulps": k, "status": "interrupted" if interrupted else "complete",
            "runs": len(values) if runs is None else runs,
            "asked": 2 * k + 1, "failed": failed, "checks": rows,
            "decided_by_round_off": [label(r) for r in decided_by_round_off(rows)]}
