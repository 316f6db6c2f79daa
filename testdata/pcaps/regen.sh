#!/usr/bin/env bash
# Regenerates the captures in testdata/pcaps (see README.md there).
#
# Each scenario starts internal/kfakebroker (franz-go's kfake) on
# 127.0.0.1:9092, starts tcpdump on that port, drives the broker with kcat
# (librdkafka) or with internal/franzclient (franz-go's kgo and kadm),
# stops tcpdump and then the broker. Record contents are fixed
# (keys k1..kN, values "rec-NNNN ...", headers h=v and src=regen); times,
# client ports and member ids are not, so the files differ byte-wise between
# runs but hold the same conversations.
#
# Needs root (or capture rights) for tcpdump, and go, tcpdump, kcat, tshark
# and capinfos on PATH. Run from anywhere:
#
#	bash testdata/pcaps/regen.sh
#
# Arguments, if any, name the captures to make (file names with or without
# .pcap, e.g. franz_groups); the others are left alone:
#
#	bash testdata/pcaps/regen.sh franz_groups kcat_group.pcap
set -euo pipefail

PORT=9092
BROKER=127.0.0.1:$PORT

die() {
	echo "regen.sh: $*" >&2
	exit 1
}

for tool in go tcpdump kcat tshark capinfos; do
	command -v "$tool" >/dev/null 2>&1 || die "required tool '$tool' not found on PATH"
done

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
OUT=$ROOT/testdata/pcaps
cd "$ROOT"

WORK=$(mktemp -d)
broker_pid=
tcpdump_pid=

