"""The binding cycle of one assumed pod, as an object a driver steps or a thread runs.

``bindingCycle``, ``bind``/``finishBinding`` and the ``handleBindingCycleError`` call (pkg/scheduler/schedule_one.go,
v1.35; digest §C.3-C.4). Kubernetes runs it on its own goroutine, which blocks twice at most: in ``WaitOnPermit``
until the pod is allowed, rejected or timed out, and in the DefaultBinder until the dispatcher delivers the bind
call's outcome. Here the cycle is a generator that *yields* what it waits for (a
:class:`~refimpl.scheduler.framework.Wait`), so that:

- single-threaded (the simulator, tests): :meth:`BindingCycle.step` runs it up to its next wait, or to its end,
  and returns whether it progressed; a later ``step`` resumes it once the awaited outcome is there;
- threaded (production): :meth:`BindingCycle.run_blocking` blocks on each wait in turn.

Steps: (v1.35) PreBind pre-flights and the NominatedNodeName patch; WaitOnPermit; ``queue.done``; PreBind; Bind
(then ``FinishBinding`` whatever the outcome, where the profile has it); PostBind and activation. On failure the
scheduler's :meth:`~refimpl.scheduler.schedule_one.Scheduler.handle_binding_cycle_error` runs inside the final step.

A cycle knows its scheduler only as a :class:`CycleScheduler` (the methods it calls back), so that this module and
:mod:`~refimpl.scheduler.schedule_one`, which starts the cycles, import one way.
"""

from __future__ import annotations

import logging
from collections.abc import Generator
from typing import Final, Protocol

from refimpl.dispatcher import NominatingInfo, NominatingMode, PodCondition
from refimpl.scheduler.framework import Awaiting, CycleState, Framework, Status, Wait
from refimpl.scheduler.framework.status import SUCCESS, Code, fit_error_on_one_node, is_success
from refimpl.scheduler.framework.waiting_pods import WaitingPod
from refimpl.scheduler.queue import SchedulingQueue
from refimpl.scheduler.queued_pod_info import QueuedPodInfo
from spec.objects import Pod
from spec.versions import VersionProfile

LOGGER: Final = logging.getLogger(__name__)

CycleSteps = Generator[Wait, None, Status | None]


class CycleScheduler(Protocol):
    """What a binding cycle uses of the scheduler that started it (:class:`refimpl.scheduler.schedule_one.Scheduler`
    is one): its version profile and queue, and the steps of ``bindingCycle`` that are the scheduler's methods."""

    @property
    def profile(self) -> VersionProfile: ...

    @property
    def queue(self) -> SchedulingQueue: ...

    def update_pod_status(self, pod: Pod, condition: PodCondition | None, nominating: NominatingInfo | None) -> None:
        """``updatePod``: patch the pod's status (errors are logged)."""
        ...

    def finish_binding(self, pod: Pod, node: str, status: Status | None) -> None:
        """``finishBinding``."""
        ...

    def handle_binding_cycle_error(
        self, fwk: Framework, state: CycleState, pinfo: QueuedPodInfo, node: str, status: Status, start: int
    ) -> None:
        """``handleBindingCycleError``."""
        ...


