#!/bin/sh
# Build the adapter for each Kubernetes release of releases.txt and run the conformance suite on it under the
# release's profile (make conform-kubernetes). Usage, from anywhere:
#
#   hack/conform.sh KSSPEC [--warm-only] [PROFILE ...]
#
# KSSPEC is the ksspec command. PROFILE limits the run to those releases (default: every release). --warm-only
# builds the default release (the first line) always and every other release only if Go's build cache already
# holds its Kubernetes packages (`go list` says k8s.io/kubernetes/pkg/scheduler/backend/cache is not stale): a cold
# build of a release takes minutes of CPU, which CI spends on the default release only (.ci/run).
#
# For each release: the //go:linkname signature check (linkname_test.go) and the parked scheduler cache
# (cycle_park_test.go), the build into bin/kubernetes-adapter-PROFILE, then `ksspec conform --profile PROFILE
# --expected-failures expected-failures-PROFILE.txt`. A failed check or build stops the script; a failed run does
# not stop the other releases' runs, and the script then fails. Each release's build and run wall times are printed.
set -eu
ksspec=$1
shift
warm_only=false
if [ "${1:-}" = "--warm-only" ]; then
	warm_only=true
	shift
fi
wanted="$*"
cd "$(dirname "$0")/.."
default=""
failed=""
while read -r profile version tag modfile; do
	case $profile in "#"* | "") continue ;; esac
	[ -n "$default" ] || default=$profile
	if [ -n "$wanted" ] && ! echo " $wanted " | grep -q " $profile "; then
		continue
	fi
	set -- -modfile="$modfile"
	[ "$tag" = "-" ] || set -- "$@" -tags="$tag"
	if $warm_only && [ "$profile" != "$default" ]; then
		stale=$(go list "$@" -f '{{.Stale}}' k8s.io/kubernetes/pkg/scheduler/backend/cache)
		if [ "$stale" = true ]; then
			echo "== Kubernetes $version ($profile): skipped, its build cache is cold (make conform-kubernetes builds it)"
			continue
		fi
	fi
	echo "== Kubernetes $version ($profile)"
	start=$(date +%s)
	go test "$@" -count=1 -run 'TestLinkedSignatures|TestSignatureCheckRejectsMismatch|TestSchedulerCacheLoopParked' . >/dev/null || {
		go test "$@" -count=1 -run 'TestLinkedSignatures|TestSignatureCheckRejectsMismatch|TestSchedulerCacheLoopParked' -v .
		exit 1
	}
	go build "$@" -o "bin/kubernetes-adapter-$profile" .
	built=$(date +%s)
	echo "   linkname check and build: $((built - start)) s"
	"$ksspec" conform --adapter "bin/kubernetes-adapter-$profile" --profile "$profile" \
		--expected-failures "expected-failures-$profile.txt" --no-progress || failed="$failed $profile"
	echo "   conform: $(($(date +%s) - built)) s"
done < releases.txt
if [ -n "$failed" ]; then
	echo "conform-kubernetes failed for:$failed" >&2
	exit 1
fi
