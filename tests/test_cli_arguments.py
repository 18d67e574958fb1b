"""Every ``ksspec`` flag is checked: a bad value is one line on stderr naming the flag, exit code 2, no traceback,
and nothing run."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from conformance.cli.main import main
from conformance.format import VECTORS
from spec.verify.queue.mutants import MUTANTS

ROOT = Path(__file__).resolve().parents[1]
MUTANT = sorted(MUTANTS)[0]


def run(capsys: pytest.CaptureFixture[str], argv: list[str]) -> tuple[int, str]:
    """``ksspec argv`` in this process: its exit code and what it printed (argparse exits with its line on stderr;
    a command's own check returns, its line on the console)."""
    try:
        code = main(argv)
    except SystemExit as exited:
        code = int(exited.code or 0)
    captured = capsys.readouterr()
    return code, captured.out + captured.err


BAD = [
    # ksspec conform
    (["conform", "--timeout", "-1"], "--timeout must be greater than 0, got -1"),
    (["conform", "--timeout", "0"], "--timeout must be greater than 0"),
    (["conform", "--timeout", "nan"], "--timeout must be a finite number, got 'nan'"),
    (["conform", "--timeout", "inf"], "--timeout must be a finite number, got 'inf'"),
    (["conform", "--timeout", "soon"], "--timeout must be a number, got 'soon'"),
    (["conform", "--startup-timeout", "-5"], "--startup-timeout must be greater than 0"),
    (["conform", "--handshake-failures", "0"], "--handshake-failures must be between 1 and"),
    (["conform", "-j", "0"], "--workers must be between 1 and 256, got 0"),
    (["conform", "-j", "two"], "--workers must be a whole number, got 'two'"),
    (["conform", "--impl", "bogus"], "--impl 'bogus': expected 'refimpl' or 'package.module:Class'"),
    (["conform", "--impl", "no.such.module:Adapter"], "--impl 'no.such.module:Adapter': cannot load it"),
    (["conform", "--impl", "conformance.protocol:PROTOCOL_VERSION"], "is not an adapter class"),
    (["conform", "--impl", ""], "--impl must not be empty"),
    (["conform", "--impl", "os:getcwd"], "--impl 'os:getcwd': it made a str, which has no hello, reset, step method"),
    (["conform", "--impl", "conformance.runner:Target"], "--impl 'conformance.runner:Target': it made a Target, which "
                                                         "has no hello, reset, step method"),
    (["conform", "--adapter", ""], "--adapter must not be empty"),
    (["conform", "--adapter", "   "], "--adapter must not be empty"),
    (["conform", "--adapter", "'unbalanced"], "No closing quotation"),
    (["conform", "--adapter", "/nonexistent/adapter --flag"], "cannot run '/nonexistent/adapter'"),
    (["conform", "--adapter", "no-such-program-on-path"], "'no-such-program-on-path': it is not on PATH"),
    (["conform", "--tag", ""], "--tag must not be empty"),
    (["conform", "--tag", "no.such.vector"], "--tag 'no.such.vector' matches no vector"),
    (["conform", "--shard", "x"], "--shard 'x': expected i/n"),
    (["conform", "--shard", "3/2"], "--shard '3/2': need 1 <= i <= n"),
    (["conform", "--profile", "v9"], "--profile: unknown version profile 'v9'"),
    (["conform", "--expected-failures", "/nonexistent/xfail.txt"], "--expected-failures /nonexistent/xfail.txt: no "
                                                                   "such file"),
    (["conform", "--junit", "/nonexistent/dir/junit.xml"], "--junit /nonexistent/dir/junit.xml: the directory "
                                                           "/nonexistent/dir does not exist"),
    (["conform", "--json", "/"], "--json /: is a directory, not a file"),
    (["conform", "--json", "same.json", "--junit", "same.json"], "--junit and --json name the same file"),
    (["conform", "--vectors", "/nonexistent"], "the manifest /nonexistent/manifest.json is missing"),
    (["conform", "--impl", "a.b:C", "--adapter", "x"], "not allowed with argument"),
    # ksspec check
    (["check", "--ttl", "-1"], "--ttl must not be negative, got -1"),
    (["check", "--ttl", "nan"], "--ttl must be a finite number"),
    (["check", "--time-limit", "0"], "--time-limit must be greater than 0"),
    (["check", "--time-limit", "inf"], "--time-limit must be a finite number"),
    (["check", "--nodes", "0"], "--nodes must be between 1 and"),
    (["check", "--pods", "-2"], "--pods must be between 1 and"),
    (["check", "--pod-variants", "4"], "--pod-variants must be between 1 and 3, got 4"),
    (["check", "--node-variants", "0"], "--node-variants must be between 1 and 3"),
    (["check", "--uids", "0"], "--uids must be between 1 and"),
    (["check", "--adds", "-1"], "--adds must be between 0 and"),
    (["check", "--call-variants", "5"], "--call-variants must be between 1 and 4"),
    (["check", "--depth", "-1"], "--depth must be between 0 and"),
    (["check", "--tick", "0"], "--tick must be greater than 0"),
    (["check", "--horizon", "-1"], "--horizon must not be negative"),
    (["check", "--system", "nope"], "invalid choice: 'nope'"),
    (["check", "--profile", "v9"], "invalid choice: 'v9'"),
    (["check", "--mode", "chaos"], "invalid choice: 'chaos'"),
    (["check", "--max-states", "0"], "--max-states must be between 1 and"),
    (["check", "-j", "0"], "--jobs must be between 1 and 256"),
    (["check", "--cluster", "nowhere"], "--cluster wants a Dask scheduler address (tcp://host:8786) or local:N"),
    (["check", "--cluster", "local:0"], "--cluster local:N wants 1 <= N <= 256, got 'local:0'"),
    (["check", "--cluster", "local:2", "-j", "2"], "-j is for one machine"),
    (["check", "--mutant", MUTANT], "--mutant: only --system queue reads it (this run explores --system cache)"),
    (["check", "--system", "cycle", "--pops", "2", "--close"], "--pops, --close: only --system queue reads them"),
    (["check", "--partition", "2/2"], "expected K/N with 0 <= K < N, got 2/2"),
    (["check", "--split-depth", "-1"], "--split-depth must be between 0 and"),
    (["check", "--save-fingerprints", "/nonexistent/fp.bin"], "--save-fingerprints /nonexistent/fp.bin: the "
                                                              "directory /nonexistent does not exist"),
    # ksspec prove
    (["prove", "--pods", "0"], "--pods must be between 1 and"),
    (["prove", "--nodes", "x"], "--nodes must be a whole number"),
    (["prove", "--uids", "0"], "--uids must be between 1 and"),
    (["prove", "--call-types", "0"], "--call-types must be between 1 and"),
    (["prove", "--timeout-ms", "0"], "--timeout-ms must be between 1 and"),
    (["prove", "--only", ""], "--only must not be empty"),
    (["prove", "--only", "no such obligation", "--no-crosshair"], "--only 'no such obligation' matches no obligation"),
    (["prove", "--crosshair-timeout", "-1"], "--crosshair-timeout must be greater than 0"),
    (["prove", "--crosshair-budget", "nan"], "--crosshair-budget must be a finite number"),
    (["prove", "--crosshair-jobs", "0"], "--crosshair-jobs must be between 1 and"),
    (["prove", "--root", "/nonexistent"], "--root /nonexistent: no such directory"),
    # ksspec verify
    (["verify", "--root", "/nonexistent"], "--root /nonexistent: no such directory"),
    (["verify", "--hypothesis-profile", "bogus"], "--hypothesis-profile: unknown Hypothesis profile 'bogus'"),
    # ksspec conformance generate
    (["conformance", "generate", "--check", "--directory", "/nonexistent"], "--directory /nonexistent: no such "
                                                                            "directory"),
    (["conformance", "coverage", "--vectors", "/nonexistent"], "the manifest /nonexistent/manifest.json is missing"),
    # ksspec verify -j
    (["verify", "-j", "0"], "argument -j/--jobs: must be at least 1, got 0"),
    # ksspec simulate (its types are conformance.arguments')
    (["simulate", "--nodes", "0"], "--nodes must be between 1 and"),
    (["simulate", "--seeds", "5..1"], "--seeds wants 1 to 100,000 seeds, got 0 from '5..1'"),
    (["simulate", "--seeds", "one"], "--seeds wants A..B (A to B, both included) or S,S,...; got 'one'"),
    (["simulate", "--cluster", "tcp://"], "--cluster wants a Dask scheduler address"),
    (["simulate", "--cluster", "local:2"], "--cluster runs a seed sweep: give --seeds A..B"),
    (["simulate", "--arrival-rate", "inf"], "--arrival-rate must be a finite number"),
    (["simulate", "--max-virtual-seconds", "0"], "--max-virtual-seconds must be greater than 0"),
    # no command
    ([], "the following arguments are required: COMMAND"),
    (["conform", "--no-such-flag"], "unrecognized arguments: --no-such-flag"),
]


@pytest.mark.parametrize(("argv", "message"), BAD, ids=[" ".join(argv) or "(none)" for argv, _ in BAD])
def test_a_bad_flag_is_one_line_and_exit_2(capsys: pytest.CaptureFixture[str], argv: list[str], message: str,
                                           tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)  # relative report paths land here
    code, err = run(capsys, argv)
    assert code == 2, err
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1 and message in lines[0], err
    assert lines[0].startswith("error: "), err


def test_the_hypothesis_profiles_verify_offers_are_the_registered_ones() -> None:
    from conformance.cli.verify import HYPOTHESIS_PROFILES

    text = (ROOT / "tests" / "conftest.py").read_text()
    assert all(f'register_profile(\n    "{name}"' in text or f'register_profile("{name}"' in text
               for name in HYPOTHESIS_PROFILES)


# --------------------------------------------------------------------------------------------
# Vector files and the manifest: a structure error names the file, the index and the JSON path
# --------------------------------------------------------------------------------------------


@pytest.fixture
def vectors_dir(tmp_path: Path) -> Path:
    copy = tmp_path / "vectors"
    shutil.copytree(Path(str(VECTORS)), copy)
    return copy


def conform_on(capsys: pytest.CaptureFixture[str], directory: Path) -> tuple[int, str]:
    return run(capsys, ["conform", "--vectors", str(directory), "--no-progress", "--tag", "snapshot"])


@pytest.mark.parametrize(
    ("file", "content", "message"),
    [
        ("cache.curated.json", "[]", "cache.curated.json is not a JSON object with a list of vectors (at $: [] is "
                                     "not of type 'object')"),
        ("cache.curated.json", '{"format_version": "2.0.0", "vectors": null}',
         "cache.curated.json is not a JSON object with a list of vectors (at $.vectors: None is not of type 'array')"),
        ("cache.curated.json", "{}", "cache.curated.json is not a JSON object with a list of vectors (at $: 'vectors' "
                                     "is a required property)"),
        ("cache.curated.json", '{"vectors": [1,', "cache.curated.json is not valid JSON (line 1 column 16: Expecting "
                                                 "value)"),
        ("cache.curated.json", b"\xff\xfe{}", "cache.curated.json cannot be read"),
        ("manifest.json", "[]", "manifest.json has no list of vectors (at $: [] is not of type 'object')"),
        ("manifest.json", '{"vectors": [{"id": "a", "sha256": "' + "0" * 64 + '"}, {"sha256": "' + "0" * 64 + '"}]}',
         "manifest.json is malformed (at $.vectors[1]: 'id' is a required property)"),
        ("manifest.json", '{"vectors": [{"id": "a"}]}', "manifest.json is malformed (at $.vectors[0]: 'sha256' is a "
                                                        "required property)"),
        ("manifest.json", '{"vectors": [{"id": "a", "sha256": 7}]}', "manifest.json is malformed (at "
                                                                     "$.vectors[0].sha256: 7 is not of type 'string')"),
        ("manifest.json", '{"vectors": "all"}', "manifest.json has no list of vectors (at $.vectors: 'all' is not of "
                                                "type 'array')"),
        ("manifest.json", "not json", "manifest.json is not valid JSON (line 1 column 1: Expecting value)"),
    ],
)
def test_a_malformed_vector_file_or_manifest_is_named(capsys: pytest.CaptureFixture[str], vectors_dir: Path,
                                                      file: str, content: str | bytes, message: str) -> None:
    path = vectors_dir / file
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content)
    code, err = conform_on(capsys, vectors_dir)
    assert code == 2 and message in err and str(path) in err, err
    assert "Traceback" not in err and len([line for line in err.splitlines() if line.strip()]) == 1, err


