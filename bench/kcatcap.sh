#!/usr/bin/env bash
# bench/kcatcap.sh: a capture of real kcat (librdkafka) traffic, shaped like
# the one issue 8 measured tshark on: lz4-compressed batches, records
# produced once and fetched three times, Ethernet-sized packets.
#
#   bench/kcatcap.sh OUT.pcap [RECORDS] [READS]     # defaults 300000 and 3
#
# It runs internal/kfakebroker (franz-go's kfake), tcpdump and kcat in a
# network namespace of their own whose loopback has an MTU of 1500 and no
# segmentation offloads, so that tcpdump sees packets of at most 1514
# bytes, as on a real network, not the 64 KiB super-packets of the host's
# loopback; the host's own network is not touched. kcat produces RECORDS
# JSON-like records (about 150 bytes each, keyed, lz4) to 3 partitions, then
# READS kcat consumers each read them all. The records come from a fixed
# seed; times and client ports differ between runs.
#
# Needs root (network namespace, capture), ip, ethtool, tcpdump, kcat, go.
set -euo pipefail

out=${1:?usage: bench/kcatcap.sh OUT.pcap [RECORDS] [READS]}
records=${2:-300000}
reads=${3:-3}
root=$(cd "$(dirname "$0")/.." && pwd)
port=9092 # inside the namespace: no clash with a broker on the host
broker=127.0.0.1:$port
ns=kdissect-bench-$$

for tool in ip ethtool tcpdump kcat go; do
	command -v "$tool" >/dev/null || { echo "kcatcap: $tool not found" >&2; exit 1; }
done
[ "$(id -u)" = 0 ] || { echo "kcatcap: needs root (network namespace and capture)" >&2; exit 1; }

work=$(mktemp -d)
pids=()
cleanup() {
	local rc=$? pid
	for pid in "${pids[@]}"; do
		kill -INT "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
	done
	ip netns del "$ns" 2>/dev/null || true
	rm -rf "$work"
	exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

(cd "$root" && go build -o "$work/kfakebroker" ./internal/kfakebroker)
ip netns add "$ns"
in_ns() { ip netns exec "$ns" "$@"; }
in_ns ip link set lo up
in_ns ip link set lo mtu 1500
in_ns ethtool -K lo tso off gso off gro off >/dev/null

# ip netns exec execs the command: $! is the broker's and tcpdump's own pid.
ip netns exec "$ns" "$work/kfakebroker" -port "$port" -topics bench:3 >"$work/broker.log" 2>&1 &
pids+=($!)
for _ in $(seq 50); do
	in_ns bash -c "exec 3<>/dev/tcp/127.0.0.1/$port" 2>/dev/null && break
	sleep 0.1
done
ip netns exec "$ns" tcpdump -i lo -s 0 -B 262144 -Z root -w "$out" "tcp port $port" 2>"$work/tcpdump.log" &
tcpdump_pid=$!
pids=("$tcpdump_pid" "${pids[@]}")
for _ in $(seq 50); do
	grep -q listening "$work/tcpdump.log" 2>/dev/null && break
	sleep 0.1
done

# Records: a key, then a JSON-like value with some repetition (field
# names, users) and some noise (ids, amounts), as application events are.
awk -v n="$records" 'BEGIN {
	srand(8)
	for (i = 0; i < n; i++) {
		u = int(rand() * 5000)
		printf "user-%d\t{\"event\":\"order-%d\",\"user\":\"user-%d\",\"ts\":%d,\"amount\":%.2f,\"items\":%d,\"region\":\"eu-west-%d\",\"note\":\"%08x%08x\"}\n",
			u, i, u, 1700000000000 + i * 7, rand() * 1000, 1 + int(rand() * 9), int(rand() * 3), int(rand() * 4294967295), int(rand() * 4294967295)
	}
}' >"$work/records.txt"

in_ns kcat -P -b "$broker" -t bench -z lz4 -K '\t' -X linger.ms=20 -X batch.num.messages=2000 -l "$work/records.txt"
for r in $(seq "$reads"); do
	got=$(in_ns kcat -C -b "$broker" -t bench -e -q -f 'x\n' | wc -l)
	[ "$got" = "$records" ] || { echo "kcatcap: read $r got $got of $records records" >&2; exit 1; }
done
sleep 0.5
kill -INT "$tcpdump_pid"
wait "$tcpdump_pid" 2>/dev/null || true
pids=("${pids[@]:1}")
# Fetch responses of megabytes arrive at loopback speed: a capture that
# lost packets would measure gaps, not decoding.
if ! grep -q '^0 packets dropped by kernel' "$work/tcpdump.log"; then
	echo "kcatcap: tcpdump lost packets, run again:" >&2
	cat "$work/tcpdump.log" >&2
	exit 1
fi
echo "kcatcap: $out: $(stat -c %s "$out") bytes, $records records produced (lz4), read $reads times" >&2
