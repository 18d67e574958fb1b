"""kube-scheduler-spec: the executable specification of the Kubernetes scheduler, by area.

The shared vocabulary sits at the top: :mod:`spec.objects` (the API objects), :mod:`spec.quantities` and
:mod:`spec.resources` (what a pod requests), :mod:`spec.errors`, :mod:`spec.versions` (the Kubernetes version
profiles), :mod:`spec.frozenmap` and :mod:`spec.valuetypes`. Then one package per area, each with the same inner
shape (its transitions in a module named after the area, its state table in ``lifecycle``, its named predicates in
``invariants``, its operations as data in ``operations``):

- :mod:`spec.cache`: the scheduler cache (pkg/scheduler/backend/cache): NodeInfo, node tree, image states,
  snapshot, the assume/bind pod state machine and the informer contract.
- :mod:`spec.dispatcher`: the API dispatcher's call queue (pkg/scheduler/backend/api_dispatcher).
- :mod:`spec.queue`: the scheduling queue (pkg/scheduler/backend/queue): events, backoff, activeQ, backoffQ,
  unschedulablePods and the pods in flight.
- :mod:`spec.cycle`: the scheduling and binding cycles (pkg/scheduler/schedule_one.go) and the Filter plugins.
- :mod:`spec.cluster`: several schedulers, crash and restart, and the kubelet's admission.
- :mod:`spec.verify`: the model checker and the Z3 proofs, with one sub-package per area.

A newcomer reads :mod:`spec.objects`, :mod:`spec.resources`, then :mod:`spec.cache.nodeinfo`,
:mod:`spec.cache.cache`, :mod:`spec.cache.snapshot` and :mod:`spec.cache.invariants`. Nothing here imports
``refimpl`` or ``conformance``.
"""
