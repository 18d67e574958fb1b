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

The second soak, :data:`CLUSTER`, is the cluster simulation in a steady state (issue 30 item 8): three schedulers
over one API server, crashing now and then, each pod finishing (``Succeeded``) a fixed time after its kubelet admitted
it, the API server keeping a bounded number of terminated pods (``--terminated-pod-gc-threshold``, the pod garbage
collector), both levels of invariants checked. Without pod completion the cluster mode grew 0.1-0.15 MB/s for ever,
as every pod stayed.

``make bench`` runs :data:`DEFAULT` and, in a second interpreter, :data:`CLUSTER` (``--cluster``); ``--full`` runs
the issue's 60,000 pods (30,000 in the cluster).
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
from conformance.cli.simulate_cluster import cluster_config, late_binds_possible  # noqa: E402
from conformance.simulation.checks import InvariantChecker  # noqa: E402
from conformance.simulation.cluster_checks import ClusterChecker  # noqa: E402
from refimpl.simulator import Simulation  # noqa: E402
from refimpl.simulator.cluster import ClusterSimulation  # noqa: E402

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
    schedulers: int = 1
    """More than one runs the cluster simulation (``--schedulers``)."""
    crash_rate: float = 0.0
    gc_threshold: int = 0
    """The cluster's ``--terminated-pod-gc-threshold`` (0: the default)."""
    steady_from: float = 0.25
    """The share of the arrivals after which the run counts as steady (the slope is measured from there on)."""

    @property
    def cluster(self) -> bool:
        """Whether this soak runs the cluster simulation."""
        return self.schedulers > 1

    def argv(self) -> list[str]:
        """The ``ksspec simulate`` command line of this soak."""
        cluster = ["--schedulers", str(self.schedulers), "--crash-rate", f"{self.crash_rate:g}"] if self.cluster else []
        if self.cluster and self.gc_threshold:
            cluster += ["--terminated-pod-gc-threshold", str(self.gc_threshold)]
        return ["simulate", "--nodes", str(self.nodes), "--pods", str(self.pods), "--arrival-rate", f"{self.rate:g}",
                "--pod-lifetime-seconds", f"{self.lifetime:g}", *cluster, "--seed", "1", "--no-progress"]


DEFAULT = Soak(nodes=200, pods=6_000, rate=100.0, lifetime=10.0)
FULL = Soak(nodes=200, pods=60_000, rate=200.0, lifetime=10.0)
CLUSTER = Soak(nodes=20, pods=6_000, rate=40.0, lifetime=5.0, schedulers=3, crash_rate=0.002, gc_threshold=100,
               steady_from=0.5)
"""About 200 pods run at once; a crash every 500 scheduling cycles of a scheduler; 100 terminated pods kept. Steady
from half the arrivals: the kubelet-level invariant computes each admitted pod's requests through the spec's
``compute_pod_resource``, whose LRU cache (4,096 entries) fills over the first 2,500 pods or so (a pod enters it
unbound, bound, and as its kubelet counts it) and then holds its size."""
FULL_CLUSTER = Soak(nodes=20, pods=30_000, rate=40.0, lifetime=5.0, schedulers=3, crash_rate=0.002, gc_threshold=100,
                    steady_from=0.25)


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
    if soak.cluster:
        return run_cluster(soak, sample_every)
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
    return figures(soak, samples, every, stats.steps, seconds, stats.pods_created, stats.pods_deleted,
                   checker.violations)


