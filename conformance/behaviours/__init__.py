"""Behaviours: the inventory of the spec's rules (:mod:`.inventory`) and the classifiers that observe them.

Each classifier takes one step of a trace with the spec's state before and after it and returns the inventory
names of the rules the step exercised: :func:`cache_step_behaviours` (cache, snapshot and node-tree areas),
:func:`dispatcher_step_behaviours` and :func:`cycle_step_behaviours`. :func:`checked` refuses a name the inventory
does not list, so a classifier cannot invent a behaviour. :mod:`.coverage` counts vectors per behaviour.
"""

from __future__ import annotations

from collections.abc import Iterable

from conformance.behaviours.cache import cache_step_behaviours
from conformance.behaviours.cycle import cycle_step_behaviours
from conformance.behaviours.dispatcher import dispatcher_step_behaviours
from conformance.behaviours.inventory import BEHAVIOURS, BY_NAME, LABELS, UNREACHABLE, Behaviour, Label

__all__ = ["BEHAVIOURS", "BY_NAME", "LABELS", "UNREACHABLE", "Behaviour", "Label", "cache_step_behaviours",
           "checked", "cycle_step_behaviours", "dispatcher_step_behaviours"]


def checked(names: Iterable[str]) -> frozenset[str]:
    """``names`` as a set; fails with ``ValueError`` naming any that is not a behaviour of the inventory."""
    found = frozenset(names)
    unknown = sorted(found - BY_NAME.keys())
    if unknown:
        raise ValueError(f"classifier produced names the behaviour inventory does not list: {unknown}")
    return found
