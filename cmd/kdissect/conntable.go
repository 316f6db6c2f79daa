package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/kdissect/kdissect/dissect"
)

// warnConnTable says on w what the dissector's connection table did when
// more connections were open at once than it keeps
// (dissect.Options.MaxConnections): connections evicted (a flood of
// one-packet flows from spoofed addresses evicts itself), packets of
// others not dissected.
func warnConnTable(w io.Writer, st dissect.Stats) {
	if st.ConnEvicted == 0 && st.ConnLimit == 0 || w == nil {
		return
	}
	var parts []string
	if n := st.ConnEvicted; n > 0 {
		parts = append(parts, fmt.Sprintf("%d %s evicted (least evidence of being real first: no handshake, one way only, no frame)", n, pluralWord(int(n), "connection", "connections")))
	}
	if n := st.ConnLimit; n > 0 {
		parts = append(parts, fmt.Sprintf("%d %s of others not dissected (every connection open showed more)", n, pluralWord(int(n), "packet", "packets")))
	}
	fmt.Fprintf(w, "kdissect: more than %d connections open at once: %s\n", dissect.DefaultMaxConnections, strings.Join(parts, "; "))
}
