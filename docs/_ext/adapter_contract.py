"""The adapter contract pages: one per area, generated from the code that defines the contract.

A page under ``docs/contract/`` holds a line ``% adapter-contract: AREA`` (or ``% adapter-contract-rules``); when
Sphinx reads the page, the line is replaced by Markdown generated from :mod:`conformance.contract` (observation
shapes, rules), :mod:`conformance.codec` (operations and their arguments' dataclasses) and the committed vectors
(:mod:`conformance.contract_vectors`: result kinds per profile, examples). ``tests/conformance/test_contract.py``
checks that every operation, argument, kind and observation field is on the page.
"""

from __future__ import annotations

import dataclasses
import json
import re
import types
import typing
from collections.abc import Sequence
from enum import Enum, IntFlag
from functools import cache
from typing import Any, Union

from sphinx.application import Sphinx

from conformance import contract, observe
from conformance.codec import CALL_TYPES, OPERATIONS, encode
from conformance.contract import (
    AREAS,
    ArrayOf,
    Boolean,
    Const,
    Either,
    Integer,
    MapOf,
    Record,
    Ref,
    Shape,
    String,
    Tuple,
)
from conformance.contract_vectors import example_step, kind_meanings, result_kinds, step_counts, step_request
from conformance.format import Vector, load_vectors
from conformance.schemas import OBSERVATION_OF, field_docs
from spec.frozenmap import FrozenMap
from spec.versions import PROFILES

MARKER = re.compile(r"^% adapter-contract(-rules|: *([a-z_]+))\s*$", re.MULTILINE)
INITIAL: dict[str, Any] = {
    "cache": observe.INITIAL_CACHE_OBSERVATION, "cycle": observe.INITIAL_CYCLE_OBSERVATION,
    "dispatcher": {**observe.INITIAL_DISPATCHER_OBSERVATION, "can_pop": False},
    "queue": observe.INITIAL_QUEUE_OBSERVATION,
}
"""Each observation before the first step (a vector's ``initial_observation`` when it starts empty)."""


@cache
def vectors() -> tuple[Vector, ...]:
    """The committed vectors (read once per build)."""
    return tuple(load_vectors())


def label(area: str, kind: str, name: str) -> str:
    """The cross-reference label of an operation, argument type or shape on ``area``'s page."""
    return f"contract-{area}-{kind}-{name.lower()}"


def link(area: str, kind: str, name: str, text: str) -> str:
    """A MyST reference to :func:`label`."""
    return f"{{ref}}`{text} <{label(area, kind, name)}>`"


def myst(text: str) -> str:
    """A docstring's reStructuredText inline markup as MyST: ``:role:`x``` as ``{role}`x```, double backquotes as
    single ones."""
    return re.sub(r":(\w+(?::\w+)?):`", r"{\1}`", text).replace("``", "`")


def _cell(text: str) -> str:
    return myst(text).replace("|", "\\|").replace("\n", " ")


# --------------------------------------------------------------------------------------------
# Arguments
# --------------------------------------------------------------------------------------------


def type_text(tp: Any, seen: list[type[Any]], area: str) -> str:
    """A type as the reader sees it in JSON; dataclasses met on the way are appended to ``seen``."""
    origin = typing.get_origin(tp)
    if origin in (Union, types.UnionType):
        members = typing.get_args(tp)
        real = [m for m in members if m is not type(None)]
        if set(real) == set(CALL_TYPES.values()):
            text = " or ".join(type_text(t, seen, area) for t in CALL_TYPES.values()) + " (by `call_type`)"
        else:
            text = " or ".join(type_text(t, seen, area) for t in real)
        return f"{text}, optional" if type(None) in members else text
    if origin in (tuple, frozenset):
        return f"array of {type_text(typing.get_args(tp)[0], seen, area)}"
    if origin is FrozenMap:
        return f"object of {type_text(typing.get_args(tp)[1], seen, area)}"
    if isinstance(tp, type) and dataclasses.is_dataclass(tp):
        if tp not in seen:
            seen.append(tp)
        return link(area, "type", tp.__name__, tp.__name__)
    if isinstance(tp, type) and issubclass(tp, IntFlag):
        return "integer (bits)"
    if isinstance(tp, type) and issubclass(tp, Enum):
        return "one of " + ", ".join(f"`{e.value}`" for e in tp)
    return {bool: "boolean", int: "integer", str: "string"}.get(tp, str(tp))


