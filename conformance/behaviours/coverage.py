"""Coverage: how many vectors exercise each behaviour of the inventory, per area.

Counts are taken from the vectors' tags (the manifest lists them), so ``ksspec conformance coverage`` and the
manifest's ``coverage`` object report what the committed vectors carry. A behaviour with no vector is a gap.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from conformance.behaviours.inventory import BEHAVIOURS, LABELS, UNREACHABLE

AREAS = ("cache", "snapshot", "node_tree", "dispatcher", "cycle", "queue")


@dataclass(frozen=True)
class Row:
    """One behaviour's coverage: vectors per area and in all."""

    name: str
    description: str
    source: str
    by_area: dict[str, int]

    @property
    def total(self) -> int:
        return sum(self.by_area.values())


def rows(entries: Iterable[tuple[str, Sequence[str]]]) -> list[Row]:
    """One row per behaviour, in inventory order, from (area, tags) pairs (one per vector)."""
    counts: dict[str, dict[str, int]] = {b.name: dict.fromkeys(AREAS, 0) for b in BEHAVIOURS}
    for area, tags in entries:
        for tag in set(tags):
            if tag in counts:
                counts[tag][area] = counts[tag].get(area, 0) + 1
    return [Row(b.name, b.description, b.source, counts[b.name]) for b in BEHAVIOURS]


def manifest_entries(manifest: Any) -> list[tuple[str, Sequence[str]]]:
    """The (area, tags) pairs of a manifest's vectors."""
    return [(entry["area"], entry["behaviours"]) for entry in manifest["vectors"]]


def totals(entries: Iterable[tuple[str, Sequence[str]]]) -> dict[str, int]:
    """Vectors per behaviour (inventory order): what the manifest records."""
    return {row.name: row.total for row in rows(entries)}


def unknown_tags(entries: Iterable[tuple[str, Sequence[str]]]) -> list[str]:
    """Tags that are neither behaviours nor labels (sorted)."""
    known = {b.name for b in BEHAVIOURS} | set(LABELS)
    return sorted({tag for _, tags in entries for tag in tags} - known)


def as_json(entries: Iterable[tuple[str, Sequence[str]]]) -> Any:
    """The coverage report as JSON: every behaviour with its counts, the gaps, and the unreachable rules."""
    table = rows(entries)
    return {
        "behaviours": [{"name": r.name, "description": r.description, "source": r.source, "vectors": r.total,
                        "by_area": r.by_area} for r in table],
        "covered": sum(1 for r in table if r.total),
        "total": len(table),
        "gaps": [r.name for r in table if not r.total],
        "unreachable": dict(UNREACHABLE),
    }
