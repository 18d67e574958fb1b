"""The scheduling and binding cycles (Kubernetes pkg/scheduler/schedule_one.go) and the plugins they run.

:mod:`~spec.cycle.filters` (the Filter plugins), :mod:`~spec.cycle.cycle` (the transitions of the pipeline),
:mod:`~spec.cycle.lifecycle` (the per-pod state table) and :mod:`~spec.cycle.invariants`.
"""
