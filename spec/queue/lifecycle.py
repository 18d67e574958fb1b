"""The life of one pod in the scheduling queue, as a table: where it is, the call that moves it, and where to.

This is the abstract view of :mod:`spec.queue.queue` from one pod's side: it is added to activeQ, popped for an attempt
(in flight), handed back when the attempt fails (to unschedulablePods, backoffQ or activeQ), woken by cluster
events, activations, updates and the two flushes, and leaves the queue when it is deleted or bound. It is a second
statement of the same behaviour: ``tests/spec/queue/test_lifecycle.py`` explores the model checker's universe
(:mod:`spec.verify.queue.system`) under every gate setting and checks that every transition moves every pod
exactly as :data:`QUEUE_POD_TRANSITIONS` says; the documentation draws the queue's state diagram from it.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Final

from spec.queue.operations import QueueWorld


class PodPlace(StrEnum):
    """Where one pod is."""

    ABSENT = "Absent"
    """Not in the queue and not in an attempt: never added, deleted, bound, or discarded."""
    ACTIVE = "Active"
    """In activeQ, waiting to be popped."""
    BACKOFF = "Backoff"
    """In backoffQ (either heap), waiting for its backoff to end."""
    UNSCHEDULABLE = "Unschedulable"
    """In unschedulablePods, waiting for an event its hints say may help, or the leftover flush."""
    IN_FLIGHT = "InFlight"
    """Popped; its attempt runs and has not called ``Done`` (Kubernetes tracks it with QueueingHints on)."""
    DONE = "Done"
    """Its attempt called ``Done`` and still runs: Permit allowed it and it is binding, or the queue closed."""


def pod_place(world: QueueWorld, uid: str) -> PodPlace:
    """Where ``uid`` is: the first sub-queue holding it (activeQ, backoffQ, unschedulablePods), else its attempt."""
    queue = world.queue
    if uid in queue.active_q:
        return PodPlace.ACTIVE
    if uid in queue.backoff_q or uid in queue.error_backoff_q:
        return PodPlace.BACKOFF
    if uid in queue.unschedulable_pods:
        return PodPlace.UNSCHEDULABLE
    attempt = world.attempts.get(uid)
    if attempt is not None:
        return PodPlace.DONE if attempt.done else PodPlace.IN_FLIGHT
    return PodPlace.ABSENT


HINTS_ON: Final = "hints-on"
HINTS_OFF: Final = "hints-off"


@dataclass(frozen=True)
class PlaceTransition:
    """One row: ``operation`` (a transition of :mod:`spec.queue.queue`, or ``bound``: the scheduler drops a bound or
    deleted pod's attempt) moves the pod it names (every pod it touches, for an event or a flush) from ``source`` to
    ``target`` when ``when`` holds, with QueueingHints ``gate`` (None: either)."""

    operation: str
    source: PodPlace
    target: PodPlace
    when: str
    gate: str | None = None


P = PodPlace
HAND_BACK: Final = "add_unschedulable_if_not_present"
MOVE: Final = "move_all_to_active_or_backoff_queue"
FLUSH_BACKOFF: Final = "flush_backoff_q_completed"
FLUSH_LEFTOVER: Final = "flush_unschedulable_pods_leftover"

QUEUE_POD_TRANSITIONS: Final = (
    PlaceTransition("add", P.ABSENT, P.ACTIVE, "the informer adds an unscheduled pod"),
    PlaceTransition("pop", P.ACTIVE, P.IN_FLIGHT, "it is a head of activeQ"),
    PlaceTransition("pop", P.BACKOFF, P.IN_FLIGHT, "activeQ is empty, PopFromBackoffQ: a head of podBackoffQ"),
    PlaceTransition("done", P.IN_FLIGHT, P.DONE, "Permit allowed it, or its attempt failed after the informer "
                    "deleted it (not handed back)"),
    PlaceTransition("close", P.IN_FLIGHT, P.DONE, "the queue closes"),
    PlaceTransition(HAND_BACK, P.IN_FLIGHT, P.UNSCHEDULABLE, "rejected; no event in flight its hints queue on",
                    HINTS_ON),
    PlaceTransition(HAND_BACK, P.IN_FLIGHT, P.UNSCHEDULABLE, "rejected; no move request since the cycle passed",
                    HINTS_OFF),
    PlaceTransition(HAND_BACK, P.IN_FLIGHT, P.BACKOFF, "an error, or an event in flight its hints queue on",
                    HINTS_ON),
    PlaceTransition(HAND_BACK, P.IN_FLIGHT, P.BACKOFF, "an error, or a move request since the cycle passed",
                    HINTS_OFF),
    PlaceTransition(HAND_BACK, P.IN_FLIGHT, P.ACTIVE, "a Pending plugin's hint queues on an event in flight",
                    HINTS_ON),
    PlaceTransition(HAND_BACK, P.DONE, P.BACKOFF, "the bind failed (an error), or a rejection after the queue "
                    "closed: no longer in flight, it backs off"),
    PlaceTransition(HAND_BACK, P.DONE, P.UNSCHEDULABLE, "rejected after the queue closed; no move request since "
                    "the cycle passed", HINTS_OFF),
    PlaceTransition("bound", P.DONE, P.ABSENT, "the bind succeeded, or the pod was deleted: the scheduler drops "
                    "it"),
    PlaceTransition(MOVE, P.UNSCHEDULABLE, P.BACKOFF, "a rejector plugin's hint queues on the event; backing off"),
    PlaceTransition(MOVE, P.UNSCHEDULABLE, P.ACTIVE, "a Pending plugin queues on it, or the backoff is over"),
    PlaceTransition("activate", P.UNSCHEDULABLE, P.ACTIVE, "always"),
    PlaceTransition("activate", P.BACKOFF, P.ACTIVE, "always"),
    PlaceTransition("update", P.UNSCHEDULABLE, P.BACKOFF, "a hint queues on the update; backing off", HINTS_ON),
    PlaceTransition("update", P.UNSCHEDULABLE, P.ACTIVE, "a Pending plugin's hint queues on the update", HINTS_ON),
    PlaceTransition("update", P.UNSCHEDULABLE, P.BACKOFF, "the pod changed; backing off", HINTS_OFF),
    PlaceTransition("update", P.UNSCHEDULABLE, P.ACTIVE, "the pod changed; backoff over", HINTS_OFF),
    PlaceTransition("update", P.IN_FLIGHT, P.ACTIVE, "in no sub-queue: added as new, its attempt still running",
                    HINTS_OFF),
    PlaceTransition("update", P.DONE, P.ACTIVE, "the queue closed during its scheduling cycle: added as new"),
    PlaceTransition("delete", P.ACTIVE, P.ABSENT, "the informer deletes it"),
    PlaceTransition("delete", P.BACKOFF, P.ABSENT, "the informer deletes it"),
    PlaceTransition("delete", P.UNSCHEDULABLE, P.ABSENT, "the informer deletes it"),
    PlaceTransition("delete", P.ACTIVE, P.IN_FLIGHT, "its attempt still runs (the update that re-added it)",
                    HINTS_OFF),
    PlaceTransition("delete", P.ACTIVE, P.DONE, "its attempt still runs (the update after Close that re-added it)"),
    PlaceTransition(FLUSH_BACKOFF, P.BACKOFF, P.ACTIVE, "its backoff is over (every whole second)"),
    PlaceTransition(FLUSH_LEFTOVER, P.UNSCHEDULABLE, P.BACKOFF, "in it past the maximum; backing off"),
    PlaceTransition(FLUSH_LEFTOVER, P.UNSCHEDULABLE, P.ACTIVE, "in it past the maximum; backoff over"),
)
"""Every way a transition changes the place of a pod, with the default plugins' hints; a transition changes no
place in any other way. The same in every version profile; ``gate`` is the QueueingHints setting a row needs.
With SchedulerPopFromBackoffQ off, ``update`` can also leave a pod in backoffQ *and* unschedulablePods
(``inv_pod_in_one_sub_queue``, a known violation): :func:`pod_place` then says Backoff."""
