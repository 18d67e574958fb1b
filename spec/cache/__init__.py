"""The scheduler cache (Kubernetes pkg/scheduler/backend/cache): what the scheduler believes about nodes and pods.

:mod:`~spec.cache.nodeinfo`, :mod:`~spec.cache.nodetree` and :mod:`~spec.cache.imagestates` (what it keeps per
node), :mod:`~spec.cache.cache` (the transitions: assume, finish binding, forget, add, update, remove, expire),
:mod:`~spec.cache.snapshot` (``update_snapshot``), :mod:`~spec.cache.operations` (the transitions as data),
:mod:`~spec.cache.lifecycle` (the pod state table), :mod:`~spec.cache.invariants` and :mod:`~spec.cache.contract`
(what the informers promise).
"""
