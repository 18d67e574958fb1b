"""The result table of Kubernetes' own code in docs/conformance.md, from runs of examples/kubernetes-adapter.

``python -m tests.conformance.kubernetes_results`` builds the adapter for every release of
examples/kubernetes-adapter/releases.txt (needs Go), runs each on every vector with its expected-failures file, as
``make conform-kubernetes`` does, and prints one table per release; a test checks the docs hold the table of each
release whose build is warm in Go's build cache (the default release's always).
"""

from __future__ import annotations

import subprocess
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Final

from conformance.format import AREAS, load_vectors
from conformance.runner import (
    Outcome,
    Target,
    VectorResult,
    apply_expected_failures,
    read_expected_failures,
    run_vectors,
)

ADAPTER: Final = Path(__file__).resolve().parents[2] / "examples" / "kubernetes-adapter"


def read_releases(text: str) -> dict[str, tuple[str, tuple[str, ...]]]:
    """releases.txt: profile -> (Kubernetes version, the go build flags that select it), the default first. Fails
    with ``ValueError`` naming a line that is not ``profile version tag modfile``."""
    releases: dict[str, tuple[str, tuple[str, ...]]] = {}
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        fields = line.split()
        if len(fields) != 4:
            raise ValueError(f"releases.txt line {number}: expected 'profile version tag modfile', got {line!r}")
        profile, version, tag, modfile = fields
        releases[profile] = (version, (f"-modfile={modfile}", *(() if tag == "-" else ("-tags", tag))))
    return releases


BUILDS: Final = read_releases((ADAPTER / "releases.txt").read_text())
"""Profile: (Kubernetes version, the go build flags that select it), the default release first."""
DEFAULT: Final = next(iter(BUILDS))


def is_warm(profile: str) -> bool:
    """Whether Go's build cache holds the release's Kubernetes packages (a build then only links)."""
    done = subprocess.run(["go", "list", *BUILDS[profile][1], "-f", "{{.Stale}}",
                           "k8s.io/kubernetes/pkg/scheduler/backend/cache"], cwd=ADAPTER, capture_output=True,
                          text=True, timeout=600)
    return done.returncode == 0 and done.stdout.strip() == "false"


def build(profile: str, directory: Path) -> Path:
    """The adapter built for ``profile`` into ``directory``; fails with ``RuntimeError`` carrying Go's output."""
    binary = directory / f"kubernetes-adapter-{profile}"
    flags = BUILDS[profile][1]
    done = subprocess.run(["go", "build", *flags, "-o", str(binary), "."], cwd=ADAPTER, capture_output=True,
                          text=True, timeout=1800)
    if done.returncode != 0:
        raise RuntimeError(f"go build {' '.join(flags)} failed in {ADAPTER}:\n{done.stderr}")
    return binary


def run(profile: str, binary: Path) -> list[VectorResult]:
    """Every vector run on ``binary`` under ``profile``, with the build's expected failures applied."""
    results = run_vectors(Target(impl=None, adapter=str(binary), profile=profile), load_vectors())
    listed = read_expected_failures((ADAPTER / f"expected-failures-{profile}.txt").read_text())
    apply_expected_failures(results, listed)
    return results


def results_markdown(runs: dict[str, Sequence[VectorResult]]) -> str:
    """Per area and build: vectors passed, failed as expected, and not applicable (they hold for other profiles
    only, or the area is not driven). Fails with ``ValueError`` if a run has a failure, an error or a stale entry.
    The docs hold one such table per release (``runs`` of one build)."""
    counts: dict[str, Counter[tuple[str, Outcome]]] = {}
    for profile, results in runs.items():
        bad = [f"{r.id}: {r.outcome.value} {r.detail}" for r in results
               if r.outcome not in (Outcome.PASS, Outcome.XFAIL, Outcome.SKIP)]
        if bad:
            raise ValueError(f"the {profile} run is not clean:\n" + "\n".join(bad))
        counts[profile] = Counter((r.area, r.outcome) for r in results)
    columns = (Outcome.PASS, Outcome.XFAIL, Outcome.SKIP)
    names = {Outcome.PASS: "passed", Outcome.XFAIL: "expected failures", Outcome.SKIP: "not applicable"}
    header = ["area"] + [f"{BUILDS[p][0]}: {names[c]}" for p in runs for c in columns]
    lines = ["| " + " | ".join(header) + " |", "|---" * len(header) + "|"]
    for area in (*AREAS, None):
        cells = []
        for profile in runs:
            for column in columns:
                n = sum(v for (a, o), v in counts[profile].items() if o is column and area in (None, a))
                cells.append(f"**{n}**" if area is None else str(n))
        lines.append(f"| {'**total**' if area is None else area} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def measure(directory: Path) -> str:
    """Build and run every release, and render one table per release."""
    return "\n".join(results_markdown({profile: run(profile, build(profile, directory))}) for profile in BUILDS)


if __name__ == "__main__":
    import tempfile

    with tempfile.TemporaryDirectory() as scratch:
        print(measure(Path(scratch)), end="")
