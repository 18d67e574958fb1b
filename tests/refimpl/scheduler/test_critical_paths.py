"""PodTopologySpread's ``criticalPaths`` (refimpl.scheduler.plugins.pod_topology_spread.CriticalPaths) under the
updates a cycle state can see.

A cycle state's PreFilterExtensions move one node's domain only (DryRunPreemption and RunFilterPluginsWithNominatedPods
clone the state per node), so after PreFilter (``calPreFilterState``: one ``update`` per domain, in any order, as
Go's map order is random) every later ``update`` names the same domain. Under those updates the first path's count,
the only one Filter reads (``minMatchNum``), must be the least count of any domain: mutation/equivalents.toml's
reasons for the criticalPaths.update mutants that only reorder tied paths rest on this.
"""

from __future__ import annotations

import itertools

from refimpl.scheduler.plugins.pod_topology_spread import CriticalPaths

DOMAINS = ("", "a", "b", "c")  # the empty label value is a domain too, and the paths' initial value


def _steps(start: int, length: int) -> list[tuple[int, ...]]:
    """Every sequence of ``length`` steps of +1 or -1 that keeps a count starting at ``start`` at 0 or more."""
    found = []
    for deltas in itertools.product((-1, 1), repeat=length):
        running = list(itertools.accumulate(deltas, initial=start))
        if min(running) >= 0:
            found.append(deltas)
    return found


def test_the_first_path_holds_the_least_count_when_one_domain_moves() -> None:
    checked = 0
    for size in range(1, len(DOMAINS) + 1):
        for counts in itertools.product(range(3), repeat=size):
            for order in itertools.permutations(range(size)):
                for moving in range(size):
                    for length in range(1, 5):
                        for deltas in _steps(counts[moving], length):
                            paths = CriticalPaths()
                            current = dict(zip(DOMAINS, counts, strict=False))
                            for i in order:
                                paths.update(DOMAINS[i], counts[i])
                            assert paths.paths[0][1] == min(current.values())
                            for delta in deltas:
                                current[DOMAINS[moving]] += delta
                                paths.update(DOMAINS[moving], current[DOMAINS[moving]])
                                assert paths.paths[0][1] == min(current.values()), (counts, order, moving, deltas)
                            checked += 1
    assert checked > 10_000