cleanup() {
	local rc=$? pid
	for pid in $tcpdump_pid $broker_pid; do
		kill -INT "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
	done
	rm -rf "$WORK"
	exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

if (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null; then
	die "something already listens on port $PORT"
fi

# Every capture this script makes, in the order it makes them.
ALL=(kcat_produce_none kcat_produce_gzip kcat_produce_snappy kcat_produce_lz4
	kcat_produce_zstd kcat_metadata_offsets kcat_group kcat_legacy_msgset
	kcat_sll2_any franz_groups franz_transactions franz_admin franz_idempotent kcat_mtu
	kcat_old_versions)
ONLY=()
for arg in "$@"; do
	arg=${arg%.gz}
	arg=${arg%.pcap}
	[[ " ${ALL[*]} " == *" $arg "* ]] || die "unknown capture '$arg' (known: ${ALL[*]})"
	ONLY+=("$arg")
done

# selected FILE says whether FILE (name.pcap) is to be made in this run.
selected() {
	local name=${1%.pcap} o
	[[ ${#ONLY[@]} -eq 0 ]] && return 0
	for o in "${ONLY[@]}"; do
		[[ $o == "$name" ]] && return 0
	done
	return 1
}

echo "building kfakebroker and franzclient"
go build -o "$WORK/kfakebroker" ./internal/kfakebroker
go build -o "$WORK/franzclient" ./internal/franzclient

# start_broker ARGS... starts the fake broker and waits until it listens.
# The broker asks itself for its ApiVersions on start; that happens before it
# prints its address, so before any capture starts.
start_broker() {
	"$WORK/kfakebroker" -port "$PORT" "$@" >"$WORK/broker.out" 2>"$WORK/broker.err" &
	broker_pid=$!
	for _ in $(seq 100); do
		grep -qs "^127.0.0.1:$PORT\$" "$WORK/broker.out" && return 0
		kill -0 "$broker_pid" 2>/dev/null || break
		sleep 0.1
	done
	cat "$WORK/broker.err" >&2
	die "kfakebroker did not start"
}

stop_broker() {
	[[ -n $broker_pid ]] || return 0
	kill -TERM "$broker_pid" 2>/dev/null || true
	wait "$broker_pid" 2>/dev/null || true
	broker_pid=
	if [[ -s $WORK/broker.err ]]; then
		sed 's/^/  broker: /' "$WORK/broker.err" >&2
	fi
}

# start_capture FILE [IFACE] starts tcpdump writing WORK/FILE and waits
# until it captures.
start_capture() {
	local file=$1 iface=${2:-lo} dlt=()
	[[ $iface == any ]] && dlt=(-y LINUX_SLL2)
	# -Z: tcpdump started as root would otherwise drop to user tcpdump,
	# which cannot write into WORK.
	# --immediate-mode: without it packets still in the kernel ring when
	# tcpdump is stopped are lost, which can be all of a short capture.
	tcpdump -i "$iface" "${dlt[@]}" -B 8192 --immediate-mode -U -s 0 -Z "$(id -un)" \
		-w "$WORK/$file" "tcp port $PORT" 2>"$WORK/tcpdump.err" &
	tcpdump_pid=$!
	for _ in $(seq 100); do
		if grep -qs "listening on" "$WORK/tcpdump.err"; then
			# "listening on" comes a little before packets do, at
			# least on "any": without a pause the first ones are lost.
			sleep 1
			return 0
		fi
		kill -0 "$tcpdump_pid" 2>/dev/null || break
		sleep 0.1
	done
	cat "$WORK/tcpdump.err" >&2
	die "tcpdump did not start (root needed?)"
}

# stop_capture lets the last packets (FIN/ACK) land, stops tcpdump, which
# flushes on SIGINT, and waits for it.
stop_capture() {
	[[ -n $tcpdump_pid ]] || return 0
	sleep 0.5
	kill -INT "$tcpdump_pid" 2>/dev/null || true
	wait "$tcpdump_pid" 2>/dev/null || true
	tcpdump_pid=
}

# complete FILE checks that WORK/FILE is readable, that the kernel dropped
# nothing and that every TCP connection in it starts with its SYN, and that
# the client that made it did not fail (franz: WORK/FILE.failed).
complete() {
	local file=$WORK/$1 streams syns
	if [[ -e $file.failed ]]; then
		rm -f "$file.failed"
		return 1
	fi
	tcpdump -r "$file" >/dev/null 2>&1 || die "$1: tcpdump cannot read it"
	if ! grep -q "^0 packets dropped by kernel" "$WORK/tcpdump.err"; then
		echo "  tcpdump: $(tr '\n' ' ' <"$WORK/tcpdump.err")" >&2
		return 1
	fi
	streams=$(tshark -r "$file" -T fields -e tcp.stream 2>/dev/null | sort -u | wc -l)
	syns=$(tshark -r "$file" -Y 'tcp.flags.syn == 1 && tcp.flags.ack == 0' 2>/dev/null | wc -l)
	if [[ $streams -eq 0 || $streams -ne $syns ]]; then
		echo "  $streams TCP connections but $syns SYNs" >&2
		return 1
	fi
}

# scenario FILE FUNC [ARGS...] runs FUNC FILE ARGS..., which captures into
# WORK/FILE, and moves a complete capture to OUT. Loopback captures are
# rarely short of packets, but it happens (more so on "any"): then the
# scenario runs again, at most three times.
scenario() {
	local file=$1 fn=$2 try
	shift 2
	for try in 1 2 3; do
		echo "scenario $file (try $try)"
		"$fn" "$file" "$@"
		stop_capture
		stop_broker
		if complete "$file"; then
			mv "$WORK/$file" "$OUT/$file"
			printf '  wrote %s: %s bytes, %s packets\n' "$file" "$(stat -c %s "$OUT/$file")" \
				"$(capinfos -M -c "$OUT/$file" | awk -F': *' '/Number of packets/ {print $2}')"
			return 0
		fi
		rm -f "$WORK/$file"
	done
	die "$file: no complete capture in three tries"
}

# records FIRST LAST prints key<TAB>value lines: compressible values, since
# librdkafka sends a batch uncompressed when compressing does not shrink it.
records() {
	local i
	for ((i = $1; i <= $2; i++)); do
		printf 'k%d\trec-%04d the quick brown fox jumps over the lazy dog %04d\n' "$i" "$i" "$i"
	done
}

# produce TOPIC FIRST LAST KCAT-ARGS... produces records FIRST..LAST with
# keys (so the default partitioner spreads them by key hash) and two
# headers; linger.ms makes it one batch per partition.
produce() {
	local topic=$1 first=$2 last=$3
	shift 3
	records "$first" "$last" |
		kcat -b "$BROKER" -P -t "$topic" -K '\t' -H h=v -H src=regen -X linger.ms=100 "$@"
}

# consume TOPIC WANT KCAT-ARGS... reads TOPIC from the beginning to its end
# and checks that WANT records came back.
consume() {
	local topic=$1 want=$2 got
	shift 2
	got=$(kcat -b "$BROKER" -C -t "$topic" -o beginning -e -q -f '%p %o %k\n' "$@" | wc -l) ||
		die "$topic: kcat consumer failed"
	[[ $got -eq $want ]] || die "$topic: consumed $got records, want $want"
}

# want_codec FILE CODEC... checks that tshark finds record batches or
# messages compressed with each CODEC (0 none, 1 gzip, 2 snappy, 3 lz4,
# 4 zstd) in OUT/FILE.
want_codec() {
	local file=$1 codec n
	shift
	for codec in "$@"; do
		n=$(tshark -r "$OUT/$file" -d "tcp.port==$PORT,kafka" \
			-Y "kafka.batch_codec == $codec || kafka.message_codec == $codec" 2>/dev/null | wc -l)
		[[ $n -gt 0 ]] || die "$file: no frame carries codec $codec"
	done
}

# 1. Per codec: two produce runs, so each partition holds two batches, then
# a consumer that fetches them back.
produce_consume() {
	local file=$1 codec=$2 topic=produce-$2
	start_broker -topics "$topic:3"
	start_capture "$file"
	produce "$topic" 1 30 -z "$codec"
	produce "$topic" 31 60 -z "$codec"
	consume "$topic" 60
}

# 2. Metadata and ListOffsets against a topic that already holds data.
metadata_offsets() {
	start_broker -topics meta:3,other:1
	produce meta 1 30 # before the capture starts
	start_capture "$1"
	kcat -b "$BROKER" -L >/dev/null
	kcat -b "$BROKER" -L -t meta >/dev/null
	# -1 latest, -2 earliest, 1000000000000 (2001): the first record.
	kcat -b "$BROKER" -Q -t meta:0:-1 -t meta:1:-2 -t meta:2:1000000000000 >/dev/null
}

# 3. Balanced consumer group: find coordinator, join, sync, offset fetch,
# fetch, heartbeat, commit, leave; a second member run resumes from the
# committed offsets after ten more records.
group_member() {
	local secs=$1 want=$2 pid got
	kcat -b "$BROKER" -G kdissect-group -q -f '%p %o %k\n' \
		-X auto.offset.reset=earliest -X heartbeat.interval.ms=300 \
		-X auto.commit.interval.ms=500 grp >"$WORK/group.out" &
	pid=$!
	sleep "$secs"
	kill -INT "$pid" # kcat closes the consumer: final commit, LeaveGroup
	wait "$pid" || true
	got=$(wc -l <"$WORK/group.out")
	[[ $got -eq $want ]] || die "group member: got $got records, want $want"
}
group() {
	start_broker -topics grp:3
	produce grp 1 30 # before the capture starts
	start_capture "$1"
	group_member 4 30
	produce grp 31 40
	group_member 3 10
}

# 4. Legacy MessageSets. kfake has no Produce v0-2 or Fetch v0-3; with
# -legacy kfakebroker serves them and advertises Produce <= v2, Fetch <= v3,
# so librdkafka falls back to magic 1 (Produce v2, Fetch v3). Told not to
# ask for versions, with broker.version.fallback=0.9.0 it uses magic 0
# (Produce v1, Fetch v1), with 0.8.2 Produce v0 and Fetch v0.
legacy() {
	local codec
	local v09=(-X api.version.request=false -X broker.version.fallback=0.9.0)
	local v082=(-X api.version.request=false -X broker.version.fallback=0.8.2)
	start_broker -legacy -topics m1-gzip:3,m1-snappy:3,m1-lz4:3,m1-none:3,m0-gzip:3,m0-snappy:3,m0-lz4:3,m0-none:3
	start_capture "$1"
	for codec in gzip snappy lz4 none; do
		produce "m1-$codec" 1 30 -z "$codec"
		consume "m1-$codec" 30
	done
	for codec in gzip snappy lz4; do
		produce "m0-$codec" 1 30 -z "$codec" "${v09[@]}"
		consume "m0-$codec" 30 "${v09[@]}"
	done
	produce m0-none 1 30 "${v082[@]}"
	consume m0-none 30 "${v082[@]}"
}

# 4b. Old clients, told by client id: kcat told not to ask for versions
# and to speak as to a Kafka 0.9.0 broker (kcat-0.9.0) or 0.8.2 broker
# (kcat-0.8.2), so they send no ApiVersions; Produce v1 and Fetch v1, or
# v0 and v0 (removed in Kafka 4.0 by KIP-896), with Metadata v0 and
# ListOffsets v0. (From 0.10 on librdkafka asks for versions whatever
# api.version.request says; kfake's group coordinator fails librdkafka's
# JoinGroup v0, so no consumer group.) -legacy: kfake has no Produce and
# Fetch that old.
old_versions() {
	local old=(-X api.version.request=false -X broker.version.fallback)
	start_broker -legacy -topics old:3
	start_capture "$1"
	produce old 1 20 -z gzip "${old[@]}=0.9.0" -X client.id=kcat-0.9.0
	consume old 20 "${old[@]}=0.9.0" -X client.id=kcat-0.9.0
	produce old 21 30 "${old[@]}=0.8.2" -X client.id=kcat-0.8.2
	consume old 30 "${old[@]}=0.8.2" -X client.id=kcat-0.8.2
}

# 5. A short produce and consume captured on the "any" device: LINUX_SLL2.
sll2_any() {
	start_broker -topics sll2:3
	start_capture "$1" any
	produce sll2 1 20 -z gzip
	consume sll2 20
}

# 6. franz-go clients (internal/franzclient -scenario NAME) at the newest
# versions they and kfake share; kfakebroker answers ApiVersions as bare
# kfake does. franzclient creates its topics, checks that every record comes
# back (for idempotent, in a batch of its topic's codec: tshark 4.0 cannot
# read Produce v13 or Fetch v18, so want_codec cannot tell) and fails on
# anything but errors the broker answers with; a failed run is tried again
# like a capture that lost packets.
franz() {
	local file=$1 name=$2
	start_broker -kfake-versions
	start_capture "$file"
	if ! "$WORK/franzclient" -brokers "$BROKER" -scenario "$name" -timeout 90s; then
		echo "  franzclient -scenario $name failed" >&2
		: >"$WORK/$file.failed"
	fi
}

# want_api FILE KEY... checks that tshark finds frames of each API KEY in
# OUT/FILE (it reads the key of requests it has no dissector for, too).
want_api() {
	local file=$1 keys key
	shift
	keys=$(tshark -r "$OUT/$file" -d "tcp.port==$PORT,kafka" -T fields -e kafka.api_key 2>/dev/null | sort -u)
	for key in "$@"; do
		grep -qx "$key" <<<"$keys" || die "$file: no frame of API key $key"
	done
}

# small FILE checks that OUT/FILE stays below 500 KB.
small() {
	local size
	size=$(stat -c %s "$OUT/$1")
	[[ $size -lt 512000 ]] || die "$1: $size bytes, more than 500 KB"
}

mkdir -p "$OUT"

declare -A codec_id=([none]=0 [gzip]=1 [snappy]=2 [lz4]=3 [zstd]=4)
for codec in none gzip snappy lz4 zstd; do
	selected "kcat_produce_$codec" || continue
	scenario "kcat_produce_$codec.pcap" produce_consume "$codec"
	want_codec "kcat_produce_$codec.pcap" "${codec_id[$codec]}"
done
if selected kcat_metadata_offsets; then
	scenario kcat_metadata_offsets.pcap metadata_offsets
fi
if selected kcat_group; then
	scenario kcat_group.pcap group
fi
if selected kcat_legacy_msgset; then
	scenario kcat_legacy_msgset.pcap legacy
	want_codec kcat_legacy_msgset.pcap 0 1 2 3
fi
if selected kcat_old_versions; then
	scenario kcat_old_versions.pcap old_versions
	want_codec kcat_old_versions.pcap 1
	want_api kcat_old_versions.pcap 0 1 2 3
	small kcat_old_versions.pcap
fi
if selected kcat_sll2_any; then
	scenario kcat_sll2_any.pcap sll2_any
	want_codec kcat_sll2_any.pcap 1
	capinfos -E "$OUT/kcat_sll2_any.pcap" | grep -q "Linux cooked-mode capture v2" ||
		die "kcat_sll2_any.pcap: link type is not LINUX_SLL2"
fi

# API keys each franz capture must hold (requests), beside ApiVersions and
# Metadata: group and offset APIs and KIP-848's ConsumerGroupHeartbeat and
# ConsumerGroupDescribe; transactions at transaction.version 2 and then 1;
# admin APIs; idempotent Produce and Fetch.
declare -A franz_apis=(
	[groups]="8 9 10 11 12 13 14 15 16 42 44 47 68 69"
	[transactions]="0 1 22 24 25 26 28 57 61 65 66"
	[admin]="2 19 20 21 23 29 30 31 32 33 34 35 37 43 44 45 46 48 49 50 51 57 60 74 75"
	[idempotent]="0 1 2 19 22"
)
for name in groups transactions admin idempotent; do
	selected "franz_$name" || continue
	scenario "franz_$name.pcap" franz "$name"
	# shellcheck disable=SC2086 # a list of keys
	want_api "franz_$name.pcap" ${franz_apis[$name]}
	small "franz_$name.pcap"
done

# Ethernet-sized packets: bench/kcatcap.sh runs its own broker, kcat and
# tcpdump in a network namespace whose loopback has an MTU of 1500.
if selected kcat_mtu; then
	bash "$ROOT/bench/kcatcap.sh" "$OUT/kcat_mtu.pcap" 12000 2
	gzip -9 -f "$OUT/kcat_mtu.pcap"
fi

echo "done"
