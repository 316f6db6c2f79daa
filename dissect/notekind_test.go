package dissect

import (
	"go/ast"
	"go/parser"
	"go/printer"
	gotoken "go/token"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/kdissect/kdissect/codec"
)

// verb matches a fmt verb, to fill a format with a sample value.
var verb = regexp.MustCompile(`%[-+# 0]*[0-9]*(\.[0-9]+)?[vsdqxXf]`)

// sample fills a note's format: every verb becomes "1".
func sample(format string) string { return verb.ReplaceAllString(format, "1") }

// noteSources parses the non-test Go files of dir.
func noteSources(t *testing.T, dir string) (*gotoken.FileSet, []*ast.File) {
	t.Helper()
	fset := gotoken.NewFileSet()
	names, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	var files []*ast.File
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		f, err := parser.ParseFile(fset, name, src, 0)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	return fset, files
}

func exprText(fset *gotoken.FileSet, e ast.Expr) string {
	var b strings.Builder
	printer.Fprint(&b, fset, e)
	return b.String()
}

// literalFormat returns the note e makes when it is a string literal, a
// named string constant of the files, or fmt.Sprintf of a literal format.
func literalFormat(e ast.Expr, consts map[string]string) (string, bool) {
	switch e := e.(type) {
	case *ast.BasicLit:
		if e.Kind == gotoken.STRING {
			s, err := strconv.Unquote(e.Value)
			return s, err == nil
		}
	case *ast.Ident:
		s, ok := consts[e.Name]
		return s, ok
	case *ast.BinaryExpr:
		// "literal " + name + " literal": the parts not literal are
		// samples.
		if e.Op != gotoken.ADD {
			break
		}
		x, okx := literalFormat(e.X, consts)
		y, oky := literalFormat(e.Y, consts)
		if !okx && !oky {
			break
		}
		if !okx {
			x = "1"
		}
		if !oky {
			y = "1"
		}
		return x + y, true
	case *ast.CallExpr:
		if sel, ok := e.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "Sprintf" && len(e.Args) > 0 {
			if lit, ok := e.Args[0].(*ast.BasicLit); ok && lit.Kind == gotoken.STRING {
				s, err := strconv.Unquote(lit.Value)
				return sample(s), err == nil
			}
		}
	}
	return "", false
}

func stringConsts(files []*ast.File) map[string]string {
	consts := map[string]string{}
	for _, f := range files {
		ast.Inspect(f, func(n ast.Node) bool {
			if vs, ok := n.(*ast.ValueSpec); ok {
				for i, name := range vs.Names {
					if i < len(vs.Values) {
						if lit, ok := vs.Values[i].(*ast.BasicLit); ok && lit.Kind == gotoken.STRING {
							consts[name.Name], _ = strconv.Unquote(lit.Value)
						}
					}
				}
			}
			return true
		})
	}
	return consts
}

