package render

import (
	"bufio"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/kdissect/kdissect/dissect"
)

// testCapture is a capture file with its broker port.
type testCapture struct {
	path string
	port uint16
}

// testCaptures lists the project's captures (port 9092) and the public
// ones in ../shared/pcaps-public, with the ports its ports.tsv gives, when
// that folder is there.
func testCaptures(t *testing.T) []testCapture {
	t.Helper()
	var out []testCapture
	files, _ := filepath.Glob("../../testdata/pcaps/*.pcap*")
	for _, f := range files {
		if strings.HasSuffix(f, ".gz") {
			// kcat_mtu.pcap.gz is for the lossy-capture tests: its Fetch
			// responses of thousands of records would make the view tests
			// here, which trace whole frames, cost gigabytes.
			continue
		}
		out = append(out, testCapture{f, 9092})
	}
	if len(out) == 0 {
		t.Fatal("no captures in testdata/pcaps")
	}
	dir := "../../../shared/pcaps-public"
	f, err := os.Open(filepath.Join(dir, "ports.tsv"))
	if err != nil {
		t.Logf("public captures not available (%v): only testdata/pcaps is used", err)
		return out
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		name, port, ok := strings.Cut(sc.Text(), "\t")
		if !ok {
			continue
		}
		p, err := strconv.ParseUint(strings.TrimSpace(port), 10, 16)
		if err != nil {
			continue
		}
		out = append(out, testCapture{filepath.Join(dir, name), uint16(p)})
	}
	return out
}

// readExchanges decodes a capture.
func readExchanges(t *testing.T, c testCapture) []*dissect.Exchange {
	t.Helper()
	d := dissect.New(dissect.Options{Ports: []uint16{c.port}})
	dec := dissect.NewDecoder(dissect.DecodeOptions{})
	var exs []*dissect.Exchange
	if err := d.ReadFile(c.path, func(ex *dissect.Exchange) {
		dec.Decode(ex)
		exs = append(exs, ex)
	}); err != nil {
		t.Fatal(err)
	}
	return exs
}
