package render

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestNoSchemaAtRunTime holds the views to the codec's generated field
// metadata (codec.FieldInfo): no file of the package but its tests
// imports codec/schema, which would parse the generator's input again at
// every run.
func TestNoSchemaAtRunTime(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		af, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, im := range af.Imports {
			if p, _ := strconv.Unquote(im.Path.Value); p == "github.com/kdissect/kdissect/codec/schema" {
				t.Errorf("%s imports %s", f, p)
			}
		}
	}
}
