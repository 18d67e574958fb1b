"""The scheduler in its cluster: several schedulers over one API server, crash and restart, the kubelet's admission.

:mod:`~spec.cluster.cluster` (several schedulers), :mod:`~spec.cluster.restart` (a crash loses memory, a restart
rebuilds it), :mod:`~spec.cluster.kubelet` (admission) and :mod:`~spec.cluster.invariants`.
"""
