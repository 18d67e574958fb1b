"""Seed sweeps: ``ksspec simulate --seeds A..B [--cluster ADDRESS]`` runs one simulation per seed and reports a
verdict per seed.

A seed's run is :func:`run_seed`: the simulation ``ksspec simulate --seed S`` runs, with the same invariant checker
and the same final-state check, reduced to a :class:`SeedVerdict` that holds only what the seed decides (no wall
time), so the verdicts of a sweep are the same however it is run: one seed after another in this process
(:func:`sweep` without a cluster), or each seed as one task on a Dask cluster (``cluster``, see
:func:`spec.verify.dask_pool.cluster_address`), the verdicts gathered in seed order.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from conformance.simulation.checks import InvariantChecker, check_final_state
from refimpl.simulator import Simulation, SimulationConfig
from spec.cycle.cycle import Cluster
from spec.quantities import SECOND

Predicate = Callable[[Cluster], bool]


@dataclass(frozen=True)
class SeedVerdict:
    """What one seed's simulation decided: whether it passed, and why not."""

    seed: int
    passed: bool
    """No invariant violated (known violations aside), the cluster settled, and its final state is right."""
    violations: tuple[tuple[str, int], ...]
    """(invariant, violations) of each invariant violated, in the checker's order."""
    first_violation: str | None
    """Where the first violated invariant first failed (a step of the run)."""
    problems: tuple[str, ...]
    """The final state's problems (or that the cluster did not settle)."""
    bound: int
    steps: int
    virtual_nanoseconds: int


def run_seed(config: SimulationConfig, every: int, extra: tuple[Predicate, ...] = ()) -> SeedVerdict:
    """Run ``config`` (its seed included) as ``ksspec simulate`` does, checking the invariants after every
    ``every``-th step (and ``extra`` predicates of the scheduler's view, as :class:`InvariantChecker` does),
    then the final state once the cluster has settled."""
    checker = InvariantChecker(every, extra=extra)
    sim = Simulation(config, observers=(checker,))
    sim.run()
    settled = sim.stats.quiet
    if settled:
        sim.drain()
        settled = sim.stats.quiet
    if settled:
        problems = check_final_state(sim)
    else:
        problems = [f"the cluster did not settle within {config.max_virtual_time / SECOND:,.0f} s of virtual time"]
    violated = [(name, tally) for name, tally in checker.tallies.items() if tally.violations and not tally.known]
    return SeedVerdict(
        seed=config.seed,
        passed=not violated and not problems,
        violations=tuple((name, tally.violations) for name, tally in violated),
        first_violation=violated[0][1].first_violation if violated else None,
        problems=tuple(problems),
        bound=sim.stats.bound,
        steps=sim.stats.steps,
        virtual_nanoseconds=sim.clock.now(),
    )


def sweep(
    config: SimulationConfig,
    seeds: Sequence[int],
    every: int,
    *,
    cluster: str | None = None,
    extra: tuple[Predicate, ...] = (),
    done: Callable[[SeedVerdict], None] | None = None,
) -> list[SeedVerdict]:
    """:func:`run_seed` for ``config`` with each of ``seeds``; the verdicts in the order of ``seeds``.

    Without ``cluster``, one seed after another here; with it, each seed as one task of the Dask cluster at that
    address (or ``local:N``), which runs them at once on its workers. ``done`` is told of each verdict as it
    comes (in the order they finish). Fails with :class:`spec.verify.dask_pool.EngineMissing` if a cluster is
    asked for and Dask's ``distributed`` is not installed."""
    configs = [dataclasses.replace(config, seed=seed) for seed in seeds]
    if cluster is None:
        verdicts = []
        for one in configs:
            verdicts.append(run_seed(one, every, extra))
            if done is not None:
                done(verdicts[-1])
        return verdicts
    from spec.verify.dask_pool import SAME_VERSION, ClusterFailed, connect

    with connect(cluster) as client:
        from distributed import as_completed  # connect has found it installed

        futures = [client.submit(run_seed, one, every, extra, pure=False) for one in configs]
        seed_of = {future.key: one.seed for future, one in zip(futures, configs, strict=True)}
        try:
            for future in as_completed(futures):  # type: ignore[no-untyped-call]  # distributed annotates it in part
                try:
                    verdict = future.result()
                except Exception as error:
                    seed = seed_of[future.key]
                    raise ClusterFailed(f"seed {seed} raised on a Dask worker ({type(error).__name__}: {error}); if "
                                        f"--seed {seed} runs here, {SAME_VERSION}") from error
                if done is not None:
                    done(verdict)
            gathered: list[SeedVerdict] = [future.result() for future in futures]
        finally:
            client.cancel(futures)  # type: ignore[no-untyped-call]
    return gathered
