package client

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kdissect/kdissect/codec"
)

// Interop with kcat (librdkafka): skipped when kcat is not on PATH (.ci/run
// installs it).

var codecs = []codec.Compression{codec.CompressionNone, codec.CompressionGzip, codec.CompressionSnappy, codec.CompressionLZ4, codec.CompressionZstd}

// kcatCluster starts kfake answering ApiVersions with Produce and Fetch
// from v0, as Kafka brokers before 4.0 do: librdkafka 2.0 compresses with
// gzip, snappy or lz4 only when the broker lists Produce v0 (the approach
// of internal/kfakebroker). kfake's own answer is learnt through our Conn.
func kcatCluster(t *testing.T, topics ...string) (*kfake.Cluster, string) {
	t.Helper()
	if _, err := exec.LookPath("kcat"); err != nil {
		t.Skip("kcat not on PATH")
	}
	c := newCluster(t, kfake.SeedTopics(1, topics...))
	addr := c.ListenAddrs()[0]
	ctx := testCtx(t)
	cn, err := Dial(ctx, addr, nil)
	if err != nil {
		t.Fatal(err)
	}
	m, err := cn.RoundTrip(ctx, &codec.ApiVersionsRequest{ClientSoftwareName: "kdissect", ClientSoftwareVersion: "1"}, 3)
	cn.Close()
	if err != nil {
		t.Fatal(err)
	}
	var keys []kmsg.ApiVersionsResponseApiKey
	for _, k := range m.(*codec.ApiVersionsResponse).ApiKeys {
		kk := kmsg.NewApiVersionsResponseApiKey()
		kk.ApiKey, kk.MinVersion, kk.MaxVersion = k.ApiKey, k.MinVersion, k.MaxVersion
		if k.ApiKey == 0 || k.ApiKey == 1 {
			kk.MinVersion = 0
		}
		keys = append(keys, kk)
	}
	c.ControlKey(int16(kmsg.ApiVersions), func(kr kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		req := kr.(*kmsg.ApiVersionsRequest)
		if req.Version > 3 {
			return nil, nil, false
		}
		resp := req.ResponseKind().(*kmsg.ApiVersionsResponse)
		resp.ApiKeys = slices.Clone(keys)
		return resp, nil, true
	})
	return c, addr
}

func runKcat(t *testing.T, stdin []byte, args ...string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "kcat", args...)
	cmd.Stdin = bytes.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("kcat %v: %v\n%s", args, err, errb.Bytes())
	}
	return out.Bytes()
}

// kcatRecord is one record as kcat printed it with kcatFormat.
type kcatRecord struct {
	offset  int64
	key     []byte // nil: null
	value   []byte // nil: null
	headers string
}

// kcatFormat prints each record with its key and value lengths so that
// binary bytes parse back exactly: offset:keylen:valuelen:key value |headers.
const kcatFormat = "%o:%K:%S:%k%s|%h\n"

func parseKcat(t *testing.T, out []byte) []kcatRecord {
	t.Helper()
	var recs []kcatRecord
	num := func() int64 {
		i := bytes.IndexByte(out, ':')
		if i < 0 {
			t.Fatalf("kcat output: %q", out)
		}
		n, err := strconv.ParseInt(string(out[:i]), 10, 64)
		if err != nil {
			t.Fatalf("kcat output: %q", out)
		}
		out = out[i+1:]
		return n
	}
	take := func(n int64) []byte {
		if n < 0 {
			return nil
		}
		b := bytes.Clone(out[:n])
		if b == nil {
			b = []byte{}
		}
		out = out[n:]
		return b
	}
	for len(out) > 0 {
		var r kcatRecord
		r.offset = num()
		kl, vl := num(), num()
		r.key, r.value = take(kl), take(vl)
		if len(out) == 0 || out[0] != '|' {
			t.Fatalf("kcat output after the value: %q", out)
		}
		i := bytes.IndexByte(out, '\n')
		r.headers, out = string(out[1:i]), out[i+1:]
		recs = append(recs, r)
	}
	return recs
}

// TestKcatConsumesOurs: what we produce with each codec, kcat consumes
// byte-exact: keys (null, empty, binary), values (null, binary, large),
// headers, offsets.
func TestKcatConsumesOurs(t *testing.T) {
	noLeaks(t)
	var topics []string
	for _, c := range codecs {
		topics = append(topics, "ours-"+c.String())
	}
	c, addr := kcatCluster(t, topics...)
	cl := newClient(t, c, nil)
	ctx := testCtx(t)
	recs := []Record{
		{Key: []byte("k1"), Value: []byte("v1"), Headers: []Header{{Key: "h1", Value: []byte("x")}, {Key: "h2", Value: []byte("yz")}}},
		{Key: nil, Value: []byte("null key")},
		{Key: []byte{0, 1, 2, 0xff, ':', '|', '\n'}, Value: []byte{0xfe, 0, '\n', '|', ':'}},
		{Key: []byte(""), Value: []byte("")},
		{Key: []byte("tomb"), Value: nil},
		{Key: []byte("big"), Value: bytes.Repeat([]byte("kdissect "), 2000)},
	}
	for _, comp := range codecs {
		topic := "ours-" + comp.String()
		p, _ := NewProducer(cl, ProducerConfig{Compression: comp})
		if _, err := p.Produce(ctx, topic, 0, recs...); err != nil {
			t.Fatalf("%s: %v", comp, err)
		}
		out := runKcat(t, nil, "-C", "-b", addr, "-t", topic, "-p", "0", "-o", "beginning", "-e", "-q", "-f", kcatFormat)
		got := parseKcat(t, out)
		if len(got) != len(recs) {
			t.Fatalf("%s: kcat read %d records", comp, len(got))
		}
		for i, r := range got {
			want := recs[i]
			if r.offset != int64(i) || !sameBytes(r.key, want.Key) || !sameBytes(r.value, want.Value) {
				t.Errorf("%s[%d]: kcat read offset %d key %q value %.30q", comp, i, r.offset, r.key, r.value)
			}
			var hs []string
			for _, h := range want.Headers {
				hs = append(hs, h.Key+"="+string(h.Value))
			}
			if r.headers != strings.Join(hs, ",") {
				t.Errorf("%s[%d]: kcat read headers %q", comp, i, r.headers)
			}
		}
	}
}

