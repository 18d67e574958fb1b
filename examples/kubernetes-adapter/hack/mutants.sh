#!/bin/sh
# Proof that the adapter can fail (make conform-kubernetes-mutants): the adapter is built over a copy of the
# default release's k8s.io/kubernetes module (its go.mod and the packages the adapter imports from it, in a
# temporary directory that a temporary module file's replace directive points at: Go refuses overlays of files in
# the module cache), each one-line bug of mutants.txt is injected into that copy through `go build -overlay`, and
# the conformance suite is run on the build under the release's profile. Every mutant must be rejected; the script
# prints the vectors that reject each and fails if one passes, if its line is not what mutants.txt says, or if it
# does not build. The unmutated copy is built and run first: it must pass, or the rejections would prove nothing.
# Each mutant runs with the release's expected failures too, so that a vector Kubernetes itself fails does not
# count as a rejection; a mutant that makes an expected failure pass (xpass) changed behaviour, and does.
#
#   hack/mutants.sh KSSPEC [MUTANT_ID ...]
set -eu
ksspec=$1
shift
wanted="$*"
python=$(dirname "$ksspec")/python
cd "$(dirname "$0")/.."
read -r profile version tag modfile <<EOF2
$(grep -v '^#' releases.txt | head -n 1)
EOF2
module_dir=$(go list -modfile="$modfile" -m -f '{{.Dir}}' k8s.io/kubernetes)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
copy="$work/kubernetes"
mkdir -p "$copy"
cp "$module_dir/go.mod" "$copy/go.mod"
go list -modfile="$modfile" -deps -f '{{if .Module}}{{if eq .Module.Path "k8s.io/kubernetes"}}{{.Dir}}{{end}}{{end}}' . |
	while read -r dir; do
		relative=${dir#"$module_dir"/}
		mkdir -p "$copy/$relative"
		find "$dir" -maxdepth 1 -type f -exec cp {} "$copy/$relative/" \;
	done
chmod -R u+w "$copy"
cp "$modfile" "$work/adapter.mod"
cp "${modfile%.mod}.sum" "$work/adapter.sum"
printf '\nreplace k8s.io/kubernetes => %s\n' "$copy" >> "$work/adapter.mod"
echo '{"Replace": {}}' > "$work/none.json"
if ! go build -modfile="$work/adapter.mod" -overlay "$work/none.json" -o "$work/unmutated" . 2> "$work/build.log"; then
	echo "the adapter does not build over the copy of $version:" >&2
	cat "$work/build.log" >&2
	exit 1
fi
if ! "$ksspec" conform --adapter "$work/unmutated" --profile "$profile" --expected-failures "expected-failures-$profile.txt" \
	--no-progress > "$work/unmutated.log" 2>&1; then
	echo "the unmutated copy of $version does not pass:" >&2
	tail -n 20 "$work/unmutated.log" >&2
	exit 1
fi
echo "unmutated copy of Kubernetes $version: passes"
survived=""
rejected=0
while IFS='|' read -r id file line original replacement bug; do
	case $id in "#"* | "") continue ;; esac
	if [ -n "$wanted" ] && ! echo " $wanted " | grep -q " $id "; then
		continue
	fi
	source_file="$copy/$file"
	actual=$(sed -n "${line}p" "$source_file" | sed 's/^[[:space:]]*//;s/[[:space:]]*$//')
	if [ "$actual" != "$original" ]; then
		echo "mutant $id: line $line of $file in $version is '$actual', not '$original'" >&2
		exit 1
	fi
	mkdir -p "$work/$id"
	mutated="$work/$id/$(basename "$file")"
	awk -v n="$line" -v text="$replacement" 'NR == n { match($0, /^[[:space:]]*/); print substr($0, 1, RLENGTH) text; next } { print }' \
		"$source_file" > "$mutated"
	printf '{"Replace": {"%s": "%s"}}\n' "$source_file" "$mutated" > "$work/$id/overlay.json"
	binary="$work/$id/kubernetes-adapter"
	if ! go build -modfile="$work/adapter.mod" -overlay "$work/$id/overlay.json" -o "$binary" . 2> "$work/$id/build.log"; then
		echo "mutant $id: does not build:" >&2
		cat "$work/$id/build.log" >&2
		exit 1
	fi
	"$ksspec" conform --adapter "$binary" --profile "$profile" --expected-failures "expected-failures-$profile.txt" \
		--no-progress --json "$work/$id/report.json" > /dev/null 2>&1 || true
	failing=$("$python" -c '
import json, sys
results = json.load(open(sys.argv[1]))["results"]
bad = sorted(r["id"] for r in results if r["outcome"] in ("fail", "error", "xpass"))
print(len(bad), " ".join(bad[:4]) + (" ..." if len(bad) > 4 else ""))
' "$work/$id/report.json")
	count=${failing%% *}
	if [ "$count" = 0 ]; then
		echo "SURVIVED $id ($bug): every vector passes"
		survived="$survived $id"
	else
		rejected=$((rejected + 1))
		echo "rejected $id ($bug): $count vectors fail, e.g. ${failing#* }"
	fi
done < mutants.txt
if [ -n "$survived" ]; then
	echo "the suite did not reject:$survived" >&2
	exit 1
fi
echo "all $rejected mutants of Kubernetes $version rejected"
