"""The per-cycle scratch space that plugins share: ``fwk.CycleState`` (framework/cycle_state.go, v1.35).

One CycleState lives for one pod's scheduling cycle and its binding cycle. Plugins write what they compute at
PreFilter or PreScore under their own key and read it back at Filter or Score. The framework keeps in it which
plugins asked to be skipped, and the pods a plugin wants activated.
"""

from __future__ import annotations

from spec.objects import Pod


class StateKeyMissing(KeyError):
    """``fwk.ErrNotFound``: nothing was written under the key."""


class CycleState:
    """``CycleState``: a dict of plugin data plus the framework's skip sets. Not thread-safe (nor need it be:
    Kubernetes' parallel filter only reads it)."""

    __slots__ = ("_data", "pods_to_activate", "record_plugin_metrics", "skip_filter_plugins", "skip_pre_bind_plugins",
                 "skip_score_plugins")

    def __init__(self) -> None:
        self._data: dict[str, object] = {}
        self.skip_filter_plugins: frozenset[str] = frozenset()
        """Plugins whose PreFilter returned Skip: their Filter is not run."""
        self.skip_score_plugins: frozenset[str] = frozenset()
        """Plugins whose PreScore returned Skip: their Score is not run."""
        self.skip_pre_bind_plugins: frozenset[str] = frozenset()
        """Plugins whose PreBindPreFlight returned Skip: their PreBind is not run."""
        self.pods_to_activate: dict[str, Pod] = {}
        """``PodsToActivate``: pods (by namespace/name) a plugin asks the queue to move to activeQ."""
        self.record_plugin_metrics = False

    def read(self, key: str) -> object:
        """``Read``. Fails with :class:`StateKeyMissing`."""
        try:
            return self._data[key]
        except KeyError:
            raise StateKeyMissing(f"{key!r}: not found") from None

    def get(self, key: str) -> object | None:
        """The value under ``key``, or None."""
        return self._data.get(key)

    def write(self, key: str, value: object) -> None:
        """``Write``."""
        self._data[key] = value

    def delete(self, key: str) -> None:
        """``Delete``."""
        self._data.pop(key, None)

    def clone(self) -> CycleState:
        """``Clone``: each plugin's data cloned by its own ``clone`` (the PreFilter states that PreFilterExtensions
        change: InterPodAffinity's, PodTopologySpread's), shared where it has none (data no one changes after it is
        written, as Go's ``StateData.Clone`` of such data returns it as it is)."""
        copy = CycleState()
        copy._data = {key: _cloned(value) for key, value in self._data.items()}
        copy.skip_filter_plugins = self.skip_filter_plugins
        copy.skip_score_plugins = self.skip_score_plugins
        copy.skip_pre_bind_plugins = self.skip_pre_bind_plugins
        copy.record_plugin_metrics = self.record_plugin_metrics
        return copy


def _cloned(value: object) -> object:
    """``StateData.Clone``: ``value.clone()`` if it has one, else ``value`` itself."""
    clone = getattr(value, "clone", None)
    return clone() if callable(clone) else value
