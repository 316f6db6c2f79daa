package render

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/kdissect/kdissect/codec/schema"
	"github.com/kdissect/kdissect/dissect"
)

// docPath is the JSON Lines contract as users read it.
const docPath = "../../docs/json-lines.md"

// docKey is one row of a key table in docs/json-lines.md.
type docKey struct {
	types    []string // JSON types: string, number, bool, array, object, null
	optional bool     // left out where it does not apply
}

// jsonDoc is what the contract says: for each place ("top", "topics",
// "errors", "tls", "body", "not_captured"), its keys; and the backquoted
// names the Bodies section gives to keys of record batches and message
// sets, which are Kafka's log-format names rather than message fields.
type jsonDoc struct {
	places    map[string]map[string]docKey
	bodyNames map[string]bool
}

// sectionPlace maps the document's headings to the places of a line.
var sectionPlace = map[string]string{
	"Top-level keys": "top",
	"topics":         "topics",
	"errors":         "errors",
	"tls":            "tls",
	"Bodies":         "body",
	"not_captured":   "not_captured",
}

var (
	docRow      = regexp.MustCompile("^\\| `([A-Za-z_0-9]+)` \\| ([a-z ]+?)( \\*\\(optional\\)\\*)? \\|")
	docBackquot = regexp.MustCompile("`[^`]*`")
	docName     = regexp.MustCompile(`[A-Za-z_][A-Za-z_0-9]*`)
)

// readJSONDoc parses docs/json-lines.md's key tables.
func readJSONDoc(t *testing.T) jsonDoc {
	t.Helper()
	b, err := os.ReadFile(docPath)
	if err != nil {
		t.Fatal(err)
	}
	doc := jsonDoc{places: map[string]map[string]docKey{}, bodyNames: map[string]bool{}}
	place := ""
	var bodyText strings.Builder // backquoted spans may run over lines
	for _, line := range strings.Split(string(b), "\n") {
		if h, ok := strings.CutPrefix(line, "## "); ok {
			place = sectionPlace[h]
			continue
		}
		if place == "" {
			continue
		}
		if place == "body" {
			bodyText.WriteString(line + "\n")
		}
		m := docRow.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		types := strings.Split(m[2], " or ")
		for _, ty := range types {
			switch ty {
			case "string", "number", "bool", "array", "object", "null":
			default:
				t.Fatalf("%s: key %q: type %q is not a JSON type", docPath, m[1], ty)
			}
		}
		if doc.places[place] == nil {
			doc.places[place] = map[string]docKey{}
		}
		doc.places[place][m[1]] = docKey{types: types, optional: m[3] != ""}
	}
	for _, span := range docBackquot.FindAllString(bodyText.String(), -1) {
		for _, name := range docName.FindAllString(span, -1) {
			doc.bodyNames[name] = true
		}
	}
	for _, p := range sectionPlace {
		if p != "body" && len(doc.places[p]) == 0 {
			t.Fatalf("%s: no key table found for %q", docPath, p)
		}
	}
	return doc
}

