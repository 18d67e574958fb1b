from __future__ import annotations

import pytest

from conformance.format import Vector, load_vectors


@pytest.fixture(scope="session")
def vectors() -> list[Vector]:
    return load_vectors()