def _default_text(field: dataclasses.Field[Any]) -> str:
    if field.default is not dataclasses.MISSING:
        value: Any = field.default
    elif field.default_factory is not dataclasses.MISSING:
        value = field.default_factory()
    else:
        return "required"
    return "absent" if value is None else f"`{json.dumps(encode(value))}`"


def fields_table(cls: type[Any], seen: list[type[Any]], area: str) -> list[str]:
    """A table of the dataclass's fields: JSON type, default (what an absent field means) and meaning."""
    hints = typing.get_type_hints(cls)
    docs = field_docs(cls)
    rows = ["| field | type | default | meaning |", "|---|---|---|---|"]
    for field in dataclasses.fields(cls):
        default = "required" if field.name == "call_type" else _default_text(field)
        rows.append(f"| `{field.name}` | {_cell(type_text(hints[field.name], seen, area))} | {_cell(default)} | "
                    f"{_cell(docs.get(field.name, ''))} |")
    return rows if dataclasses.fields(cls) else ["No arguments: `{}`."]


def _doc(obj: Any) -> str:
    return myst(" ".join((obj.__doc__ or "").split()))


def operation_section(area: str, op: str, seen: list[type[Any]]) -> list[str]:
    """An operation: what it does, its arguments, an example request and its result kinds per profile."""
    op_type = OPERATIONS[op]
    lines = [f"({label(area, 'op', op)})=", f"### `{op}`", "", _doc(op_type), "", *fields_table(op_type, seen, area),
             ""]
    family = [area, *(a for a in AREAS if a != area and AREAS[a].operations == AREAS[area].operations)]
    found = example_step(vectors(), op, family)
    if found is not None:
        vector, index = found
        lines += [f"Example: step {index} of `{vector.id}`:", "", "```json", step_request(vector.steps[index], index),
                  "```", ""]
    kinds = result_kinds(vectors(), area).get(op, [])
    meanings = kind_meanings()
    if kinds:
        lines += ["| status | kind | profiles | meaning |", "|---|---|---|---|"]
        lines += [f"| `{k.status}` | `{k.kind}` | {', '.join(k.profiles)} | {_cell(meanings.get(k.kind, ''))} |"
                  for k in kinds]
    else:
        lines.append("Always `ok` in this area's vectors.")
    return [*lines, ""]


# --------------------------------------------------------------------------------------------
# Observations
# --------------------------------------------------------------------------------------------


def shape_text(shape: Shape, area: str) -> str:
    """A shape in a few words."""
    note = f" ({shape.note})" if shape.note else ""
    match shape:
        case Integer():
            return "integer" + note
        case String(enum=enum):
            return ("one of " + ", ".join(f"`{e}`" for e in enum) if enum else "string") + note
        case Boolean():
            return "boolean"
        case Const(value=value):
            return f"`\"{value}\"`"
        case ArrayOf(item=item):
            return f"array of {shape_text(item, area)}" + (f", {shape.note}" if shape.note else "")
        case Tuple(items=items):
            return "`[" + ", ".join(shape_text(i, area) for i in items) + "]`"
        case MapOf(key=key, value=value):
            return f"object: {key} → {shape_text(value, area)}"
        case Record():
            return "object (below)"
        case Either(options=options):
            return " or ".join(shape_text(o, area) for o in options)
        case Ref(name=name):
            return link(area, "shape", name, name)
    return repr(shape)


def _records_in(shape: Shape, path: str) -> list[tuple[str, Record]]:
    match shape:
        case Record():
            return [(path, shape)]
        case MapOf(value=value):
            return _records_in(value, f"{path}.<key>")
        case ArrayOf(item=item):
            return _records_in(item, f"{path}[]")
        case Either(options=options):
            return [r for o in options for r in _records_in(o, path)]
    return []


def record_rows(record: Record, area: str, path: str = "") -> list[str]:
    """One row per field, nested records' fields after their parent's, with their dotted path."""
    rows: list[str] = []
    nested: list[tuple[str, Record]] = []
    for f in record.fields:
        where = f"{path}.{f.name}" if path else f.name
        optional = " (optional)" if f.optional else ""
        rows.append(f"| `{where}` | {_cell(shape_text(f.shape, area))} | {_cell(f.meaning)}{optional} |")
        nested += _records_in(f.shape, where)
    for where, inner in nested:
        rows += record_rows(inner, area, where)
    return rows


