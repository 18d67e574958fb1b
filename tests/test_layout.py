"""The tree shows the architecture (issue 27): the shared vocabulary at the top of spec/, one package per area
with the same file names inside, spec/verify/ by area too, and one module per ``ksspec`` subcommand.

A module added beside the vocabulary instead of inside its area, an area without its invariants, or a subcommand
whose code lives elsewhere fails here, so the layout README.md describes stays the layout the tree has.
"""

import argparse
from pathlib import Path

import pytest

from conformance.cli.main import build_parser

ROOT = Path(__file__).resolve().parent.parent
VOCABULARY = {"objects", "quantities", "resources", "errors", "versions", "frozenmap", "valuetypes"}
AREAS = ("cache", "dispatcher", "queue", "cycle", "cluster")
# The module named after the area holds its transitions; `lifecycle` is the per-pod or per-call state table of the
# areas that have one (the cluster's pods live in the other areas' tables).
EVERY_AREA = {"invariants"}
STATE_TABLE_AREAS = ("cache", "dispatcher", "queue", "cycle")
TRANSITIONS = {"cache": "cache", "dispatcher": "call_queue", "queue": "queue", "cycle": "cycle", "cluster": "cluster"}


def modules(directory: Path) -> set[str]:
    return {p.stem for p in directory.glob("*.py") if p.stem != "__init__"}


def packages(directory: Path) -> set[str]:
    return {p.parent.name for p in directory.glob("*/__init__.py")}


def test_the_top_of_spec_is_the_shared_vocabulary() -> None:
    assert modules(ROOT / "spec") == VOCABULARY
    assert packages(ROOT / "spec") == {*AREAS, "verify"}


@pytest.mark.parametrize("area", AREAS)
def test_each_area_has_the_same_concerns(area: str) -> None:
    found = modules(ROOT / "spec" / area)
    assert found >= EVERY_AREA
    assert TRANSITIONS[area] in found
    assert ("lifecycle" in found) == (area in STATE_TABLE_AREAS)


def test_spec_verify_is_the_machinery_and_one_package_per_area() -> None:
    assert packages(ROOT / "spec" / "verify") == set(AREAS)
    assert not any(name.startswith(AREAS) for name in modules(ROOT / "spec" / "verify"))
    for area in AREAS:
        assert "system" in modules(ROOT / "spec" / "verify" / area), area


def test_no_module_of_conformance_is_named_after_an_area() -> None:
    """Area code lives in the sub-packages (scenarios, ported, behaviours, adapters, simulation), not in a module
    whose name starts with the area."""
    assert [m for m in modules(ROOT / "conformance") if m.startswith((*AREAS, "simulat", "proof", "queue"))] == []


def test_every_ksspec_subcommand_has_its_module_in_conformance_cli() -> None:
    parser = build_parser()
    (subparsers,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    cli = modules(ROOT / "conformance" / "cli")
    assert set(subparsers.choices) - {"conformance"} <= cli
    conformance = subparsers.choices["conformance"]
    (group,) = [a for a in conformance._actions if isinstance(a, argparse._SubParsersAction)]
    assert set(group.choices) <= cli


@pytest.mark.parametrize("area", AREAS)
def test_tests_mirror_the_areas(area: str) -> None:
    assert list((ROOT / "tests" / "spec" / area).glob("test_*.py")), area