// kcatBatchings are the ways kcat's producer is run: librdkafka's own
// batching, which depends on timing, and one record per batch, the
// smallest batches any timing can give.
var kcatBatchings = []struct {
	name string
	args []string
}{
	{"batched", nil},
	{"one per batch", []string{"-X", "batch.num.messages=1"}},
}

// compressibleLines returns lines (KEY:VALUE, as kcat -K : splits them)
// with each value padded with a repeated word, so that any batch of them,
// down to one record, compresses smaller than it is with every codec:
// librdkafka sends a batch uncompressed when compressing does not shrink
// it (rd_kafka_msgset_writer_compress), and which records share a batch
// depends on timing. The batch codec a test reads back is then the one
// it asked kcat for, whatever the timing.
func compressibleLines(lines ...string) []string {
	pad := strings.Repeat(" pad", 64)
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = l + pad
	}
	return out
}

// TestWeConsumeKcats: what kcat produces with each codec (keys split by
// -K, a header by -H), we consume byte-exact, in the batch codec kcat used
// (which is the one asked for: see compressibleLines), whether librdkafka
// batches the records as it likes or one per batch.
func TestWeConsumeKcats(t *testing.T) {
	noLeaks(t)
	var topics []string
	for _, c := range codecs {
		for b := range kcatBatchings {
			topics = append(topics, fmt.Sprintf("kcat-%s-%d", c, b))
		}
	}
	c, addr := kcatCluster(t, topics...)
	cl := newClient(t, c, nil)
	ctx := testCtx(t)
	lines := compressibleLines("k1:v1", "k2:value two with spaces", ":empty key", "k4:"+strings.Repeat("z", 3000), "k5:\x01\x02bin\xff")
	input := []byte(strings.Join(lines, "\n") + "\n")
	for _, comp := range codecs {
		for b, batching := range kcatBatchings {
			topic := fmt.Sprintf("kcat-%s-%d", comp, b)
			args := append([]string{"-P", "-b", addr, "-t", topic, "-p", "0", "-K", ":", "-z", comp.String(), "-H", "src=kcat", "-H", "n=1"}, batching.args...)
			runKcat(t, input, args...)
			fr, err := NewConsumer(cl, ConsumerConfig{}).Fetch(ctx, topic, 0, 0)
			if err != nil {
				t.Fatal(err)
			}
			if len(fr.Messages) != len(lines) {
				t.Fatalf("%s, %s: %d messages", comp, batching.name, len(fr.Messages))
			}
			for i, m := range fr.Messages {
				k, v, _ := strings.Cut(lines[i], ":")
				if !m.Valid || m.Offset != int64(i) || string(m.Key) != k || string(m.Value) != v {
					t.Errorf("%s[%d], %s: %+v", comp, i, batching.name, m)
				}
				if fmt.Sprint(m.Headers) != fmt.Sprint([]Header{{Key: "src", Value: []byte("kcat")}, {Key: "n", Value: []byte("1")}}) {
					t.Errorf("%s[%d], %s: headers %v", comp, i, batching.name, m.Headers)
				}
				if m.Compression != comp {
					t.Errorf("%s[%d], %s: the batch is %s", comp, i, batching.name, m.Compression)
				}
			}
		}
	}
}

// TestOffsetsAgreeWithKcat: earliest, latest and by-timestamp offsets as
// kcat -Q reports them.
func TestOffsetsAgreeWithKcat(t *testing.T) {
	noLeaks(t)
	c, addr := kcatCluster(t, "q")
	cl := newClient(t, c, nil)
	ctx := testCtx(t)
	p, _ := NewProducer(cl, ProducerConfig{})
	t0 := time.UnixMilli(1700000000000)
	for i := range 5 {
		if _, err := p.Produce(ctx, "q", 0, Record{Value: []byte("x"), Timestamp: t0.Add(time.Duration(i) * time.Minute)}); err != nil {
			t.Fatal(err)
		}
	}
	co := NewConsumer(cl, ConsumerConfig{})
	re := regexp.MustCompile(`q \[0\]\s+offset (-?\d+)`)
	for _, ts := range []int64{OffsetEarliest, OffsetLatest, t0.UnixMilli(), t0.Add(150 * time.Second).UnixMilli(), t0.Add(time.Hour).UnixMilli()} {
		out := runKcat(t, nil, "-Q", "-b", addr, "-t", fmt.Sprintf("q:0:%d", ts))
		mm := re.FindSubmatch(out)
		if mm == nil {
			t.Fatalf("kcat -Q output %q", out)
		}
		theirs, _ := strconv.ParseInt(string(mm[1]), 10, 64)
		ours, err := co.ListOffset(ctx, "q", 0, ts)
		if err != nil {
			t.Fatal(err)
		}
		if ours != theirs {
			t.Errorf("timestamp %d: we say %d, kcat -Q says %d", ts, ours, theirs)
		}
	}
}
