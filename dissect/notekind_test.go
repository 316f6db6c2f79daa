package dissect

import (
	"go/ast"
	"go/parser"
	gotoken "go/token"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

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

// kindConsts returns the constants of type typ that file declares, by name.
func kindConsts(t *testing.T, file, typ string) map[string]bool {
	t.Helper()
	fset := gotoken.NewFileSet()
	f, err := parser.ParseFile(fset, file, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	consts := map[string]bool{}
	for _, d := range f.Decls {
		gd, ok := d.(*ast.GenDecl)
		if !ok || gd.Tok != gotoken.CONST {
			continue
		}
		var last string // an iota list repeats the type of the first
		for _, spec := range gd.Specs {
			vs := spec.(*ast.ValueSpec)
			if id, ok := vs.Type.(*ast.Ident); ok {
				last = id.Name
			} else if vs.Type != nil || len(vs.Values) > 0 {
				last = ""
			}
			if last == typ {
				for _, n := range vs.Names {
					consts[n.Name] = true
				}
			}
		}
	}
	if len(consts) < 5 {
		t.Fatalf("%s declares %d constants of type %s: the scan is broken", file, len(consts), typ)
	}
	return consts
}

// kindFuncs returns the functions and methods of files whose results are
// (NoteKind, string): calls to them give a note its kind and text at once.
func kindFuncs(files []*ast.File) map[string]bool {
	fs := map[string]bool{}
	for _, f := range files {
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Type.Results == nil || len(fd.Type.Results.List) != 2 {
				continue
			}
			if id, ok := fd.Type.Results.List[0].Type.(*ast.Ident); ok && id.Name == "NoteKind" {
				fs[fd.Name.Name] = true
			}
		}
	}
	return fs
}

// calledName is the name of the function or method call calls.
func calledName(call *ast.CallExpr) string {
	switch fun := call.Fun.(type) {
	case *ast.Ident:
		return fun.Name
	case *ast.SelectorExpr:
		return fun.Sel.Name
	}
	return ""
}

func hasKey(m map[string]int, k string) bool {
	_, ok := m[k]
	return ok
}

// kindSites checks the calls of files to the functions in makers (by name,
// with the index of their kind argument) that make a note: the kind must
// be a constant of kinds other than other, a call of a mapper (a function
// from a kind of another package's to ours), or, for a call that takes
// the kind and the text from one call, a function of pairs. It returns
// how many sites it checked.
func kindSites(t *testing.T, fset *gotoken.FileSet, files []*ast.File, makers map[string]int, kinds map[string]bool, other string, mappers, pairs map[string]bool) int {
	t.Helper()
	sites := 0
	for _, f := range files {
		ast.Inspect(f, func(n ast.Node) bool {
			if fd, ok := n.(*ast.FuncDecl); ok && (hasKey(makers, fd.Name.Name) || fd.Name.Name == "noteFor") {
				return false // the makers pass on the kind they are given
			}
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			at, ok := makers[calledName(call)]
			if !ok {
				return true
			}
			sites++
			pos := fset.Position(call.Pos())
			if len(call.Args) == 1 {
				if inner, ok := call.Args[0].(*ast.CallExpr); ok && pairs[calledName(inner)] {
					return true
				}
			}
			if len(call.Args) <= at {
				t.Errorf("%s: a note made without a kind", pos)
				return true
			}
			var name string
			switch k := call.Args[at].(type) {
			case *ast.Ident:
				name = k.Name
			case *ast.SelectorExpr: // dissect.NoteGap
				name = k.Sel.Name
			case *ast.CallExpr:
				if mappers[calledName(k)] {
					return true
				}
			}
			switch {
			case name != "" && name == other:
				t.Errorf("%s: a note of kind %s: give it its own kind", pos, other)
			case !kinds[name]:
				t.Errorf("%s: a note's kind is not one of the kind constants", pos)
			}
			return true
		})
	}
	return sites
}

// TestNoteSitesHaveKinds: every place that makes a note names its kind,
// a constant, so that stats and metrics count notes by kind and a note
// reworded keeps its kind. In dissect (and in the command, which notes
// what it reads of a frame given by hand), each Exchange.AddNote and
// NewNote; in codec, each note of a record set (recordDecoder.note,
// noteAlways; noteFor takes the kind of the decompression error it is
// given) and of a Fetch's transactions. A note added with no kind, or
// NoteOther, fails here.
func TestNoteSitesHaveKinds(t *testing.T) {
	kinds := kindConsts(t, "notekind.go", "NoteKind")
	codecKinds := kindConsts(t, "../codec/note_kind.go", "NoteKind")
	dissectSites := 0
	for _, dir := range []string{".", "../cmd/kdissect"} {
		fset, files := noteSources(t, dir)
		n := kindSites(t, fset, files, map[string]int{"AddNote": 0, "NewNote": 0}, kinds, "NoteOther",
			map[string]bool{"recordNoteKind": true}, kindFuncs(files))
		t.Logf("%s: %d places make a note, each with its kind", dir, n)
		dissectSites += n
	}
	if dissectSites < 40 {
		t.Fatalf("found %d places that make notes: the scan is broken", dissectSites)
	}
	fset, files := noteSources(t, "../codec")
	n := kindSites(t, fset, files, map[string]int{"note": 0, "noteAlways": 0}, codecKinds, "", nil, nil)
	t.Logf("codec: %d places make a record set or transaction note, each with its kind", n)
	if n < 30 {
		t.Fatalf("found %d record set notes in codec: the scan is broken", n)
	}
	// Every note appended to Exchange.Notes other than by AddNote comes
	// from a []Note, which only NewNote makes: no Note literal elsewhere.
	for _, dir := range []string{".", "../cmd/kdissect"} {
		fset, files := noteSources(t, dir)
		for _, f := range files {
			ast.Inspect(f, func(n ast.Node) bool {
				fd, ok := n.(*ast.FuncDecl)
				if ok && fd.Name.Name == "NewNote" {
					return false
				}
				if cl, ok := n.(*ast.CompositeLit); ok {
					switch typ := cl.Type.(type) {
					case *ast.Ident:
						if typ.Name == "Note" {
							t.Errorf("%s: a Note literal: make notes with NewNote or AddNote", fset.Position(cl.Pos()))
						}
					case *ast.SelectorExpr:
						if typ.Sel.Name == "Note" {
							t.Errorf("%s: a Note literal: make notes with NewNote or AddNote", fset.Position(cl.Pos()))
						}
					}
				}
				return true
			})
		}
	}
}

// TestNoteKindsListed: NoteKinds lists every kind declared, once, each
// with a severity of its own (noteKinds), NoteOther last.
func TestNoteKindsListed(t *testing.T) {
	declared := kindConsts(t, "notekind.go", "NoteKind")
	listed := NoteKinds()
	if listed[len(listed)-1] != NoteOther {
		t.Errorf("NoteKinds ends with %q, want %q", listed[len(listed)-1], NoteOther)
	}
	if len(listed) != len(declared) {
		t.Errorf("NoteKinds lists %d kinds, notekind.go declares %d", len(listed), len(declared))
	}
	for i, k := range listed {
		if slices.Contains(listed[:i], k) {
			t.Errorf("kind %q listed twice", k)
		}
	}
	bySeverity := map[Severity]int{}
	for _, e := range noteKinds {
		bySeverity[e.severity]++
		if e.kind.Severity() != e.severity {
			t.Errorf("%q.Severity() = %v, want %v", e.kind, e.kind.Severity(), e.severity)
		}
	}
	for s := SeverityChat; s <= SeverityError; s++ {
		if bySeverity[s] == 0 {
			t.Errorf("no kind of severity %v", s)
		}
	}
	if n := NewNote(NoteCRCMismatch, "x"); n.Severity != SeverityError || n.String() != "x" {
		t.Errorf("NewNote(NoteCRCMismatch, %q) = %+v", "x", n)
	}
}
