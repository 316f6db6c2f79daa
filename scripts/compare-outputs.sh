#!/usr/bin/env bash
# scripts/compare-outputs.sh OLD NEW: runs two kdissect builds on every
# capture of testdata/pcaps and ../shared/pcaps-public (with the port
# ports.tsv gives it) in the views users keep (JSON Lines, the summary
# table, stats as JSON and text) and prints, for each capture and view,
# "same" or the number of lines that differ, then a total. Exit status 1
# when anything differs. A restructuring that promises "behaviour
# unchanged" quotes its output; with DIFF=1 the differing lines are shown.
#
#   go build -o /tmp/old ./cmd/kdissect   # at the merge base
#   go build -o /tmp/new ./cmd/kdissect   # at the change
#   bash scripts/compare-outputs.sh /tmp/old /tmp/new
set -uo pipefail
old=$1 new=$2
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
pub=$root/../shared/pcaps-public
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
caps=()
for f in "$root"/testdata/pcaps/*.pcap "$root"/testdata/pcaps/*.pcap.gz; do
	[ -e "$f" ] && caps+=("$f|")
done
if [ -f "$pub/ports.tsv" ]; then
	while IFS=$'\t' read -r name port; do
		[ -e "$pub/$name" ] && caps+=("$pub/$name|$port")
	done <"$pub/ports.tsv"
fi
views=("json:read --format json" "table:read" "stats-json:stats --format json" "stats:stats")
differ=0 same=0
for c in "${caps[@]}"; do
	cap=${c%|*} port=${c##*|}
	args=()
	[ -z "$port" ] || args=(-p "$port")
	for v in "${views[@]}"; do
		name=${v%%:*} cmd=${v#*:}
		# shellcheck disable=SC2086
		"$old" $cmd "${args[@]}" "$cap" >"$tmp/old" 2>&1
		# shellcheck disable=SC2086
		"$new" $cmd "${args[@]}" "$cap" >"$tmp/new" 2>&1
		if cmp -s "$tmp/old" "$tmp/new"; then
			same=$((same + 1))
			continue
		fi
		differ=$((differ + 1))
		n=$(diff "$tmp/old" "$tmp/new" | grep -c '^[<>]')
		echo "$(basename "$cap") $name: $n lines differ"
		[ -z "${DIFF:-}" ] || diff "$tmp/old" "$tmp/new" | head -"${DIFF_LINES:-20}"
	done
done
echo "compare-outputs: ${#caps[@]} captures x ${#views[@]} views: $same the same, $differ differ"
[ "$differ" = 0 ]
