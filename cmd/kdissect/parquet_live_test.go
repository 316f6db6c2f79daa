package main

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kdissect/kdissect/output/render"
)

// TestLiveParquetRolled runs live --format parquet -w DIR -G 1 while two
// clients produce a second apart: the exchanges go to more than one file,
// every file complete (its footer written, renamed from .part), and the
// files together hold every exchange once, the records produced among them.
func TestLiveParquetRolled(t *testing.T) {
	needLiveCapture(t)
	addr, port := fakeCluster(t)
	dir := filepath.Join(t.TempDir(), "pq")
	run := startLive(t, "live", "-i", "lo", "-p", fmt.Sprint(port), "--format", "parquet", "-w", dir, "-G", "1")
	produce(t, addr, 3)
	time.Sleep(1100 * time.Millisecond) // past -G 1: the next exchange closes the file
	produce(t, addr, 4)
	time.Sleep(1100 * time.Millisecond)
	produce(t, addr, 5)
	if err := run.wait(t, true); err != nil {
		t.Fatalf("kdissect live: %v\n%s", err, run.stderr)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".parquet") {
			t.Errorf("%s: not a complete Parquet file", e.Name())
			continue
		}
		files = append(files, filepath.Join(dir, e.Name()))
	}
	if len(files) < 2 {
		t.Fatalf("-G 1 over two seconds wrote %d files: %v", len(files), files)
	}
	rows, produced, seen := 0, 0, map[string]bool{}
	for _, f := range files {
		rs, err := parquet.ReadFile[render.ExchangeRow](f)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for _, r := range rs {
			key := fmt.Sprintf("%s %d", r.Client, r.CorrelationID)
			if seen[key] {
				t.Errorf("exchange %s in two rows", key)
			}
			seen[key] = true
			if r.API != nil && *r.API == "Produce" {
				produced += int(recordsOf(r))
			}
		}
		rows += len(rs)
	}
	if produced != 3+4+5 {
		t.Errorf("Produce rows carry %d records, want %d", produced, 3+4+5)
	}
	if rows == 0 {
		t.Error("no rows")
	}
}

// TestLiveParquetRolledBySize runs live --format parquet -w DIR -C 1
// --parquet-records RDIR while a client produces large records in three
// rounds: the files roll by size, every file complete, and each records
// file in RDIR carries the name of an exchanges file and exactly the
// records of that file's Produce rows, so that file N of each covers the
// same exchanges; together they hold every record once.
func TestLiveParquetRolledBySize(t *testing.T) {
	needLiveCapture(t)
	addr, port := fakeCluster(t)
	base := t.TempDir()
	dir, rdir := filepath.Join(base, "pq"), filepath.Join(base, "records")
	run := startLive(t, "live", "-i", "lo", "-p", fmt.Sprint(port), "--format", "parquet", "-w", dir, "-C", "1", "--parquet-records", rdir)
	// 12 MB in 15 records of 800 KB: two files with -C 1 (the 30 records
	// before made four), and half the 24 MB that kept live writing Parquet
	// for over 15 s after it was stopped on a loaded machine.
	const rounds, perRound, size = 3, 5, 800 << 10
	rng := rand.New(rand.NewPCG(1, 2))
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr), kgo.DefaultProduceTopic("live-orders"), kgo.ClientID("kdissect-live-test"),
		kgo.ProducerBatchCompression(kgo.NoCompression()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	for round := range rounds {
		var recs []*kgo.Record
		for i := range perRound {
			v := make([]byte, size)
			for j := range v {
				v[j] = byte(rng.Uint32())
			}
			recs = append(recs, &kgo.Record{Key: fmt.Appendf(nil, "r%d-%d", round, i), Value: v})
		}
		ctx, cancel := context.WithTimeout(context.Background(), hangCap)
		err := cl.ProduceSync(ctx, recs...).FirstErr()
		cancel()
		if err != nil {
			t.Fatalf("produce: %v", err)
		}
	}
	if err := run.wait(t, true); err != nil {
		t.Fatalf("kdissect live: %v\n%s", err, run.stderr)
	}
	list := func(d string) []string {
		entries, err := os.ReadDir(d)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, e := range entries {
			if !strings.HasSuffix(e.Name(), ".parquet") {
				t.Errorf("%s: not a complete Parquet file", filepath.Join(d, e.Name()))
				continue
			}
			names = append(names, e.Name())
		}
		return names
	}
	files, recFiles := list(dir), list(rdir)
	if len(files) < 2 {
		t.Fatalf("-C 1 over %d MB of records wrote %d files: %v", rounds*perRound*size>>20, len(files), files)
	}
	t.Logf("-C 1: %d exchanges files, %d records files", len(files), len(recFiles))
	if !slices.Equal(files, recFiles) {
		t.Fatalf("exchanges files %v, records files %v: want the same names", files, recFiles)
	}
	keys := map[string]bool{}
	for _, name := range files {
		rows, err := parquet.ReadFile[render.ExchangeRow](filepath.Join(dir, name))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		recs, err := parquet.ReadFile[render.RecordRow](filepath.Join(rdir, name))
		if err != nil {
			t.Fatalf("records %s: %v", name, err)
		}
		want := map[string]int{} // stream and correlation id: records
		for _, r := range rows {
			if r.API != nil && *r.API == "Produce" && recordsOf(r) > 0 {
				want[fmt.Sprint(r.Stream, r.CorrelationID)] += int(recordsOf(r))
			}
		}
		got := map[string]int{}
		for _, r := range recs {
			if r.API != "Produce" {
				continue
			}
			got[fmt.Sprint(r.Stream, r.CorrelationID)]++
			if len(r.Value) != size {
				t.Errorf("%s: record %s of %d bytes, want %d", name, r.Key, len(r.Value), size)
			}
			if keys[string(r.Key)] {
				t.Errorf("record %s in two rows", r.Key)
			}
			keys[string(r.Key)] = true
		}
		if !maps.Equal(got, want) {
			t.Errorf("%s: records by exchange %v, the exchanges file's Produce rows say %v", name, got, want)
		}
	}
	if len(keys) != rounds*perRound {
		t.Errorf("%d records in the records files, want %d", len(keys), rounds*perRound)
	}
}

// recordsOf is a row's records, 0 when null (none captured).
func recordsOf(r render.ExchangeRow) int64 {
	if r.Records == nil {
		return 0
	}
	return *r.Records
}