// TestNoteKindsCoverProducers finds every place dissect and codec make a
// note (Exchange.AddNote, a record set's note, notes spread onto an
// exchange from a frame or a TLS connection) and checks that the note it
// makes has a kind: a literal or a Sprintf format is filled with sample
// values; a note made elsewhere must be one of those listed below, whose
// notes are made by calling what makes them. A new kind of producer fails
// until it is listed, so NoteKind keeps knowing every note.
func TestNoteKindsCoverProducers(t *testing.T) {
	// What the record set notes of codec are, to fill "records of %s: %s".
	cfset, cfiles := noteSources(t, "../codec")
	var codecNotes []string
	for _, f := range cfiles {
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok || len(call.Args) == 0 {
				return true
			}
			var name string
			switch fun := call.Fun.(type) {
			case *ast.SelectorExpr:
				name = fun.Sel.Name
			case *ast.CallExpr: // d.noteFor(err)(format, ...)
				if sel, ok := fun.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "noteFor" {
					name = "note"
				}
			}
			if name != "note" && name != "noteAlways" {
				return true
			}
			lit, ok := call.Args[0].(*ast.BasicLit)
			if !ok || lit.Kind != gotoken.STRING {
				t.Errorf("%s: record set note with a format that is not a literal: %s", cfset.Position(call.Pos()), exprText(cfset, call.Args[0]))
				return true
			}
			s, _ := strconv.Unquote(lit.Value)
			codecNotes = append(codecNotes, sample(s))
			return true
		})
	}
	if len(codecNotes) < 20 {
		t.Fatalf("found %d record set notes in codec: the scan is broken", len(codecNotes))
	}
	// Notes made by decompression and the decode budget reach a record set
	// note through %v: the texts that wrap them.
	codecNotes = append(codecNotes, "batch at byte 1: gzip decompression: unexpected EOF", "batch at byte 1: lz4 decompression: record decoding budget of 64 MiB exhausted",
		"message at byte 1: unsupported compression codec 7")

	api := &codec.API{Name: "Produce"}
	holes := []Hole{{Offset: 10, Length: 5, Cause: HoleNotCaptured}}
	fr := &framer{dir: toBroker, skipped: 7}
	var resync []string
	for _, why := range []resyncCause{{gaps: 1, missing: 100}, {gaps: 2, missing: 1, dropped: 2}, {invalid: true, invalidSize: -5}, {midStream: true}, {}} {
		fr.why = &why
		resync = append(resync, fr.resyncNote())
	}
	c := &conn{s: &Session{d: New(Options{})}}
	var reasons []string
	// Every reason but ResponseSeen, and one past the last.
	for r := NoResponseExpected; r <= ResponseGaveUp+1; r++ {
		reasons = append(reasons, c.reasonNote(r))
	}
	// The notes made other than by a literal or a literal format, by the
	// text of the expression that makes them.
	indirect := map[string][]string{
		"notCapturedNote(side, api, ex.APIVersion, nc)": {
			notCapturedNote("request", api, 9, []codec.NotCaptured{{Path: "Acks", Start: 1, End: 3}}),
			notCapturedNote("response", api, 9, []codec.NotCaptured{{Path: "Responses", Start: 1, End: 30, Stop: true}}),
			notCapturedNote("response", api, 9, []codec.NotCaptured{{Path: "A", Start: 1, End: 3}, {Path: "B", Start: 5, End: 30, Stop: true}}),
		},
		"reason": append(reasons, lostAtCloseNote(64)),
		"a.note(recordsWhere(rr))": {
			SequenceAnomaly{Topic: "orders", ProducerId: 7, BaseSequence: 9, Expected: 5, Kind: SequenceGap}.note("orders[0]"),
			SequenceAnomaly{Topic: "orders", ProducerId: 7, BaseSequence: 0, Expected: 5, Kind: SequenceDuplicate}.note("orders[0]"),
			SequenceAnomaly{Topic: "orders", ProducerId: 7, BaseSequence: 2, Expected: 5, Kind: SequenceBehind}.note("orders[0]"),
			SequenceAnomaly{Topic: "orders", ProducerId: 7, ProducerEpoch: 1, BaseSequence: 3, Kind: SequenceNewEpoch}.note("orders[0]"),
		},
		`fmt.Sprintf("%s: %s", side, w)`:             {"request: at offset 12: Acks 7 is not -1, 0 or 1", "response: further warnings not shown"},
		`fmt.Sprintf("records of %s: %s", where, n)`: nil, // filled below
		// Spread onto exchanges: the notes of frames (framer.emit) and of
		// TLS connections not decrypted (tlsConn.Note).
		"r.notes":     append([]string{holesNote(holes, 100), holesNote([]Hole{{Offset: 10, Length: 90, Cause: HoleCaptureEnded}}, 100)}, resync...),
		"reply.notes": nil, // frame notes, as r.notes
		// Copies of a frame handed over whole (retransmit.go).
		"r.rtx.note()": {(&rtxDiff{copies: 1, differ: 3, compared: 60}).note(), (&rtxDiff{copies: 2, differ: 5, compared: 120}).note()},
		"t.notes":      {"TLS client→: record of 20000 bytes, longer than TLS allows"},
	}
	for _, n := range codecNotes {
		indirect[`fmt.Sprintf("records of %s: %s", where, n)`] = append(indirect[`fmt.Sprintf("records of %s: %s", where, n)`], "records of orders[0]: "+n)
	}

	fset, files := noteSources(t, ".")
	consts := stringConsts(files)
	var notes []string
	seen := map[string]bool{}
	check := func(pos gotoken.Pos, e ast.Expr) {
		text := exprText(fset, e)
		more, ok := indirect[text]
		if !ok {
			if s, ok := literalFormat(e, consts); ok {
				notes = append(notes, s)
				return
			}
			t.Errorf("%s: a note made by %s: list it in this test's indirect notes, with the notes it makes", fset.Position(pos), text)
			return
		}
		seen[text] = true
		notes = append(notes, more...)
	}
	for _, f := range files {
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			switch fun := call.Fun.(type) {
			case *ast.SelectorExpr:
				if fun.Sel.Name == "AddNote" && len(call.Args) == 1 {
					check(call.Pos(), call.Args[0])
				}
			case *ast.Ident:
				// append(ex.Notes, x...): notes made elsewhere.
				if fun.Name == "append" && call.Ellipsis.IsValid() && len(call.Args) == 2 && strings.HasSuffix(exprText(fset, call.Args[0]), ".Notes") {
					check(call.Pos(), call.Args[1])
				}
			}
			return true
		})
	}
	if seen["reply.notes"] {
		notes = append(notes, indirect["r.notes"]...)
	}
	for text := range indirect {
		if !seen[text] {
			t.Errorf("indirect note %s is no longer made: remove it from the test", text)
		}
	}
	if len(notes) < 40 {
		t.Fatalf("found %d notes: the scan is broken", len(notes))
	}
	kinds := map[string]int{}
	for _, n := range notes {
		k := NoteKind(n)
		kinds[k]++
		if k == NoteOther {
			t.Errorf("note %q has no kind: add a rule to noteRules", n)
		}
	}
	t.Logf("%d notes checked; by kind: %v", len(notes), kinds)
}

