"""The syntax of a problem file (fem/problem/file/__init__.py): where each key stands, how keys and values are
written back in messages, the readers of a key's value (``num``, ``text``, ``tab``, ``tables``) with their
wording of a refusal (``num`` and ``ranged``: a number against its physical range too, fem.ranges), and the
overrides (``--set KEY.PATH=VALUE``) applied to the parsed file.

Every refusal is :meth:`Source.refuse`'s one line: ``file: line N: dotted.key: what``.
"""
from __future__ import annotations

import bisect
import json
import math
import re
import tomllib
from pathlib import Path
from typing import Sequence

from fem.ranges import BadInput, Range, number

#: the lists of the file whose entries an override picks by these keys (or an index)
LISTS = {"bodies": ("name", "group"), "pairs": ("name", "slave"), "stages": ("name",), "supports": ("group",),
         "springs": ("name", "group"), "checks": ("name",)}
#: a reader's default meaning "no default: the key is required"
REQUIRED = object()
_BARE = re.compile(r"^[A-Za-z0-9_-]+$")


def key_text(path: Sequence) -> str:
    """``("pairs", 1, "mu")`` -> ``pairs[1].mu`` (a name that is no bare TOML key quoted)."""
    text = ""
    for seg in path:
        seg = f"[{seg}]" if isinstance(seg, int) else seg if _BARE.match(seg) else json.dumps(seg)
        text += seg if not text or seg.startswith("[") else f".{seg}"
    return text


def shown(value) -> str:
    """A value as TOML writes it: ``"high"``, ``true``, ``0.5``, ``[1, 2]``."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, float):
        return number(value) if math.isfinite(value) else repr(value)
    if isinstance(value, list):
        return "[" + ", ".join(shown(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{key_text((k,))} = {shown(v)}" for k, v in value.items()) + " }" if value else "{}"
    return str(value)


def _segments(key: str) -> list[str]:
    """The segments of a TOML key (dotted, quoted or bare)."""
    return ["".join(m) for m in re.findall(r'"([^"]*)"|\'([^\']*)\'|([^.\s"\']+)', key)]


_PART = r"""(?:"(?:[^"\\\n]|\\.)*"|'[^'\n]*'|[A-Za-z0-9_-]+)"""  # a key's segment: quoted or bare
_KEY = re.compile(rf"{_PART}(?:[ \t]*\.[ \t]*{_PART})*")
_STRING = re.compile(r'"""(?:[^\\]|\\.)*?"""|\'\'\'[\s\S]*?\'\'\'|"(?:[^"\\\n]|\\.)*"|\'[^\'\n]*\'')
_SPACE = re.compile(r"(?:\s|#[^\n]*)*")


class _Lines:
    """The walk of :func:`key_lines` over a (valid) TOML text: headers, keys, inline tables, arrays."""

    def __init__(self, text: str) -> None:
        self.text, self.k, self.found, self.arrays = text, 0, {}, {}
        self.breaks = [m.start() for m in re.finditer("\n", text)]

    def line(self) -> int:
        return bisect.bisect_right(self.breaks, self.k - 1) + 1

    def skip(self, newlines: bool = True) -> None:
        self.k = (_SPACE if newlines else re.compile(r"[ \t]*")).match(self.text, self.k).end()

    def note(self, path: tuple, start: int = 1) -> None:
        for j in range(start, len(path) + 1):
            self.found.setdefault(path[:j], self.line())

    def key(self, prefix: tuple) -> tuple:
        m = _KEY.match(self.text, self.k)
        path = prefix + tuple(_segments(m.group(0)) if m else ())
        self.note(path, len(prefix) + 1)
        self.k = m.end() if m else self.k + 1
        return path

    def value(self, path: tuple) -> None:
        self.skip(newlines=False)
        text, c = self.text, self.text[self.k:self.k + 1]
        if c in ("[", "{"):
            self.k, index, close = self.k + 1, 0, "]" if c == "[" else "}"
            while self.k < len(text):
                self.skip()
                if text.startswith(close, self.k):
                    break
                if c == "[":
                    self.found.setdefault(path + (index,), self.line())
                    self.value(path + (index,))
                else:
                    self.key_value(path)
                self.skip()
                if not text.startswith(",", self.k):
                    break
                self.k, index = self.k + 1, index + 1
            self.k += 1
        elif c and c in "\"'":
            self.k = m.end() if (m := _STRING.match(text, self.k)) else len(text)
        else:
            self.k = re.compile(r"[^,\]}\n#]*").match(text, self.k).end()

    def key_value(self, prefix: tuple) -> None:
        path = self.key(prefix)
        self.skip(newlines=False)
        self.k += self.text.startswith("=", self.k)
        self.value(path)

    def walk(self) -> dict:
        prefix, text = (), self.text
        while True:
            self.skip()
            if self.k >= len(text):
                return self.found
            if text.startswith("[", self.k):
                double = text.startswith("[[", self.k)
                self.k += 2 if double else 1
                self.skip(newlines=False)
                segs = _segments(_KEY.match(text, self.k).group(0)) if _KEY.match(text, self.k) else []
                path, plain = (), ()
                for seg in segs[:-1] if double else segs:
                    path, plain = path + (seg,), plain + (seg,)
                    path += (self.arrays[plain] - 1,) if plain in self.arrays else ()
                if double and segs:
                    path, plain = path + (segs[-1],), tuple(segs)
                    self.note(path)
                    self.arrays[plain] = self.arrays.get(plain, 0) + 1
                    path += (self.arrays[plain] - 1,)
                self.note(path)
                self.found[path], prefix = self.line(), path
                self.k = (text.find("\n", self.k) + 1) or len(text)
            else:
                start = self.k
                self.key_value(prefix)
                self.k = max(self.k, start + 1)


