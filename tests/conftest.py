"""Hypothesis settings profiles, chosen with the HYPOTHESIS_PROFILE environment variable (default: dev).

- ``ci``: reproducible (derandomized) runs that print a reproduction blob on failure.
- ``dev``: random exploration with the default example budget.
- ``thorough``: twenty times the example budget, for local soak runs.
- ``fast``: ``ci`` with fewer examples (20 per property where ``ci`` runs 100; the refinement machines name their
  own numbers, 50 where ``ci`` runs 500): ``ksspec verify``'s default, the
  profile a user runs first (README, "make verify", gives its time).

Every name here is in ``conformance.cli.verify.HYPOTHESIS_PROFILES``, which ``ksspec verify --hypothesis-profile``
checks.
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
settings.register_profile(
    "fast",
    derandomize=True,
    max_examples=20,
    deadline=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile("dev", max_examples=100, deadline=None)
settings.register_profile("thorough", max_examples=2000, deadline=None)

settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "dev"))


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--run-packaging", action="store_true",
                     help="also run the tests marked packaging (build the wheel, install it; needs the network)")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Tests marked ``packaging`` build and install the wheel (a minute or two, the network): ``make test-packaging``
    and CI's packaging stage run them, with ``--run-packaging``; other runs skip them."""
    if config.getoption("--run-packaging"):
        return
    skip = pytest.mark.skip(reason="builds and installs the wheel: run with --run-packaging (make test-packaging)")
    for item in items:
        if item.get_closest_marker("packaging") is not None:
            item.add_marker(skip)


@pytest.fixture(autouse=True)
def _console_width(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tests parse the commands' tables: print them 120 columns wide whatever the environment's ``COLUMNS`` says."""
    monkeypatch.setenv("COLUMNS", "120")
