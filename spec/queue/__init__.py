"""The scheduling queue (Kubernetes pkg/scheduler/backend/queue): which pod is tried next, and when again.

:mod:`~spec.queue.events` (cluster events and queueing hints), :mod:`~spec.queue.backoff`, :mod:`~spec.queue.state`
(the queue's state and its queries), :mod:`~spec.queue.queue` (the transitions), :mod:`~spec.queue.operations` (the
transitions as data), :mod:`~spec.queue.lifecycle` (the per-pod state table) and :mod:`~spec.queue.invariants`.
"""
