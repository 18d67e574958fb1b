"""Proof of strength: the suite rejects every faulty implementation in the gallery, and names the vectors.

The mutation score in docs/conformance.md (variants rejected / variants) and its table of variants are checked
here against the gallery and an actual run, so the documentation cannot drift from the suite.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

import pytest

from conformance.format import Vector, load_vectors
from conformance.runner import Outcome, Target, VectorResult, run_vectors
from tests.conformance.gallery.faulty import GALLERY, gallery_markdown

DOCS = Path(__file__).resolve().parents[3] / "docs" / "conformance.md"


@cache
def all_vectors() -> tuple[Vector, ...]:
    return tuple(load_vectors())


@cache
def verdicts(name: str) -> tuple[VectorResult, ...]:
    """Every vector's result against gallery variant ``name`` (computed once per process)."""
    return tuple(run_vectors(Target(impl=f"tests.conformance.gallery.faulty:GALLERY_{name}"), all_vectors()))


def caught(name: str) -> list[str]:
    return [r.id for r in verdicts(name) if r.outcome is Outcome.FAIL]


@pytest.mark.parametrize("name", sorted(GALLERY))
def test_suite_rejects_faulty_implementation(name: str) -> None:
    errors = [r for r in verdicts(name) if r.outcome is Outcome.ERROR]
    assert not errors, f"{name}: adapter errors instead of verdicts: {errors[:3]}"
    assert caught(name), f"{name} ({GALLERY[name].__doc__}) passed every vector: the suite is too weak"
    print(f"{name}: caught by {len(caught(name))} vectors, e.g. {', '.join(caught(name)[:3])}")


def test_gallery_has_at_least_twenty_documented_variants() -> None:
    assert len(GALLERY) >= 20
    assert all(adapter.__doc__ for adapter in GALLERY.values())


def test_docs_state_the_measured_mutation_score_and_list_every_variant() -> None:
    """docs/conformance.md says "Mutation score: R of N" with R measured here, and holds the generated table."""
    rejected = sum(1 for name in GALLERY if caught(name))
    text = DOCS.read_text()
    stated = re.search(r"Mutation score: \*\*(\d+) of (\d+)\*\*", text)
    assert stated is not None, "docs/conformance.md lost its 'Mutation score: **R of N**' line"
    assert (int(stated[1]), int(stated[2])) == (rejected, len(GALLERY)), (
        f"docs/conformance.md states {stated[1]} of {stated[2]}; measured {rejected} of {len(GALLERY)}")
    assert gallery_markdown() in text, "regenerate the gallery table: python -m tests.conformance.gallery.faulty"
