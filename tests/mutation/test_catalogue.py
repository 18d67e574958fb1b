"""The equivalent-mutants list against the mutants mutmut makes today, and the matching rules that keep it honest."""

from __future__ import annotations

import fnmatch
from pathlib import Path

import pytest

from mutation import catalogue
from mutation.catalogue import (
    CatalogueError,
    Equivalent,
    Mutation,
    function_of,
    in_scope,
    load_equivalents,
    load_scope,
    match_equivalents,
    module_file,
    mutations,
    mutations_of_file,
    occurrence_of,
    package_of,
    parse_equivalents,
    parse_scope,
    render_entry,
    scope,
    scope_rule_of,
)

# Listing the mutants costs a minute or two when .mutation-catalogue/ is cold: this package's tests share one
# listing on one xdist worker (`--dist loadgroup`), instead of each worker listing them at once.
pytestmark = pytest.mark.xdist_group("mutation-catalogue")


CACHE = "refimpl.cache.cache"


def test_every_listed_equivalent_names_a_current_mutant() -> None:
    """The sync check: an entry whose function or mutated line changed (or that mutmut no longer makes) fails."""
    entries = load_equivalents()
    files = sorted({entry.module_path for entry in entries})
    assert set(files) <= set(scope()), "an entry names a module outside [tool.mutmut]'s scope"
    current = mutations(files)
    matching = match_equivalents(entries, current)
    assert matching.problems == []
    assert entries and len(matching.by_mutant) == len(entries)
    scoped = in_scope(current, load_scope())
    assert [e.describe() for n, e in matching.by_mutant.items() if n not in scoped] == [], \
        "an entry names a mutant mutation/scope.toml leaves out of the score"


def test_every_scope_rule_and_pattern_matches_a_current_mutant() -> None:
    """A rule that matches nothing is stale (its function was renamed or removed)."""
    functions = {m.function for m in mutations().values()}
    dead = [(rule.index, pattern) for rule in load_scope() for pattern in rule.functions
            if not any(fnmatch.fnmatchcase(f, pattern) for f in functions)]
    assert dead == []


