"""The examples each Hypothesis test of a test tree runs under the active profile, read off the imported tests.

Run as ``python -m tests.support.example_budget DIR`` (with ``HYPOTHESIS_PROFILE`` set: the machines and
properties read it when their modules are imported); prints one JSON object, test name to ``max_examples``.
"""

from __future__ import annotations

import importlib
import inspect
import json
import sys
from pathlib import Path
from unittest import TestCase

from hypothesis import settings


def _settings_of(value: object) -> settings | None:
    """The settings a Hypothesis test runs with: a ``@given`` function's, or a state machine ``TestCase``'s."""
    if inspect.isclass(value) and issubclass(value, TestCase):
        found = getattr(value, "settings", None)
        return found if isinstance(found, settings) else None
    if callable(value) and getattr(value, "is_hypothesis_test", False):
        # @settings stores its settings on the function; a bare @given runs with the profile's.
        found = getattr(value, "_hypothesis_internal_use_settings", None)
        return found if isinstance(found, settings) else settings.default
    return None


def example_budget(directory: Path) -> dict[str, int]:
    """``max_examples`` of every Hypothesis test in the ``test_*.py`` modules under ``directory`` (relative to the
    working directory, the project root)."""
    importlib.import_module("tests.conftest")  # registers and loads the profiles, as pytest does first
    budget: dict[str, int] = {}
    for path in sorted(directory.rglob("test_*.py")):
        module = importlib.import_module(".".join(path.with_suffix("").parts))
        for name, value in vars(module).items():
            found = _settings_of(value)
            # A machine's TestCase is made by Hypothesis (another __module__); a function must be the module's own.
            own = inspect.isclass(value) or getattr(value, "__module__", None) == module.__name__
            if found is not None and own and name.startswith(("test", "Test")):
                budget[f"{module.__name__}.{name}"] = found.max_examples
    return budget


if __name__ == "__main__":
    print(json.dumps(example_budget(Path(sys.argv[1]))))
