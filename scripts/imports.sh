#!/usr/bin/env bash
# Prints the import graph of the module's own packages: one line a package,
# "PKG -> the packages of this module it imports" (standard library and
# other modules left out), paths relative to the module. docs/architecture.md
# quotes its output, and internal/layers' test holds the quote to it.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
mod=$(go list -m)
go list -f '{{.ImportPath}}{{range .Imports}} {{.}}{{end}}' ./... |
	awk -v m="$mod/" '{
		line = substr($1, length(m) + 1) " ->"
		for (i = 2; i <= NF; i++)
			if (index($i, m) == 1)
				line = line " " substr($i, length(m) + 1)
		print line
	}'
