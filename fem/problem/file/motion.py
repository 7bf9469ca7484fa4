"""A problem file's base motions: the ``x`` and ``y`` tables of a base_motion stage, a record or a closed
form (:func:`motion`), each number checked against its physical range and refused naming its key."""
from __future__ import annotations

import inspect
import math
from pathlib import Path

from fem.problem.file.keys import MOTION_RANGES, keys
from fem.problem.file.syntax import Source, field_named, missing, num, ranged, shown, tab, text
from fem import ranges as r
from fem.loads import base_motion as bm
from fem.ranges import BadInput

#: closed-form base motions (fem.loads.base_motion.base_motion's kinds other than "record")
CLOSED_FORMS = {"harmonic": bm.Harmonic, "sine-pulse": bm.SinePulse, "cosine-pulse": bm.CosinePulse, "ramp": bm.Ramp}
RECORD = keys("x = { record = ... }")


def motion(src: Source, value, path: tuple, folder: Path):
    """A base-motion component (``x`` or ``y`` of a base_motion stage) at ``path``: a record read from
    ``folder`` or a closed form (fem.problem.file's docstring), each mistake refused naming its key."""
    example = ' (e.g. { record = "a.csv", column = 1 } or { kind = "sine-pulse", amplitude_g = 0.5, frequency = 2.0 })'
    if not isinstance(value, dict):
        raise src.refuse(path, f"expected a table{example}, got {shown(value)}")
    if "record" in value:
        t = tab(src, value, path, RECORD)
        text(src, t, path, "kind", "record", choices=("record",))
        name = text(src, t, path, "record")
        file = folder / name
        if not file.is_file():
            raise src.refuse(path + ("record",), f"no such record file {str(file)!r}")
        kw = {"column": num(src, t, path, "column", 1, low=1, integer=True)}
        kw.update({k: text(src, t, path, k, choices=c) for k, c in (("units", ("m/s2", "g")),
                                                                    ("baseline", ("polynomial", "none"))) if k in t})
        if "peak_g" in t:
            kw["peak_g"] = num(src, t, path, "peak_g", low=0, open_low=True, kind=r.TABLE_ACCELERATION)
        if "scale" in t:
            kw["scale"] = num(src, t, path, "scale", kind=r.SCALE, signed=True)
        try:
            return bm.read_record(file, **kw)
        except ValueError as err:  # the scaled record beyond the 100 g of its samples: "FILE: scale ..."
            message = str(err)
            if message.startswith(f"{file}: scale "):
                raise src.refuse(path + ("scale",), message.removeprefix(f"{file}: scale ")) from None
            key = "column" if f"column {kw['column']} asked" in message else "record"
            raise src.refuse(path + (key,), message) from None
    kind = text(src, value, path, "kind", choices=("record", *CLOSED_FORMS))
    if kind == "record":
        raise src.refuse(path + ("record",), f"missing (expected the record file: record = \"FILE\"){example}",
                         line_of=path)
    params = [n for n in inspect.signature(CLOSED_FORMS[kind]).parameters if not n.startswith("_")]
    t = tab(src, value, path, ("kind", *params, "amplitude_g", "scale"))
    if "amplitude" in params and ("amplitude" in t) == ("amplitude_g" in t):
        what = "give amplitude [m/s^2] or amplitude_g [g], not both" if "amplitude" in t else \
            "missing (expected amplitude [m/s^2] or amplitude_g [g])"
        raise src.refuse(path + ("amplitude",), what, line_of=path if "amplitude" not in t else None)
    kw = {}
    for name, p in inspect.signature(CLOSED_FORMS[kind]).parameters.items():
        if name in t:
            kw[name] = num(src, t, path, name, finite=name not in ("amplitude", "hold_time"))  # inf: held for ever
        elif p.default is inspect.Parameter.empty and name != "amplitude":
            missing(src, t, path, name, "a number")
    if "amplitude" in kw and math.isfinite(kw["amplitude"]):  # [m/s^2]: in g, a table acceleration (0: at rest)
        in_g = abs(kw["amplitude"]) / bm.STANDARD_GRAVITY
        if in_g not in bm.AMPLITUDE:
            raise src.refuse(path + ("amplitude",), f"{shown(kw['amplitude'])} m/s^2: its magnitude, {r.short(in_g)} "
                             f"g, is outside the physical range {bm.AMPLITUDE.interval()} of a {bm.AMPLITUDE.name}: "
                             f"{bm.AMPLITUDE.why}")
    if "amplitude_g" in t:
        kw["amplitude"] = num(src, t, path, "amplitude_g", kind=bm.AMPLITUDE, signed=True) * bm.STANDARD_GRAVITY
    try:
        history = bm.base_motion(kind, **kw)
    except ValueError as err:
        if isinstance(err, BadInput):  # its signs right (the library's words), a physical range: the file's words
            for name, value in kw.items():
                ranged(src, path + (name,), value, MOTION_RANGES.get(name))
        key = field_named(str(err), params)
        key = "amplitude_g" if key == "amplitude" and "amplitude_g" in t else key
        raise src.refuse(path + ((key,) if key else ()), str(err)) from None
    if "scale" not in t:
        return history
    scale = num(src, t, path, "scale", kind=r.SCALE, signed=True)
    try:
        bm.check_scaled_peak("", scale, bm.peak_acceleration(history))  # the 100 g of a record's samples
    except BadInput as err:
        raise src.refuse(path + ("scale",), str(err).lstrip()) from None
    return bm.scaled(history, scale)
