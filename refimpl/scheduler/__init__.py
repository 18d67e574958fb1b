"""The kube-scheduler's scheduling loop: queue, framework, plugins, ``ScheduleOne`` and the binding cycle, in Python.

Modules, one concept each: :mod:`~refimpl.scheduler.queue` and :mod:`~refimpl.scheduler.backoff` (the scheduling
queue), :mod:`~refimpl.scheduler.events` and :mod:`~refimpl.scheduler.event_handlers` (informer events),
:mod:`~refimpl.scheduler.framework` (statuses, cycle state, plugin interfaces, the framework runner),
:mod:`~refimpl.scheduler.plugins` (the default plugins), :mod:`~refimpl.scheduler.select_host` (how many nodes to
search, the host choice), :mod:`~refimpl.scheduler.batching` (opportunistic batching),
:mod:`~refimpl.scheduler.binding_cycle`, :mod:`~refimpl.scheduler.manual_dispatch` and
:mod:`~refimpl.scheduler.schedule_one` (``ScheduleOne``).

Import the names from their modules; this package file imports nothing, so that each module loads on its own.
"""
