"""``generate.drift``'s shortcut (byte-identical files are not parsed) names exactly what the full comparison names.

The reference is :func:`generate.full_drift`, the full comparison ``drift`` ran before the shortcut: every committed
vector parsed and compared with the generated one, then every file compared byte for byte. Both run on the committed
vectors (read back with :func:`load_vectors`, which checks them against the manifest) and on copies altered in each
way drift reports: a changed vector, a formatting change, a missing file, an extra file (one without vectors is no
difference to either), a missing vector, invalid JSON, a changed manifest.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from conformance import generate
from conformance.format import VECTORS_DIR, Vector, load_vectors


@pytest.fixture(scope="module")
def committed() -> list[Vector]:
    return load_vectors()


def change_a_vector(directory: Path) -> None:
    path = directory / "cache.curated.json"
    content = json.loads(path.read_text())
    content["vectors"][3]["steps"][0]["expect"]["status"] = "error"
    path.write_text(json.dumps(content, indent=1, ensure_ascii=False) + "\n")


def reformat(directory: Path) -> None:
    path = directory / "cache.curated.json"
    path.write_text(json.dumps(json.loads(path.read_text()), indent=2, ensure_ascii=False) + "\n")


def remove_a_file(directory: Path) -> None:
    (directory / "cache.curated.json").unlink()


def add_a_file(directory: Path) -> None:
    (directory / "extra.json").write_text('{"vectors": [{"id": "extra.vector"}]}\n')


def add_an_empty_file(directory: Path) -> None:
    (directory / "extra.json").write_text('{"vectors": []}\n')


def drop_a_vector(directory: Path) -> None:
    path = directory / "cache.curated.json"
    content = json.loads(path.read_text())
    del content["vectors"][0]
    path.write_text(json.dumps(content, indent=1, ensure_ascii=False) + "\n")


def break_json(directory: Path) -> None:
    (directory / "cache.curated.json").write_text("{not json")


def change_the_manifest(directory: Path) -> None:
    path = directory / "manifest.json"
    path.write_text(path.read_text().replace('"format_version"', '"format_version" ', 1))


ALTERATIONS: list[Callable[[Path], None]] = [change_a_vector, reformat, remove_a_file, add_a_file, add_an_empty_file,
                                              drop_a_vector, break_json, change_the_manifest]


def test_committed_vectors_have_no_drift_either_way(committed: list[Vector]) -> None:
    assert generate.drift(committed, VECTORS_DIR) == generate.full_drift(committed, VECTORS_DIR) == []


@pytest.mark.parametrize("alter", ALTERATIONS, ids=lambda alter: alter.__name__)
def test_an_altered_copy_gets_the_same_lines(committed: list[Vector], tmp_path: Path,
                                            alter: Callable[[Path], None]) -> None:
    directory = tmp_path / "vectors"
    shutil.copytree(VECTORS_DIR, directory)
    alter(directory)
    problems = generate.drift(committed, directory)
    # every alteration is a difference, but for an extra file without vectors (neither comparison looks at it)
    assert bool(problems) is (alter is not add_an_empty_file)
    assert problems == generate.full_drift(committed, directory)