def key_lines(text: str) -> dict[tuple, int]:
    """The line of every table header and every key of a valid TOML text, by path (str keys, int indices
    of arrays): tables, arrays of tables, dotted keys, inline tables, arrays (of inline tables) over lines."""
    return _Lines(text).walk()


class Source:
    """The file a problem came from: its name, the line of each key, the keys overrides set."""

    def __init__(self, path: Path, text: str = "") -> None:
        self.path, self.name = Path(path), str(path)
        self.lines = key_lines(text)
        self.set_by: dict[tuple, str] = {}  # path -> "--set KEY=VALUE"

    @staticmethod
    def _nearest(found: dict, path: Sequence):
        """``found`` of ``path``, else of its nearest ancestor there (None: none is)."""
        return next((found[tuple(path[:k])] for k in range(len(path), 0, -1) if tuple(path[:k]) in found), None)

    def line(self, path: Sequence) -> int | None:
        return self._nearest(self.lines, path)

    def origin(self, path: Sequence) -> str | None:
        return self._nearest(self.set_by, path)

    def refuse(self, path: Sequence, what: str, line_of: Sequence | None = None) -> BadInput:
        """``file: line N: key: what`` (``file: key (--set ...): what`` for a key an override set)."""
        key = key_text(path)
        origin = self.origin(path if line_of is None else line_of)
        if origin is not None:
            return BadInput(f"{self.name}: {key} ({origin}): {what}" if key else f"{self.name} ({origin}): {what}")
        line = self.line(path if line_of is None else line_of)
        where = f"line {line}: " if line is not None else ""
        return BadInput(f"{self.name}: {where}{key}: {what}" if key else f"{self.name}: {where}{what}")


def _bounds(integer: bool, low, high, open_low: bool, open_high: bool) -> str:
    base = "an integer" if integer else "a number"
    if low is not None and high is not None:
        return f"{base} in {'(' if open_low else '['}{number(low)}, {number(high)}{')' if open_high else ']'}"
    if low is not None:
        return f"{base} {'>' if open_low else '>='} {number(low)}"
    return base if high is None else f"{base} {'<' if open_high else '<='} {number(high)}"


def missing(src: Source, table: dict, path: tuple, key: str, need: str):
    raise src.refuse(path + (key,), f"missing (expected {need})", line_of=path)  # at the line of its table


def num(src: Source, table: dict, path: tuple, key: str, default=REQUIRED, low=None, high=None,
        open_low: bool = False, open_high: bool = False, integer: bool = False, finite: bool = True,
        kind: Range | None = None, signed: bool = False):
    """``table[key]``: a number (an integer) within the bounds; ``default`` when absent. With ``kind`` (a
    :class:`fem.ranges.Range`), then within that physical range too (its magnitude when ``signed``; an
    infinite value allowed by ``finite=False`` is not checked): ``VALUE UNIT is outside the physical range
    ... of a KIND: why``."""
    need = _bounds(integer, low, high, open_low, open_high) + ("" if finite else " (inf allowed)")
    if key not in table:
        return missing(src, table, path, key, need) if default is REQUIRED else default
    v = table[key]
    ok = isinstance(v, int if integer else (int, float)) and not isinstance(v, bool) \
        and (-1e300 <= v <= 1e300 or (not finite and isinstance(v, float) and math.isinf(v)))  # no NaN, no 10**400
    ok = ok and (low is None or (v > low if open_low else v >= low)) and (high is None or (v < high if open_high
                                                                                          else v <= high))
    if not ok:
        odd = isinstance(v, float) and not math.isfinite(v)  # inf >= 0 holds: say finite
        raise src.refuse(path + (key,), f"expected {need.replace('a number', 'a finite number') if odd else need}, "
                                        f"got {shown(v)}")
    ranged(src, path + (key,), v, kind, signed)
    return v if integer else float(v)


