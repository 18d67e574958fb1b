"""The vector-count table of docs/conformance.md, generated from the manifest (``python -m
tests.conformance.docs_tables`` prints it; a test checks the docs hold it)."""

from __future__ import annotations

from collections import Counter

from conformance.format import AREAS, ORIGINS, load_manifest


def counts_markdown() -> str:
    """Vectors per area and origin, and steps per area, as a Markdown table."""
    entries = load_manifest()["vectors"]
    vectors = Counter((e["area"], e["origin"]) for e in entries)
    steps: Counter[str] = Counter()
    for entry in entries:
        steps[entry["area"]] += entry["steps"]
    lines = ["| area | " + " | ".join(ORIGINS) + " | vectors | steps |", "|---" * (len(ORIGINS) + 3) + "|"]
    for area in AREAS:
        row = [vectors[(area, origin)] for origin in ORIGINS]
        lines.append(f"| {area} | " + " | ".join(map(str, row)) + f" | {sum(row)} | {steps[area]:,} |")
    totals = [sum(vectors[(a, o)] for a in AREAS) for o in ORIGINS]
    total_steps = sum(steps.values())
    lines.append("| **total** | " + " | ".join(map(str, totals)) + f" | **{len(entries)}** | **{total_steps:,}** |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    print(counts_markdown(), end="")
