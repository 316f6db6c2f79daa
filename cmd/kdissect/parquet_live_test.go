package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"

	"github.com/kdissect/kdissect/dissect/render"
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
				produced += int(r.Records)
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
