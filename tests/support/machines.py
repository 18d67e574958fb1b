"""Settings and per-configuration test classes for the Hypothesis state machines."""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from typing import Any
from unittest import TestCase

from hypothesis import settings
from hypothesis.stateful import RuleBasedStateMachine

from spec.versions import PROFILES


def machine_settings(examples: Mapping[str, int], steps: int) -> settings:
    """The active profile's settings (``HYPOTHESIS_PROFILE``, default ``dev``) with the machine's own number of
    examples for that profile (its ``dev`` number for a profile it does not name) and ``steps`` steps each."""
    profile = os.environ.get("HYPOTHESIS_PROFILE", "dev")
    return settings(
        settings.get_profile(profile),
        max_examples=profile_examples(examples),
        stateful_step_count=steps,
    )


def profile_examples(examples: Mapping[str, int]) -> int:
    """A test's own number of examples for the active profile (``HYPOTHESIS_PROFILE``, default ``dev``): its
    number for that profile, else its ``dev`` number. A test that needs more examples than the profile gives
    (``ci``: 100) names them per profile so ``fast`` (``ksspec verify``) still runs few."""
    return examples.get(os.environ.get("HYPOTHESIS_PROFILE", "dev"), examples["dev"])


def property_settings(examples: Mapping[str, int]) -> settings:
    """The active profile's settings with the test's own number of examples (:func:`profile_examples`)."""
    profile = os.environ.get("HYPOTHESIS_PROFILE", "dev")
    return settings(settings.get_profile(profile), max_examples=profile_examples(examples))


def configured_test_case(
    machine: type[RuleBasedStateMachine], name: str, attributes: Mapping[str, Any], machine_settings: settings
) -> type[TestCase]:
    """The ``TestCase`` of a subclass ``name`` of ``machine`` with ``attributes`` (a profile, a TTL), run with
    ``machine_settings``."""
    configured: type[RuleBasedStateMachine] = type(name, (machine,), dict(attributes))
    test_case: type[TestCase] = configured.TestCase
    test_case.settings = machine_settings  # type: ignore[attr-defined]  # Hypothesis reads it from the class
    return test_case


def add_cache_test_cases(
    namespace: dict[str, Any],
    machines: Mapping[str, type[RuleBasedStateMachine]],
    configurations: Iterable[tuple[str, str, int]],
    machine_settings: settings,
) -> None:
    """For every ``(name, profile, ttl)`` configuration and every ``prefix: machine``, put the machine's
    ``TestCase`` in that profile and TTL into ``namespace`` (a test module's globals) as ``{prefix}_{name}``."""
    for name, profile, ttl in configurations:
        for prefix, machine in machines.items():
            namespace[f"{prefix}_{name}"] = configured_test_case(
                machine, machine.__name__, {"profile": PROFILES[profile], "ttl": ttl}, machine_settings
            )
