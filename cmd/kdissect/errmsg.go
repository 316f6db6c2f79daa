package main

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/kdissect/kdissect/client"
)

// errorLine turns an error into the one line run prints: the client's
// chain of errors (CANNOT_GET_METADATA wrapping NO_ACKNOWLEDGEMENT
// wrapping CANNOT_RECEIVE wrapping EOF) keeps the name of what failed
// (the outermost client error), the broker's error codes, and every
// layer's own words (which request, to which broker, why) once; the
// client-side names in between are left out where those words say more,
// as are the descriptions they stand for. Errors joined (errors.Join) are separated by "; ", not by a
// newline, and repeated causes said once.
func errorLine(err error) string {
	var parts []string
	add := func(p string) {
		p = strings.TrimSpace(strings.ReplaceAll(p, "\n", "; "))
		if p != "" && (len(parts) == 0 || parts[len(parts)-1] != p) {
			parts = append(parts, p)
		}
	}
	outer := true
	var walk func(e error)
	walk = func(e error) {
		for e != nil {
			switch x := e.(type) {
			case *client.Error:
				var p string
				if outer || x.Code() > -1000 || x.Message == "" {
					p = x.Name()
					if x.Code() > -1000 {
						p += fmt.Sprintf(" (code %d)", x.Code())
					}
				}
				outer = false
				p += x.Where()
				switch {
				case x.Message != "":
					p = joinPart(p, x.Message)
				case x.Code() > -1000 && x.Description() != "":
					p = joinPart(p, x.Description())
				}
				add(p)
				e = x.Err
			case interface{ Unwrap() []error }:
				if !isJoin(x) {
					// An error of its own that wraps several (a
					// DamageError): its words are all its own.
					add(e.Error())
					return
				}
				var subs []string
				for _, s := range x.Unwrap() {
					if line := errorLine(s); !slices.Contains(subs, line) {
						subs = append(subs, line)
					}
				}
				add(strings.Join(subs, "; "))
				return
			default:
				inner := errors.Unwrap(e)
				if inner == nil {
					add(e.Error())
					return
				}
				own := strings.TrimSuffix(strings.TrimSuffix(e.Error(), inner.Error()), ": ")
				if own != e.Error() {
					add(own)
				} else {
					add(e.Error()) // the wrapper's text does not end with the cause's
					return
				}
				e = inner
			}
		}
	}
	walk(err)
	return strings.Join(parts, ": ")
}

// isJoin reports whether e is errors.Join's: its text is its errors'
// texts, a line each.
func isJoin(e interface{ Unwrap() []error }) bool {
	var lines []string
	for _, s := range e.Unwrap() {
		if s != nil {
			lines = append(lines, s.Error())
		}
	}
	return e.(error).Error() == strings.Join(lines, "\n")
}

func joinPart(a, b string) string {
	if a == "" {
		return b
	}
	return a + ": " + b
}

// errorHint says what may be wrong when the error's cause suggests it: a
// broker that closes the connection on the first request wants SASL (it
// answers only ApiVersions and SaslHandshake before authentication) or
// TLS. "" when there is nothing to add.
func errorHint(err error) string {
	var ce *client.Error
	if !errors.As(err, &ce) {
		return ""
	}
	closed := strings.Contains(err.Error(), "connection closed by the broker")
	switch {
	case closed && strings.Contains(err.Error(), "SaslAuthenticate"):
		return "the broker closed the connection on the SASL authentication: check --sasl-mechanism, --sasl-user and --sasl-password"
	case closed:
		return "the broker closed the connection on a request: a listener that needs SASL does so before authentication (give --sasl-mechanism, --sasl-user, --sasl-password), and one that needs TLS on anything else than a TLS handshake (give --tls)"
	case errors.Is(err, client.ErrTimeout) && errors.Is(err, client.ErrCannotConnect):
		return "the broker did not answer the connection's first request in time (--timeout): a TLS listener given no --tls, or a plaintext one given --tls, waits like this"
	}
	return ""
}

// printError prints err as run does: one line, and a hint line when there
// is one.
func printError(w io.Writer, err error) {
	fmt.Fprintln(w, "kdissect:", errorLine(err))
	if h := errorHint(err); h != "" {
		fmt.Fprintln(w, "kdissect: hint:", h)
	}
}
