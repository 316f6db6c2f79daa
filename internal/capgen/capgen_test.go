package capgen_test

import (
	"bytes"
	"testing"

	"github.com/kdissect/kdissect/codec"
	"github.com/kdissect/kdissect/dissect"
	"github.com/kdissect/kdissect/internal/capgen"
)

// The capture reads back whole: every exchange answered, decoded without a
// note, in capture order, with the records the generator put in.
func TestCaptureDecodes(t *testing.T) {
	var buf bytes.Buffer
	res, err := capgen.Write(&buf, capgen.Config{Conns: 8, PerConn: 20, Exchanges: 600, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	if res.Bytes != int64(buf.Len()) || res.Exchanges != 600 {
		t.Fatalf("result %+v for %d bytes", res, buf.Len())
	}
	dec := dissect.NewDecoder(dissect.DecodeOptions{Records: codec.RecordDecodeOptions{MaxDecompressedBytes: codec.DefaultMaxDecompressedBytes}})
	var n int
	var records int64
	apis := map[string]int{}
	last := int64(-1)
	d := dissect.New(dissect.Options{})
	err = d.ReadCapture(&buf, func(ex *dissect.Exchange) {
		dec.Decode(ex)
		n++
		records += int64(ex.Decoded.Records)
		if ex.Decoded.API != nil {
			apis[ex.Decoded.API.Name]++
		}
		if ex.Response == nil || ex.Decoded.Request == nil || ex.Decoded.Response == nil || len(ex.Notes) > 0 {
			t.Errorf("exchange %d (%s): not decoded whole: %q", n, ex.Decoded.API.Name, ex.Notes)
		}
		if ex.Order() < last {
			t.Errorf("exchange %d out of capture order", n)
		}
		last = ex.Order()
	})
	if err != nil {
		t.Fatal(err)
	}
	if n != res.Exchanges || records != res.Records || d.Stats().Packets != res.Packets {
		t.Errorf("read %d exchanges, %d records, %d packets; wrote %+v", n, records, d.Stats().Packets, res)
	}
	for _, api := range []string{"ApiVersions", "Metadata", "Produce", "Fetch", "FindCoordinator", "JoinGroup", "SyncGroup", "Heartbeat", "OffsetCommit"} {
		if apis[api] == 0 {
			t.Errorf("no %s exchange in %v", api, apis)
		}
	}
}

// The same Config writes the same bytes; another seed, others.
func TestDeterministic(t *testing.T) {
	write := func(seed uint64) []byte {
		var buf bytes.Buffer
		if _, err := capgen.Write(&buf, capgen.Config{Bytes: 1 << 20, Seed: seed}); err != nil {
			t.Fatal(err)
		}
		return buf.Bytes()
	}
	a, b, c := write(1), write(1), write(2)
	if !bytes.Equal(a, b) || bytes.Equal(a, c) {
		t.Error("capture bytes do not follow the seed")
	}
	if len(a) < 1<<20 || len(a) > 1<<20+256<<10 {
		t.Errorf("asked 1 MiB, wrote %d bytes", len(a))
	}
}

// A Config without an end is refused.
func TestNoEnd(t *testing.T) {
	if _, err := capgen.Write(&bytes.Buffer{}, capgen.Config{}); err == nil {
		t.Error("no error")
	}
}
