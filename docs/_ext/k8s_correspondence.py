"""The Kubernetes correspondence of the spec's public functions, read from their docstrings.

The one source of truth is a line in each docstring, one per Kubernetes function modelled::

    Kubernetes: `cacheImpl.AssumePod` (pkg/scheduler/backend/cache/cache.go)

or, for a function with no Kubernetes counterpart::

    Kubernetes: none (why)

``tests/test_kubernetes_correspondence.py`` requires such a line on every public function of
:data:`MODULES`. The directive ``kubernetes-correspondence`` renders the table, and the docstring
hook shows the lines as a ``Kubernetes`` field in the API reference.
"""

from __future__ import annotations

import importlib
import inspect
import re
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import doc_tables
from docutils import nodes
from sphinx import addnodes
from sphinx.application import Sphinx
from sphinx.util.docutils import SphinxDirective

MODULES: Final = (
    "spec.cache.cache",
    "spec.cache.snapshot",
    "spec.cache.nodetree",
    "spec.cache.nodeinfo",
    "spec.dispatcher.call_queue",
    "spec.cycle.cycle",
    "spec.cycle.interpodaffinity",
    "spec.cycle.podtopologyspread",
    "spec.cycle.preemption",
    "spec.cycle.nominated",
    "spec.cycle.failure",
    "spec.queue.nominator",
    "spec.queue.gates",
)
"""The modules whose every public function must name its Kubernetes counterpart."""

KUBERNETES_VERSION: Final = "v1.35.0"
SOURCE_URL: Final = "https://github.com/kubernetes/kubernetes/blob/{version}/{path}"

LINE: Final = re.compile(r"^\s*Kubernetes:\s*(?P<rest>.*?)\s*$")
ENTRY: Final = re.compile(
    r"^(?:`(?P<name>[A-Za-z_][A-Za-z0-9_.]*)` \((?P<path>(?:pkg|staging)/[A-Za-z0-9_./-]+\.go)\)"
    r"|none \((?P<why>.+)\))$"
)


@dataclass(frozen=True)
class Counterpart:
    """One Kubernetes function a spec function models, or none with the reason."""

    name: str | None
    path: str | None
    why: str | None = None


class MalformedCorrespondence(ValueError):
    """A ``Kubernetes:`` line that does not follow the format."""


def counterparts(function: Callable[..., Any]) -> list[Counterpart]:
    """The ``Kubernetes:`` lines of ``function``'s docstring, parsed; fails with
    :class:`MalformedCorrespondence` naming the function and the line if one is malformed."""
    found = []
    for line in (inspect.getdoc(function) or "").splitlines():
        match = LINE.match(line)
        if match is None:
            continue
        entry = ENTRY.match(match["rest"])
        if entry is None:
            raise MalformedCorrespondence(
                f"{function.__module__}.{function.__qualname__}: malformed line {line.strip()!r}; expected "
                "\"Kubernetes: `Name` (pkg/.../file.go)\" or \"Kubernetes: none (why)\""
            )
        found.append(Counterpart(entry["name"], entry["path"], entry["why"]))
    return found


def public_functions(module_name: str) -> list[Callable[..., Any]]:
    """The public functions defined in ``module_name``, in source order."""
    module = importlib.import_module(module_name)
    functions = [
        f
        for name, f in vars(module).items()
        if inspect.isfunction(f) and f.__module__ == module_name and not name.startswith("_")
    ]
    return sorted(functions, key=lambda f: f.__code__.co_firstlineno)


def _source_link(path: str) -> nodes.Node:
    """A link to the file on GitHub, breakable after each "/" (a zero-width space) so that tables fit."""
    url = SOURCE_URL.format(version=KUBERNETES_VERSION, path=path)
    paragraph = nodes.inline()
    paragraph += nodes.reference("", "", nodes.literal(text=path.replace("/", "/\u200b")), refuri=url)
    return paragraph


def _entry(*children: nodes.Node) -> nodes.entry:
    paragraph = nodes.paragraph()
    for child in children:
        paragraph += child
    entry = nodes.entry()
    entry += paragraph
    return entry


