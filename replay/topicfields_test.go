package replay

import (
	"bufio"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/kdissect/kdissect/codec"
)

// schemaTopicFields reads codec/schema/defs and returns every field the
// schema marks @topic or @topicid, as "GoType.Field" of the generated
// struct that holds it.
func schemaTopicFields(t testing.TB) []string {
	t.Helper()
	paths, err := filepath.Glob("../codec/schema/defs/*.schema")
	if err != nil || len(paths) == 0 {
		t.Fatalf("schema defs: %v (%d files)", err, len(paths))
	}
	var out []string
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		var api, side string
		type level struct {
			indent int
			name   string
		}
		var stack []level
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			line := sc.Text()
			trim := strings.TrimSpace(line)
			if trim == "" || strings.HasPrefix(trim, "#") {
				continue
			}
			indent := len(line) - len(strings.TrimLeft(line, " "))
			words := strings.Fields(trim)
			if indent == 0 {
				switch words[0] {
				case "api":
					api = words[2]
				case "request":
					side, stack = "Request", nil
				case "response":
					side, stack = "Response", nil
				}
				continue
			}
			for len(stack) > 0 && stack[len(stack)-1].indent >= indent {
				stack = stack[:len(stack)-1]
			}
			owner := api + side
			if len(stack) > 0 {
				owner = stack[len(stack)-1].name
			}
			if slices.Contains(words, "@topic") || slices.Contains(words, "@topicid") {
				out = append(out, owner+"."+words[0])
			}
			typ := strings.TrimPrefix(words[1], "[]")
			if typ != "" && unicode.IsUpper(rune(typ[0])) {
				// The generator's naming (codec/internal/gen goStructName).
				name := typ
				if !strings.HasPrefix(typ, api+side) {
					name = api + side + typ
				}
				stack = append(stack, level{indent, name})
			}
		}
		f.Close()
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func TestTopicFieldsMatchSchema(t *testing.T) {
	want := schemaTopicFields(t)
	var got []string
	for k := range topicFields {
		got = append(got, k)
	}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		for _, w := range want {
			if !slices.Contains(got, w) {
				t.Errorf("missing from topicFields: %q", w)
			}
		}
		for _, g := range got {
			if !slices.Contains(want, g) {
				t.Errorf("in topicFields but not @topic/@topicid in the schema: %q", g)
			}
		}
	}
}

// TestTopicFieldsExist: every entry names a field of a generated struct
// reachable from some request or response body.
func TestTopicFieldsExist(t *testing.T) {
	seen := map[string]bool{}
	var walk func(rt reflect.Type)
	walk = func(rt reflect.Type) {
		for rt.Kind() == reflect.Pointer || rt.Kind() == reflect.Slice {
			rt = rt.Elem()
		}
		if rt.Kind() != reflect.Struct || seen[rt.Name()] {
			return
		}
		seen[rt.Name()] = true
		for i := range rt.NumField() {
			seen[rt.Name()+"."+rt.Field(i).Name] = true
			walk(rt.Field(i).Type)
		}
	}
	for _, api := range codec.APIs() {
		walk(reflect.TypeOf(api.NewRequest()))
		walk(reflect.TypeOf(api.NewResponse()))
	}
	for k := range topicFields {
		if !seen[k] {
			t.Errorf("topicFields names %q, which no generated struct has", k)
		}
	}
}