def test_the_scope_rules_keep_the_implementation_under_test() -> None:
    """What the protocol drives counts; the test environment, threads and cycle phases the cycle area does not run
    do not."""
    rules = load_scope()
    for counted in ["refimpl.cache.cache:Cache.add_pod", "refimpl.cache.cache:Cache.update_snapshot",
                    "refimpl.cache.snapshot:update_snapshot", "refimpl.cache.node_info:NodeInfo.snapshot",
                    "refimpl.cache.node_tree:NodeTree.add_node", "refimpl.cache.metrics:CacheMetrics.set",
                    "refimpl.cache.node_info:NodeInfo.add_pod", "refimpl.cache.node_info:HostPortInfo.add",
                    "refimpl.cache.node_info:HostPortInfo.check_conflict",
                    "refimpl.dispatcher.call_queue:CallQueue.add",
                    "refimpl.dispatcher.api_calls:PodStatusPatchCall.merge",
                    "refimpl.scheduler.framework.runtime:Framework.nodes_filter_runner",
                    "refimpl.scheduler.framework.node_slice:NodeColumns.refresh",
                    "refimpl.scheduler.plugins.node_resources_fit:NodeResourcesFit.filter_nodes",
                    "refimpl.scheduler.plugins.node_resources_fit:NodeResourcesFit.filter",
                    "refimpl.scheduler.plugins.taint_toleration:TaintToleration.filter",
                    "refimpl.scheduler.schedule_one:pass_filters",
                    "refimpl.scheduler.schedule_one:_pass_filters_in_slices",
                    "refimpl.kubelet.admission:general_filter", "refimpl.kubelet.admission:can_admit_pod",
                    "refimpl.scheduler.framework.status:FitError.__str__",
                    "refimpl.scheduler.framework.runtime:Framework.run_filter_plugins",
                    "refimpl.scheduler.framework.runtime:Framework.run_post_filter_plugins",
                    "refimpl.scheduler.plugins.default_preemption:DefaultPreemption.select_victims_on_node",
                    "refimpl.scheduler.plugins.pod_topology_spread:PodTopologySpread.remove_pod",
                    "refimpl.scheduler.nominator:Nominator.add_nominated_pod",
                    "refimpl.scheduler.plugins.scheduling_gates:scheduling_gates_hints",
                    "refimpl.scheduler.plugins.scheduling_gates:is_schedulable_after_gates_eliminated"]:
        assert scope_rule_of(counted, rules) is None, counted
    for left_out in ["refimpl.dispatcher.fake_api_server:FakeAPIServer.bind",
                     "refimpl.dispatcher.dispatcher:APIDispatcher._run_loop",
                     "refimpl.scheduler.framework.runtime:Framework.run_reserve_plugins_reserve",
                     "refimpl.scheduler.plugins.pod_topology_spread:PodTopologySpread.sign_pod",
                     "refimpl.scheduler.nominator:PodRef.to_pod",
                     "refimpl.cache.snapshot:Snapshot.get", "refimpl.cache.resources:_named",
                     "refimpl.scheduler.schedule_one:Scheduler.schedule_pod",
                     "refimpl.scheduler.framework.runtime:_wrapped"]:
        assert scope_rule_of(left_out, rules) is not None, left_out
    # The decision counts (issue 24): no known-gap rule is left, and Score, NormalizeScore and selectHost are in scope.
    assert not [rule for rule in rules if rule.reason.startswith("not yet judged")]
    for decision in ["refimpl.scheduler.framework.runtime:Framework.run_score_plugins",
                     "refimpl.scheduler.framework.runtime:Framework.run_score_plugins_totals",
                     "refimpl.scheduler.framework.runtime:Framework.run_pre_score_plugins",
                     "refimpl.scheduler.plugins.node_resources_fit:NodeResourcesFit.score",
                     "refimpl.scheduler.plugins.image_locality:ImageLocality.score",
                     "refimpl.scheduler.plugins.taint_toleration:TaintToleration.normalize_score",
                     "refimpl.scheduler.plugins.pod_topology_spread:PodTopologySpread.score",
                     "refimpl.scheduler.plugins.inter_pod_affinity:InterPodAffinity.normalize_score",
                     "refimpl.scheduler.plugins.inter_pod_affinity:InterPodAffinity.pre_score",
                     "refimpl.scheduler.plugins.pod_topology_spread:PodTopologySpread.pre_score",
                     "refimpl.scheduler.select_host:select_host",
                     "refimpl.scheduler.select_host:num_feasible_nodes_to_find",
                     "refimpl.kubelet.preemption:get_pods_to_preempt"]:
        assert scope_rule_of(decision, rules) is None, decision
    # Preemption counts since the cycle adapter runs it (issue 25): the PreFilterExtensions it calls too. What
    # batching alone reaches stays out, by name.
    for preemption in ["refimpl.scheduler.plugins.inter_pod_affinity:InterPodAffinity.add_pod",
                       "refimpl.scheduler.plugins.pod_topology_spread:PodTopologySpread.remove_pod",
                       "refimpl.scheduler.framework.cycle_state:CycleState.clone"]:
        assert scope_rule_of(preemption, rules) is None, preemption
    assert scope_rule_of("refimpl.scheduler.select_host:SortedScoredNodes.pop", rules) is not None
    assert all(rule.reason and "\n" not in rule.reason for rule in rules)


@pytest.mark.parametrize(("text", "message"), [
    ("[[out_of_scope]\n", "not valid TOML"),
    ("[other]\n", "unexpected top-level key"),
    ("[[out_of_scope]]\nfunctions = ['a.b:f']\n", "'reason' must be one non-empty line"),
    ("[[out_of_scope]]\nfunctions = []\nreason = 'r'\n", "non-empty list"),
    ("[[out_of_scope]]\nfunctions = ['a.b.f']\nreason = 'r'\n", "non-empty list"),
    ("[[out_of_scope]]\nfunctions = ['a.b:f']\nreason = 'r'\nwhy = 1\n", "unexpected field"),
])
def test_a_malformed_scope_file_is_refused_with_what_is_wrong(text: str, message: str) -> None:
    with pytest.raises(CatalogueError, match=message):
        parse_scope(text)


def test_a_scope_rule_matches_by_pattern() -> None:
    [rule] = parse_scope("[[out_of_scope]]\nfunctions = ['a.b:C.*', 'a.c:*']\nreason = 'why'\n")
    assert rule.matches("a.b:C.f") and rule.matches("a.c:g") and not rule.matches("a.b:D.f")
    current = {"m1": Mutation("a.b.xǁCǁf__mutmut_1", (), ()), "m2": Mutation("a.b.xǁDǁf__mutmut_1", (), ())}
    assert list(in_scope(current, [rule])) == ["m2"]


