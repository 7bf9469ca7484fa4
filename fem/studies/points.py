"""The points of a parameter study: :class:`Point` (one set of flag values, its folder name and
its arguments), the grid of axes (``--grid mu=0.3,0.6``, ``--grid amplitude-g=0.4:1.2:5``), the
points of a CSV file (``--points``), and their number checked against :func:`point_limit` before
any point is built (:class:`TooManyPoints`). Re-exported by :mod:`fem.studies.sweep`."""
from __future__ import annotations

import csv
import itertools
import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from fem.run import lifecycle as _run
from fem.run.lifecycle import BadInput

MAX_POINTS = 100_000
#: what a point costs the client and the scheduler while it waits [bytes]: its Point, its future and
#: task, later its row (measured: 9.8 kB a point for 20,000 points waiting on a LocalCluster; counted
#: twice that). --force lifts MAX_POINTS up to the points the available memory can keep track of
POINT_BOOKKEEPING = 20_000


_NAME_SAFE = re.compile(r"[^A-Za-z0-9.+=-]+")
#: a flag's name (``mu``, ``amplitude-g``) or a problem file's dotted key (``pairs.BRICK_1_BOTTOM.mu``)
_FLAG = re.compile(r"^[A-Za-z][A-Za-z0-9_-]*(\.[A-Za-z0-9_-]+)*$")


@dataclass(frozen=True)
class Point:
    """One point of a study: ``values`` are ``(flag, text)`` pairs, the flag without ``--``, the
    value as the user wrote it (passed to the case unchanged); ``index`` its place in the grid."""

    index: int
    values: tuple[tuple[str, str], ...]

    @property
    def name(self) -> str:
        """Folder name: ``mu=0.6_dt=0.001`` (characters other than letters, digits and ``.+=-``
        replaced by ``_``); ``p0007-<hash>`` when that would be longer than 100 characters."""
        text = "_".join(f"{k}={_NAME_SAFE.sub('_', v)}" for k, v in self.values) or "default"
        if len(text) <= 100:
            return text
        import hashlib

        digest = hashlib.sha1(repr(self.values).encode()).hexdigest()[:10]
        return f"p{self.index:04d}-{digest}"

    def flags(self, option: str | None = None) -> list[str]:
        """``["--mu", "0.6", "--dt", "0.001"]``; with an ``option`` each value is given through it,
        ``NAME=VALUE``: ``["--set", "pairs.0.mu=0.6", "--set", "steps.dt=0.001"]``."""
        if option is not None:
            return [x for k, v in self.values for x in (option, f"{k}={v}")]
        return [x for k, v in self.values for x in (f"--{k}", v)]

    def label(self) -> str:
        return " ".join(f"{k}={v}" for k, v in self.values)


class TooManyPoints(BadInput):
    """A study of more points than its limit (:func:`point_limit`), refused before any is built."""


