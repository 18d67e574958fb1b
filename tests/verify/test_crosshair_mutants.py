"""Each CrossHair contract on refimpl can fail: CrossHair finds a counterexample in a deliberately broken copy.

A mutant is refimpl/ copied to a temporary directory with one plausible bug put into one function; CrossHair then
checks the contract that should catch it, run from that directory so that ``refimpl`` imports the broken copy
(``spec`` and ``conformance`` still come from the checkout). Only the ``post:`` condition expected to fail is kept
in the mutant's docstring, so CrossHair stops at the first counterexample instead of searching the other
conditions to their timeout: each case takes a few seconds (they are marked slow, and run under ``make test``).
"""

from __future__ import annotations

import ast
import re
import shutil
from dataclasses import dataclass
from pathlib import Path

import pytest

from conformance.cli.crosshair import CrosshairVerdict, Target, check_target, contract_targets

ROOT = Path(__file__).resolve().parents[2]
PER_CONDITION_TIMEOUT = 90.0
"""CPU seconds CrossHair may take to find the counterexample. Most take under 3 s, the pod-request and NodeInfo
ones up to about 12 s; a found counterexample ends the search, so this costs nothing when the test passes."""


@dataclass(frozen=True)
class Mutant:
    bug: str
    module: str
    """The file the bug goes in, relative to the checkout."""
    original: str
    broken: str
    contract: str
    """``path::qualname`` of the function whose contract must catch it."""
    condition: str
    """Text of the one ``post:`` condition kept."""


