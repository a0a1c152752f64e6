#!/usr/bin/env bash
# scripts/mutate.sh (make mutate): a small mutation check of the lifecycle
# rules. For each site in the site list (scripts/mutants.txt, or the file
# given as $1) it replaces one exact snippet of a file of internal/lifecycle
# (a condition inverted or removed), runs the hermetic tests of
# internal/lifecycle (TF_ACC and BAREMETAL_IRONIC_TESTS unset: no Ironic,
# no Terraform), and puts the file back. A mutant is killed when the tests
# fail, survived when they pass. It prints each site, then sites, killed,
# survived and the run time.
#
# Exit 1 when a mutant survives, when a site's snippet is not found exactly
# once in its file, when a mutant does not build, or when the tests fail
# without any mutant. The tree is always restored (trap on EXIT, INT and
# TERM), and the script checks that every file it touched is back as it was.
#
# To add a site, add a line to scripts/mutants.txt: file, exact original
# snippet (one line, occurring once in the file), replacement, one-line
# reason, separated by TABs (its header says more). Run `make mutate`; a
# survivor names the rule that no test proves: add the test that kills it.
set -euo pipefail

cd "$(dirname "$0")/.."
sites_file=${1:-scripts/mutants.txt}
pkg=./internal/lifecycle/
GO=${GO:-go}
unset TF_ACC BAREMETAL_IRONIC_TESTS

work=$(mktemp -d)
current="" # the file a mutant is in, while it is

restore() {
	if [[ -n $current ]]; then
		cp "$work/original" "$current"
		current=""
	fi
}
cleanup() {
	restore
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# count_in prints how often the literal $2 occurs in the text $1.
count_in() {
	local rest=$1 n=0
	while [[ $rest == *"$2"* ]]; do
		rest=${rest#*"$2"}
		n=$((n + 1))
	done
	echo "$n"
}

# Read and check every site before running anything.
files=() originals=() replacements=() reasons=()
bad=0
lineno=0
while IFS= read -r line || [[ -n $line ]]; do
	lineno=$((lineno + 1))
	[[ -z ${line//[[:space:]]/} || $line == \#* ]] && continue
	IFS=$'\t' read -r file original replacement reason <<<"$line"
	if [[ -z $file || -z $original || -z $replacement || -z $reason ]]; then
		echo "$sites_file:$lineno: want four TAB-separated fields: file, original, replacement, reason" >&2
		bad=1
		continue
	fi
	if [[ $file != internal/lifecycle/* || ! -f $file ]]; then
		echo "$sites_file:$lineno: $file is not a file of internal/lifecycle" >&2
		bad=1
		continue
	fi
	n=$(count_in "$(<"$file")" "$original")
	if [[ $n != 1 ]]; then
		echo "$sites_file:$lineno: the snippet occurs $n times in $file, want exactly once: $original" >&2
		bad=1
		continue
	fi
	files+=("$file") originals+=("$original") replacements+=("$replacement") reasons+=("$reason")
done <"$sites_file"
if ((bad)); then
	exit 1
fi

run_tests() {
	"$GO" test -p 1 -count=1 -failfast -vet=off -timeout 60s "$pkg" >"$work/out" 2>&1
}

start=$SECONDS
if ! run_tests; then
	cat "$work/out" >&2
	echo "the tests of $pkg fail without any mutant: fix them first" >&2
	exit 1
fi

killed=0 survived=0 unbuilt=0
for i in "${!files[@]}"; do
	file=${files[$i]} original=${originals[$i]} replacement=${replacements[$i]}
	cp "$file" "$work/original"
	current=$file
	text=$(<"$file")
	printf '%s\n' "${text/"$original"/"$replacement"}" >"$file"
	if run_tests; then
		verdict=SURVIVED
		survived=$((survived + 1))
	elif grep -q -e '\[build failed\]' -e '^# ' "$work/out"; then
		verdict=UNBUILT
		unbuilt=$((unbuilt + 1))
	else
		verdict=killed
		killed=$((killed + 1))
	fi
	restore
	by=$(grep -m1 -o -e '--- FAIL: [^ ]*' -e '^panic: .*' "$work/out" || true)
	printf '%-8s %s: %s -> %s (%s)%s\n' "$verdict" "$file" "$original" "$replacement" "${reasons[$i]}" "${by:+ [${by#--- FAIL: }]}"
	if [[ $verdict == UNBUILT ]]; then
		sed -n '1,5p' "$work/out"
	fi
done

for file in $(printf '%s\n' "${files[@]}" | sort -u); do
	if ! git diff --quiet -- "$file"; then
		echo "$file differs from git after the run: check it" >&2
		exit 1
	fi
done

echo "sites: ${#files[@]}  killed: $killed  survived: $survived  did not build: $unbuilt  time: $((SECONDS - start))s"
if ((survived > 0 || unbuilt > 0)); then
	exit 1
fi