def point_limit(force: bool) -> int:
    """The most points a study may have: :data:`MAX_POINTS`; with ``--force`` as many as this
    machine's memory can keep track of (:data:`POINT_BOOKKEEPING` bytes a point on the client and
    the scheduler), and never fewer than :data:`MAX_POINTS`."""
    if not force:
        return MAX_POINTS
    return max(MAX_POINTS, int(_run.available_memory() // POINT_BOOKKEEPING))


def _too_many(what: str, count: int | None, limit: int, noun: str = "points") -> TooManyPoints:
    """``count`` None: more than ``limit`` (a file not read past the limit)."""
    more = "points this machine's memory can keep track of" if limit > MAX_POINTS else "points"
    counted = f"{count:,} {noun}, more than" if count is not None else "more than"
    return TooManyPoints(f"{what}: {counted} the limit of {limit:,} {more} "
                         f"(fewer values{', or --force' if limit == MAX_POINTS else ''})")


def parse_values(text: str, label: str, limit: int | None = None) -> tuple[str, ...]:
    """``v1,v2,...`` or ``start:stop:count`` (count evenly spaced numbers, ends included), as
    strings; :class:`fem.run.lifecycle.BadInput` whose message starts with ``label`` (what the user typed,
    ``--grid mu=0.3,0.6``) otherwise, :class:`TooManyPoints` for more than ``limit`` values, counted
    before any is built."""
    if re.fullmatch(r"[^,]*:[^,]*:[^,]*", text):
        start, stop, count = text.split(":")
        try:
            a, b, n = float(start), float(stop), int(count)
        except ValueError:
            raise BadInput(f"{label}: start:stop:count needs two numbers and an integer") from None
        if n < 1 or not (math.isfinite(a) and math.isfinite(b)):
            raise BadInput(f"{label}: count must be >= 1 and the ends finite")
        if limit is not None and n > limit:
            raise _too_many(label, n, limit, "values")
        return tuple(repr(float(a + (b - a) * k / (n - 1))) if n > 1 else repr(a) for k in range(n))
    values = tuple(v.strip() for v in text.split(","))
    if not text.strip() or any(not v for v in values):
        raise BadInput(f"{label}: empty value (expected v1,v2,... or start:stop:count)")
    if limit is not None and len(values) > limit:
        raise _too_many(label, len(values), limit, "values")
    if len(set(values)) != len(values):
        raise BadInput(f"{label}: a value is repeated")
    return values


def parse_axis(text: str, limit: int | None = None) -> tuple[str, tuple[str, ...]]:
    """``"mu=0.3,0.6"`` -> ``("mu", ("0.3", "0.6"))`` (a leading ``--`` on the name is dropped);
    :class:`fem.run.lifecycle.BadInput` naming ``--grid`` for anything else, :class:`TooManyPoints` for an
    axis of more than ``limit`` values (counted first: ``v0=0:1:1000000000`` builds nothing)."""
    name, sep, rest = text.partition("=")
    name = name.strip().removeprefix("--")
    if not sep or not _FLAG.match(name):
        raise BadInput(f"--grid {text}: expected NAME=v1,v2,... or NAME=start:stop:count (NAME a flag of the case, "
                       f"or a dotted key of a problem file)")
    return name, parse_values(rest, f"--grid {name}={rest}", limit)


def grid(axes: Sequence[tuple[str, Sequence[str]]], limit: int | None = None) -> list[Point]:
    """The Cartesian product of ``axes`` ``[(flag, values), ...]``, the last axis varying fastest;
    :class:`TooManyPoints` if the product of the axes' lengths exceeds ``limit`` (checked before
    any point is built)."""
    names = [name for name, _ in axes]
    if len(set(names)) != len(names):
        raise BadInput(f"--grid: a flag is given twice ({', '.join(sorted(n for n in names if names.count(n) > 1))})")
    count = math.prod(len(values) for _, values in axes)
    if limit is not None and count > limit:
        sizes = " x ".join(f"{len(values):,} ({name})" for name, values in axes)
        raise _too_many(f"--grid {sizes}", count, limit)
    combos = itertools.product(*(values for _, values in axes))
    return [Point(i, tuple(zip(names, combo))) for i, combo in enumerate(combos)]


def read_points(path: Path, limit: int | None = None) -> list[Point]:
    """Points from a CSV file: a header of flag names (with or without ``--``), a row a point; an
    empty cell leaves the flag out of that point. :class:`TooManyPoints` as soon as a row past
    ``limit`` is read (the file is read row by row, never whole)."""
    try:
        with open(path, newline="") as f:
            reader = csv.reader(f)
            rows = []
            for r in reader:
                if any(c.strip() for c in r):
                    rows.append(r)
                    if limit is not None and len(rows) > limit + 1:  # the header and limit points
                        raise _too_many(f"--points {path}", None, limit)
    except OSError as err:
        raise BadInput(f"--points {path}: cannot read it ({err.strerror or err})") from None
    except (csv.Error, UnicodeDecodeError) as err:
        raise BadInput(f"--points {path}: not a CSV file ({err})") from None
    if len(rows) < 2:
        raise BadInput(f"--points {path}: needs a header of flag names and at least one row")
    names = [c.strip().removeprefix("--") for c in rows[0]]
    bad = [n for n in names if not _FLAG.match(n)]
    if bad or len(set(names)) != len(names):
        raise BadInput(f"--points {path}: the header must name distinct flags, got {rows[0]}")
    points = []
    for i, row in enumerate(rows[1:]):
        if len(row) != len(names):
            raise BadInput(f"--points {path}: row {i + 2} has {len(row)} cells, the header {len(names)}")
        points.append(Point(i, tuple((n, c.strip()) for n, c in zip(names, row) if c.strip())))
    if len({p.values for p in points}) != len(points):
        raise BadInput(f"--points {path}: a row is repeated")
    return points