MUTANTS = (
    Mutant(
        "addResourceList takes the max instead of the sum",
        "refimpl/cache/resources.py",
        "total[name] = total.get(name, 0) + quantity",
        "total[name] = max(total.get(name, 0), quantity)",
        "refimpl/cache/resources.py::_add_into",
        "__old__.total.get(n, 0) + delta.get(n, 0)",
    ),
    Mutant(
        "maxResourceList treats a missing name as 0",
        "refimpl/cache/resources.py",
        "if current is None or quantity > current:",
        "if quantity > (current or 0):",
        "refimpl/cache/resources.py::_max_into",
        "set(total) == set(__old__.total) | set(other)",
    ),
    Mutant(
        "non-zero defaults replace an explicit 0",
        "refimpl/cache/resources.py",
        "if name not in filled:",
        "if not filled.get(name):",
        "refimpl/cache/resources.py::_with_defaults",
        "(requests[n] if n in requests",
    ),
    Mutant(
        "Resource.Add keeps names that are not scalar resources",
        "refimpl/cache/resources.py",
        "elif is_scalar(name):",
        "else:",
        "refimpl/cache/resources.py::Resource.add",
        "_scalars(self).keys() ==",
    ),
    Mutant(
        "a sidecar's requests do not join the app containers' sum",
        "refimpl/cache/resources.py",
        "                _add_into(requests, own)\n                _add_into(sidecars, own)",
        "                _add_into(sidecars, own)",
        "refimpl/cache/contracts.py::pod_requests_of",
        "shape.requests(pod_level_resources)",
    ),
    Mutant(
        "init containers' requests add up instead of peaking",
        "refimpl/cache/resources.py",
        "                _add_into(use, sidecars)\n                _max_into(init_peak, use)",
        "                _add_into(use, sidecars)\n                _add_into(init_peak, use)",
        "refimpl/cache/contracts.py::pod_requests_of",
        "shape.requests(pod_level_resources)",
    ),
    Mutant(
        "pod-level requests add to the containers' instead of replacing them",
        "refimpl/cache/resources.py",
        "                requests[name] = quantity",
        "                requests[name] = requests.get(name, 0) + quantity",
        "refimpl/cache/contracts.py::pod_requests_of",
        "shape.requests(pod_level_resources)",
    ),
    Mutant(
        "with pod-level requests, non-zero defaults also fill a resource the pod requests",
        "refimpl/cache/resources.py",
        "non_missing = {name: value for name, value in NON_ZERO_DEFAULTS.items() if name not in requests}",
        "non_missing = NON_ZERO_DEFAULTS",
        "refimpl/cache/contracts.py::non_zero_of",
        "_expected_non_zero(shape, pod_level_resources)",
    ),
    Mutant(
        "removing a pod does not release its scalar resources",
        "refimpl/cache/node_info.py",
        "totals[name] = totals.get(name, 0) + sign * quantity",
        "totals[name] = totals.get(name, 0) + quantity",
        "refimpl/cache/contracts.py::charge_and_release",
        "_same(__return__[1], __return__[2])",
    ),
    Mutant(
        "CheckConflict ignores ports bound on 0.0.0.0 when a specific IP is wanted",
        "refimpl/cache/node_info.py",
        "for key in (DEFAULT_BIND_ALL_HOST_IP, ip)",
        "for key in (ip,)",
        "refimpl/cache/contracts.py::host_port_conflict",
        "_conflicts(used, wanted)",
    ),
    Mutant(
        "HostPortInfo.Remove leaves an IP without ports",
        "refimpl/cache/node_info.py",
        "            if not used:\n                del self[ip]\n",
        "",
        "refimpl/cache/contracts.py::host_port_release",
        "all(__return__.values())",
    ),
    Mutant(
        "nodeTree.list lists zone by zone instead of round-robin",
        "refimpl/cache/node_tree.py",
        "rows = zip_longest(*zones)",
        "rows = zones  # type: ignore[assignment]",
        "refimpl/cache/contracts.py::node_tree_order",
        "_prefixes_are_fair(*__return__)",
    ),
    Mutant(
        "a call of equal relevance is skipped",
        "refimpl/dispatcher/call_queue.py",
        "return self._relevances.get(new_type, 0) < self._relevances.get(old_type, 0)",
        "return self._relevances.get(new_type, 0) <= self._relevances.get(old_type, 0)",
        "refimpl/dispatcher/contracts.py::resolve",
        "__return__.keeps_new == (relevances.get(new_type, 0) >= relevances.get(old_type, 0))",
    ),
    Mutant(
        "a status patch with an explicit Noop nomination drops the old Override",
        "refimpl/dispatcher/api_calls.py",
        "if nominating_mode(self.nominating_info) is NominatingMode.NOOP and (",
        "if self.nominating_info is None and (",
        "refimpl/dispatcher/contracts.py::merged_status_patch",
        "(_mode(__return__[1]) is OVERRIDE) ==",
    ),
    Mutant(
        "fitsRequest compares cpu with allocatable, not with what is free",
        "refimpl/scheduler/plugins/node_resources_fit.py",
        "wanted.milli_cpu > allocatable.milli_cpu - requested.milli_cpu",
        "wanted.milli_cpu > allocatable.milli_cpu",
        "refimpl/scheduler/contracts.py::fit_reasons",
        "_insufficient(*r) in __return__",
    ),
    Mutant(
        "calculateBackoffDuration forgets the maximum",
        "refimpl/scheduler/backoff.py",
        "    if initial > maximum >> shift:\n        return maximum\n",
        "",
        "refimpl/scheduler/backoff.py::calculate_backoff_duration",
        "0 <= __return__ <= max(maximum, 0)",
    ),
    Mutant(
        "backoff counts unschedulable attempts although errors came last",
        "refimpl/scheduler/backoff.py",
        "    if consecutive_errors_count > 0:\n        return consecutive_errors_count",
        "    if unschedulable_count > 0:\n        return consecutive_errors_count",
        "refimpl/scheduler/backoff.py::backoff_count",
        "__return__ == (consecutive_errors_count",
    ),
    Mutant(
        "alignToWindow rounds up",
        "refimpl/scheduler/backoff.py",
        "    return t - t % window",
        "    return t - t % window + window",
        "refimpl/scheduler/backoff.py::align_to_window",
        "__return__ <= t",
    ),
    Mutant(
        "a maximum backoff of 0 still backs off",
        "refimpl/scheduler/backoff.py",
        "    if maximum == 0 or count == 0:\n        return None",
        "    if count == 0:\n        return None",
        "refimpl/scheduler/backoff.py::backoff_expiration",
        "(__return__ is None) == (count == 0 or maximum == 0)",
    ),
    Mutant(
        "a pod without a backoff expiry counts as backing off",
        "refimpl/scheduler/backoff.py",
        "    if expiration is None:\n        return False",
        "    if expiration is None:\n        return True",
        "refimpl/scheduler/backoff.py::is_backing_off",
        "expiration is not None or not __return__",
    ),
    Mutant(
        "ImageLocality does not clamp to the maximum threshold",
        "refimpl/scheduler/plugins/image_locality.py",
        "    elif sum_scores > max_threshold:\n        sum_scores = max_threshold\n",
        "",
        "refimpl/scheduler/plugins/image_locality.py::calculate_priority",
        "0 <= __return__ <= 100",
    ),
    Mutant(
        "leastRequestedScore scores the used share",
        "refimpl/scheduler/plugins/node_resources_fit.py",
        "(capacity - requested) * MAX_NODE_SCORE // capacity",
        "requested * MAX_NODE_SCORE // capacity",
        "refimpl/scheduler/plugins/node_resources_fit.py::least_requested_score",
        "__return__ == (capacity - requested) * 100 // capacity",
    ),
    Mutant(
        "numFeasibleNodesToFind forgets the minimum of 100",
        "refimpl/scheduler/select_host.py",
        "    if num_nodes < MIN_FEASIBLE_NODES_TO_FIND:\n        return MIN_FEASIBLE_NODES_TO_FIND\n",
        "",
        "refimpl/scheduler/select_host.py::num_feasible_nodes_to_find",
        "MIN_FEASIBLE_NODES_TO_FIND <= __return__ <= num_all_nodes",
    ),
    Mutant(
        "heap.down follows the smaller child",
        "refimpl/scheduler/select_host.py",
        "if j2 < n and keys[order[j2]] > keys[order[j1]]:",
        "if j2 < n and keys[order[j2]] < keys[order[j1]]:",
        "refimpl/scheduler/select_host.py::tie_break_heap",
        "keys[__return__] == max(keys)",
    ),
    Mutant(
        "reservoir sampling goes on past the top score",
        "refimpl/scheduler/select_host.py",
        "        if keys[index][0] != top:\n            break\n",
        "",
        "refimpl/scheduler/select_host.py::reservoir_select",
        "keys[__return__][0] == max(k[0] for k in keys)",
    ),
)