// check holds one object at place against the document, and says what is
// wrong in problems (a set, so that one bad key on a thousand lines is one
// problem).
func (d jsonDoc) check(place string, obj map[string]any, where string, problems map[string]string) {
	keys := d.places[place]
	for k, v := range obj {
		dk, ok := keys[k]
		if !ok {
			problems[place+"."+k] = fmt.Sprintf("%s: key %q at %s is not described in %s", where, k, place, docPath)
			continue
		}
		if ty := jsonType(v); !contains(dk.types, ty) {
			problems[place+"."+k+":"+ty] = fmt.Sprintf("%s: key %q at %s is %s, %s allows %v", where, k, place, ty, docPath, dk.types)
		}
	}
	for k, dk := range keys {
		if _, ok := obj[k]; !ok && !dk.optional {
			problems[place+"."+k+":missing"] = fmt.Sprintf("%s: key %q at %s is missing, and %s does not mark it optional", where, k, place, docPath)
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// checkBody walks a request or response body: every key must be a field
// name of Kafka's message definitions, a record-format name the Bodies
// section gives, or one of the Bodies tables' own keys (whose objects are
// then checked as their tables say).
func (d jsonDoc) checkBody(v any, fields map[string]bool, where string, problems map[string]string) {
	switch v := v.(type) {
	case []any:
		for _, e := range v {
			d.checkBody(e, fields, where, problems)
		}
	case map[string]any:
		for k, e := range v {
			switch {
			case k == "not_captured":
				list, ok := e.([]any)
				if !ok {
					problems["body.not_captured:type"] = fmt.Sprintf("%s: not_captured is %s", where, jsonType(e))
					continue
				}
				for _, nc := range list {
					o, _ := nc.(map[string]any)
					d.check("not_captured", o, where, problems)
				}
				continue
			case d.places["body"][k].types != nil:
				if ty := jsonType(e); !contains(d.places["body"][k].types, ty) {
					problems["body."+k+":"+ty] = fmt.Sprintf("%s: body key %q is %s, %s allows %v", where, k, ty, docPath, d.places["body"][k].types)
				}
			case fields[k] || d.bodyNames[k]:
			default:
				problems["body."+k] = fmt.Sprintf("%s: body key %q is neither a field of Kafka's message definitions nor described in %s", where, k, docPath)
			}
			d.checkBody(e, fields, where, problems)
		}
	}
}

// damagedJSON renders the damaged copies of the project's captures
// (holes_test.go: snap lengths, lost packets) as JSON lines, so that the
// keys only damage brings (not_captured, *_not_captured, null counts) are
// held to the document too. The large kcat_mtu copies are left out: their
// thousands of records add time and no key.
func damagedJSON(t *testing.T) map[string][]map[string]any {
	t.Helper()
	out := map[string][]map[string]any{}
	for _, c := range damagedCaptures(t) {
		if strings.Contains(c.name, ".gz") {
			continue
		}
		var buf bytes.Buffer
		jl := NewJSONLines(&buf, false)
		for _, ex := range readCapture(t, c.data, dissect.DecodeOptions{}) {
			if err := jl.Write(ex); err != nil {
				t.Fatal(err)
			}
		}
		if err := jl.Flush(); err != nil {
			t.Fatal(err)
		}
		for _, line := range bytes.Split(bytes.TrimSpace(buf.Bytes()), []byte("\n")) {
			var m map[string]any
			if err := json.Unmarshal(line, &m); err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			out[c.name] = append(out[c.name], m)
		}
	}
	return out
}

// schemaFieldNames returns every field name the codec's schema declares.
func schemaFieldNames(t *testing.T) map[string]bool {
	t.Helper()
	s, err := schema.Load()
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	var add func([]*schema.Field)
	add = func(fs []*schema.Field) {
		for _, f := range fs {
			names[f.Name] = true
			add(f.Fields)
		}
	}
	for _, api := range s.APIs {
		for _, m := range []*schema.Message{api.Request, api.Response} {
			if m == nil {
				continue
			}
			add(m.Fields)
			for _, st := range m.Common {
				add(st.Fields)
			}
		}
	}
	return names
}

// TestJSONLinesDocumented holds what the writer emits, on every capture the
// tests have, to docs/json-lines.md: every key at every documented place is
// described there with its type, and every key the document does not mark
// optional is on every line.
func TestJSONLinesDocumented(t *testing.T) {
	doc := readJSONDoc(t)
	fields := schemaFieldNames(t)
	problems := map[string]string{}
	seen := map[string]bool{}
	nLines := 0
	rendered := damagedJSON(t)
	for _, c := range testCaptures(t) {
		rendered[c.path] = renderJSON(t, c.path, c.port)
	}
	for path, lines := range rendered {
		for i, m := range lines {
			nLines++
			where := fmt.Sprintf("%s line %d", path, i+1)
			doc.check("top", m, where, problems)
			for k := range m {
				seen["top."+k] = true
			}
			for _, place := range []string{"topics", "errors"} {
				list, _ := m[place].([]any)
				for _, e := range list {
					o, _ := e.(map[string]any)
					doc.check(place, o, where, problems)
					for k := range o {
						seen[place+"."+k] = true
					}
				}
			}
			if tls, ok := m["tls"].(map[string]any); ok {
				doc.check("tls", tls, where, problems)
			}
			for _, side := range []string{"request", "response"} {
				doc.checkBody(m[side], fields, where+" "+side, problems)
			}
		}
	}
	if nLines < 100 {
		t.Fatalf("only %d lines rendered: too few to hold the document to", nLines)
	}
	var msgs []string
	for _, p := range problems {
		msgs = append(msgs, p)
	}
	sort.Strings(msgs)
	for _, p := range msgs {
		t.Error(p)
	}
	// The keys every line has must be seen: a document that lists keys the
	// writer no longer writes is caught by the "missing" check above; this
	// catches a test that rendered nothing where the document has a table.
	for _, k := range []string{"top.ts", "top.records", "top.records_not_captured", "top.errors_not_captured", "topics.topic", "topics.partitions", "errors.code", "errors.name"} {
		if !seen[k] {
			t.Errorf("no line held %s: the captures no longer exercise it", k)
		}
	}
}

// TestJSONDocCatchesUndocumented checks the checker: a key the document
// does not name, a wrong type and a missing key are each reported.
func TestJSONDocCatchesUndocumented(t *testing.T) {
	doc := readJSONDoc(t)
	fields := schemaFieldNames(t)
	line := map[string]any{}
	for k, dk := range doc.places["top"] {
		if !dk.optional {
			line[k] = nil
		}
	}
	line["stream"] = "zero"        // a wrong type
	line["lag_us"] = float64(1)    // a key nobody described
	delete(line, "correlation_id") // a required key left out
	line["request"] = map[string]any{"Acks": float64(1), "acks_text": "all"}
	problems := map[string]string{}
	doc.check("top", line, "crafted", problems)
	doc.checkBody(line["request"], fields, "crafted", problems)
	for _, want := range []string{"top.stream:string", "top.lag_us", "top.correlation_id:missing", "body.acks_text"} {
		if _, ok := problems[want]; !ok {
			t.Errorf("%s not reported; got %v", want, problems)
		}
	}
	if _, ok := problems["body.Acks"]; ok {
		t.Errorf("Acks, a Kafka field, reported: %v", problems)
	}
}
