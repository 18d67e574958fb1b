# kube-scheduler-spec developer entry points. Everything runs inside .venv, which is
# (re)built from pyproject.toml and the pinned constraints whenever either changes.

PYTHON ?= $(shell command -v python3.11 2>/dev/null || command -v python3)
VENV := .venv
STAMP := $(VENV)/.installed
CONSTRAINTS := requirements/constraints.txt
HYPOTHESIS_PROFILE ?= ci
PYTEST_ARGS ?= -n 2 --dist loadgroup
MYPY_TARGETS ?= spec refimpl conformance tests bench docs/_ext docs/screenshots.py mutation

export HYPOTHESIS_PROFILE

KUBERNETES_ADAPTER := examples/kubernetes-adapter
GO_CACHE_ADAPTER := examples/go-cache-adapter
PROFILES := v1.34 v1.35 v1.36 v1.37 pr141745

.PHONY: venv test lint docs verify bench clean constraints verify-thorough test-packaging mutation mutation-sample \
	conform-kubernetes conform-kubernetes-ci conform-kubernetes-mutants conform-go-cache docs-results docs-screenshots

venv: $(STAMP)

$(STAMP): pyproject.toml $(CONSTRAINTS)
	test -x $(VENV)/bin/python || $(PYTHON) -m venv $(VENV)
	$(VENV)/bin/python -m pip install --upgrade pip
	$(VENV)/bin/python -m pip install -c $(CONSTRAINTS) -e '.[dev]'
	touch $@

# pytest's exit status is kept as is: 5 ("no tests collected") fails the target.
test: $(STAMP)
	$(VENV)/bin/python -m pytest $(PYTEST_ARGS)

lint: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/mypy --strict $(MYPY_TARGETS)

# -E: the pages are generated from the spec, so never reuse an environment saved by an earlier run. The doctest
# builder then reads the doctrees the html build has just written (-d, shared) instead of parsing every page again,
# and runs every example in the pages and docstrings; a failing one fails the target.
docs: $(STAMP)
	$(VENV)/bin/sphinx-build -E -W --keep-going -d docs/_build/doctrees -b html docs docs/_build/html
	$(VENV)/bin/sphinx-build -W --keep-going -d docs/_build/doctrees -b doctest docs docs/_build/doctest

# The fast profile by default (about 380 CPU-seconds at 1,985 vectors, so over 2 minutes even on 2 idle cores:
# README, "make verify"; it prints what it leaves to `make test` and --thorough). Its own Hypothesis profile unless HYPOTHESIS_PROFILE is given on the command line or in the
# environment; VERIFY_ARGS passes more options (e.g. VERIFY_ARGS=--thorough).
VERIFY_ARGS ?=
verify: $(STAMP)
	$(VENV)/bin/ksspec verify $(if $(filter command line environment,$(origin HYPOTHESIS_PROFILE)),--hypothesis-profile $(HYPOTHESIS_PROFILE)) $(VERIFY_ARGS)

# Today's full run: the refinement suite under Hypothesis profile ci and ksspec prove with CrossHair.
verify-thorough: $(STAMP)
	$(VENV)/bin/ksspec verify --thorough $(VERIFY_ARGS)

# Build the sdist and the wheel, install the wheel into a fresh venv and run ksspec from elsewhere (and pipx);
# needs the network for the dependencies.
test-packaging: $(STAMP)
	$(VENV)/bin/python -m pytest -n 0 --run-packaging tests/test_packaging.py tests/test_readme_install.py

bench: $(STAMP)
	@if [ -f bench/run.py ]; then \
		$(VENV)/bin/python bench/run.py; \
	else \
		echo "no benchmarks exist yet (bench/run.py is missing)"; \
		exit 1; \
	fi

# The mutation score of refimpl under the conformance suite alone (mutmut; see docs/conformance.md). The full run
# takes tens of minutes on 2 cores; mutation-sample runs MUTATION_SAMPLE in-scope mutants drawn with MUTATION_SEED
# (CI). 100: the first 100 of the draw of 250 (random.sample draws in order; docs/mutation.md). 250 took 1,771 CPU-s
# at 1,558 vectors, too long for CI's hour; 150 fitted until CI passed 60 minutes at 1,965 vectors (stop 37: 4,130 s).
# The draw depends on the in-scope population: after changing mutation/scope.toml or [tool.mutmut], run it (stop 40
# failed on 5 survivors of a draw no one had run).
MUTATION_SAMPLE ?= 100
MUTATION_SEED ?= 13

mutation: $(STAMP)
	$(VENV)/bin/python -m mutation.run

mutation-sample: $(STAMP)
	$(VENV)/bin/python -m mutation.run --sample $(MUTATION_SAMPLE) --seed $(MUTATION_SEED)