def observation_section(area: str) -> list[str]:
    name = OBSERVATION_OF[area]
    record = AREAS[area].observation
    lines = ["## Observation", "", "After every step that is not `fatal` the adapter reports this object, whole. "
             f"Schema: `#/$defs/observation.{name}` of `protocol.schema.json`.", "",
             "| field | type | meaning |", "|---|---|---|", *record_rows(record, area), ""]
    pattern = re.compile(f"<{label(area, 'shape', '')}([a-z_]+)>")
    refs = sorted(set(pattern.findall("\n".join(lines))))
    done: set[str] = set()
    while refs:
        ref = refs.pop(0).upper()
        if ref in done:
            continue
        done.add(ref)
        shape = contract.DEFINITIONS[ref]
        lines += [f"({label(area, 'shape', ref)})=", f"### {ref}", ""]
        if isinstance(shape, Either):
            for option in shape.options:
                assert isinstance(option, Record)
                lines += ["| field | type | meaning |", "|---|---|---|", *record_rows(option, area), ""]
        else:
            assert isinstance(shape, Record)
            lines += ["| field | type | meaning |", "|---|---|---|", *record_rows(shape, area), ""]
        refs += [r for r in pattern.findall("\n".join(lines)) if r.upper() not in done]
    lines += ["The observation before the first step (the `initial_observation` of a vector that starts empty):", "",
              "```json", json.dumps(INITIAL[name], indent=1), "```", ""]
    return lines


# --------------------------------------------------------------------------------------------
# Pages
# --------------------------------------------------------------------------------------------


def rules_for(area: str | None) -> list[str]:
    """The rules that hold for ``area`` (every rule when None), one bullet each."""
    return [f"- **{r.id.replace('_', ' ')}**: {r.text}" for r in contract.RULES if area is None or not r.areas
            or area in r.areas]


def area_page(area: str) -> str:
    """The Markdown of ``area``'s contract page (below its title)."""
    spec = AREAS[area]
    counts = step_counts(vectors(), area)
    lines = [spec.summary, "", f"The spec's account of the behaviour: [](../{spec.guide}.md). Declare the area in "
             f"`hello`'s `capabilities.areas` as `\"{area}\"`.", "", "## Rules", "", *rules_for(area), "",
             "## Operations", "", "| operation | steps in this area's vectors |", "|---|---|"]
    lines += [f"| {link(area, 'op', op, op)} | {counts.get(op, 0)} |" for op in spec.operations]
    seen: list[type[Any]] = []
    lines.append("")
    for op in spec.operations:
        lines += operation_section(area, op, seen)
    lines += ["## Argument types", "", "Objects in arguments are the spec's dataclasses as JSON; a field equal to its "
              "default is left out.", ""]
    index = 0
    while index < len(seen):
        cls = seen[index]
        lines += [f"({label(area, 'type', cls.__name__)})=", f"### {cls.__name__}", "", _doc(cls), "",
                  *fields_table(cls, seen, area), ""]
        index += 1
    lines += observation_section(area)
    return "\n".join(lines) + "\n"


def rules_page() -> str:
    """The shared part: every rule, the areas and the profiles."""
    lines = ["## Rules for every area", "", *rules_for(None), "", "## Areas", "", "| area | operations | observation |",
             "|---|---|---|"]
    lines += [f"| [{a.title}]({name}.md) (`{name}`) | {len(a.operations)} | `{OBSERVATION_OF[name]}` |"
              for name, a in AREAS.items()]
    lines += ["", "## Version profiles", "", "An adapter lists the profiles it follows in `capabilities.profiles`; "
              "the runner runs each vector under one of them that the vector's expectations hold for.", "",
              "| profile | what it is |", "|---|---|"]
    lines += [f"| `{name}` | {_cell(p.description)} |" for name, p in PROFILES.items()]
    return "\n".join(lines) + "\n"


def _expand(match: re.Match[str]) -> str:
    area = match.group(2)
    return rules_page() if area is None else area_page(area)


def on_source_read(app: Sphinx, docname: str, source: list[str]) -> None:
    """Replace each marker line of a contract page by its generated Markdown."""
    if docname.startswith("contract/"):
        source[0] = MARKER.sub(_expand, source[0])


def setup(app: Sphinx) -> dict[str, Any]:
    app.connect("source-read", on_source_read)
    return {"parallel_read_safe": True, "version": "1"}


__all__: Sequence[str] = ("area_page", "rules_page", "setup")
