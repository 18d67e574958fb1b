"""Proof of strength: the suite rejects every faulty implementation in the gallery, and names the vectors."""

from __future__ import annotations

import pytest

from conformance.format import Vector
from conformance.runner import Outcome, Target, run_vectors
from tests.conformance.gallery.faulty import GALLERY


@pytest.mark.parametrize("name", sorted(GALLERY))
def test_suite_rejects_faulty_implementation(name: str, vectors: list[Vector]) -> None:
    target = Target(impl=f"tests.conformance.gallery.faulty:GALLERY_{name}")
    results = run_vectors(target, vectors)
    caught = [r.id for r in results if r.outcome is Outcome.FAIL]
    errors = [r for r in results if r.outcome is Outcome.ERROR]
    assert not errors, f"{name}: adapter errors instead of verdicts: {errors[:3]}"
    assert caught, f"{name} ({GALLERY[name].__doc__}) passed every vector: the suite is too weak"
    print(f"{name}: caught by {len(caught)} vectors, e.g. {', '.join(caught[:3])}")


def test_gallery_has_at_least_twenty_documented_variants() -> None:
    assert len(GALLERY) >= 20
    assert all(adapter.__doc__ for adapter in GALLERY.values())