def test_the_cache_and_the_dispatcher_have_no_known_gaps() -> None:
    """The issue's bar: every survivor in refimpl/cache and refimpl/dispatcher is killed or listed as equivalent
    (with its reason), none as a known gap. (``make mutation`` checks that the listed ones do survive.)"""
    gaps = [e for e in load_equivalents() if e.category == "gap"]
    assert [e.describe() for e in gaps if e.function.startswith(("refimpl.cache.", "refimpl.dispatcher."))] == []


def test_scope_is_the_cache_the_dispatcher_the_queue_and_the_cycle_code() -> None:
    files = {str(p) for p in scope()}
    assert {"refimpl/cache/cache.py", "refimpl/cache/snapshot.py", "refimpl/dispatcher/call_queue.py",
            "refimpl/scheduler/framework/runtime.py", "refimpl/scheduler/plugins/node_ports.py"} <= files
    assert not {"refimpl/cache/contracts.py", "refimpl/dispatcher/contracts.py"} & files
    assert not any(f.startswith(("refimpl/simulator/", "spec/", "conformance/")) for f in files)
    assert {"refimpl/scheduler/queue.py", "refimpl/scheduler/active_queue.py", "refimpl/scheduler/backoff_queue.py",
            "refimpl/scheduler/backoff.py", "refimpl/scheduler/heap.py", "refimpl/scheduler/queued_pod_info.py",
            "refimpl/scheduler/events.py"} <= files
    assert not {"refimpl/scheduler/event_handlers.py", "refimpl/scheduler/batching.py"} & files


def test_mutations_name_the_function_and_the_changed_lines() -> None:
    found = {m.name: m for m in mutations_of_file(Path("refimpl/cache/cache.py"))}
    assert found, "mutmut made no mutant of refimpl/cache/cache.py"
    flips = [m for m in found.values() if m.function == f"{CACHE}:get_pod_key" and m.removed == ("if not pod.uid:",)]
    assert [m.added for m in flips] == [("if pod.uid:",)]
    assert all(m.removed or m.added for m in found.values())
    assert all("__mutmut" not in line for m in found.values() for line in m.removed + m.added)


def test_names() -> None:
    assert function_of(f"{CACHE}.xǁCacheǁget_pod__mutmut_7") == f"{CACHE}:Cache.get_pod"
    assert function_of(f"{CACHE}.x_get_pod_key__mutmut_1") == f"{CACHE}:get_pod_key"
    assert package_of(f"{CACHE}.x_get_pod_key__mutmut_1") == "refimpl.cache"
    plugin = "refimpl.scheduler.plugins.node_ports.xǁNodePortsǁfilter__mutmut_1"
    assert package_of(plugin) == "refimpl.scheduler.plugins"
    assert module_file("refimpl.cache.cache") == Path("refimpl/cache/cache.py")
    assert module_file("refimpl.scheduler.plugins") == Path("refimpl/scheduler/plugins/__init__.py")
    with pytest.raises(CatalogueError, match="not a mutmut mutant name"):
        function_of("refimpl.cache.cache.get_pod__mutmut_1")


def _mutation(number: int, removed: str, added: str, function: str = "xǁCacheǁget_pod") -> Mutation:
    return Mutation(f"{CACHE}.{function}__mutmut_{number}", (removed,), (added,))


def _entry(removed: str, added: str, occurrence: int = 1, index: int = 1) -> Equivalent:
    return Equivalent(f"{CACHE}:Cache.get_pod", (removed,), (added,), "equivalent: because", occurrence, index)


def test_a_renumbered_mutant_still_matches_its_entry() -> None:
    before = {m.name: m for m in [_mutation(3, "a = 1", "a = 2"), _mutation(4, "b = 1", "b = 2")]}
    after = {m.name: m for m in [_mutation(1, "x", "y"), _mutation(8, "a = 1", "a = 2"),
                                 _mutation(9, "b = 1", "b = 2")]}
    entry = _entry("a = 1", "a = 2")
    assert list(match_equivalents([entry], before).by_mutant) == [f"{CACHE}.xǁCacheǁget_pod__mutmut_3"]
    assert list(match_equivalents([entry], after).by_mutant) == [f"{CACHE}.xǁCacheǁget_pod__mutmut_8"]


def test_an_entry_whose_mutation_changed_or_vanished_is_a_problem() -> None:
    current = {m.name: m for m in [_mutation(3, "a = 1", "a = 3")]}
    matching = match_equivalents([_entry("a = 1", "a = 2")], current)
    assert matching.by_mutant == {}
    assert len(matching.problems) == 1 and "names no current mutant" in matching.problems[0]
    other_function = {m.name: m for m in [_mutation(3, "a = 1", "a = 2", function="xǁCacheǁadd_pod")]}
    assert match_equivalents([_entry("a = 1", "a = 2")], other_function).problems


