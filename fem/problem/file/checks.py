"""The ``[[checks]]`` of a problem file: quantities of the run graded against stated references, as
Code_Aster's TEST_RESU (fem.problem.checks.Check: the quantities, where and when they are read, how
they are graded)::

    [[checks]]
    quantity = "rotation"            # fem.problem.checks.QUANTITIES
    of = "BLOCK"                     # a body, a pair or a one-node group, as the quantity reads
    measure = "max_abs"              # or at = 0.5 [s]; measure: max, min, max_abs, integral
    window = [0.0, 1.0]              # optional [s], both ends included (default: the whole stage);
    ends = ["open", "closed"]        # optional: the first excluded (Code_Aster's filter INST > 0.0)
    reference = 0.166
    tolerance = 0.02                 # relative by default; criterion = "absolute" in the quantity's unit
    source = "Lagrange run at dt_fine 5e-5 (docs/problem.md)"
    # optional: name, stage (a dynamic stage's name; default the last), node (a pair's reaction, gap or shocks at
    # one slave node), component ("x" or "y" of a displacement or velocity, or of a reaction at a node), result ("instant": the
    # instant of the max or min), impact (1: the first, for the impact and shock quantities)
"""
from __future__ import annotations

from fem.problem.file.keys import keys
from fem.problem.file.syntax import Source, num, shown, tab, tables, text
from fem.problem.checks import COMPONENTS, CRITERIA, ENDS, MEASURES, QUANTITIES, RESULTS, Check
from fem.ranges import BadInput

#: the keys of a [[checks]] entry
KEYS = keys("[[checks]]")


def read_checks(src: Source, data: dict) -> tuple[Check, ...]:
    """The file's ``[[checks]]`` as :class:`fem.problem.checks.Check` s, each mistake refused on its line."""
    out = []
    for i, t in enumerate(tables(src, data, "checks", required=False)):
        p = ("checks", i)
        tab(src, t, p, KEYS)
        kw = {"quantity": text(src, t, p, "quantity", choices=tuple(QUANTITIES)),
              "reference": num(src, t, p, "reference"), "tolerance": num(src, t, p, "tolerance", low=0),
              "source": text(src, t, p, "source"),
              "criterion": text(src, t, p, "criterion", "relative", choices=CRITERIA),
              "result": text(src, t, p, "result", "value", choices=RESULTS)}
        for key in ("of", "node", "stage", "name"):
            kw[key] = text(src, t, p, key, None)
        kw["component"] = text(src, t, p, "component", None, choices=COMPONENTS)
        kw["measure"] = text(src, t, p, "measure", None, choices=MEASURES)
        kw["at"] = num(src, t, p, "at", None)
        kw["impact"] = num(src, t, p, "impact", None, low=1, integer=True)
        if "window" in t:
            w = t["window"]
            if not (isinstance(w, list) and len(w) == 2 and all(isinstance(x, (int, float)) and not isinstance(x, bool)
                                                                for x in w)):
                raise src.refuse(p + ("window",), f"expected [t0, t1] in seconds, got {shown(w)}")
            kw["window"] = tuple(float(x) for x in w)
        if "gate" in t:
            if not isinstance(t["gate"], bool):
                raise src.refuse(p + ("gate",), f"expected true or false, got {shown(t['gate'])}")
            kw["gate"] = t["gate"]
        if "ends" in t:
            e = t["ends"]
            if not (isinstance(e, list) and len(e) == 2 and all(x in ENDS for x in e)):
                raise src.refuse(p + ("ends",), f'expected two of "closed", "open" (the window\'s start, its end), '
                                                f'got {shown(e)}')
            kw["ends"] = tuple(e)
        try:
            out.append(Check(**kw))
        except BadInput as err:  # "checks.LABEL.KEY: what" or "checks.LABEL: what"
            head, _, what = str(err).partition(": ")
            key = head.rsplit(".", 1)[1] if head.count(".") >= 1 and head.rsplit(".", 1)[1] in KEYS else None
            raise src.refuse(p + ((key,) if key else ()), what) from None
    return tuple(out)
