package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/kdissect/kdissect/dissect"
)

// warnLate says on w which connections lost packets because their broker
// was learned only after they began (dissect.Stats.LateConnections): from
// standard input, which cannot be read twice (files are:
// dissect.ReadOptions.Rediscover), or past the backlog's bounds.
func warnLate(w io.Writer, st dissect.Stats) {
	if st.LateConnectionCount == 0 || w == nil {
		return
	}
	var b strings.Builder
	fmt.Fprintf(&b, "kdissect: %d %s began before a response named %s broker, and %s skipped in part", st.LateConnectionCount,
		pluralWord(st.LateConnectionCount, "connection", "connections"), pluralWord(st.LateConnectionCount, "its", "their"),
		pluralWord(st.LateConnectionCount, "was", "were"))
	b.WriteString(" (name the broker ports with -p, or read the capture from a file, which is read twice to find them):\n")
	for _, c := range st.LateConnections {
		fmt.Fprintf(&b, "  %s -> %s: %d %s not dissected\n", c.Client, c.Broker, c.Lost, pluralWord(int(c.Lost), "packet", "packets"))
	}
	if n := st.LateConnectionCount - len(st.LateConnections); n > 0 {
		fmt.Fprintf(&b, "  and %d more\n", n)
	}
	io.WriteString(w, b.String())
}

func pluralWord(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