def test_occurrence_picks_among_identical_mutations() -> None:
    current = {m.name: m for m in [_mutation(5, "f(x)", "f(None)"), _mutation(12, "f(x)", "f(None)")]}
    matching = match_equivalents([_entry("f(x)", "f(None)", 2)], current)
    assert list(matching.by_mutant) == [f"{CACHE}.xǁCacheǁget_pod__mutmut_12"]
    assert occurrence_of(current[f"{CACHE}.xǁCacheǁget_pod__mutmut_12"], current) == 2
    too_far = match_equivalents([_entry("f(x)", "f(None)", 3)], current)
    assert "only 2 such mutant(s)" in too_far.problems[0]
    twice = match_equivalents([_entry("f(x)", "f(None)", 1, 1), _entry("f(x)", "f(None)", 1, 2)], current)
    assert "names the same mutant" in twice.problems[0] and "as entry 1" in twice.problems[0]


def test_a_rendered_entry_parses_back() -> None:
    mutation = Mutation(f"{CACHE}.xǁCacheǁget_pod__mutmut_2", ('raise E("it\'s \\\\ gone")',), ("raise E(None)",))
    [entry] = parse_equivalents(render_entry(mutation, "message: not judged", occurrence=2))
    assert (entry.function, entry.removed, entry.added, entry.occurrence) == (
        f"{CACHE}:Cache.get_pod", mutation.removed, mutation.added, 2)
    assert match_equivalents([entry], {mutation.name: mutation}).problems  # occurrence 2 of one: no such mutant


ENTRY = "[[equivalent]]\nfunction = 'a.b:f'\n"
LINES = "removed = ['x']\nadded = ['y']\n"


@pytest.mark.parametrize(("text", "message"), [
    ("[[equivalent]\n", "not valid TOML"),
    ("[other]\n", "unexpected top-level key"),
    (ENTRY + LINES, "'reason' must be one non-empty line"),
    (ENTRY + LINES + "reason = \"a\\nb\"\n", "one non-empty line"),
    (ENTRY + LINES + "reason = 'it is'\n", "CATEGORY: why"),
    (ENTRY + LINES + "reason = 'same: it is'\n", "one of equiv"),
    (ENTRY + LINES + "reason = 'message: '\n", "CATEGORY: why"),
    ("[[equivalent]]\nfunction = 'a.b.f'\n" + LINES + "reason = 'message: r'\n", "'function' must be"),
    (ENTRY + "removed = 'x'\nadded = ['y']\nreason = 'message: r'\n", "'removed' must be a list"),
    (ENTRY + "removed = []\nadded = []\nreason = 'message: r'\n", "remove or add at least one"),
    (ENTRY + LINES + "reason = 'message: r'\noccurrence = 0\n", "occurrence"),
    (ENTRY + LINES + "reason = 'message: r'\nwhy = 1\n", "unexpected field"),
])
def test_a_malformed_equivalents_file_is_refused_with_what_is_wrong(text: str, message: str) -> None:
    with pytest.raises(CatalogueError, match=message):
        parse_equivalents(text)


def test_the_disk_cache_gives_what_mutmut_generates(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A file's mutants read back from ``.mutation-catalogue`` equal those mutmut makes; a torn or foreign entry is
    computed again, and a changed text is a different entry (the cache may save minutes, never change a mutant)."""
    monkeypatch.setattr(catalogue, "CACHE_DIR", tmp_path / "cache")
    path = Path("refimpl/scheduler/nominator.py")
    text = (catalogue.ROOT / path).read_text()
    fresh = catalogue._compute_mutations(path, text)
    assert fresh
    catalogue._mutations_of_text.cache_clear()
    assert catalogue._mutations_of_text(path, text) == fresh  # computed, and written
    (entry,) = (tmp_path / "cache").iterdir()
    catalogue._mutations_of_text.cache_clear()
    assert catalogue._mutations_of_text(path, text) == fresh  # read back
    entry.write_text(entry.read_text()[:50])  # torn
    catalogue._mutations_of_text.cache_clear()
    assert catalogue._mutations_of_text(path, text) == fresh
    catalogue._mutations_of_text.cache_clear()
    changed = text + "\n\ndef _extra(x: int) -> int:\n    return x + 1\n"
    assert catalogue._mutations_of_text(path, changed) == catalogue._compute_mutations(path, changed)
    assert len(list((tmp_path / "cache").glob("*.json"))) == 2
    catalogue._mutations_of_text.cache_clear()
