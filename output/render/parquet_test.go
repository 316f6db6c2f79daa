package render

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"

	"github.com/kdissect/kdissect/dissect"
)

// TestParquetMatchesJSONLines writes every test capture as Parquet and as
// JSON Lines, reads the Parquet file back with parquet-go, and holds each
// row against its JSON line, key by key: the typed columns say what the
// JSON says, and the bodies are the JSON bodies.
func TestParquetMatchesJSONLines(t *testing.T) {
	for _, c := range testCaptures(t) {
		t.Run(filepath.Base(c.path), func(t *testing.T) {
			exs := readExchanges(t, c)
			var js, pq bytes.Buffer
			jl := NewJSONLines(&js, false)
			p := NewParquet(&pq, ParquetOptions{})
			for _, ex := range exs {
				if err := jl.Write(ex); err != nil {
					t.Fatal(err)
				}
				if err := p.Write(ex); err != nil {
					t.Fatal(err)
				}
			}
			if err := jl.Flush(); err != nil {
				t.Fatal(err)
			}
			if err := p.Close(); err != nil {
				t.Fatal(err)
			}
			rows := readParquetRows(t, pq.Bytes())
			lines := jsonLines(t, js.Bytes())
			if len(rows) != len(lines) || len(rows) != len(exs) {
				t.Fatalf("%d rows, %d JSON lines, %d exchanges", len(rows), len(lines), len(exs))
			}
			for i := range rows {
				got := rowAsJSON(t, &rows[i])
				want := lines[i]
				// Keys the JSON writes only on some lines (tls, file)
				// are null columns on the others.
				for _, k := range []string{"tls", "file"} {
					if _, ok := want[k]; !ok {
						want[k] = nil
					}
				}
				if !reflect.DeepEqual(got, want) {
					gj, _ := json.Marshal(got)
					wj, _ := json.Marshal(want)
					t.Fatalf("row %d differs from its JSON line:\nparquet %s\njson    %s", i, gj, wj)
				}
			}
		})
	}
}

// TestParquetSchema checks the column types readers rely on: ts a
// nanosecond timestamp in UTC, ints as ints, lists of structs, zstd.
func TestParquetSchema(t *testing.T) {
	exs := readExchanges(t, testCapture{"../../testdata/pcaps/kcat_produce_zstd.pcap", 9092})
	f, _ := writeParquet(t, exs, ParquetOptions{})
	s := f.Schema()
	ts, _ := s.Lookup("ts")
	lt := ts.Node.Type().LogicalType()
	tt, ok := lt.Value.(*format.TimestampType)
	if ok {
		_, ok = tt.Unit.Value.(*format.NanoSeconds)
	}
	if !ok || !tt.IsAdjustedToUTC {
		t.Errorf("ts: logical type %v, want TIMESTAMP(NANOS, UTC)", lt)
	}
	for _, col := range []string{"stream", "latency_us", "records"} {
		c, ok := s.Lookup(col)
		if !ok || c.Node.Type().Kind() != parquet.Int64 {
			t.Errorf("%s: not an INT64 column", col)
		}
	}
	if c, ok := s.Lookup("errors", "list", "element", "name"); !ok || c.Node.Type().Kind() != parquet.ByteArray {
		t.Errorf("errors.list.element.name: not found as a string in a list of structs")
	}
	if _, ok := s.Lookup("topics", "list", "element", "partitions", "list", "element"); !ok {
		t.Errorf("topics.list.element.partitions: not found as a list in a list of structs")
	}
	for _, rg := range f.Metadata().RowGroups {
		for _, cc := range rg.Columns {
			if cc.MetaData.Codec != format.Zstd {
				t.Errorf("column %v: codec %v, want ZSTD", cc.MetaData.PathInSchema, cc.MetaData.Codec)
			}
		}
	}
}

// TestParquetRowGroupsBounded writes with a small row-group bound: the
// rows are split into several row groups, none much over the bound, and
// all of them read back.
func TestParquetRowGroupsBounded(t *testing.T) {
	exs := readExchanges(t, testCapture{"../../testdata/pcaps/franz_groups.pcap", 9092})
	const bound = 4 << 10
	var biggest int64
	for _, ex := range exs {
		_, n := (&ParquetRows{}).Row(ex)
		biggest = max(biggest, n)
	}
	f, p := writeParquet(t, exs, ParquetOptions{RowGroupBytes: bound})
	groups := f.Metadata().RowGroups
	if len(groups) < 2 {
		t.Fatalf("%d row groups for %d exchanges with a bound of %d bytes", len(groups), len(exs), bound)
	}
	var total int64
	for i, rg := range groups {
		total += rg.NumRows
		if rg.TotalByteSize > 4*(bound+biggest) { // uncompressed, with levels and headers
			t.Errorf("row group %d: %d bytes uncompressed, bound %d", i, rg.TotalByteSize, bound)
		}
	}
	if total != int64(len(exs)) || p.Rows() != total {
		t.Errorf("%d rows in the row groups, %d written, %d exchanges", total, p.Rows(), len(exs))
	}
}

