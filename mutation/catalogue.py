"""The mutants mutmut makes of the reference implementation, and the checked-in list of equivalent ones.

mutmut (3.x) names a mutant by its function and a number (``refimpl.cache.cache.xǁCacheǁget_pod__mutmut_7``).
The numbers shift whenever the function changes, so the list of equivalent mutants (``equivalents.toml``) does
not use them: an entry names the function (``refimpl.cache.cache:Cache.get_pod``) and the mutation itself, the
source lines it removes and adds (whitespace-stripped), so it keeps matching the same mutant after edits
elsewhere in the function or the module, and stops matching when the mutated line itself changed. When one
function has several mutants with the same lines removed and added, ``occurrence`` (1-based, in mutmut's
order) says which.

:func:`mutations` makes the mutants in process with mutmut's own generator (no test run), and
:func:`match_equivalents` pairs each entry with the mutant it names or says why it names none.
"""

from __future__ import annotations

import difflib
import fnmatch
import hashlib
import json
import os
import tomllib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from importlib.metadata import version
from pathlib import Path
from typing import Any, Final

from mutmut.mutation.file_mutation import mutate_file_contents
from mutmut.utils.format_utils import get_mutant_name

ROOT: Final = Path(__file__).resolve().parent.parent
EQUIVALENTS: Final = Path(__file__).resolve().parent / "equivalents.toml"
SCOPE: Final = Path(__file__).resolve().parent / "scope.toml"
CACHE_DIR: Final = ROOT / ".mutation-catalogue"
"""Each file's mutants, on disk, keyed by what they are computed from (:func:`_cache_key`): CI's test stage lists
them (tests/mutation) and its mutation stage again, minutes of CPU each time. Removed by ``make clean``."""
CLASS_SEPARATOR: Final = "ǁ"
MUTANT_MARK: Final = "__mutmut_"
CATEGORIES: Final = {
    "equivalent": "computes the same observable result on every input (the reason says why)",
    "message": "changes only the text of an error or status message: the runner judges error kinds, never messages",
    "unobserved": "changes state the conformance protocol never observes (the reason names it)",
    "unreachable": "changes a path the protocol cannot take (a default the adapter always overrides, a thread)",
    "gap": "is not equivalent: a vector or an observation the suite lacks would kill it (the reason says which)",
}
"""What a reason starts with (``category: ...``): why no vector tells the mutant from the original. Every category
but ``gap`` says none can; ``gap`` records a known hole in the suite, which ``make mutation`` counts apart."""
GAP: Final = "gap"


class CatalogueError(ValueError):
    """The equivalents file or the mutation scope is malformed; the message says where and what."""


# --------------------------------------------------------------------------------------------
# Names
# --------------------------------------------------------------------------------------------


def function_of(mutant: str) -> str:
    """``module:Class.method`` (or ``module:function``) of a mutmut mutant name."""
    mangled = mutant.partition(MUTANT_MARK)[0]
    module, _, local = mangled.rpartition(".")
    if local.startswith("x" + CLASS_SEPARATOR):
        _, cls, name = local.split(CLASS_SEPARATOR)
        return f"{module}:{cls}.{name}"
    if not local.startswith("x_"):
        raise CatalogueError(f"{mutant!r} is not a mutmut mutant name")
    return f"{module}:{local[2:]}"


def module_file(module: str, root: Path = ROOT) -> Path:
    """The source file of a dotted module, relative to ``root`` (a package's ``__init__.py``: mutmut names its
    functions after the package)."""
    path = Path(*module.split("."))
    return path / "__init__.py" if (root / path).is_dir() else path.with_suffix(".py")


def number_of(mutant: str) -> int:
    return int(mutant.rpartition(MUTANT_MARK)[2])


def package_of(mutant: str) -> str:
    """The package a mutant is reported under: the module's first three dotted parts (``refimpl.cache``,
    ``refimpl.scheduler.plugins``) for the scheduler, its first two otherwise."""
    module = function_of(mutant).partition(":")[0].split(".")
    return ".".join(module[:3] if module[1] == "scheduler" else module[:2])


# --------------------------------------------------------------------------------------------
# The scope and the mutants
# --------------------------------------------------------------------------------------------


