"""The cache's NodeInfos by name, threaded on a doubly linked list in most-recently-updated order.

This is ``cacheImpl.nodes``, ``headNode``, ``nodeInfoListItem``, ``moveNodeInfoToHead`` and
``removeNodeInfoFromList`` (pkg/scheduler/backend/cache/cache.go). Every change to a NodeInfo takes a new, globally
larger generation and moves its item to the head, so generations strictly decrease from head to tail and
``UpdateSnapshot`` can stop at the first item its snapshot has already seen: its cost is the number of changed
nodes, not the cluster size. Not thread-safe: the cache lock guards it.
"""

from __future__ import annotations

from collections.abc import Iterator

from refimpl.cache.node_info import NodeInfo


class NodeInfoListItem:
    """``nodeInfoListItem``: a NodeInfo and its neighbours (``prev`` is nearer the head)."""

    __slots__ = ("entry", "entry_epoch", "info", "name", "next", "prev")

    def __init__(self, name: str, info: NodeInfo) -> None:
        self.name = name
        """The key of the item in the ``nodes`` map: the node's name, once the NodeInfo has a node."""
        self.info = info
        self.next: NodeInfoListItem | None = None
        self.prev: NodeInfoListItem | None = None
        self.entry = NodeInfo.empty()
        """This node's entry in a snapshot: allocated here, next to ``info`` (allocated just before), and handed to
        the first snapshot that takes the node; afterwards the entry :func:`~refimpl.cache.snapshot.update_snapshot`
        last found or created for this name."""
        self.entry_epoch: object | None = None
        """The :attr:`~refimpl.cache.snapshot.Snapshot.epoch` at which :attr:`entry` was the snapshot's entry for
        this name (None: no snapshot has taken it yet)."""


class NodeInfoList:
    """The ``nodes`` map and the list through it. Invariant: the list holds exactly the map's items, once each."""

    __slots__ = ("head", "items")

    def __init__(self) -> None:
        self.items: dict[str, NodeInfoListItem] = {}
        """``nodes``: node name to its item, placeholders and ghosts included."""
        self.head: NodeInfoListItem | None = None
        """``headNode``: the most recently updated item."""

    def __len__(self) -> int:
        return len(self.items)

    def get(self, name: str) -> NodeInfoListItem | None:
        """The item for ``name``, if any."""
        return self.items.get(name)

    def add(self, name: str, info: NodeInfo) -> NodeInfoListItem:
        """``nodes[name] = newNodeInfoListItem(info)``: the item is not linked until it is moved to the head."""
        assert name not in self.items, f"node {name!r} already has an item"
        item = self.items[name] = NodeInfoListItem(name, info)
        return item

    def move_to_head(self, name: str) -> None:
        """``moveNodeInfoToHead``: the item becomes the most recently updated one (an unknown name is ignored)."""
        item = self.items.get(name)
        if item is None:
            return  # Kubernetes logs "No node info with given name found in the cache".
        head = self.head
        if item is head:
            return
        if item.prev is not None:
            item.prev.next = item.next
        if item.next is not None:
            item.next.prev = item.prev
        if head is not None:
            head.prev = item
        item.next = head
        item.prev = None
        self.head = item

    def remove(self, name: str) -> None:
        """``removeNodeInfoFromList``: unlink the item and delete it from the map (an unknown name is ignored)."""
        item = self.items.get(name)
        if item is None:
            return  # Kubernetes logs "No node info with given name found in the cache".
        if item.prev is not None:
            item.prev.next = item.next
        if item.next is not None:
            item.next.prev = item.prev
        if item is self.head:
            self.head = item.next
        del self.items[name]

    def __iter__(self) -> Iterator[NodeInfoListItem]:
        """The items from the head (most recently updated) to the tail."""
        item = self.head
        while item is not None:
            yield item
            item = item.next

    def names_by_recency(self) -> list[str]:
        """The names from head to tail; checks the links on the way (every ``prev`` mirrors a ``next``) and that
        each item carries its own key, which is its node's name."""
        names: list[str] = []
        previous: NodeInfoListItem | None = None
        for item in self:
            assert item.prev is previous, "list links are not symmetric"
            assert self.items.get(item.name) is item, f"item {item.name!r} is not the map's entry for its name"
            node = item.info.node
            assert node is None or node.name == item.name, f"item {item.name!r} holds node {node.name!r}"
            names.append(item.name)
            previous = item
        assert len(names) == len(self.items), f"list holds {len(names)} items, map {len(self.items)}"
        return names
