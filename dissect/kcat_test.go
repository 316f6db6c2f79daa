package dissect

import (
	"path/filepath"
	"testing"
)

// The kcat captures in testdata/pcaps (real librdkafka traffic against a
// fake broker, see testdata/pcaps/regen.sh): many exchanges, every request
// and response whole and matched, no notes. A request may lack its
// response only if it is the last on its connection (a long-poll Fetch
// still waiting when the capture stopped).
func TestKcatCaptures(t *testing.T) {
	files, _ := filepath.Glob("../testdata/pcaps/*.pcap")
	if len(files) == 0 {
		t.Skip("no captures in testdata/pcaps")
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			d := New(Options{})
			var got []*Exchange
			if err := d.ReadFile(file, func(e *Exchange) { got = append(got, e) }); err != nil {
				t.Fatal(err)
			}
			st := d.Stats()
			if st.Packets == 0 {
				t.Skip("empty capture (being regenerated?)")
			}
			if len(got) < 5 {
				t.Fatalf("only %d exchanges", len(got))
			}
			last := map[int]int{} // stream → index of its last request
			for i, e := range got {
				if e.Request != nil {
					last[e.Stream] = i
				}
			}
			matched := 0
			for i, e := range got {
				// The only note: the client closed its connection while the
				// broker held its last long-poll Fetch.
				if len(e.Notes) > 0 && !(e.Response == nil && e.NoResponse == ConnectionClosed && len(e.Notes) == 1) {
					t.Errorf("%s", describe(e))
				}
				if e.Request == nil {
					t.Errorf("response without request: %s", describe(e))
					continue
				}
				if len(e.Request.Bytes) != int(e.Request.Size) {
					t.Errorf("incomplete request: %s", describe(e))
				}
				if e.Response == nil {
					if last[e.Stream] != i {
						t.Errorf("unanswered request before the end of its connection: %s", describe(e))
					}
					continue
				}
				if len(e.Response.Bytes) != int(e.Response.Size) {
					t.Errorf("incomplete response: %s", describe(e))
				}
				matched++
			}
			if matched*10 < len(got)*8 {
				t.Errorf("only %d of %d exchanges matched", matched, len(got))
			}
			if st.Skipped != 0 || st.LostBytes != 0 || st.Frames != int64(len(got)+matched) {
				t.Errorf("stats %+v", st)
			}
		})
	}
}
