package main

import (
	"fmt"
	"io"
	"os"

	"github.com/kdissect/kdissect/dissect/tlsdecrypt"
)

// openKeyLogs follows the key log files named by --tls-keylog, or by
// SSLKEYLOGFILE when the flag is absent (a file that does not exist yet
// is then read when it appears). It returns nil when there is none.
func openKeyLogs(paths []string, warn io.Writer) (*tlsdecrypt.KeyLogFiles, error) {
	paths, optional := keyLogPaths(paths)
	if len(paths) == 0 {
		return nil, nil
	}
	k, err := tlsdecrypt.OpenKeyLogFiles(paths, optional)
	if err != nil {
		return nil, fmt.Errorf("--tls-keylog: %w", err)
	}
	if bad, lines := k.Malformed(); bad > 0 {
		fmt.Fprintf(warn, "kdissect: %d of %d key log lines malformed, ignored\n", bad, lines)
	}
	return k, nil
}

// keyLogPaths returns the key log files read: those of --tls-keylog
// (flags), or SSLKEYLOGFILE's when there is none; optional says they come
// from SSLKEYLOGFILE, whose file may not exist yet.
func keyLogPaths(flags []string) (paths []string, optional bool) {
	if len(flags) == 0 {
		if env := os.Getenv("SSLKEYLOGFILE"); env != "" {
			return []string{env}, true
		}
	}
	return flags, false
}

// openKeyLogWriter opens the NSS key log a client command writes its TLS
// session keys to (tls.Config.KeyLogWriter): appended to, as the
// SSLKEYLOGFILE writers do, so that one file gathers several runs, and
// created readable by its owner only, since it decrypts the traffic.
func openKeyLogWriter(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("key log to write: %w", err)
	}
	return f, nil
}