_POST = re.compile(r"^\s*post(\[[^\]]*\])?:")


def make_mutant(mutant: Mutant, into: Path) -> Target:
    """Copy refimpl/ into ``into``, put the bug in, keep only the expected condition; the target to check."""
    shutil.copytree(ROOT / "refimpl", into / "refimpl", ignore=shutil.ignore_patterns("__pycache__"))
    module = into / mutant.module
    source = module.read_text(encoding="utf-8")
    assert source.count(mutant.original) == 1, f"{mutant.module} no longer contains {mutant.original!r} once"
    module.write_text(source.replace(mutant.original, mutant.broken), encoding="utf-8")

    path, qualname = mutant.contract.split("::")
    contract_file = into / path
    lines = contract_file.read_text(encoding="utf-8").splitlines(keepends=True)
    (target,) = (t for t in contract_targets(contract_file) if t.qualname == qualname)
    docstring = _docstring_lines(contract_file, target.line)
    kept = [i for i in docstring if _POST.match(lines[i - 1]) and mutant.condition in lines[i - 1]]
    assert len(kept) == 1, f"{mutant.contract} has no single post: condition containing {mutant.condition!r}"
    dropped = {i for i in docstring if _POST.match(lines[i - 1]) and i != kept[0]}
    contract_file.write_text("".join(line for i, line in enumerate(lines, 1) if i not in dropped), encoding="utf-8")
    (target,) = (t for t in contract_targets(contract_file) if t.qualname == qualname)
    assert target.conditions == 1
    return target


def _docstring_lines(path: Path, def_line: int) -> range:
    """The line numbers of the docstring of the function defined at ``def_line``."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.FunctionDef) and node.lineno == def_line:
            first = node.body[0]
            assert isinstance(first, ast.Expr) and first.end_lineno is not None
            return range(first.lineno, first.end_lineno + 1)
    raise AssertionError(f"no function at {path}:{def_line}")


@pytest.mark.slow
@pytest.mark.parametrize("mutant", MUTANTS, ids=[f"{m.contract.split('::')[1]}: {m.bug}" for m in MUTANTS])
def test_crosshair_finds_the_mutant(mutant: Mutant, tmp_path: Path) -> None:
    target = make_mutant(mutant, tmp_path)
    result = check_target(target, tmp_path, PER_CONDITION_TIMEOUT)
    assert result.verdict is CrosshairVerdict.COUNTEREXAMPLE, f"{mutant.bug}: {result.verdict}\n{result.output}"
    assert any(Path(mutant.contract.split("::")[0]).name in finding for finding in result.findings)


def test_every_contract_has_a_mutant() -> None:
    """A new function with contracts anywhere under refimpl/ needs a mutant here."""
    covered = {m.contract for m in MUTANTS}
    for package in ("refimpl",):
        for path in sorted((ROOT / package).rglob("*.py")):
            for target in contract_targets(path):
                contract = f"{path.relative_to(ROOT).as_posix()}::{target.qualname}"
                assert contract in covered, f"{contract} states contracts but no mutant shows they can fail"


def test_unmutated_copy_is_not_a_counterexample(tmp_path: Path) -> None:
    """The mutation harness itself does not break the function: the copy without the bug passes."""
    mutant = MUTANTS[0]
    target = make_mutant(Mutant(mutant.bug, mutant.module, mutant.original, mutant.original, mutant.contract,
                                mutant.condition), tmp_path)
    result = check_target(target, tmp_path, 1.0)
    assert result.verdict.ok, result.output
