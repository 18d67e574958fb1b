"""kube-scheduler-spec: the executable specification of the Kubernetes scheduler cache.

Read the modules in this order: :mod:`spec.objects` and :mod:`spec.resources` (what a pod
requests), :mod:`spec.nodeinfo`, :mod:`spec.nodetree` and :mod:`spec.imagestates` (what the
cache keeps per node), :mod:`spec.cache` (the transitions), :mod:`spec.snapshot`,
:mod:`spec.invariants`, then :mod:`spec.podstates`, :mod:`spec.contract` and
:mod:`spec.versions`. Nothing here imports ``refimpl`` or ``conformance``.
"""