def run_cluster(soak: Soak, sample_every: int) -> dict[str, Any]:
    """The cluster soak: ``ksspec simulate --schedulers N`` as :func:`conformance.cli.simulate_cluster.simulate_cluster`
    runs it (both levels of invariants), sampled every ``sample_every`` steps of all its processes."""
    args = build_parser().parse_args(soak.argv())
    config = cluster_config(args, config_from(args))
    every = auto_check_every(config.simulation)
    checker = ClusterChecker(config.schedulers, every, late_binds=late_binds_possible(config))
    simulation = ClusterSimulation(config, (checker,), checker.scheduler_observers)
    checker.attach(simulation)
    samples: list[tuple[int, int, int, int]] = []

    def sample(sim: ClusterSimulation) -> None:
        samples.append((sim._steps(), sim.stats.pods_created, len(sim.world.pods), rss_bytes()))

    gc.collect()
    started = time.perf_counter()
    simulation.run(sample, progress_every=sample_every)
    seconds = time.perf_counter() - started
    stats, kubelets = simulation.stats, simulation.kubelets
    result = figures(soak, samples, every, simulation._steps(), seconds, stats.pods_created,
                     kubelets.finished + sum(kubelets.rejected.values()) + stats.pods_deleted, checker.violations)
    result.update(crashes=stats.crashes, finished=kubelets.finished, rejected=sum(kubelets.rejected.values()),
                  terminated_kept=simulation.world.terminated, quiet=stats.quiet)
    return result


def figures(soak: Soak, samples: list[tuple[int, int, int, int]], every: int, steps: int, seconds: float,
            pods_created: int, gone: int, violations: int) -> dict[str, Any]:
    """The soak's figures from its samples (steps, pods created, live pods, RSS)."""
    start = soak.pods * soak.steady_from
    steady = [(created, rss) for _, created, _, rss in samples if start <= created < soak.pods]
    growth = slope([(created, rss / 1024) for created, rss in steady]) * 1000 if len(steady) >= 2 else 0.0

    def at(share: float) -> float:
        wanted = soak.pods * share
        return next((rss for _, created, _, rss in samples if created >= wanted), samples[-1][3]) / 2**20

    live = [pods for _, made, pods, _ in samples if start <= made < soak.pods]
    return {
        "soak": soak.__dict__, "command": "ksspec " + " ".join(soak.argv()), "check_every": every,
        "steps": steps, "seconds": seconds, "steps_per_second": steps / seconds,
        "pods_created": pods_created, "pods_deleted": gone,
        "violations": violations, "live_pods_mean": sum(live) / len(live) if live else 0.0,
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
    name = "ksspec simulate, steady-state soak"
    if soak["schedulers"] > 1:
        name = "ksspec simulate, cluster steady-state soak"
        parameters = (f"{soak['schedulers']} schedulers (crash rate {soak['crash_rate']:g}, {result['crashes']} "
                      f"crashes), {soak['nodes']:,} nodes, {soak['pods']:,} pods at {soak['rate']:g}/s, each "
                      f"Succeeded {soak['lifetime']:g} s after admission (~{result['live_pods_mean']:,.0f} live), "
                      f"{result['terminated_kept']:,} terminated kept; invariants every {result['check_every']} steps")
    growth = result["growth_kib_per_1000_pods"]
    steady_from = {0.25: "a quarter", 0.5: "half"}.get(soak["steady_from"], f"{soak['steady_from']:.0%}")
    flat = growth < FLAT_KIB_PER_1000_PODS
    rss = " / ".join(f"{mib:.1f}" for mib in result["rss_mib"])
    return [
        {"benchmark": name, "parameters": parameters,
         "result": f"{result['steps_per_second']:,.0f} steps/s", "target": ""},
        {"benchmark": "", "parameters": "RSS at 1/4, 1/2, 3/4 and all of the arrivals",
         "result": f"{rss} MiB", "target": ""},
        {"benchmark": "", "parameters": f"RSS growth in the steady state (per pod created, from {steady_from} of "
                                        "the arrivals)",
         "result": f"{growth:+,.0f} KiB / 1,000 pods",
         "target": f"flat: < {FLAT_KIB_PER_1000_PODS} " + ("✓" if flat else "✗")},
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--full", action="store_true", help="the issue's 60,000 pods, or 30,000 in the cluster "
                                                            "(several minutes)")
    parser.add_argument("--cluster", action="store_true",
                        help="the cluster soak (three schedulers, pods finishing at their kubelets) instead; run it in "
                             "its own interpreter, so that the memory the first soak freed does not hide its growth")
    parser.add_argument("--json", action="store_true", help="print the result as JSON (bench/run.py reads it)")
    args = parser.parse_args(argv)
    if args.cluster:
        result = run(FULL_CLUSTER if args.full else CLUSTER)
    else:
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
