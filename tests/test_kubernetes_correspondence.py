"""Every public function of the spec's cache, snapshot, node tree, NodeInfo, call queue, cycle, InterPodAffinity
and PodTopologySpread modules names the Kubernetes function it models, in the one machine-readable form the
documentation's correspondence table is generated from."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent.parent / "docs" / "_ext"))

from k8s_correspondence import MODULES, MalformedCorrespondence, counterparts, public_functions

FUNCTIONS = [(module, f) for module in MODULES for f in public_functions(module)]


def test_the_modules_have_public_functions() -> None:
    assert {module for module, _ in FUNCTIONS} == set(MODULES)


@pytest.mark.parametrize(("module", "function"), FUNCTIONS, ids=lambda x: getattr(x, "__name__", x))
def test_every_public_function_names_its_kubernetes_counterpart(module: str, function: Callable[..., Any]) -> None:
    found = counterparts(function)
    assert found, f"{module}.{function.__name__} has no 'Kubernetes:' line"
    for counterpart in found:
        if counterpart.name is None:
            assert counterpart.why, "a 'none' line must say why"
        else:
            assert counterpart.path is not None and counterpart.path.endswith(".go")


def test_a_malformed_line_is_refused_with_the_function_and_the_line() -> None:
    def broken() -> None:
        """Does something.

        Kubernetes: cacheImpl.AssumePod in cache.go
        """

    with pytest.raises(MalformedCorrespondence, match=r"broken: malformed line 'Kubernetes: cacheImpl\.AssumePod"):
        counterparts(broken)