// TestNoteKindExamples pins the kinds of a few notes as the code writes
// them, where rules could shadow each other.
func TestNoteKindExamples(t *testing.T) {
	for note, want := range map[string]string{
		"records of orders[0]: batch at byte 0 (BaseOffset 5): CRC-32C mismatch: 0x1 on the wire, 0x2 computed":                             NoteCRCMismatch,
		"records of orders[0]: batch at byte 0: 10 of its 100 bytes not captured: CRC-32C not verified; 3 of RecordCount 5 records decoded": NoteCRCNotVerified,
		"records of orders[0]: partial batch of 100 bytes at the end (a fetch cut at its size limit): not decoded":                          NotePartialBatch,
		"records of orders[0]: batch at byte 0: RecordCount 5 on the wire, 4 records decoded":                                               NoteRecords,
		"no response captured": NoteNoResponse,
		"response not captured: the broker answered a later request on this connection, and Kafka answers in order":                           NoteNoResponse,
		"response without a captured request (its CorrelationId was not captured)":                                                            NoteNoRequest,
		"response CorrelationId not captured: it answers the oldest request waiting (Kafka answers a connection's requests in order)":         NoteCorrelationGuess,
		"unsupported version: Produce v99 (the codec knows v0-v12): request body not decoded":                                                 NoteUnknownVersion,
		"Produce v9 request: not captured: Acks (bytes 5-7)":                                                                                  NoteTruncated,
		"gap in the capture: 100 bytes of the client stream not captured (not captured); resynchronised on this frame after skipping 0 bytes": NoteGap,
		"something new": NoteOther,
	} {
		if got := NoteKind(note); got != want {
			t.Errorf("NoteKind(%q) = %q, want %q", note, got, want)
		}
	}
}
