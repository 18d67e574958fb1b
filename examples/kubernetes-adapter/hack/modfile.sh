#!/bin/sh
# Write the module file for one Kubernetes release and resolve it: hack/modfile.sh v1.37.2 go.v1.37.mod
#
# An importer of k8s.io/kubernetes must pin every staging module (k8s.io/api, k8s.io/client-go, ...) to the release's
# v0.<minor>.<patch> with a replace directive, as k8s.io/kubernetes' own go.mod points them at ./staging. The list of
# staging modules is read from that go.mod; `go mod tidy` then resolves every other requirement and writes the sum
# file (go.v1.37.sum next to go.v1.37.mod).
set -eu
version=$1
out=$2
case $version in v1.*.*) ;; *) echo "usage: $0 v1.MINOR.PATCH OUT.mod" >&2; exit 2 ;; esac
staging_version=v0.${version#v1.}
cd "$(dirname "$0")/.."
module_dir=$(GOFLAGS=-mod=mod go mod download -json "k8s.io/kubernetes@$version" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
go_directive=$(sed -n 's/^go \(.*\)$/\1/p' "$module_dir/go.mod")
{
	echo "module kube-scheduler-spec/examples/kubernetes-adapter"
	echo
	echo "go $go_directive"
	echo
	echo "require k8s.io/kubernetes $version"
	echo
	echo "replace ("
	sed -n 's/^[[:space:]]*\(k8s\.io\/[a-z-]*\) => \.\/staging\/.*$/\1/p' "$module_dir/go.mod" |
		while read -r staging; do printf '\t%s => %s %s\n' "$staging" "$staging" "$staging_version"; done
	echo ")"
} > "$out"
GOFLAGS=-mod=mod go mod tidy -modfile="$out"