def mutmut_config(root: Path = ROOT) -> Mapping[str, Any]:
    """The ``[tool.mutmut]`` table of ``pyproject.toml``."""
    config: Mapping[str, Any] = tomllib.loads((root / "pyproject.toml").read_text())["tool"]["mutmut"]
    return config


def scope(root: Path = ROOT) -> list[Path]:
    """The source files mutmut mutates (relative to ``root``), as ``[tool.mutmut]`` selects them."""
    config = mutmut_config(root)
    chosen = []
    for source in config["source_paths"]:
        for path in sorted((root / source).rglob("*.py")):
            relative = str(path.relative_to(root))
            if any(fnmatch.fnmatch(relative, p) for p in config.get("only_mutate", ["*"])) and not any(
                fnmatch.fnmatch(relative, p) for p in config.get("do_not_mutate", [])
            ):
                chosen.append(Path(relative))
    return chosen


@dataclass(frozen=True)
class Mutation:
    """One mutant: mutmut's name for it, and the source lines it removes and adds."""

    name: str
    removed: tuple[str, ...]
    added: tuple[str, ...]

    @property
    def function(self) -> str:
        return function_of(self.name)

    def describe(self) -> str:
        return "\n".join([*(f"  - {line}" for line in self.removed), *(f"  + {line}" for line in self.added)])