class BindingCycle:
    """One pod's binding cycle. ``done`` once it ended; ``status`` is then its outcome (a success status, or the
    failure that :meth:`Scheduler.handle_binding_cycle_error` handled)."""

    def __init__(
        self, scheduler: CycleScheduler, framework: Framework, state: CycleState, pinfo: QueuedPodInfo, node: str,
        start: int,
    ) -> None:
        self.scheduler = scheduler
        self.framework = framework
        self.state = state
        self.pinfo = pinfo
        """The assumed pod's QueuedPodInfo (its pod names the node)."""
        self.node = node
        self.start = start
        self.done = False
        self.status: Status | None = None
        self._waiting: Wait | None = None
        self._steps = self._run()
        self._started = False

    @property
    def assumed_pod(self) -> Pod:
        return self.pinfo.pod

    @property
    def waiting_on(self) -> str | None:
        """What the cycle waits for ("permit", "bind-result"), or None if it is runnable or done."""
        return self._waiting.description if self._waiting is not None and not self.done else None

    def ready(self) -> bool:
        """Whether :meth:`step` would progress."""
        return not self.done and (self._waiting is None or self._waiting.poll())

    def step(self) -> bool:
        """Run until the next wait or the end; False (and nothing happens) if done or still waiting."""
        if self.done or (self._waiting is not None and not self._waiting.poll()):
            return False
        try:
            self._waiting = next(self._steps)
        except StopIteration as end:
            self._waiting = None
            self.done = True
            status: Status | None = end.value
            self.status = SUCCESS if status is None else status
        return True

    def run_blocking(self) -> Status:
        """Run to the end on this thread, blocking on each wait; the final status."""
        while not self.done:
            if self._waiting is not None:
                self._waiting.block()
            self.step()
        assert self.status is not None
        return self.status

    # -- the cycle -------------------------------------------------------------------------

    def _run(self) -> CycleSteps:
        status = yield from self._binding_cycle()
        if not is_success(status):
            assert status is not None
            self.scheduler.handle_binding_cycle_error(self.framework, self.state, self.pinfo, self.node, status,
                                                      self.start)
        return status

    def _binding_cycle(self) -> CycleSteps:
        """``bindingCycle``."""
        scheduler, fwk, state, pod, node = self.scheduler, self.framework, self.state, self.pinfo.pod, self.node
        if scheduler.profile.nominated_node_name_for_expectation:
            pre_flight = fwk.run_pre_bind_pre_flights(state, pod, node)
            if pre_flight is not None and (pre_flight.code is Code.ERROR or pre_flight.is_rejected()):
                return pre_flight
            if pre_flight is None or fwk.get_waiting_pod(pod.uid) is not None:
                scheduler.update_pod_status(pod, None, NominatingInfo(NominatingMode.OVERRIDE, node))
        status = yield from self._wait_on_permit()
        if not is_success(status):
            assert status is not None
            if status.is_rejected():
                error = fit_error_on_one_node(pod.uid, node, status)
                error.diagnosis.unschedulable_plugins = {status.plugin}
                return Status(status.code, str(error), error=error)
            return status
        scheduler.queue.done(pod.uid)  # from here on, a failure is an error: the pod goes to backoff
        status = fwk.run_pre_bind_plugins(state, pod, node)
        if not is_success(status):
            return status
        status = yield from self._bind()
        if not is_success(status):
            return status
        fwk.run_post_bind_plugins(state, pod, node)
        if state.pods_to_activate:
            scheduler.queue.activate(list(state.pods_to_activate.values()))
        return None

    def _wait_on_permit(self) -> CycleSteps:
        """``WaitOnPermit``: wait for a waiting pod's verdict, then forget the waiting pod."""
        fwk = self.framework
        waiting: WaitingPod | None = fwk.get_waiting_pod(self.pinfo.pod.uid)
        if waiting is None:
            return None
        try:
            yield waiting
        finally:
            fwk.waiting_pods.remove(waiting.pod.uid)
        status = waiting.status()
        if is_success(status) or status is None:
            return None
        if status.is_rejected():
            return status
        error = RuntimeError(f"waiting on permit for pod: {status.message()}")
        return Status(Code.ERROR, str(error), plugin=status.plugin, error=error)

    def _bind(self) -> CycleSteps:
        """``sched.bind``: the Bind plugins, then (deferred in Go) ``finishBinding``."""
        status = yield from self._run_bind_plugins()
        self.scheduler.finish_binding(self.pinfo.pod, self.node, status)
        return status

    def _run_bind_plugins(self) -> CycleSteps:
        """``RunBindPlugins``: Skip tries the next plugin; the first other answer decides."""
        fwk, state, pod, node = self.framework, self.state, self.pinfo.pod, self.node
        if not fwk.bind_plugins:
            return Status(Code.SKIP)
        status: Status | None = None
        for plugin in fwk.bind_plugins:
            answer = plugin.bind(state, pod, node)
            if isinstance(answer, Awaiting):
                yield answer
                answer = answer.status()
            status = answer
            if status is not None and status.code is Code.SKIP:
                continue
            if not is_success(status):
                assert status is not None
                if status.is_rejected():
                    return status.with_plugin(plugin.name)
                error = RuntimeError(f"running Bind plugin \"{plugin.name}\": {status.message()}")
                return Status(Code.ERROR, str(error), error=error)
            return status
        return status

    def __repr__(self) -> str:
        state = "done" if self.done else (self.waiting_on or "runnable")
        return f"BindingCycle({self.pinfo.pod.uid} -> {self.node}, {state})"
