package render

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/kdissect/kdissect/codec"
	"github.com/kdissect/kdissect/dissect"
	"github.com/kdissect/kdissect/internal/capgen"
)

// TestParquetNoPayloadStatistics: a Produce of one zstd batch whose
// record key, value and header value are 64 KiB each. Neither Parquet
// file holds any of them uncompressed (parquet-go wrote each whole in
// every page header and column chunk statistics of its column: six
// times), the payload columns (bodies, packet comments, keys, values,
// headers) have no min/max statistics, the other columns keep theirs,
// and the records read back whole.
func TestParquetNoPayloadStatistics(t *testing.T) {
	long := func(what string) []byte {
		return bytes.Repeat([]byte("kdissect "+what+" "), 64<<10/(len(what)+10))
	}
	key, value, header := long("key"), long("value"), long("header")
	batch := codec.RecordBatch{Attributes: int16(codec.CompressionZstd), ProducerId: -1, ProducerEpoch: -1, BaseSequence: -1}
	batch.Records = []codec.Record{{Key: key, Value: value, Headers: []codec.RecordHeader{{Key: "h", Value: header}}}}
	req, resp, err := capgen.ProduceFrames(1, batch.AppendTo(nil))
	if err != nil {
		t.Fatal(err)
	}
	var capture bytes.Buffer
	if err := capgen.WriteExchanges(&capture, [][2][]byte{{req, resp}}); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "long.pcap")
	if err := os.WriteFile(path, capture.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	exs := readExchanges(t, testCapture{path, 9092})
	if len(exs) != 1 || exs[0].Decoded == nil || exs[0].Decoded.Request == nil {
		t.Fatalf("%d exchanges, want the Produce decoded", len(exs))
	}

	var xs, rs bytes.Buffer
	p, r := NewParquet(&xs, ParquetOptions{}), NewParquetRecords(&rs)
	for _, w := range []interface {
		Write(*dissect.Exchange) error
		Close() error
	}{p, r} {
		if err := w.Write(exs[0]); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
	}
	files := []struct {
		name     string
		b        []byte
		payloads []string
		kept     []string // columns that hold values and keep their statistics
	}{
		{"exchanges", xs.Bytes(), []string{"request", "response", "packet_comments.list.element"}, []string{"client", "api", "topics.list.element.topic"}},
		{"records", rs.Bytes(), []string{"key", "value", "headers.list.element.key", "headers.list.element.value"}, []string{"api", "topic", "offset"}},
	}
	for _, f := range files {
		for what, b := range map[string][]byte{"key": key, "value": value, "header value": header} {
			if n := bytes.Count(f.b, b); n != 0 {
				t.Errorf("%s file: the record's %s %d times uncompressed", f.name, what, n)
			}
		}
		pf, err := parquet.OpenFile(bytes.NewReader(f.b), int64(len(f.b)))
		if err != nil {
			t.Fatal(err)
		}
		var noStats, withStats []string
		for _, rg := range pf.Metadata().RowGroups {
			for _, cc := range rg.Columns {
				col := strings.Join(cc.MetaData.PathInSchema, ".")
				st := cc.MetaData.Statistics
				if st.MinValue == nil && st.MaxValue == nil && st.Min == nil && st.Max == nil {
					noStats = append(noStats, col)
				} else {
					withStats = append(withStats, col)
				}
			}
		}
		for _, col := range f.payloads {
			if _, ok := pf.Schema().Lookup(strings.Split(col, ".")...); !ok {
				t.Errorf("%s file: no column %s", f.name, col)
			}
			if !slices.Contains(noStats, col) {
				t.Errorf("%s file: payload column %s has statistics", f.name, col)
			}
		}
		for _, col := range f.kept {
			if !slices.Contains(withStats, col) {
				t.Errorf("%s file: column %s has no statistics", f.name, col)
			}
		}
	}

	rr := parquet.NewGenericReader[RecordRow](bytes.NewReader(rs.Bytes()))
	defer rr.Close()
	rows := make([]RecordRow, 2)
	n, _ := rr.Read(rows)
	if n != 1 || !bytes.Equal(rows[0].Key, key) || !bytes.Equal(rows[0].Value, value) || len(rows[0].Headers) != 1 || !bytes.Equal(rows[0].Headers[0].Value, header) {
		t.Errorf("records file: %d rows, want the record whole", n)
	}
	xrows := readParquetRows(t, xs.Bytes())
	if len(xrows) != 1 || xrows[0].Request == nil || !strings.Contains(*xrows[0].Request, string(value)) {
		t.Errorf("exchanges file: %d rows, want the request body with the value", len(xrows))
	}
}