# The conformance suite against Kubernetes' own cache and call queue: the Go adapter built for each release of
# examples/kubernetes-adapter/releases.txt (v1.34.12, v1.35.8, v1.36.5, v1.37.2), each run on the vectors of its
# profile, after checking its //go:linkname declarations against the release's source. Needs Go; the k8s.io modules
# come from the Go module cache (GOMODCACHE) or the module proxy, and the go.*.sum files pin them.
# KUBERNETES_RELEASES=v1.36 limits the run; conform-kubernetes-ci (.ci/run) builds the default release always and
# the others only when Go's build cache is warm for them; conform-kubernetes-mutants injects one-line bugs into the
# default release and fails if the suite does not reject each.
KUBERNETES_RELEASES ?=

conform-kubernetes: $(STAMP)
	$(KUBERNETES_ADAPTER)/hack/conform.sh $(abspath $(VENV)/bin/ksspec) $(KUBERNETES_RELEASES)

conform-kubernetes-ci: $(STAMP)
	$(KUBERNETES_ADAPTER)/hack/conform.sh $(abspath $(VENV)/bin/ksspec) --warm-only

conform-kubernetes-mutants: $(STAMP)
	$(KUBERNETES_ADAPTER)/hack/mutants.sh $(abspath $(VENV)/bin/ksspec)

# Re-pin every direct and transitive dependency to what pip picks today.
constraints:
	rm -rf .venv-constraints
	$(PYTHON) -m venv .venv-constraints
	.venv-constraints/bin/python -m pip install --upgrade pip
	.venv-constraints/bin/python -m pip install '.[dev]'
	{ echo "# Generated by 'make constraints' with Python 3.11; do not edit by hand."; \
	  .venv-constraints/bin/python -m pip freeze --exclude kube-scheduler-spec; } > $(CONSTRAINTS)
	rm -rf .venv-constraints

clean:
	rm -rf $(VENV) .venv-constraints docs/_build build dist *.egg-info \
		.hypothesis .mypy_cache .ruff_cache .pytest_cache .benchmarks .crosshair mutants .mutation-catalogue
	find . -name __pycache__ -type d -prune -exec rm -rf {} +

# The from-scratch Go cache (examples/go-cache-adapter: standard library only, no module downloads) on the cache,
# snapshot and node_tree vectors of every profile. Needs Go; seconds to build.
conform-go-cache: $(STAMP)
	cd $(GO_CACHE_ADAPTER) && go vet . && go build -o bin/go-cache-adapter .
	for profile in $(PROFILES); do \
		$(VENV)/bin/ksspec conform --adapter $(GO_CACHE_ADAPTER)/bin/go-cache-adapter --profile $$profile \
			--tag cache --tag snapshot --tag node_tree --no-progress || exit 1; \
	done

# The JSON reports docs/compatibility.md shows (docs/results/*.json.gz): refimpl and the Go cache under every
# profile, Kubernetes' own code under v1.35 and v1.34 (both need Go; the Kubernetes build takes minutes when the
# Go caches are cold). gzip -n keeps the bytes free of names and times.
docs-results: $(STAMP)
	cd $(GO_CACHE_ADAPTER) && go build -o bin/go-cache-adapter .
	cd $(KUBERNETES_ADAPTER) && go build -o bin/kubernetes-adapter . \
		&& go build -modfile=go.v1.34.mod -tags k8s_v1_34 -o bin/kubernetes-adapter-v1.34 .
	rm -f docs/results/*.json docs/results/*.json.gz
	for profile in $(PROFILES); do \
		$(VENV)/bin/ksspec conform --profile $$profile -j 2 --no-progress --json docs/results/refimpl-$$profile.json \
			>/dev/null || exit 1; \
		$(VENV)/bin/ksspec conform --adapter $(GO_CACHE_ADAPTER)/bin/go-cache-adapter --profile $$profile -j 2 \
			--no-progress --json docs/results/go-cache-adapter-$$profile.json >/dev/null || exit 1; \
	done
	$(VENV)/bin/ksspec conform --adapter $(KUBERNETES_ADAPTER)/bin/kubernetes-adapter --profile v1.35 -j 2 --no-progress \
		--expected-failures $(KUBERNETES_ADAPTER)/expected-failures-v1.35.txt --json docs/results/kubernetes-v1.35.json \
		>/dev/null
	$(VENV)/bin/ksspec conform --adapter $(KUBERNETES_ADAPTER)/bin/kubernetes-adapter-v1.34 --profile v1.34 -j 2 \
		--no-progress --expected-failures $(KUBERNETES_ADAPTER)/expected-failures-v1.34.txt \
		--json docs/results/kubernetes-v1.34.json >/dev/null
	gzip -n -9 docs/results/*.json

# The widest pages as headless Chromium renders them (docs/_build/screenshots/*.png), to check that diagrams and tables
# stay legible; needs `make docs` first and Chromium (apt-get install chromium).
docs-screenshots: $(STAMP)
	$(VENV)/bin/python docs/screenshots.py
