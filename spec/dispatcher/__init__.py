"""The API dispatcher (Kubernetes pkg/scheduler/backend/api_dispatcher): the calls the scheduler sends the API server.

:mod:`~spec.dispatcher.api_calls` (call types and relevance), :mod:`~spec.dispatcher.call_queue` (the transitions:
add, pop, finalize, sync, close), :mod:`~spec.dispatcher.operations` (the transitions as data),
:mod:`~spec.dispatcher.lifecycle` (the call state table) and :mod:`~spec.dispatcher.invariants`.
"""
