"""The verdicts ``make mutation`` draws from mutmut's exit codes, its sample, and its table."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from mutation import run
from mutation.catalogue import Equivalent, Mutation, match_equivalents
from mutation.run import (
    Verdict,
    choose_sample,
    judge,
    main,
    only_listed,
    out_of_scope_entries,
    read_exit_codes,
    render_problems,
    render_table,
    restrict_to_functions,
    restrict_to_packages,
    score,
    without_listed,
)

# Listing the mutants costs a minute or two when .mutation-catalogue/ is cold: this package's tests share one
# listing on one xdist worker (`--dist loadgroup`), instead of each worker listing them at once.
pytestmark = pytest.mark.xdist_group("mutation-catalogue")


CACHE = "refimpl.cache.cache.xǁCacheǁget_pod__mutmut_"
QUEUE = "refimpl.dispatcher.call_queue.xǁCallQueueǁadd__mutmut_"


def _current() -> dict[str, Mutation]:
    return {f"{CACHE}{i}": Mutation(f"{CACHE}{i}", (f"a = {i}",), (f"a = {i + 1}",)) for i in range(1, 7)} | {
        f"{QUEUE}1": Mutation(f"{QUEUE}1", ("x",), ("y",))}


def _listed(*numbers: int) -> list[Equivalent]:
    return [Equivalent("refimpl.cache.cache:Cache.get_pod", (f"a = {i}",), (f"a = {i + 1}",), "equivalent: why", 1, k)
            for k, i in enumerate(numbers, start=1)]


def test_survivors_are_equivalent_only_when_listed_and_listed_ones_must_survive() -> None:
    current = _current()
    codes = {f"{CACHE}1": 1, f"{CACHE}2": 0, f"{CACHE}3": 0, f"{CACHE}4": 33, f"{CACHE}5": 36, f"{CACHE}6": 1,
             f"{QUEUE}1": 0}
    report = judge(current, codes, current, match_equivalents(_listed(2, 6), current))
    assert report.verdicts == {
        f"{CACHE}1": Verdict.KILLED, f"{CACHE}2": Verdict.EQUIVALENT, f"{CACHE}3": Verdict.SURVIVED,
        f"{CACHE}4": Verdict.NOT_REACHED, f"{CACHE}5": Verdict.TIMEOUT, f"{CACHE}6": Verdict.KILLED,
        f"{QUEUE}1": Verdict.SURVIVED}
    assert [m.name for m in report.unlisted] == [f"{CACHE}3", f"{QUEUE}1"]
    assert [(name, verdict) for _, name, verdict in report.stale] == [(f"{CACHE}6", Verdict.KILLED)]
    assert not report.ok and report.categories == {"equivalent": 1}
    problems = render_problems(report, current)
    assert "2 mutant(s) survived that mutation/equivalents.toml does not list" in problems
    assert "listed as equivalent but killed" in problems
    table = render_table(report)
    # package, mutants, killed, timeout, equivalent (=equivalent, =message, =unobserved, =unreachable), known gap,
    # survived, not reached, score: (2 killed + 1 timeout) / (6 - 1 equivalent)
    assert table.splitlines()[0].split()[:5] == ["package", "mutants", "killed", "timeout", "equivalent"]
    assert table.splitlines()[1].split() == ["refimpl.cache", "6", "2", "1", "1", "1", "0", "0", "0", "0", "1", "1",
                                             "60.0%"]
    assert table.splitlines()[-1].split() == ["total", "7", "2", "1", "1", "1", "0", "0", "0", "0", "2", "1", "50.0%"]


def test_a_sample_reports_a_stale_entry_and_fails_only_on_a_survivor() -> None:
    """A sample sees some of the entries, and a new vector that kills a listed mutant is progress: the sample
    reports the stale entry and passes; the full run fails on it. An unlisted survivor fails both."""
    current = {k: v for k, v in _current().items() if k.startswith(CACHE)}
    stale_only = judge([f"{CACHE}1", f"{CACHE}2"], {f"{CACHE}1": 1, f"{CACHE}2": 0}, current,
                       match_equivalents(_listed(1, 2), current))
    assert stale_only.stale and not stale_only.ok and stale_only.ok_for_sample()
    survivor = judge([f"{CACHE}1", f"{CACHE}3"], {f"{CACHE}1": 1, f"{CACHE}3": 0}, current,
                     match_equivalents(_listed(1), current))
    assert survivor.unlisted and not survivor.ok_for_sample() and not survivor.ok
    crashed = judge([f"{CACHE}1"], {f"{CACHE}1": -11}, current, match_equivalents([], current))
    assert crashed.other and not crashed.ok_for_sample()


def test_a_listed_gap_is_counted_apart_from_equivalents() -> None:
    current = {k: v for k, v in _current().items() if k.startswith(CACHE)}
    entries = [Equivalent("refimpl.cache.cache:Cache.get_pod", ("a = 1",), ("a = 2",), "gap: needs a vector", 1, 1),
               *_listed(2)]
    report = judge([f"{CACHE}1", f"{CACHE}2"], {f"{CACHE}1": 0, f"{CACHE}2": 0}, current,
                   match_equivalents(entries, current))
    assert report.ok and report.verdicts == {f"{CACHE}1": Verdict.KNOWN_GAP, f"{CACHE}2": Verdict.EQUIVALENT}
    assert report.categories == {"gap": 1, "equivalent": 1}
    assert render_table(report, {"refimpl.cache": 4}).splitlines()[-1].split() == [
        "total", "2", "0", "0", "1", "1", "0", "0", "0", "1", "0", "0", "0.0%", "4"]


def test_every_survivor_listed_is_a_clean_report() -> None:
    current = {k: v for k, v in _current().items() if k.startswith(CACHE)}
    report = judge(current, dict.fromkeys(current, 0), current, match_equivalents(_listed(1, 2, 3, 4, 5, 6), current))
    assert report.ok and set(report.verdicts.values()) == {Verdict.EQUIVALENT}


def test_a_mutant_mutmut_did_not_judge_fails_the_run() -> None:
    current = _current()
    report = judge([f"{CACHE}1", f"{CACHE}2", f"{CACHE}3"], {f"{CACHE}1": None, f"{CACHE}2": -11}, current,
                   match_equivalents([], current))
    assert [name for name, _ in report.other] == [f"{CACHE}1", f"{CACHE}2", f"{CACHE}3"]
    assert not report.ok and "re-run" in render_problems(report, current)


def test_the_sample_is_seeded_and_drawn_from_the_scope() -> None:
    current = _current()
    first = choose_sample(current, 3, seed=13)
    assert first == choose_sample(current, 3, seed=13) == sorted(first)
    assert len(first) == 3 and set(first) <= set(current)
    assert choose_sample(current, 100, seed=1) == sorted(current)
    assert len({tuple(choose_sample(current, 3, seed=s)) for s in range(10)}) > 1


def test_the_score_is_killed_over_the_mutants_that_can_be_told_apart() -> None:
    counts: dict[str, int] = {Verdict.KILLED: 6, Verdict.TIMEOUT: 1, Verdict.EQUIVALENT: 3, Verdict.KNOWN_GAP: 1,
              Verdict.SURVIVED: 1, Verdict.NOT_REACHED: 2}
    assert score(counts) == 7 / 11
    assert score({Verdict.EQUIVALENT: 2}) is None
    assert "-" in render_table(judge([f"{CACHE}2"], {f"{CACHE}2": 0}, _current(),
                                     match_equivalents(_listed(2), _current()))).splitlines()[1].split()


def test_an_entry_for_an_out_of_scope_mutant_is_a_problem() -> None:
    current = _current()
    matching = match_equivalents(_listed(2), current)
    assert out_of_scope_entries(matching, current) == []
    scoped = {k: v for k, v in current.items() if k != f"{CACHE}2"}
    [problem] = out_of_scope_entries(matching, scoped)
    assert "leaves out of the score" in problem


def test_exit_codes_are_read_from_mutmuts_meta_files(tmp_path: Path) -> None:
    meta = tmp_path / "mutants" / "refimpl" / "cache" / "cache.py.meta"
    meta.parent.mkdir(parents=True)
    meta.write_text(json.dumps({"exit_code_by_key": {f"{CACHE}1": 1, f"{CACHE}2": None}, "durations_by_key": {}}))
    assert read_exit_codes(tmp_path) == {f"{CACHE}1": 1, f"{CACHE}2": None}


def test_package_restricts_the_scope_before_the_sample() -> None:
    current = _current()
    assert restrict_to_packages(current, []) == current
    only_queue = restrict_to_packages(current, ["refimpl.dispatcher"])
    assert list(only_queue) == [f"{QUEUE}1"]
    assert restrict_to_packages(current, ["refimpl.cache", "refimpl.dispatcher"]) == current
    assert choose_sample(only_queue, 5, seed=13) == [f"{QUEUE}1"]
    with pytest.raises(ValueError, match=r"refimpl\.cahce.*the packages are: refimpl\.cache, refimpl\.dispatcher"):
        restrict_to_packages(current, ["refimpl.cahce"])


def test_function_patterns_restrict_the_scope() -> None:
    current = _current()
    assert restrict_to_functions(current, []) == current
    assert list(restrict_to_functions(current, ["refimpl.dispatcher.call_queue:*"])) == [f"{QUEUE}1"]
    assert restrict_to_functions(current, ["*:Cache.get_pod", "*:CallQueue.add"]) == current
    with pytest.raises(ValueError, match=r"no in-scope mutant of a function matching \*:Cache\.nope"):
        restrict_to_functions(current, ["*:Cache.get_pod", "*:Cache.nope"])


def test_an_unknown_package_is_a_usage_error_before_anything_runs(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["--package", "refimpl.nope"])
    assert exit_info.value.code == 2
    assert "--package: no in-scope mutant in package(s) refimpl.nope" in capsys.readouterr().err


def test_unlisted_only_runs_the_mutants_no_entry_lists_and_reaches_the_same_verdict() -> None:
    current = _current()
    matching = match_equivalents(_listed(2, 6), current)
    unlisted = without_listed(current, matching)
    assert sorted(unlisted) == sorted(set(current) - {f"{CACHE}2", f"{CACHE}6"})
    # The whole run: CACHE 2 survives (listed), 6 is killed (a stale entry); the others as below.
    codes = {f"{CACHE}1": 1, f"{CACHE}2": 0, f"{CACHE}3": 1, f"{CACHE}4": 1, f"{CACHE}5": 36, f"{CACHE}6": 1,
             f"{QUEUE}1": 0}
    whole = judge(current, codes, current, matching)
    only = judge(unlisted, codes, current, matching)
    assert [m.name for m in whole.unlisted] == [m.name for m in only.unlisted] == [f"{QUEUE}1"]
    assert not whole.ok and not only.ok
    assert [name for _, name, _ in whole.stale] == [f"{CACHE}6"] and not only.stale  # what it cannot see
    codes[f"{QUEUE}1"] = 1
    assert judge(unlisted, codes, current, matching).ok


def test_listed_only_is_the_complement_and_finds_the_stale_entries() -> None:
    current = _current()
    matching = match_equivalents(_listed(2, 6), current)
    listed = only_listed(current, matching)
    assert sorted(listed) == sorted([f"{CACHE}2", f"{CACHE}6"])
    assert sorted([*listed, *without_listed(current, matching)]) == sorted(current)
    codes = {f"{CACHE}2": 0, f"{CACHE}6": 1}
    report = judge(listed, codes, current, matching)
    assert not report.ok and [name for _, name, _ in report.stale] == [f"{CACHE}6"]
    codes[f"{CACHE}6"] = 0
    assert judge(listed, codes, current, matching).ok


def test_listed_only_and_unlisted_only_together_are_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["--listed-only", "--unlisted-only"])
    assert exit_info.value.code == 2
    assert "would run nothing" in capsys.readouterr().err


def test_mutmut_runs_with_its_memory_capped() -> None:
    """A mutant whose memory grows without bound fails with MemoryError instead of exhausting the machine: the
    mutmut command starts under RLIMIT_AS (run.limit_memory), which its forked mutants inherit."""
    code = "import resource; print(resource.getrlimit(resource.RLIMIT_AS)[0]); bytearray(run_limit)"
    done = subprocess.run([sys.executable, "-c", code.replace("run_limit", str(run.MEMORY_LIMIT))],
                          capture_output=True, text=True, check=False, preexec_fn=run.limit_memory)
    assert done.stdout.split()[0] == str(run.MEMORY_LIMIT)
    assert "MemoryError" in done.stderr