def _changed_lines(original: Sequence[str], mutant: Sequence[str]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    removed: list[str] = []
    added: list[str] = []
    matcher = difflib.SequenceMatcher(a=original, b=mutant, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag != "equal":
            removed += [line.strip() for line in original[i1:i2]]
            added += [line.strip() for line in mutant[j1:j2]]
    return tuple(removed), tuple(added)


def mutations_of_file(path: Path, root: Path = ROOT) -> list[Mutation]:
    """Every mutant mutmut makes of ``path`` (relative to ``root``), in mutmut's order."""
    return list(_mutations_of_text(path, (root / path).read_text()))


@cache
def _generator_stamp() -> str:
    """What every file's mutants depend on besides the file: mutmut's version and this module's code."""
    return version("mutmut") + "\0" + Path(__file__).read_text()


def _cache_key(path: Path, text: str) -> str:
    """What a file's mutants depend on: its path and text, and :func:`_generator_stamp`."""
    digest = hashlib.sha256()
    for part in (str(path), text, _generator_stamp()):
        digest.update(part.encode())
        digest.update(b"\0")
    return digest.hexdigest()


@cache
def _mutations_of_text(path: Path, text: str) -> tuple[Mutation, ...]:
    # Cached on the file's text, in process and on disk (mutmut's mutation of the whole scope takes minutes, the
    # tests ask for it three times in a process, and CI lists it in two stages): the same text gives the same mutants.
    stored = CACHE_DIR / f"{_cache_key(path, text)}.json"
    try:
        return tuple(Mutation(name, tuple(removed), tuple(added))
                     for name, removed, added in json.loads(stored.read_text()))
    except (OSError, ValueError, TypeError):  # absent, or unreadable (a torn write): computed again below
        pass
    found = _compute_mutations(path, text)
    try:
        CACHE_DIR.mkdir(exist_ok=True)
        partial = stored.with_suffix(f".{os.getpid()}.tmp")
        partial.write_text(json.dumps([[m.name, m.removed, m.added] for m in found]))
        partial.replace(stored)  # atomic: a concurrent reader (xdist's other worker) sees all of it or nothing
    except OSError:  # a read-only checkout: the in-process cache still serves
        pass
    return found


def _compute_mutations(path: Path, text: str) -> tuple[Mutation, ...]:
    result = mutate_file_contents(str(path), text)
    lines = result.code.splitlines()
    spans = result.line_span_by_function_name

    def body(generated: str) -> list[str]:
        span = spans[generated]
        # The def line names the generated function: name both alike, so a mutated default argument on it
        # still shows and the name does not.
        return [line.replace(generated, "<def>") for line in lines[span.start - 1:span.end]]

    found = []
    for local in result.mutant_names:
        original = local.partition(MUTANT_MARK)[0] + MUTANT_MARK + "orig"
        removed, added = _changed_lines(body(original), body(local))
        found.append(Mutation(get_mutant_name(path, local), removed, added))
    return tuple(found)


def mutations(paths: Iterable[Path] | None = None, root: Path = ROOT) -> dict[str, Mutation]:
    """The mutants of ``paths`` (default: the whole scope), by mutmut name."""
    return {m.name: m for path in (scope(root) if paths is None else paths) for m in mutations_of_file(path, root)}


# --------------------------------------------------------------------------------------------
# The scope rules: code mutmut mutates that the score does not count
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ScopeRule:
    """An entry of ``scope.toml``: functions (``fnmatch`` patterns over ``module:Class.method``) whose mutants the
    score leaves out, and the one-line reason the conformance protocol cannot, or need not, drive them."""

    functions: tuple[str, ...]
    reason: str
    index: int = 0

    def matches(self, function: str) -> bool:
        return any(fnmatch.fnmatchcase(function, pattern) for pattern in self.functions)


def parse_scope(text: str, source: str = "scope.toml") -> list[ScopeRule]:
    """The rules of a scope file; :class:`CatalogueError` names the rule and field that is wrong."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise CatalogueError(f"{source}: not valid TOML ({error})") from None
    unknown = set(data) - {"out_of_scope"}
    if unknown:
        raise CatalogueError(f"{source}: unexpected top-level key(s) {sorted(unknown)}; rules are [[out_of_scope]]")
    rules = []
    for index, rule in enumerate(data.get("out_of_scope", []), start=1):
        where = f"{source} rule {index}"
        extra = set(rule) - {"functions", "reason"}
        if extra:
            raise CatalogueError(f"{where}: unexpected field(s) {sorted(extra)}")
        functions, reason = rule.get("functions"), rule.get("reason")
        if not isinstance(functions, list) or not functions or not all(
                isinstance(f, str) and ":" in f for f in functions):
            raise CatalogueError(f"{where}: 'functions' must be a non-empty list of 'package.module:Qualified.name' "
                                 "patterns")
        if not isinstance(reason, str) or not reason.strip() or "\n" in reason.strip():
            raise CatalogueError(f"{where}: 'reason' must be one non-empty line")
        rules.append(ScopeRule(tuple(functions), reason.strip(), index))
    return rules


def load_scope(path: Path = SCOPE) -> list[ScopeRule]:
    return parse_scope(path.read_text(), path.name)


def scope_rule_of(function: str, rules: Sequence[ScopeRule]) -> ScopeRule | None:
    """The first rule that leaves ``function`` out of the score, or None (it counts)."""
    return next((rule for rule in rules if rule.matches(function)), None)


def in_scope(current: Mapping[str, Mutation], rules: Sequence[ScopeRule]) -> dict[str, Mutation]:
    """The mutants the score counts: those of functions no rule leaves out."""
    return {name: m for name, m in current.items() if scope_rule_of(m.function, rules) is None}


# --------------------------------------------------------------------------------------------
# The list of equivalent mutants
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Equivalent:
    """An entry of ``equivalents.toml``."""

    function: str
    removed: tuple[str, ...]
    added: tuple[str, ...]
    reason: str
    occurrence: int = 1
    index: int = 0
    """Its position in the file (1-based), for messages."""

    @property
    def category(self) -> str:
        return self.reason.partition(":")[0]

    @property
    def module_path(self) -> Path:
        return module_file(self.function.partition(":")[0])

    def describe(self) -> str:
        lines = [*(f"  - {line}" for line in self.removed), *(f"  + {line}" for line in self.added)]
        return f"entry {self.index} ({self.function}):\n" + "\n".join(lines)


def _strings(entry: Mapping[str, Any], key: str, where: str) -> tuple[str, ...]:
    value = entry.get(key)
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise CatalogueError(f"{where}: {key!r} must be a list of source lines (strings)")
    return tuple(v.strip() for v in value)


def parse_equivalents(text: str, source: str = "equivalents.toml") -> list[Equivalent]:
    """The entries of an equivalents file; :class:`CatalogueError` names the entry and field that is wrong."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise CatalogueError(f"{source}: not valid TOML ({error})") from None
    unknown = set(data) - {"equivalent"}
    if unknown:
        raise CatalogueError(f"{source}: unexpected top-level key(s) {sorted(unknown)}; entries are [[equivalent]]")
    entries = []
    for index, entry in enumerate(data.get("equivalent", []), start=1):
        where = f"{source} entry {index}"
        extra = set(entry) - {"function", "removed", "added", "reason", "occurrence"}
        if extra:
            raise CatalogueError(f"{where}: unexpected field(s) {sorted(extra)}")
        function, reason, occurrence = entry.get("function"), entry.get("reason"), entry.get("occurrence", 1)
        if not isinstance(function, str) or ":" not in function:
            raise CatalogueError(f"{where}: 'function' must be 'package.module:Class.method' or 'package.module:f'")
        if not isinstance(reason, str) or not reason.strip() or "\n" in reason.strip():
            raise CatalogueError(f"{where} ({function}): 'reason' must be one non-empty line")
        category, colon, text = reason.strip().partition(":")
        if not colon or category not in CATEGORIES or not text.strip():
            raise CatalogueError(f"{where} ({function}): 'reason' must read 'CATEGORY: why', with CATEGORY one of "
                                 f"{', '.join(sorted(CATEGORIES))}")
        if not isinstance(occurrence, int) or occurrence < 1:
            raise CatalogueError(f"{where} ({function}): 'occurrence' must be a positive integer")
        removed, added = _strings(entry, "removed", where), _strings(entry, "added", where)
        if not removed and not added:
            raise CatalogueError(f"{where} ({function}): an entry must remove or add at least one line")
        entries.append(Equivalent(function, removed, added, reason.strip(), occurrence, index))
    return entries


def load_equivalents(path: Path = EQUIVALENTS) -> list[Equivalent]:
    return parse_equivalents(path.read_text(), path.name)


@dataclass(frozen=True)
class Matching:
    """Which current mutant each entry names, and the entries that name none (with the reason)."""

    by_mutant: dict[str, Equivalent]
    problems: list[str]


def match_equivalents(entries: Sequence[Equivalent], current: Mapping[str, Mutation]) -> Matching:
    """Pair entries with current mutants by function, removed and added lines, and occurrence.

    A problem is reported for an entry that matches no mutant (the function or the mutated line changed, or
    mutmut no longer makes that mutation) and for two entries that name the same mutant.
    """
    candidates: dict[tuple[str, tuple[str, ...], tuple[str, ...]], list[str]] = {}
    for name in sorted(current, key=lambda n: (function_of(n), number_of(n))):
        mutation = current[name]
        candidates.setdefault((mutation.function, mutation.removed, mutation.added), []).append(name)
    by_mutant: dict[str, Equivalent] = {}
    problems = []
    for entry in entries:
        names = candidates.get((entry.function, entry.removed, entry.added), [])
        if len(names) < entry.occurrence:
            found = "no such mutant" if not names else f"only {len(names)} such mutant(s)"
            problems.append(f"{entry.describe()}\n  names no current mutant ({found}): the function or the "
                            "mutated line changed; re-check it and update or remove the entry")
            continue
        name = names[entry.occurrence - 1]
        if name in by_mutant:
            problems.append(f"{entry.describe()}\n  names the same mutant ({name}) as entry {by_mutant[name].index}")
            continue
        by_mutant[name] = entry
    return Matching(by_mutant, problems)


def render_entry(mutation: Mutation, reason: str, occurrence: int = 1) -> str:
    """The TOML text of an entry for ``mutation`` (what ``make mutation`` suggests for a survivor)."""

    def strings(lines: Sequence[str]) -> str:
        return "[" + ", ".join(_toml_string(line) for line in lines) + "]"

    text = ["[[equivalent]]", f"function = {_toml_string(mutation.function)}",
            f"removed = {strings(mutation.removed)}", f"added = {strings(mutation.added)}"]
    if occurrence != 1:
        text.append(f"occurrence = {occurrence}")
    text.append(f"reason = {_toml_string(reason)}")
    return "\n".join(text) + "\n"


def _toml_string(value: str) -> str:
    if "'" not in value and "\n" not in value:
        return f"'{value}'"
    escaped = value.replace("\\", "\\\\").replace('"', '\\"')
    return f'"{escaped}"'


def occurrence_of(mutation: Mutation, current: Mapping[str, Mutation]) -> int:
    """Which of the function's mutants with the same change ``mutation`` is (1-based, in mutmut's order)."""
    same = sorted((m.name for m in current.values() if (m.function, m.removed, m.added)
                   == (mutation.function, mutation.removed, mutation.added)), key=number_of)
    return same.index(mutation.name) + 1
