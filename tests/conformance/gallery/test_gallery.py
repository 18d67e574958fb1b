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
from tests.conformance.gallery.faulty import GALLERY, area_of, gallery_markdown

DOCS = Path(__file__).resolve().parents[3] / "docs" / "conformance.md"


@cache
def all_vectors() -> tuple[Vector, ...]:
    return tuple(load_vectors())


def judging_vectors(name: str) -> tuple[Vector, ...]:
    """The vectors gallery variant ``name`` is run on: those of the areas its overridden hook serves. A cycle variant
    (``new_cycle``) changes only the cycle area and a dispatcher variant (``new_queue``) only the dispatcher area,
    so their other vectors would pass as refimpl does. A cache or snapshot variant changes every area built on the
    cache; it is run on all but the cycle area, which re-judges the same cache through the scheduling decision at
    about eleven times the cost of the rest (15.7 of a variant's 17.2 CPU-s at 1,467 vectors, measured on
    requested_ignores_assumed), and is rejected by its own area's vectors."""
    area = area_of(GALLERY[name])
    if area in ("cycle", "dispatcher"):
        return tuple(v for v in all_vectors() if v.tags.area == area)
    return tuple(v for v in all_vectors() if v.tags.area != "cycle")


CHUNK = 40
"""Vectors run per call of the runner while looking for the first rejection."""


def in_judging_order(name: str) -> tuple[Vector, ...]:
    """:func:`judging_vectors` with the vectors of the variant's own area first, where its bug is most likely seen
    soonest; the order changes only how soon the first rejection is found, never whether there is one."""
    area = area_of(GALLERY[name])
    vectors = judging_vectors(name)
    return tuple(v for v in vectors if v.tags.area == area) + tuple(v for v in vectors if v.tags.area != area)


@cache
def verdicts(name: str) -> tuple[VectorResult, ...]:
    """The results of gallery variant ``name`` up to and including the first vector that rejects it, or of every
    vector if none does (computed once per process). Rejection needs one failing vector, so the rest is not run:
    this is what makes the gallery affordable in ``make test`` (a whole run is about 20 CPU-s per variant, 64
    variants; ``ksspec conform --impl tests.conformance.gallery.faulty:GALLERY_<name>`` runs one whole)."""
    vectors, ran = in_judging_order(name), []
    target = Target(impl=f"tests.conformance.gallery.faulty:GALLERY_{name}")
    for start in range(0, len(vectors), CHUNK):
        for result in run_vectors(target, vectors[start:start + CHUNK]):
            ran.append(result)
            if result.outcome is Outcome.FAIL:
                return tuple(ran)
    return tuple(ran)


def caught(name: str) -> list[str]:
    return [r.id for r in verdicts(name) if r.outcome is Outcome.FAIL]


@pytest.mark.parametrize("name", sorted(GALLERY))
def test_suite_rejects_faulty_implementation(name: str) -> None:
    errors = [r for r in verdicts(name) if r.outcome is Outcome.ERROR]
    assert not errors, f"{name}: adapter errors instead of verdicts: {errors[:3]}"
    assert caught(name), f"{name} ({GALLERY[name].__doc__}) passed every vector: the suite is too weak"
    print(f"{name}: rejected by {caught(name)[0]}, after {len(verdicts(name)) - 1} vectors it passed")


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
