package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/kdissect/kdissect/dissect"
)

// noExchanges explains on w why a capture gave no exchange, from what the
// dissector counted: no packet at all (or none the capture filter passed),
// no TCP, TCP on the broker ports that never formed a frame (with the
// dissector's first problems), or no traffic on the broker ports.
func noExchanges(w io.Writer, st dissect.Stats, opts dissect.Options, filtered bool) {
	ports := fmt.Sprint(opts.Ports)
	switch {
	case opts.AnyPort:
		ports = "any"
	case len(opts.Ports) == 0:
		ports = fmt.Sprint([]uint16{dissect.DefaultPort})
	}
	var why string
	switch {
	case st.Packets == 0 && filtered:
		why = "the capture filter (-f) passed none of its packets"
	case st.Packets == 0:
		why = "no packet captured"
	case st.TCPPackets == 0:
		why = fmt.Sprintf("none of its %d packets is TCP over IPv4 or IPv6", st.Packets)
	case st.KafkaPackets > 0:
		why = fmt.Sprintf("%d TCP packets on broker ports %s carried no complete Kafka frame", st.KafkaPackets, ports)
		if len(st.Problems) > 0 {
			n := min(len(st.Problems), 3)
			why += ": " + strings.Join(st.Problems[:n], "; ")
		}
	default:
		why = fmt.Sprintf("no Kafka traffic in %d packets (%d TCP) on broker ports %s; name the broker port with -p, or -p any", st.Packets, st.TCPPackets, ports)
	}
	fmt.Fprintf(w, "kdissect: no Kafka exchanges: %s\n", why)
}
