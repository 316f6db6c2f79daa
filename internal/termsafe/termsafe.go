// Package termsafe escapes text from a capture before it reaches a
// terminal: control characters (C0, DEL, C1), bidirectional overrides and
// invalid UTF-8 could move the cursor, recolour or retitle the terminal,
// or reorder what it shows, when a view prints them or when tshark -V
// prints a comment kdissect wrote.
package termsafe

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Escape returns s with every unsafe rune written as an escape: \x1b for
// a byte below 0x80 or an invalid UTF-8 byte, \u009b above. A safe s is
// returned as it is, without allocating.
func Escape(s string) string { return escape(s, false) }

// EscapeKeepLines is Escape, but keeps tab and newline: for text that may
// rightly hold several lines, a pcapng comment written by a person.
func EscapeKeepLines(s string) string { return escape(s, true) }

func escape(s string, keepLines bool) string {
	clean := true
	for _, r := range s {
		if unsafe(r, keepLines) {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case unsafe(r, keepLines):
			if r < 0x80 {
				fmt.Fprintf(&b, `\x%02x`, r)
			} else {
				fmt.Fprintf(&b, `\u%04x`, r)
			}
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// Unsafe reports whether r must not reach a terminal as it is.
func Unsafe(r rune) bool { return unsafe(r, false) }

func unsafe(r rune, keepLines bool) bool {
	switch {
	case keepLines && (r == '\n' || r == '\t'):
		return false
	case r == utf8.RuneError:
		return true // invalid UTF-8 decodes to it (a real U+FFFD is escaped too: harmless)
	case r < 0x20, r == 0x7f, r >= 0x80 && r < 0xa0:
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069, r == 0x200e, r == 0x200f, r == 0x061c:
		return true
	}
	return false
}
