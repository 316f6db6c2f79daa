package dissect

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"testing"

	"github.com/kdissect/kdissect/codec"
	"github.com/kdissect/kdissect/internal/capgen"
)

// recordCounts is what counting the records of one exchange gives: the
// Decoded.Records total, then per record set its topic-partition, Count,
// complete entry bytes and partial bytes.
type recordCounts struct {
	total int
	sets  []string
}

// countRecords reads a capture with opts and returns the record counts of
// each exchange, and how many batches of each codec were taken at their
// header.
func countRecords(t *testing.T, name string, open func() (io.Reader, error), port uint16, opts DecodeOptions) ([]recordCounts, map[codec.Compression]int) {
	t.Helper()
	r, err := open()
	if err != nil {
		t.Fatal(err)
	}
	dec := NewDecoder(opts)
	var out []recordCounts
	taken := map[codec.Compression]int{}
	err = New(Options{Ports: []uint16{port}}).ReadCapture(r, func(ex *Exchange) {
		dec.Decode(ex)
		rc := recordCounts{total: ex.Decoded.Records}
		for _, rr := range ex.Decoded.RecordSets {
			set := rr.Records.Set
			var bytes int64
			for _, e := range set.Entries {
				switch {
				case e.Batch != nil:
					bytes += 12 + int64(e.Batch.BatchLength)
					if e.Batch.RecordsCounted {
						taken[e.Batch.Compression()]++
					}
				case e.Message != nil:
					bytes += 12 + int64(e.Message.MessageSize)
				}
			}
			rc.sets = append(rc.sets, fmt.Sprintf("%s/%s-%d: %d records, %d bytes, %d partial", rr.Topic, rr.TopicID, rr.Partition, set.Count(), bytes, set.PartialBytes))
		}
		out = append(out, rc)
	})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return out, taken
}

// TestRecordCountOnlyAgrees checks that decoding with
// codec.RecordDecodeOptions.CountOnly (as `kdissect stats` does) counts
// the records and record set bytes of every exchange exactly as a full
// decode does, on every test capture and on synthetic captures with every
// compression, and that it does take batches at their header.
func TestRecordCountOnlyAgrees(t *testing.T) {
	type capture struct {
		name string
		port uint16
		open func() (io.Reader, error)
	}
	var caps []capture
	for _, c := range allCaptures(t) {
		caps = append(caps, capture{c.path, c.port, func() (io.Reader, error) {
			b, err := os.ReadFile(c.path)
			return bytes.NewReader(b), err
		}})
	}
	for seed := range uint64(3) {
		var buf bytes.Buffer
		// capgen gives each client one of the five codecs in turn.
		if _, err := capgen.Write(&buf, capgen.Config{Bytes: 2 << 20, Seed: seed}); err != nil {
			t.Fatal(err)
		}
		caps = append(caps, capture{fmt.Sprintf("capgen seed %d", seed), 9092, func() (io.Reader, error) { return bytes.NewReader(buf.Bytes()), nil }})
	}
	budget := codec.RecordDecodeOptions{MaxDecompressedBytes: codec.DefaultMaxDecompressedBytes}
	counted := budget
	counted.CountOnly = true
	takenAll := map[codec.Compression]int{}
	records := 0
	for _, c := range caps {
		full, _ := countRecords(t, c.name, c.open, c.port, DecodeOptions{Records: budget})
		fast, taken := countRecords(t, c.name, c.open, c.port, DecodeOptions{Records: counted})
		for c, n := range taken {
			takenAll[c] += n
		}
		if len(full) != len(fast) {
			t.Errorf("%s: %d exchanges in full, %d counting", c.name, len(full), len(fast))
			continue
		}
		for i := range full {
			records += full[i].total
			if full[i].total != fast[i].total || fmt.Sprint(full[i].sets) != fmt.Sprint(fast[i].sets) {
				t.Errorf("%s: exchange %d: full %d records %q, counting %d records %q", c.name, i, full[i].total, full[i].sets, fast[i].total, fast[i].sets)
			}
		}
	}
	t.Logf("%d captures, %d records; batches taken at their header by codec: %v", len(caps), records, takenAll)
	for c := codec.CompressionNone; c <= codec.CompressionZstd; c++ {
		if takenAll[c] == 0 {
			t.Errorf("no %s batch was taken at its header", c)
		}
	}
}