def test_a_malformed_vector_names_its_file_index_and_path(capsys: pytest.CaptureFixture[str],
                                                          vectors_dir: Path) -> None:
    path = vectors_dir / "snapshot.curated.json"
    path.write_text(path.read_text().replace('"steps": [', '"steps": 7, "was": [', 1))
    code, err = conform_on(capsys, vectors_dir)
    assert code == 2 and "snapshot.curated.json[0]: vector" in err and "at $.steps: 7 is not of type 'array'" in err


def test_a_binary_expected_failures_file_is_named(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    binary = tmp_path / "xfail.bin"
    binary.write_bytes(b"\x00\xff\xfe\x80")
    code, err = run(capsys, ["conform", "--expected-failures", str(binary)])
    assert code == 2 and err.startswith(f"error: --expected-failures {binary}: not a UTF-8 text file"), err


def test_coverage_reads_the_vector_files_not_only_the_manifest(capsys: pytest.CaptureFixture[str],
                                                               vectors_dir: Path) -> None:
    path = vectors_dir / "snapshot.curated.json"
    path.write_text(path.read_text()[:300])
    code, err = run(capsys, ["conformance", "coverage", "--vectors", str(vectors_dir)])
    assert code == 2 and f"vector file {path} is not valid JSON" in err, err
