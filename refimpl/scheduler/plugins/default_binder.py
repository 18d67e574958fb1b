"""DefaultBinder: bind the pod to the node at the API server (plugins/defaultbinder/default_binder.go, v1.35).

With the API dispatcher (``SchedulerAsyncAPICalls``), the binding is added through the API cacher and the binder
waits for its outcome: a skip or an overwrite counts as success (``WaitOnFinish``). Here the wait is returned as an
:class:`~refimpl.scheduler.framework.Awaiting`, which the binding cycle suspends on. Without the dispatcher the
client is called synchronously.
"""

from __future__ import annotations

from typing import Final

from refimpl.dispatcher import Binding, is_unexpected_error
from refimpl.scheduler.framework import Awaiting, BindPlugin, CycleState, Handle, Status, as_status
from spec.objects import Pod

NAME: Final = "DefaultBinder"


def _outcome_status(outcome: Exception | None) -> Status | None:
    """``WaitOnFinish`` then ``AsStatus``: only an unexpected error fails the bind."""
    return as_status(outcome) if outcome is not None and is_unexpected_error(outcome) else None


class DefaultBinder(BindPlugin):
    """``DefaultBinder``."""

    name = NAME

    def __init__(self, handle: Handle) -> None:
        self.handle = handle

    def bind(self, state: CycleState, pod: Pod, node_name: str) -> Status | Awaiting | None:
        """``Bind``: a ``v1.Binding`` of the pod (with its UID) to ``node_name``."""
        binding = Binding(pod.namespace, pod.name, pod.uid, node_name)
        cacher = self.handle.api_cacher
        if cacher is not None:
            channel, error = cacher.bind_pod(binding)
            if error is not None:
                return as_status(error)
            return Awaiting(channel, _outcome_status, "bind-result")
        client = self.handle.client
        if client is None:
            return as_status(RuntimeError("DefaultBinder has neither an API cacher nor a client"))
        try:
            client.bind(binding, self.handle.context)
        except Exception as failed:  # the API server's refusal is the bind's outcome
            return as_status(failed)
        return None
