"""A steady-state soak of ``ksspec simulate``: does its memory stay flat when the cluster does not grow?

Pods arrive at a fixed rate and each finishes, and is deleted, a fixed time after it is bound
(``--pod-lifetime-seconds``), so once the first pods finish the cluster holds about rate x lifetime pods however
many have come and gone (Little's law). The run is ``ksspec simulate`` as the command line builds it, invariant
checks included; its resident set size (RSS) is sampled every :data:`SAMPLE_EVERY` steps.

Telling a leak from a growing cluster: in a steady state the live objects stay the same in number, so any RSS that
grows with the pods *ever created* is a leak. The table gives the RSS at a quarter, half, three quarters and all
of the arrivals, and the slope of RSS against pods created over the steady part (from the first quarter on, when
the first pods have long finished), in KiB per 1,000 pods: flat is near 0. (A 60,000-pod run without lifetimes
grew about 0.9 MB/s; there the cluster grows, and so does every structure that holds its pods.)

``make bench`` runs :data:`DEFAULT` (a few tens of seconds); ``python bench/soak.py --full`` runs the issue's 60,000
pods.
"""

from __future__ import annotations

import argparse
import gc
import json
import resource
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
BENCH = Path(__file__).resolve().parent
if __name__ == "__main__":
    # bench/conformance.py shares its name with the package: keep bench/ off the path so `conformance` is the package.
    sys.path[:] = [str(ROOT), *(p for p in sys.path if Path(p or ".").resolve() != BENCH)]

from conformance.cli.main import build_parser  # noqa: E402
from conformance.cli.simulate import auto_check_every, config_from  # noqa: E402
from conformance.simulation.checks import InvariantChecker  # noqa: E402
from refimpl.simulator import Simulation  # noqa: E402

SAMPLE_EVERY = 5_000
"""Steps between two RSS samples."""
FLAT_KIB_PER_1000_PODS = 256
"""The most RSS growth per 1,000 pods created in the steady state that the table calls flat (the leak this soak
found held about 4,300 KiB per 1,000 pods)."""


@dataclass(frozen=True)
class Soak:
    nodes: int
    pods: int
    rate: float
    lifetime: float

    def argv(self) -> list[str]:
        """The ``ksspec simulate`` command line of this soak."""
        return ["simulate", "--nodes", str(self.nodes), "--pods", str(self.pods), "--arrival-rate", f"{self.rate:g}",
                "--pod-lifetime-seconds", f"{self.lifetime:g}", "--seed", "1", "--no-progress"]


DEFAULT = Soak(nodes=200, pods=6_000, rate=100.0, lifetime=10.0)
FULL = Soak(nodes=200, pods=60_000, rate=200.0, lifetime=10.0)


def rss_bytes() -> int:
    """The current resident set size (Linux: /proc/self/statm; elsewhere the peak, which only grows)."""
    try:
        pages = int(Path("/proc/self/statm").read_text().split()[1])
    except (OSError, IndexError, ValueError):
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    return pages * resource.getpagesize()


def slope(points: list[tuple[float, float]]) -> float:
    """The least-squares slope of y over x."""
    n = len(points)
    mean_x = sum(x for x, _ in points) / n
    mean_y = sum(y for _, y in points) / n
    var = sum((x - mean_x) ** 2 for x, _ in points)
    return sum((x - mean_x) * (y - mean_y) for x, y in points) / var if var else 0.0


def run(soak: Soak, sample_every: int = SAMPLE_EVERY) -> dict[str, Any]:
    """Run the soak; its samples (steps, pods created, live pods, RSS) and figures."""
    args = build_parser().parse_args(soak.argv())
    config = config_from(args)
    every = auto_check_every(config)
    checker = InvariantChecker(every)
    simulation = Simulation(config, observers=(checker,))
    samples: list[tuple[int, int, int, int]] = []

    def sample(sim: Simulation) -> None:
        samples.append((sim.stats.steps, sim.stats.pods_created, len(sim.world.pods), rss_bytes()))

    gc.collect()
    started = time.perf_counter()
    stats = simulation.run(sample, progress_every=sample_every)
    seconds = time.perf_counter() - started
    steady = [(created, rss) for _, created, _, rss in samples if soak.pods / 4 <= created < soak.pods]
    growth = slope([(created, rss / 1024) for created, rss in steady]) * 1000 if len(steady) >= 2 else 0.0

    def at(share: float) -> float:
        wanted = soak.pods * share
        return next((rss for _, created, _, rss in samples if created >= wanted), samples[-1][3]) / 2**20

    live = [pods for _, created, pods, _ in samples if soak.pods / 4 <= created < soak.pods]
    return {
        "soak": soak.__dict__, "command": "ksspec " + " ".join(soak.argv()), "check_every": every,
        "steps": stats.steps, "seconds": seconds, "steps_per_second": stats.steps / seconds,
        "pods_created": stats.pods_created, "pods_deleted": stats.pods_deleted,
        "violations": checker.violations, "live_pods_mean": sum(live) / len(live) if live else 0.0,
        "rss_mib": [round(at(share), 1) for share in (0.25, 0.5, 0.75, 1.0)],
        "growth_kib_per_1000_pods": growth,
        "samples": samples,
    }


def rows(result: dict[str, Any]) -> list[dict[str, str]]:
    """The rows bench/run.py's table shows."""
    soak = result["soak"]
    parameters = (f"{soak['nodes']:,} nodes, {soak['pods']:,} pods at {soak['rate']:g}/s, each deleted "
                  f"{soak['lifetime']:g} s after binding (~{result['live_pods_mean']:,.0f} live); invariants every "
                  f"{result['check_every']} steps")
    growth = result["growth_kib_per_1000_pods"]
    flat = growth < FLAT_KIB_PER_1000_PODS
    rss = " / ".join(f"{mib:.1f}" for mib in result["rss_mib"])
    return [
        {"benchmark": "ksspec simulate, steady-state soak", "parameters": parameters,
         "result": f"{result['steps_per_second']:,.0f} steps/s", "target": ""},
        {"benchmark": "", "parameters": "RSS at 1/4, 1/2, 3/4 and all of the arrivals",
         "result": f"{rss} MiB", "target": ""},
        {"benchmark": "", "parameters": "RSS growth in the steady state (per pod created)",
         "result": f"{growth:+,.0f} KiB / 1,000 pods",
         "target": f"flat: < {FLAT_KIB_PER_1000_PODS} " + ("✓" if flat else "✗")},
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--full", action="store_true", help="the issue's 60,000 pods (several minutes)")
    parser.add_argument("--json", action="store_true", help="print the result as JSON (bench/run.py reads it)")
    args = parser.parse_args(argv)
    result = run(FULL if args.full else DEFAULT)
    if args.json:
        print(json.dumps({**result, "rows": rows(result)}))
        return 0
    print(result["command"])
    for steps, created, live, rss in result["samples"]:
        print(f"  step {steps:>9,}  pods created {created:>7,}  live {live:>6,}  RSS {rss / 2**20:7.1f} MiB")
    for row in rows(result):
        print(f"{row['parameters']}: {row['result']} {row['target']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
