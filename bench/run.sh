#!/usr/bin/env bash
# bench/run.sh: kdissect against tshark on synthetic captures (bench/gencap).
#
#   bench/run.sh [SIZE|kcat|FILE...]     # default: kcat 80MB 1GB (kcat when root)
#   DROP=0.5% SNAP=128 bench/run.sh FILE # also a damaged copy of each
#
# For each size it writes a synthetic capture (bench/gencap); "kcat" is a
# capture of real kcat traffic instead (bench/kcatcap.sh: about 70 MB,
# lz4, 300k records produced and 900k fetched, MTU-sized packets; needs
# root); an existing FILE (pcap or pcapng) is used as it is. Captures are
# kept in $BENCH_DIR (default /tmp/kdissect-bench) and reused by later
# runs. Then it times, in the same run, each command $RUNS
# times (default 3; $TSHARK_RUNS, default $RUNS, for tshark) and prints the
# median wall time, MB/s, exchanges/s and the median peak RSS (GNU time's
# maximum resident set size), and how many times faster kdissect is than
# tshark at the same job:
#
#   kdissect stats                 vs  tshark -q -Y kafka  (runs the Kafka
#                                                          dissector, builds
#                                                          no tree to print)
#                                      tshark -q -z expert (builds the tree)
#                                      tshark -q -z io,stat,0,COUNT(kafka.record_attributes)...
#                                                          (counts every record,
#                                                          as stats does)
#   kdissect read --format json    vs  tshark -T json -O kafka
#   kdissect read                  vs  tshark              (one line per packet)
#
# `tshark -q` alone is timed too, for reference: with nothing to print, no
# filter and no tap, tshark dissects nothing at all (tshark.c:
# do_dissection = print_packet_info || rfcode || dfcode || ... ||
# tap_listeners_require_dissection()), so it only reads the frames; the
# Kafka dissector never runs, whatever -d says.
#
# Damaged captures: with DROP (a fraction of packets, 0.005, or a
# percentage, 0.5%) or SNAP (a snap length in bytes) set, it also writes a
# damaged copy of each capture beside it with bench/capedit (packets lost
# at random with seed $SEED, default 1, only TCP segments with payload
# unless PAYLOAD_ONLY=0; every packet cut to SNAP bytes, its original
# length kept, as editcap -s does), times the same commands on the copy,
# and prints how many times longer each took on the damaged copy than on
# the clean one ("damaged/clean", kdissect and tshark alike; above 1 is
# slower). The copy is written afresh each run (capedit is deterministic).
#
# SINK=1 also times what the exporters cost: read --format json with and
# without --metrics (a server on a loopback port) and --sink, and stats
# beside read -q --metrics and read -q --sink; the sink produces to a
# kfakebroker
# (internal/kfakebroker) running as a process of its own, so that the
# broker's work is not counted; CPU (user+sys) is printed with each
# command, since the sink's work runs beside the dissection.
#
# PORT (default 9092) is given to kdissect as -p PORT, as a user types it
# (tshark gets -d tcp.port==PORT,kafka). "kdissect stats -p 1" is timed
# too: the same capture read and parsed with no Kafka on that port, the
# floor of reading packets.
#
# WRITE=1 writes the tables of the run into README.md and
# docs/performance.md itself, replacing the block between
# "<!-- bench/run.sh: begin -->" and "<!-- bench/run.sh: end -->" in each,
# with the command line, commit, machine, tshark and Go versions and date:
# no figure there is typed by hand (internal/benchdoc's test checks that
# the README quotes none outside that block).
#
# BASELINE=path/to/another/kdissect also times that build, for before and
# after numbers. Output goes to /dev/null. Needs go, tshark and GNU time
# (/usr/bin/time). Not part of go test: timings depend on the machine and
# its load; repeat runs and read the medians.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
dir=${BENCH_DIR:-/tmp/kdissect-bench}
runs=${RUNS:-3}
truns=${TSHARK_RUNS:-$runs}
sizes=("$@")
if [ ${#sizes[@]} -eq 0 ]; then
	sizes=(80MB 1GB)
	[ "$(id -u)" != 0 ] || sizes=(kcat "${sizes[@]}")
fi

for tool in go tshark /usr/bin/time; do
	command -v "$tool" >/dev/null || { echo "bench: $tool not found" >&2; exit 1; }
done
mkdir -p "$dir"
(cd "$root" && go build -o "$dir/kdissect" ./cmd/kdissect && go build -o "$dir/gencap" ./bench/gencap && go build -o "$dir/capedit" ./bench/capedit)
damage=()
[ -z "${DROP:-}" ] || damage+=(-drop "$DROP" -seed "${SEED:-1}")
[ -z "${DROP:-}" ] || [ "${PAYLOAD_ONLY:-1}" = 0 ] || damage+=(-payload-only)
[ -z "${SNAP:-}" ] || damage+=(-s "$SNAP")

port=${PORT:-9092}
machine="$(nproc) cores ($(awk -F': ' '/^model name/ {print $2; exit}' /proc/cpuinfo)), $(uname -sr)"
versions="$(tshark --version 2>/dev/null | head -1 | sed 's/\.$//'), $(cd "$root" && go version | awk '{print $3}')"
commit=$(cd "$root" && git rev-parse --short HEAD 2>/dev/null)$(cd "$root" && git diff --quiet HEAD -- 2>/dev/null || echo "+changes")
echo "machine: $machine; $versions; commit $commit"
# The tables of the run, in Markdown, for WRITE=1.
doc=$(mktemp)
readme=$(mktemp)
trap 'rm -f "$doc" "$readme"' EXIT

# measure NAME N CMD...: runs CMD N times; prints and keeps (in $wall and
# $rss) the median wall seconds and peak RSS in MB.
measure() {
	local name=$1 n=$2; shift 2
	local walls=() rsss=() cpus=() out
	for ((i = 0; i < n; i++)); do
		out=$(/usr/bin/time -f '%e %M %U %S' "$@" 2>&1 >/dev/null | tail -1)
		read -r w r u s <<<"$out"
		walls+=("$w")
		rsss+=("$r")
		cpus+=("$(awk -v u="$u" -v s="$s" 'BEGIN {print u+s}')")
	done
	wall=$(printf '%s\n' "${walls[@]}" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
	rss=$(printf '%s\n' "${rsss[@]}" | sort -g | awk '{a[NR]=$1} END {printf "%.0f", a[int((NR+1)/2)]/1024}')
	cpu=$(printf '%s\n' "${cpus[@]}" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
	mbps=$(awk -v b="$bytes" -v w="$wall" 'BEGIN {printf "%.0f", b/1e6/(w>0?w:0.01)}')
	printf '  %-34s %8.2f s %9.1f MB/s %10.0f exch/s %7s MB RSS %6.2f s CPU   (walls: %s)\n' \
		"$name" "$wall" "$(awk -v b="$bytes" -v w="$wall" 'BEGIN {print b/1e6/(w>0?w:0.01)}')" \
		"$(awk -v e="$exchanges" -v w="$wall" 'BEGIN {print e/(w>0?w:0.01)}')" "$rss" "$cpu" "${walls[*]}"
}

ratio() { awk -v t="$1" -v k="$2" 'BEGIN {printf "%.1f", t/(k>0?k:0.01)}'; }

# info CAP WHAT: the one-line description of a capture that run.sh keeps
# in CAP.info; its sixth field is the number of exchanges.
info() {
	echo "$2: $(stat -L -c %s "$1") bytes, $(capinfos -c -M "$1" 2>/dev/null | awk '/Number of packets/ {print $NF}') packets, $("$dir/kdissect" read --format json "$1" | wc -l) exchanges ($3)"
}

# bench CAP INFO: times every command on CAP (described in the file INFO);
# keeps the median walls in ks kj kr (kdissect stats, read --format json,
# read) and ts te tc tj tq tr (tshark).
bench() {
	local cap=$1 kw kb
	bytes=$(stat -L -c %s "$cap")
	exchanges=$(awk '{print $6}' "$2")
	echo
	echo "capture $cap: $(cat "$2")"
	k="$dir/kdissect"
	t=(tshark -n -r "$cap" -d "tcp.port==$port,kafka")
	{
		echo
		echo "**$(sed 's/^[^:]*: //' "$2")**, \`$(basename "$cap")\`:"
		echo
		echo "| command | kdissect | ${BASELINE:+merge base | }tshark | kdissect faster |"
		echo "|---|---|${BASELINE:+---|}---|---|"
	} >>"$doc"
	measure "kdissect stats -p $port" "$runs" "$k" stats -p "$port" "$cap"; ks=$wall; kw=$(cell); kb=
	[ -z "${BASELINE:-}" ] || { measure "baseline stats" "$runs" "$BASELINE" stats -p "$port" "$cap"; kb=$(cell); }
	measure "tshark -q -Y kafka" "$truns" "${t[@]}" -q -Y kafka; ts=$wall
	row "\`stats -p $port\` / \`tshark -q -Y kafka\`" "$kw" "$kb" "$(cell)" "$(ratio "$ts" "$ks")×"
	measure "tshark -q -z expert" "$truns" "${t[@]}" -q -z expert; te=$wall
	row "\`stats -p $port\` / \`tshark -q -z expert\`" "$kw" "$kb" "$(cell)" "$(ratio "$te" "$ks")×"
	measure "tshark -q -z io,stat (records)" "$truns" "${t[@]}" -q -z 'io,stat,0,COUNT(kafka.record_attributes)kafka.record_attributes'; tc=$wall
	row "\`stats -p $port\` / \`tshark -q -z io,stat\` counting records" "$kw" "$kb" "$(cell)" "$(ratio "$tc" "$ks")×"
	measure "kdissect stats -p 1 (no Kafka)" "$runs" "$k" stats -p 1 "$cap"; kw=$(cell); kb=
	[ -z "${BASELINE:-}" ] || { measure "baseline stats -p 1" "$runs" "$BASELINE" stats -p 1 "$cap"; kb=$(cell); }
	measure "tshark -q (reads frames, no dissection)" "$truns" "${t[@]}" -q; tq=$wall
	row "\`stats -p 1\` (no Kafka there: reading packets) / \`tshark -q\` (reads frames, dissects nothing)" "$kw" "$kb" "$(cell)" ""
	measure "kdissect read --format json -p $port" "$runs" "$k" read --format json -p "$port" "$cap"; kj=$wall; kw=$(cell); kb=
	[ -z "${BASELINE:-}" ] || { measure "baseline read --format json" "$runs" "$BASELINE" read --format json -p "$port" "$cap"; kb=$(cell); }
	measure "tshark -T json -O kafka" "$truns" "${t[@]}" -T json -O kafka; tj=$wall
	row "\`read --format json -p $port\` / \`tshark -T json -O kafka\`" "$kw" "$kb" "$(cell)" "$(ratio "$tj" "$kj")×"
	measure "kdissect read -p $port" "$runs" "$k" read -p "$port" "$cap"; kr=$wall; kw=$(cell); kb=
	[ -z "${BASELINE:-}" ] || { measure "baseline read" "$runs" "$BASELINE" read -p "$port" "$cap"; kb=$(cell); }
	measure "tshark (summary lines)" "$truns" "${t[@]}"; tr=$wall
	row "\`read -p $port\` / \`tshark\` (a line a packet)" "$kw" "$kb" "$(cell)" "$(ratio "$tr" "$kr")×"
	echo "| $(sed 's/^[^(]*(//; s/[;)].*//' "$2"), $(awk -v b="$bytes" 'BEGIN {printf "%.0f", b/1e6}') MB | $(ratio "$ts" "$ks")× (${ks} s) | $(ratio "$tj" "$kj")× (${kj} s) |" >>"$readme"
	if [ -n "${SINK:-}" ]; then
		local kjc
		measure "kdissect read --format json" "$runs" "$k" read --format json -p "$port" "$cap"; kj=$wall kjc=$cpu
		measure "  ... --metrics" "$runs" "$k" read --format json -p "$port" --metrics 127.0.0.1:0 "$cap"
		echo "  --metrics: $(slower "$kj" "$wall")x the wall of read --format json, $(slower "$kjc" "$cpu")x its CPU"
		measure "  ... --sink (kfakebroker)" "$runs" "$k" read --format json -p "$port" --sink "kafka://$sinkaddr/exchanges" "$cap"
		echo "  --sink: $(slower "$kj" "$wall")x the wall of read --format json, $(slower "$kjc" "$cpu")x its CPU"
		local ksc
		measure "kdissect stats" "$runs" "$k" stats -p "$port" "$cap"; ks=$wall ksc=$cpu
		measure "kdissect read -q --metrics" "$runs" "$k" read -q -p "$port" --metrics 127.0.0.1:0 "$cap"
		echo "  -q --metrics: $(slower "$ks" "$wall")x the wall of stats, $(slower "$ksc" "$cpu")x its CPU"
		measure "kdissect read -q --sink (kfakebroker)" "$runs" "$k" read -q -p "$port" --sink "kafka://$sinkaddr/exchanges" "$cap"
		echo "  -q --sink: $(slower "$ks" "$wall")x the wall of stats, $(slower "$ksc" "$cpu")x its CPU"
	fi
	echo "  kdissect faster than tshark: stats $(ratio "$ts" "$ks")x vs -q -Y kafka, $(ratio "$te" "$ks")x vs -q -z expert, $(ratio "$tc" "$ks")x vs -q -z io,stat (records);" \
		"json $(ratio "$tj" "$kj")x; summary $(ratio "$tr" "$kr")x"
}

# cell: the last measure as a table cell: wall, MB/s, peak RSS, CPU.
cell() { printf '%.2f s, %s MB/s, %s MB RSS, %.2f s CPU' "$wall" "$mbps" "$rss" "$cpu"; }

# row COMMAND KDISSECT BASELINE TSHARK RATIO: a row of the run's table.
row() {
	if [ -n "${BASELINE:-}" ]; then
		echo "| $1 | $2 | $3 | $4 | $5 |" >>"$doc"
	else
		echo "| $1 | $2 | $4 | $5 |" >>"$doc"
	fi
}

# slower CLEAN DAMAGED: how many times longer the damaged copy took.
slower() { awk -v c="$1" -v d="$2" 'BEGIN {printf "%.2f", (d>0?d:0.01)/(c>0?c:0.01)}'; }

if [ -n "${SINK:-}" ]; then
	(cd "$root" && go build -o "$dir/kfakebroker" ./internal/kfakebroker)
	port=$((20000 + RANDOM % 20000))
	"$dir/kfakebroker" -port "$port" -topics exchanges:3 >"$dir/kfakebroker.out" 2>&1 &
	broker=$!
	trap 'kill $broker 2>/dev/null; rm -f "$doc" "$readme"' EXIT
	for _ in $(seq 50); do [ -s "$dir/kfakebroker.out" ] && break; sleep 0.1; done
	sinkaddr=$(head -1 "$dir/kfakebroker.out")
fi

for size in "${sizes[@]}"; do
	if [ -f "$size" ]; then
		# A given capture: its description is kept in $dir, written afresh.
		cap=$size
		infof=$dir/$(basename "$cap").info
		info "$cap" capture "given: $cap" >"$infof"
	else
		cap=$dir/bench-$size.pcap
		infof=$cap.info
		if [ ! -s "$cap" ] || [ ! -s "$infof" ]; then
			if [ "$size" = kcat ]; then
				bash "$root/bench/kcatcap.sh" "$cap"
				info "$cap" kcatcap "real kcat traffic: bench/kcatcap.sh" >"$infof"
			else
				"$dir/gencap" -size "$size" -o "$cap" 2>"$infof"
			fi
		fi
	fi
	bench "$cap" "$infof"
	[ ${#damage[@]} -gt 0 ] || continue
	clean=("$ks" "$kj" "$kr" "$ts" "$te" "$tc" "$tj" "$tq" "$tr")
	tag=$(printf '%s' "${damage[*]}" | tr -d ' %' | tr -c 'A-Za-z0-9.\n-' _)
	dcap=$dir/$(basename "${cap%.*}")$tag.pcap
	"$dir/capedit" "${damage[@]}" "$cap" "$dcap" 2>"$dcap.log" || { cat "$dcap.log" >&2; exit 1; }
	info "$dcap" capedit "damaged copy of $(basename "$cap"): capedit ${damage[*]}; $(sed 's/^capedit: //' "$dcap.log")" >"$dcap.info"
	bench "$dcap" "$dcap.info"
	echo "  damaged/clean: kdissect stats $(slower "${clean[0]}" "$ks")x, json $(slower "${clean[1]}" "$kj")x, summary $(slower "${clean[2]}" "$kr")x;" \
		"tshark -q -Y kafka $(slower "${clean[3]}" "$ts")x, -q -z expert $(slower "${clean[4]}" "$te")x, -q -z io,stat $(slower "${clean[5]}" "$tc")x," \
		"-T json $(slower "${clean[6]}" "$tj")x, -q $(slower "${clean[7]}" "$tq")x, summary $(slower "${clean[8]}" "$tr")x"
	echo >>"$doc"
	echo "Damaged copy against the clean capture (time on the copy ÷ time on the original; above 1 is slower): kdissect \`stats\` $(slower "${clean[0]}" "$ks")×, \`read --format json\` $(slower "${clean[1]}" "$kj")×, \`read\` $(slower "${clean[2]}" "$kr")×; tshark \`-q -Y kafka\` $(slower "${clean[3]}" "$ts")×, \`-T json\` $(slower "${clean[6]}" "$tj")×." >>"$doc"
done

[ -n "${WRITE:-}" ] || exit 0
# The run's tables replace the marked blocks, one file at a time through
# a temporary file renamed over it.
cmdline="${BASELINE:+BASELINE=<build of the merge base> }RUNS=$runs TSHARK_RUNS=$truns${DROP:+ DROP=$DROP}${SNAP:+ SNAP=$SNAP}${PORT:+ PORT=$PORT} WRITE=1 bash bench/run.sh ${sizes[*]}"
stamp="Written by \`$cmdline\` at commit $commit on $(date -u +%Y-%m-%d), on $machine; $versions. Wall times are medians of the runs; a machine shared with other work makes them noisy."
replace() { # FILE BODY-FILE
	awk -v body="$2" '
		/<!-- bench\/run.sh: begin -->/ { print; while ((getline l < body) > 0) print l; skip = 1; next }
		/<!-- bench\/run.sh: end -->/ { skip = 0 }
		!skip' "$1" >"$1.tmp" && mv "$1.tmp" "$1"
	grep -q '<!-- bench/run.sh: end -->' "$1" || { echo "bench: no marked block in $1" >&2; exit 1; }
}
{ echo; echo "$stamp"; cat "$doc"; echo; } >"$doc.body"
{
	echo
	echo "| capture | \`stats\` faster than \`tshark -q -Y kafka\` | \`read --format json\` faster than \`tshark -T json -O kafka\` |"
	echo "|---|---|---|"
	cat "$readme"
	echo
	echo "$stamp Every command and the memory it takes: [docs/performance.md](docs/performance.md)."
	echo
} >"$readme.body"
replace "$root/docs/performance.md" "$doc.body"
replace "$root/README.md" "$readme.body"
rm -f "$doc.body" "$readme.body"
echo "bench: wrote the tables into README.md and docs/performance.md"
