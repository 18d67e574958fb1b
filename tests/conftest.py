"""Hypothesis settings profiles, chosen with the HYPOTHESIS_PROFILE environment variable (default: dev).

- ``ci``: reproducible (derandomized) runs that print a reproduction blob on failure.
- ``dev``: random exploration with the default example budget.
- ``thorough``: twenty times the example budget, for local soak runs.
"""

import os

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile(
    "ci",
    derandomize=True,
    max_examples=100,
    deadline=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile("dev", max_examples=100, deadline=None)
settings.register_profile("thorough", max_examples=2000, deadline=None)

settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "dev"))


@pytest.fixture(autouse=True)
def _console_width(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tests parse the commands' tables: print them 120 columns wide whatever the environment's ``COLUMNS`` says."""
    monkeypatch.setenv("COLUMNS", "120")