class KubernetesCorrespondence(SphinxDirective):
    """One row per (spec function, Kubernetes counterpart)."""

    def run(self) -> list[nodes.Node]:
        rows: list[list[nodes.entry]] = []
        for module in MODULES:
            for function in public_functions(module):
                try:
                    found = counterparts(function)
                except MalformedCorrespondence as error:
                    raise self.error(str(error)) from error
                for counterpart in found or [Counterpart(None, None, "not stated")]:
                    ref = addnodes.pending_xref(
                        "", refdomain="py", reftype="func", reftarget=f"{module}.{function.__name__}",
                        refexplicit=True, refwarn=False,
                    )
                    ref += nodes.literal(text=f"{module.removeprefix('spec.')}.{function.__name__}")
                    if counterpart.name is not None and counterpart.path is not None:
                        name, link = nodes.literal(text=counterpart.name), _source_link(counterpart.path)
                        rows.append([_entry(ref), _entry(name), _entry(link)])
                    else:
                        why = counterpart.why or ""
                        rows.append([_entry(ref), _entry(nodes.Text("none")), _entry(nodes.Text(why))])
        header = ("Spec function", "Kubernetes", "File (Kubernetes v1.35.0)")
        return [doc_tables.table([_entry(nodes.Text(title)) for title in header], rows, (3, 3, 5))]


GO_PATH: Final = re.compile(r"\b(?:pkg|staging)/[A-Za-z0-9_./-]*[A-Za-z0-9_]")
ROOT: Final = Path(__file__).resolve().parent.parent.parent


def go_paths_mentioned(source: Path) -> set[str]:
    """The Kubernetes paths (files, or directories) a Python file's text names."""
    return set(GO_PATH.findall(source.read_text(encoding="utf-8")))


def where_it_lives() -> list[tuple[str, list[str], list[str]]]:
    """(Kubernetes file, spec modules, refimpl modules) for every Go file a spec module names.

    A module counts for a file when its source names the file; a refimpl module also when it names
    the file's directory (its package's ``__init__`` excepted, which names the whole package).
    """
    spec: dict[str, set[str]] = defaultdict(set)
    for path in sorted((ROOT / "spec").rglob("*.py")):
        if path.name == "__init__.py" or "verify" in path.relative_to(ROOT).parts:
            continue
        for go in go_paths_mentioned(path):
            if go.endswith(".go") and not go.endswith("_test.go"):
                spec[go].add(".".join(path.relative_to(ROOT).with_suffix("").parts))
    refimpl: dict[str, set[str]] = defaultdict(set)
    for path in sorted((ROOT / "refimpl").rglob("*.py")):
        if path.name == "__init__.py":
            continue
        module = ".".join(path.relative_to(ROOT).with_suffix("").parts)
        for go in go_paths_mentioned(path):
            for file in spec:
                if file == go or file.startswith(go.rstrip("/") + "/"):
                    refimpl[file].add(module)
    return [(file, sorted(spec[file]), sorted(refimpl.get(file, ()))) for file in sorted(spec)]


class WhereItLives(SphinxDirective):
    """One row per Kubernetes file the spec models: the spec and refimpl modules that model it."""

    def run(self) -> list[nodes.Node]:
        rows: list[list[nodes.entry]] = []
        for file, spec_modules, refimpl_modules in where_it_lives():
            row = [_entry(_source_link(file))]
            for modules in (spec_modules, refimpl_modules):
                cell: list[nodes.Node] = []
                for i, module in enumerate(modules):
                    if i:
                        cell.append(nodes.Text(" "))
                    ref = addnodes.pending_xref(
                        "", refdomain="py", reftype="mod", reftarget=module, refexplicit=False, refwarn=False
                    )
                    ref += nodes.literal(text=module)
                    cell.append(ref)
                row.append(_entry(*(cell or [nodes.Text("none")])))
            rows.append(row)
        header = ("Kubernetes (v1.35.0)", "Spec", "refimpl")
        return [doc_tables.table([_entry(nodes.Text(title)) for title in header], rows, (5, 4, 4))]


def _field_in_docstring(
    app: Sphinx, what: str, name: str, obj: Any, options: Any, lines: list[str]
) -> None:
    """Turn the ``Kubernetes:`` lines of a docstring into one ``:Kubernetes:`` field."""
    entries = []
    kept = []
    for line in lines:
        match = LINE.match(line)
        entry = ENTRY.match(match["rest"]) if match else None
        if entry is None:
            kept.append(line)
        elif entry["name"]:
            entries.append(f"``{entry['name']}`` in ``{entry['path']}``")
        else:
            entries.append(f"none ({entry['why']})")
    if entries:
        while kept and not kept[-1].strip():
            kept.pop()
        lines[:] = [*kept, "", f":Kubernetes: {'; '.join(entries)}", ""]


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_directive("kubernetes-correspondence", KubernetesCorrespondence)
    app.add_directive("where-it-lives", WhereItLives)
    app.connect("autodoc-process-docstring", _field_in_docstring)
    return {"parallel_read_safe": True, "version": "1"}