def ranged(src: Source, path: tuple, value, kind: Range | None, signed: bool = False) -> None:
    """Refuse the number ``value`` of the key at ``path`` outside the physical range ``kind`` (None: no
    range; an infinite value is left to the reader that allowed it), on one line: ``file: line N: key: 1e-300
    Pa is outside the physical range [1, 1e16] Pa of a material's Young's modulus: why``."""
    if kind is None or (isinstance(value, float) and math.isinf(value)):
        return
    what = kind.outside(value, signed)
    if what is not None:
        raise src.refuse(path, what)


def text(src: Source, table: dict, path: tuple, key: str, default=REQUIRED, choices: Sequence | None = None):
    """``table[key]``: a non-empty string (one of ``choices``); ``default`` when absent."""
    need = f"one of {', '.join(shown(c) for c in choices)}" if choices else "a string"
    if key not in table:
        return missing(src, table, path, key, need) if default is REQUIRED else default
    v = table[key]
    if not isinstance(v, str) or not v.strip() or (choices and v not in choices):
        raise src.refuse(path + (key,), f"expected {need}, got {shown(v)}")
    return v


def tab(src: Source, value, path: tuple, known: Sequence[str], example: str = "") -> dict:
    """``value``, a table whose keys are all ``known``."""
    if not isinstance(value, dict):
        raise src.refuse(path, f"expected a table{example}, got {shown(value)}")
    for key in value:
        if key not in known:
            raise src.refuse(path + (key,), f"unknown key (known: {', '.join(known)})")
    return value


def tables(src: Source, data: dict, key: str, required: bool, path: tuple = ()) -> list:
    """``data[key]``: an array of tables (``[[key]]``), possibly empty unless ``required``."""
    v = data.get(key, [])
    if not isinstance(v, list) or not all(isinstance(e, dict) for e in v):
        raise src.refuse(path + (key,), f"expected an array of tables ([[{key}]] entries), got {shown(v)}")
    if required and not v:
        raise src.refuse(path + (key,), f"missing (expected at least one [[{key}]] entry)", line_of=path or None)
    return v


def field_named(message: str, names: Sequence[str]) -> str | None:
    """The field a library message is about: the one it starts with after ``Owner: `` (longest first)."""
    quoted = re.search(r"parameter '([^']+)'", message)
    rest = quoted.group(1) if quoted else message.split(": ", 1)[-1]
    return next((n for n in sorted(names, key=len, reverse=True) if rest.startswith(n)), None)


def parse_value(value: str):
    """An override's text as a TOML value; text that is none (a bare word) as a string."""
    try:
        parsed = tomllib.loads(f"v = {value}")
        return parsed["v"] if list(parsed) == ["v"] else value
    except tomllib.TOMLDecodeError:
        return value


def _select(src: Source, entries: list, path: tuple, seg: str, label: str) -> int:
    fields = LISTS.get(path[-1] if path else "", ())
    found = [i for i, e in enumerate(entries) if isinstance(e, dict) and any(e.get(f) == seg for f in fields)]
    if not found and path == ("stages",):
        found = [i for i, e in enumerate(entries) if isinstance(e, dict) and "name" not in e and e.get("kind") == seg]
    if len(found) > 1:
        raise BadInput(f"{src.name}: {label}: {seg!r} is {' and '.join(key_text(path + (i,)) for i in found)}: "
                       f"give the index")
    if found:
        return found[0]
    if seg.isdigit() and int(seg) < len(entries):
        return int(seg)
    names = sorted({str(e.get(f)) for e in entries if isinstance(e, dict) for f in fields if f in e})
    by = f"by {' or '.join(fields)}: {', '.join(names) or 'none'}; or " if fields else ""
    raise BadInput(f"{src.name}: {label}: {key_text(path)} has no entry {seg!r} ({by}an index from 0 to "
                   f"{len(entries) - 1})" if entries else f"{src.name}: {label}: {key_text(path)} is empty")


def apply_override(src: Source, data: dict, key: str, value: str, origin: str = "--set") -> None:
    """Set ``key`` (dotted, list entries by name or index) to ``value`` read as TOML, in ``data``."""
    label = f"{origin} {key}={value}"
    segs = key.split(".")
    if not key.strip() or any(not s.strip() for s in segs):
        raise BadInput(f"{src.name}: {label}: expected KEY.PATH=VALUE, KEY.PATH dotted names (e.g. pairs.0.mu=0.6)")
    new = parse_value(value)
    node, path = data, ()
    for k, seg in enumerate(segs):
        if isinstance(node, list):
            i = _select(src, node, path, seg, label)
        elif isinstance(node, dict):
            i = seg
            if k < len(segs) - 1 and seg not in node:
                if not path and seg in LISTS:
                    raise BadInput(f"{src.name}: {label}: the file has no [[{seg}]] entry")
                node[seg] = {}
                src.set_by[path + (seg,)] = label  # a table the override made
        else:
            raise BadInput(f"{src.name}: {label}: {key_text(path)} is {shown(node)}, it has no key {seg!r}")
        path += (i,)
        parent, node = node, node[i] if k < len(segs) - 1 else None
    parent[i] = new
    src.set_by[path] = label