// writeParquet writes exs as a Parquet file and opens it.
func writeParquet(t *testing.T, exs []*dissect.Exchange, opts ParquetOptions) (*parquet.File, *Parquet) {
	t.Helper()
	var pq bytes.Buffer
	p := NewParquet(&pq, opts)
	for _, ex := range exs {
		if err := p.Write(ex); err != nil {
			t.Fatal(err)
		}
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	f, err := parquet.OpenFile(bytes.NewReader(pq.Bytes()), int64(pq.Len()))
	if err != nil {
		t.Fatal(err)
	}
	return f, p
}

func readParquetRows(t *testing.T, b []byte) []ExchangeRow {
	t.Helper()
	r := parquet.NewGenericReader[ExchangeRow](bytes.NewReader(b))
	defer r.Close()
	rows := make([]ExchangeRow, r.NumRows())
	n, err := r.Read(rows)
	if err != nil && err != io.EOF {
		t.Fatal(err)
	}
	return rows[:n]
}

func jsonLines(t *testing.T, b []byte) []map[string]any {
	t.Helper()
	var out []map[string]any
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, 1<<30)
	for sc.Scan() {
		out = append(out, decodeJSON(t, sc.Bytes()).(map[string]any))
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func decodeJSON(t *testing.T, b []byte) any {
	t.Helper()
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		t.Fatalf("%v: %.200s", err, b)
	}
	return v
}

// rowAsJSON is the JSON object the row stands for, as the JSON Lines
// contract writes it.
func rowAsJSON(t *testing.T, r *ExchangeRow) map[string]any {
	num := func(v int64) any { return json.Number(jsonInt(v)) }
	opt32 := func(v *int32) any {
		if v == nil {
			return nil
		}
		return num(int64(*v))
	}
	optStr := func(v *string) any {
		if v == nil {
			return nil
		}
		return *v
	}
	opt64 := func(v *int64) any {
		if v == nil {
			return nil
		}
		return num(*v)
	}
	body := func(v *string) any {
		if v == nil {
			return nil
		}
		return decodeJSON(t, []byte(*v))
	}
	m := map[string]any{
		"stream":         num(r.Stream),
		"client":         r.Client,
		"broker":         r.Broker,
		"api_key":        opt32(r.APIKey),
		"api":            optStr(r.API),
		"api_version":    opt32(r.APIVersion),
		"correlation_id": num(int64(r.CorrelationID)),
		"client_id":      optStr(r.ClientID),
		"request":        body(r.Request),
		"response":       body(r.Response),
		"request_size":   opt32(r.RequestSize),
		"response_size":  opt32(r.ResponseSize),
		"records":        opt64(r.Records),
		"file":           optStr(r.File),
		"tls":            nil,
		"latency_us":     nil,
	}
	if r.TS != nil {
		m["ts"] = r.TS.UTC().Format(tsLayout)
	} else {
		m["ts"] = time.Time{}.Format(tsLayout)
	}
	if r.LatencyUS != nil {
		m["latency_us"] = num(*r.LatencyUS)
	}
	if r.TLS != nil {
		tls := map[string]any{"version": r.TLS.Version, "cipher": r.TLS.Cipher, "sni": r.TLS.SNI}
		if r.TLS.Encrypted {
			tls["encrypted"] = true
		}
		m["tls"] = tls
	}
	topics := []any{}
	for _, tp := range r.Topics {
		o := map[string]any{"topic": optStr(tp.Topic)}
		if tp.TopicID != nil {
			o["topic_id"] = *tp.TopicID
		}
		parts := []any{}
		for _, p := range tp.Partitions {
			parts = append(parts, num(int64(p)))
		}
		o["partitions"] = parts
		topics = append(topics, o)
	}
	m["topics"] = topics
	errs := []any{}
	for _, e := range r.Errors {
		o := map[string]any{"code": num(int64(e.Code)), "name": e.Name}
		switch {
		case e.Topic != nil:
			o["topic"] = *e.Topic
		case e.TopicID != nil:
			o["topic"] = nil
		}
		if e.TopicID != nil {
			o["topic_id"] = *e.TopicID
		}
		if e.Partition != nil {
			o["partition"] = num(int64(*e.Partition))
		}
		errs = append(errs, o)
	}
	m["errors"] = errs
	notes := []any{}
	for _, n := range r.Notes {
		notes = append(notes, n)
	}
	m["notes"] = notes
	m["records_aborted"] = opt64(r.RecordsAborted)
	if r.RecordsNotCaptured { // as JSON, which writes the key only then
		m["records_not_captured"] = true
	}
	if r.ErrorsNotCaptured {
		m["errors_not_captured"] = true
	}
	packets := func(v []int64) any {
		if v == nil {
			return nil
		}
		a := []any{}
		for _, n := range v {
			a = append(a, num(n))
		}
		return a
	}
	m["request_packets"] = packets(r.RequestPackets)
	m["response_packets"] = packets(r.ResponsePackets)
	if len(r.PacketComments) > 0 { // as JSON, which writes the key only then
		cs := []any{}
		for _, c := range r.PacketComments {
			cs = append(cs, c)
		}
		m["packet_comments"] = cs
	}
	return m
}

func jsonInt(v int64) string {
	b, _ := json.Marshal(v)
	return string(b)
}
