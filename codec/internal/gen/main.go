// Command gen writes package codec's message types, decoders, encoders,
// JSON writers, field metadata (FieldInfo), walkers (WalkFields) and
// partition layouts (PartitionsOf...) from the schema in codec/schema.
//
//	go run ./codec/internal/gen                 # regenerate codec/*_gen.go (run from the repo root)
//	go run ./codec/internal/gen -import DIR     # bootstrap schema files for keys not yet in codec/schema/defs
//
// Run it through `go generate ./codec`.
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/kdissect/kdissect/codec/schema"
)

func main() {
	importDir := flag.String("import", "", "Kafka message definitions to import into the schema (a directory of *.json)")
	force := flag.Bool("force", false, "with -import: overwrite schema files that exist")
	defs := flag.String("defs", "codec/schema/defs", "schema directory")
	out := flag.String("out", "codec", "output directory for generated Go files")
	flag.Parse()
	if *importDir != "" {
		if err := importDefs(*importDir, *defs, *force); err != nil {
			fmt.Fprintln(os.Stderr, "gen:", err)
			os.Exit(1)
		}
		return
	}
	s, err := schema.LoadFS(os.DirFS(*defs), ".")
	if err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
	if err := generate(s, *out); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}
