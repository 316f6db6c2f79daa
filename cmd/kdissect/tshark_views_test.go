package main

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"encoding/xml"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
)

// This file holds tshark's reading of each field as the oracle of the
// detail and hexdump views. `tshark -T pdml` gives every field it decodes
// with its name, position, size and shown value; for each one the
// hexdump must label the same byte range with the Kafka field that
// tshark's name stands for (tsharkFieldNames), and the hexdump and the
// detail view must show the same value.
//
// Positions: a PDML field's pos is into the data source it was read from:
// the packet, the reassembled TCP payload, or a record batch's
// decompressed records. Its offset in the Kafka frame (the hexdump's,
// which counts the 4-byte size prefix) is pos minus the kafka PDU's own
// pos; a field of decompressed records keeps its pos, which is the
// offset into the decompressed bytes, the hexdump's "+" offsets, counted
// per compressed batch in order.

// pdmlField is one leaf field tshark shows.
type pdmlField struct {
	name, show string
	start, end int    // offsets in the frame, or in decompressed section sec
	sec        int    // 0: the frame; n: the n-th compressed batch's records
	legacy     bool   // inside a magic 0 or 1 message set
	inRecord   bool   // inside a v2 record
	where      string // the enclosing tshark subtrees, for messages
}

// pdmlPDU is one Kafka message tshark decodes.
type pdmlPDU struct {
	sport, dport int
	corr         int
	hasCorr      bool
	isResp       bool
	unreliable   []string // tshark's own notes that its decoding is off
	fields       []pdmlField
}

// pdmlElem is an open element while reading PDML.
type pdmlElem struct {
	show       string
	sec        int
	batch      bool // a "Record Batch" subtree
	compressed int  // a compressed batch: the section its records go to
	legacy     bool
	first      int // the index of the first field under it
}

// readPDML reads tshark's PDML: the Kafka PDUs in capture order.
func readPDML(r io.Reader) ([]*pdmlPDU, error) {
	dec := xml.NewDecoder(r)
	var (
		pdus         []*pdmlPDU
		cur          *pdmlPDU
		base         int
		sport, dport int
		stack        []*pdmlElem
		sections     int
		inTCP        bool
	)
	attr := func(e xml.StartElement, k string) string {
		for _, a := range e.Attr {
			if a.Name.Local == k {
				return a.Value
			}
		}
		return ""
	}
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return pdus, nil
		}
		if err != nil {
			return nil, fmt.Errorf("PDML: %w", err)
		}
		switch e := tok.(type) {
		case xml.StartElement:
			switch e.Name.Local {
			case "packet":
				sport, dport = 0, 0
			case "proto":
				name := attr(e, "name")
				inTCP = name == "tcp"
				if name == "kafka" {
					cur = &pdmlPDU{sport: sport, dport: dport}
					base = atoi(attr(e, "pos"))
					sections = 0
					stack = stack[:0]
					pdus = append(pdus, cur)
				} else if name == "_ws.malformed" && cur != nil {
					cur.unreliable = append(cur.unreliable, "malformed")
				}
			case "field":
				name, show := attr(e, "name"), attr(e, "show")
				if inTCP {
					switch name {
					case "tcp.srcport":
						sport = atoi(show)
					case "tcp.dstport":
						dport = atoi(show)
					}
				}
				if cur == nil {
					continue
				}
				el := &pdmlElem{show: show, first: len(cur.fields)}
				var parent *pdmlElem
				if len(stack) > 0 {
					parent = stack[len(stack)-1]
					el.sec, el.legacy = parent.sec, parent.legacy
				}
				stack = append(stack, el)
				switch {
				case name == "" && show == "Record Batch":
					el.batch = true
				case name == "" && show == "Record" && parent != nil && parent.compressed > 0:
					el.sec = parent.compressed
				case name == "kafka.batch_codec" && parent != nil && parent.batch && show != "0":
					sections++
					parent.compressed = sections
				case name == "kafka.message_magic" && (show == "0" || show == "1"):
					// The whole message set: tshark misreads magic 0 and 1
					// keys and values (see tshark_oracle_test.go).
					set := -1
					for i, s := range stack {
						if s.show == "Message Set" && set < 0 {
							set = i
						}
					}
					if set >= 0 {
						for _, s := range stack[set:] {
							s.legacy = true
						}
						for i := stack[set].first; i < len(cur.fields); i++ {
							cur.fields[i].legacy = true
						}
					}
					el.legacy = true
				case name == "kafka.correlation_id" && !cur.hasCorr:
					cur.corr, cur.hasCorr = atoi(show), true
				case name == "kafka.response_key" || name == "kafka.request_frame":
					cur.isResp = true
				case name == "kafka.unsupported_api_version" || name == "kafka.pdu_length_mismatch" ||
					strings.HasPrefix(name, "kafka.") && strings.Contains(attr(e, "showname"), "Malformed"):
					cur.unreliable = append(cur.unreliable, name)
				}
				if !strings.HasPrefix(name, "kafka.") || attr(e, "hide") == "yes" || attr(e, "size") == "" {
					continue
				}
				size, pos := atoi(attr(e, "size")), atoi(attr(e, "pos"))
				if size == 0 || len(stack) > 1 && strings.HasPrefix(stack[len(stack)-2].show, "Expert Info") {
					continue
				}
				f := pdmlField{name: name, show: show, start: pos, end: pos + size, sec: el.sec, legacy: el.legacy}
				if f.sec == 0 {
					f.start, f.end = pos-base, pos-base+size
				}
				var w []string
				for _, s := range stack[:len(stack)-1] {
					f.inRecord = f.inRecord || s.show == "Record"
					if s.show != "" {
						w = append(w, s.show)
					}
				}
				f.where = strings.Join(w, " / ")
				cur.fields = append(cur.fields, f)
			}
		case xml.EndElement:
			switch e.Name.Local {
			case "proto":
				inTCP = false
			case "field":
				if cur != nil && len(stack) > 0 {
					stack = stack[:len(stack)-1]
				}
			case "packet":
				cur = nil
			}
		}
	}
}

// viewLabel is one row of our hexdump that names a field.
type viewLabel struct {
	sec        int
	start, end int
	name, text string
	leaf       bool
	path       string // the enclosing labels' names and its own, "/"-joined
}

// viewFrame is one side of an exchange as the hexdump and detail views
// show it.
type viewFrame struct {
	labels  []viewLabel
	byRange map[[3]int][]int // sec, start, end -> labels
	detail  map[string]string
	notes   []string // the exchange's notes on this side
}

type viewExchange struct {
	req, resp *viewFrame
}

// nullReadAsEmpty is our note on a null string where Kafka allows none
// (tshark shows it as null, we read it as "" and say so).
const nullReadAsEmpty = "null string in a non-nullable field, read as empty"

var (
	reHexRange  = regexp.MustCompile(`^[ +]0x([0-9a-f]+)(?:-0x([0-9a-f]+))?`)
	reHeading   = regexp.MustCompile(`^Exchange \d+ · .* · (\S+) → \S+$`)
	reCorr      = regexp.MustCompile(`^  correlation id (-?\d+)`)
	reInline    = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9]*: `)
	reFrameSize = regexp.MustCompile(`(request|response) (\d+) bytes`)
	// "[0] offset 3 · TIME CreateTime", or "· TIME LogAppendTime (own
	// TIME)" where the broker's time is not the record's own.
	reRecordHead = regexp.MustCompile(`^\[\d+\] offset (-?\d+)(?: · (\S+)(?: (?:CreateTime|LogAppendTime)(?: \(own (\S+)\))?)?)?$`)
)

// exchangeKeys gives the exchanges of a view's output in order, keyed as
// the tshark oracle keys them (client port, CorrelationId, repeat), and
// the lines of each.
func exchangeKeys(out []byte) ([]rowKey, map[rowKey][]string) {
	var keys []rowKey
	lines := map[rowKey][]string{}
	seq := map[[2]int]int{}
	var cur rowKey
	var client int
	var have bool
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		l := sc.Text()
		if m := reHeading.FindStringSubmatch(l); m != nil {
			client = atoi(m[1][strings.LastIndex(m[1], ":")+1:])
			have = false
			continue
		}
		if m := reCorr.FindStringSubmatch(l); m != nil && !have {
			id := [2]int{client, atoi(m[1])}
			seq[id]++
			cur, have = rowKey{client, id[1], seq[id]}, true
			keys = append(keys, cur)
			lines[cur] = append(lines[cur], l)
			continue
		}
		if have {
			lines[cur] = append(lines[cur], l)
		}
	}
	return keys, lines
}

// pathName is a label's name as a path element: "[3]" of an element
// with a summary, the name before ": " or " = " otherwise.
func pathName(text string) string {
	if strings.HasPrefix(text, "[") {
		if i := strings.Index(text, "]"); i > 0 {
			return text[:i+1]
		}
	}
	for _, sep := range []string{" = ", ": "} {
		if i := strings.Index(text, sep); i >= 0 {
			text = text[:i]
		}
	}
	return strings.TrimSuffix(text, ":") // "Headers:", a record's
}

// pseudoName is a hexdump row of the wire's framing (an array's length,
// a tagged-field count, a decompressed section) that the detail view does
// not show as a level.
func pseudoName(name string) bool { return strings.HasPrefix(name, "(") }

// parseHexdump reads the rows of one exchange's hexdump.
func parseHexdump(lines []string) (req, resp *viewFrame) {
	var f *viewFrame
	var stack []string
	sec, sections := 0, 0
	labelCol := 0
	for _, l := range lines {
		switch {
		case strings.HasPrefix(l, "Request: "), strings.HasPrefix(l, "Response: "):
			f = &viewFrame{byRange: map[[3]int][]int{}, detail: map[string]string{}}
			if l[2] == 'q' {
				req = f
			} else {
				resp = f
			}
			stack, sections, labelCol = stack[:0], 0, 0
			continue
		}
		m := reHexRange.FindStringSubmatchIndex(l)
		if f == nil || m == nil {
			continue
		}
		token := l[1:m[1]]
		digits := len(strings.SplitN(token, "-", 2)[0]) - 2
		if labelCol == 0 {
			labelCol = 1 + 2*(digits+2) + 1 + 2 + 23 + 2
		}
		if len(l) <= labelCol {
			continue
		}
		rest := l[labelCol:]
		text := strings.TrimLeft(rest, " ")
		depth := (len(rest) - len(text)) / 2
		if m[4] < 0 && strings.HasPrefix(text, "|") {
			continue // a further row of a field's bytes
		}
		start, _ := strconv.ParseInt(l[m[2]:m[3]], 16, 64)
		end := start
		if m[4] >= 0 {
			e, _ := strconv.ParseInt(l[m[4]:m[5]], 16, 64)
			end = e + 1
		}
		name := pathName(text)
		eq, colon := strings.Index(text, " = "), strings.Index(text, ": ")
		leaf := eq >= 0 && (colon < 0 || eq < colon)
		if l[0] == '+' {
			if name == "(decompressed)" {
				sections++
				sec = sections
			}
		} else {
			sec = 0
		}
		if depth < len(stack) {
			stack = stack[:depth]
		}
		for len(stack) < depth {
			stack = append(stack, "?")
		}
		var path []string
		for _, s := range append(stack, name) {
			if !pseudoName(s) {
				path = append(path, s)
			}
		}
		lb := viewLabel{sec: sec, start: int(start), end: int(end), name: name, leaf: leaf, path: strings.Join(path, "/")}
		if leaf {
			lb.text = text[eq+3:]
		} else if colon >= 0 {
			lb.text = text[colon+2:]
		}
		k := [3]int{sec, lb.start, lb.end}
		f.byRange[k] = append(f.byRange[k], len(f.labels))
		f.labels = append(f.labels, lb)
		if !leaf {
			stack = append(stack, name)
		}
	}
	return req, resp
}

// parseDetail reads the lines of one exchange's detail view into
// path -> value, the paths as parseHexdump makes them.
func parseDetail(lines []string, req, resp *viewFrame) {
	var f *viewFrame
	var stack []string
	headers := 0
	for _, l := range lines {
		if reCorr.MatchString(l) {
			// The heading gives the frames' sizes: "request 50 bytes in packet 4".
			for _, m := range reFrameSize.FindAllStringSubmatch(l, -1) {
				if fr := map[string]*viewFrame{"request": req, "response": resp}[m[1]]; fr != nil {
					fr.detail["Size"] = m[2] + " bytes"
				}
			}
			continue
		}
		for side, fr := range map[string]*viewFrame{"request": req, "response": resp} {
			if n, ok := strings.CutPrefix(l, "  note: "+side+": "); ok && fr != nil {
				fr.notes = append(fr.notes, n)
			}
		}
		switch l {
		case "Request":
			f, stack = req, stack[:0]
			continue
		case "Response":
			f, stack = resp, stack[:0]
			continue
		}
		if f == nil || !strings.HasPrefix(l, "  ") {
			continue
		}
		text := strings.TrimLeft(l, " ")
		depth := (len(l)-len(text))/2 - 1
		if depth < len(stack) {
			stack = stack[:depth]
		}
		for len(stack) < depth {
			stack = append(stack, "?")
		}
		if len(stack) > 0 && stack[len(stack)-1] == "Headers" && strings.HasPrefix(text, `"`) {
			// A record's header: `"key": value`.
			if k, err := strconv.QuotedPrefix(text); err == nil && strings.HasPrefix(text[len(k):], ": ") {
				at := strings.Join(append(append([]string(nil), stack...), fmt.Sprintf("[%d]", headers)), "/")
				f.detail[at+"/Key"] = k
				f.detail[at+"/Value"] = text[len(k)+2:]
				headers++
				continue
			}
		}
		headers = 0
		name := pathName(text)
		value := ""
		if m := reRecordHead.FindStringSubmatch(text); m != nil {
			// A record: "[0] offset 3 · 2026-11-29T22:28:08.006Z CreateTime".
			// tshark shows the record's own time, not LogAppendTime's.
			at := strings.Join(append(append([]string(nil), stack...), name), "/")
			f.detail[at+"/(offset)"] = m[1]
			f.detail[at+"/(time)"] = m[2]
			if m[3] != "" {
				f.detail[at+"/(time)"] = m[3]
			}
		}
		if strings.HasPrefix(text, "[") {
			rest := strings.TrimPrefix(strings.TrimPrefix(text[len(name):], ":"), " ")
			parts := strings.Split(rest, " · ")
			inline := rest != ""
			for _, p := range parts {
				inline = inline && reInline.MatchString(p)
			}
			if inline {
				// "[0] ApiKey: 0 (Produce) · MinVersion: 3": an element's
				// fields on its line.
				for _, p := range parts {
					k, v, _ := strings.Cut(p, ": ")
					f.detail[strings.Join(append(append([]string(nil), stack...), name, k), "/")] = v
				}
			}
			value = rest
		} else if _, v, ok := strings.Cut(text, ": "); ok {
			value = v
			// An array on one line: "ReplicaNodes: [1, 2]".
			for i, e := range inlineElements(v) {
				f.detail[strings.Join(append(append([]string(nil), stack...), name, fmt.Sprintf("[%d]", i)), "/")] = e
			}
		}
		key := strings.Join(append(append([]string(nil), stack...), name), "/")
		if _, dup := f.detail[key]; !dup {
			f.detail[key] = value
		}
		stack = append(stack, name)
	}
}

// inlineElements splits the detail view's one-line array,
// `[1, 2]` or `["a", "b, c"]`; nil if v is not one.
func inlineElements(v string) []string {
	if !strings.HasPrefix(v, "[") || !strings.HasSuffix(v, "]") || len(v) == 2 {
		return nil
	}
	var es []string
	rest := v[1 : len(v)-1]
	for {
		e := rest
		if strings.HasPrefix(rest, `"`) {
			q, err := strconv.QuotedPrefix(rest)
			if err != nil {
				return nil
			}
			e = q
		} else if i := strings.Index(rest, ", "); i >= 0 {
			e = rest[:i]
		}
		es = append(es, e)
		rest = rest[len(e):]
		if rest == "" {
			return es
		}
		if !strings.HasPrefix(rest, ", ") {
			return nil
		}
		rest = rest[2:]
	}
}

// runViews runs `kdissect read` with the hexdump and the detail format.
func runViews(t *testing.T, path string, port int) map[rowKey]*viewExchange {
	t.Helper()
	run := func(format string) []byte {
		var out bytes.Buffer
		cmd := newReadCmd()
		cmd.SetOut(&out)
		cmd.SetArgs([]string{"-p", strconv.Itoa(port), "--format", format, "--no-color", path})
		if err := cmd.Execute(); err != nil {
			t.Fatalf("kdissect read --format %s %s: %v", format, path, err)
		}
		return out.Bytes()
	}
	hexKeys, hexLines := exchangeKeys(run("hexdump"))
	_, detLines := exchangeKeys(run("detail"))
	exs := map[rowKey]*viewExchange{}
	for _, k := range hexKeys {
		req, resp := parseHexdump(hexLines[k])
		parseDetail(detLines[k], req, resp)
		exs[k] = &viewExchange{req, resp}
	}
	return exs
}

// viewCoverage counts what one capture's comparison did.
type viewCoverage struct {
	compared     int                       // fields whose range, name and value agree
	namesOnly    int                       // range and name agree; the value is not comparable (tsharkFieldNames says why)
	legacy       int                       // in magic 0/1 message sets, not compared
	unmapped     map[string]map[string]int // tshark fields tsharkFieldNames lacks -> our leaf labels at their ranges
	unreliable   []string                  // disagreements where tshark says its decoding is off
	mismatches   []string
	pdus, noOurs int
}

func TestTsharkViews(t *testing.T) {
	if _, err := exec.LookPath("tshark"); err != nil {
		t.Skip("tshark is not installed (.ci/run installs it)")
	}
	total := viewCoverage{unmapped: map[string]map[string]int{}}
	var results []*viewCoverage
	caps := oracleCaptures(t)
	t.Run("captures", func(t *testing.T) {
		for _, c := range caps {
			cov := &viewCoverage{unmapped: map[string]map[string]int{}}
			results = append(results, cov)
			t.Run(filepath.Base(c.path), func(t *testing.T) {
				t.Parallel()
				compareViews(t, c, cov)
			})
		}
	})
	for _, c := range results {
		total.compared += c.compared
		total.namesOnly += c.namesOnly
		total.legacy += c.legacy
		total.pdus += c.pdus
		for k, v := range c.unmapped {
			u := total.unmapped[k]
			if u == nil {
				u = map[string]int{}
				total.unmapped[k] = u
			}
			for l, n := range v {
				u[l] += n
			}
		}
		total.unreliable = append(total.unreliable, c.unreliable...)
	}
	var un []string
	for k, v := range total.unmapped {
		un = append(un, fmt.Sprintf("%s (our labels at its ranges: %v)", k, v))
	}
	sort.Strings(un)
	t.Logf("%d captures, %d tshark PDUs: %d fields agree in range, name and value; %d in range and name (value not comparable); %d in magic 0/1 message sets not compared; %d disagreements where tshark notes its decoding is off",
		len(caps), total.pdus, total.compared, total.namesOnly, total.legacy, len(total.unreliable))
	t.Logf("tshark fields not mapped to a Kafka field: %d\n%s", len(un), strings.Join(un, "\n"))
}

func compareViews(t *testing.T, c oracleCapture, cov *viewCoverage) {
	out, err := exec.Command("tshark", "-r", c.path, "-d", fmt.Sprintf("tcp.port==%d,kafka", c.port), "-Y", "kafka", "-T", "pdml").Output()
	if err != nil {
		t.Fatalf("tshark: %v", err)
	}
	pdus, err := readPDML(bytes.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	ours := runViews(t, c.path, c.port)
	seq := map[[2]int]int{}
	for _, p := range pdus {
		if !p.hasCorr {
			continue
		}
		isResp := p.isResp || p.sport == c.port
		cport := p.sport
		if isResp {
			cport = p.dport
		}
		id := [2]int{cport, p.corr}
		if !isResp {
			seq[id]++
		}
		k := rowKey{cport, p.corr, max(seq[id], 1)}
		cov.pdus++
		side := "request"
		if isResp {
			side = "response"
		}
		where := fmt.Sprintf("client port %d corr %d #%d %s", k.clientPort, k.corr, k.seq, side)
		ex := ours[k]
		var f *viewFrame
		if ex != nil {
			f = ex.req
			if isResp {
				f = ex.resp
			}
		}
		if f == nil {
			// TestTsharkOracle holds the exchanges themselves to tshark's.
			cov.noOurs++
			continue
		}
		for _, tf := range p.fields {
			if tf.legacy {
				cov.legacy++
				continue
			}
			problem := compareField(tf, f, cov)
			if problem == "" {
				continue
			}
			msg := fmt.Sprintf("%s: %s", where, problem)
			if len(p.unreliable) > 0 && !headerFields[tf.name] {
				cov.unreliable = append(cov.unreliable, msg+" (tshark: "+strings.Join(p.unreliable, ", ")+")")
				continue
			}
			cov.mismatches = append(cov.mismatches, msg)
		}
	}
	for i, m := range cov.mismatches {
		if i == 20 {
			t.Errorf("... and %d more", len(cov.mismatches)-20)
			break
		}
		t.Error(m)
	}
	for i, m := range cov.unreliable {
		if i == 5 {
			t.Logf("... and %d more where tshark notes its decoding is off", len(cov.unreliable)-5)
			break
		}
		t.Logf("not held against us, tshark notes its decoding is off: %s", m)
	}
	t.Logf("%d PDUs (%d without our frame): %d fields agree, %d by range and name only, %d legacy not compared, %d unmapped kinds",
		cov.pdus, cov.noOurs, cov.compared, cov.namesOnly, cov.legacy, len(cov.unmapped))
}

// headerFields are the fields of the size prefix and the headers, which
// tshark reads the same in every version: held to it even where it notes
// that it does not know the body's version.
var headerFields = map[string]bool{
	"kafka.len": true, "kafka.api_key": true, "kafka.api_version": true, "kafka.correlation_id": true, "kafka.client_id": true,
}

// compareField holds one tshark field to our labels at its range: the
// problem, or "".
func compareField(tf pdmlField, f *viewFrame, cov *viewCoverage) string {
	m, ok := tsharkFieldNames[tf.name]
	if r, isRecord := tsharkRecordFieldNames[tf.name]; isRecord && tf.inRecord {
		m, ok = r, true
	}
	at := f.byRange[[3]int{tf.sec, tf.start, tf.end}]
	if !ok {
		u := cov.unmapped[tf.name]
		if u == nil {
			u = map[string]int{}
			cov.unmapped[tf.name] = u
		}
		n := 0
		for _, i := range at {
			if f.labels[i].leaf {
				u[f.labels[i].name]++
				n++
			}
		}
		if n == 0 {
			u["(none)"]++
		}
		return ""
	}
	agree := func(ours string) string {
		if tf.show == "[ Null ]" && ours == `""` {
			for _, n := range f.notes {
				if strings.Contains(n, nullReadAsEmpty) {
					return ""
				}
			}
		}
		return compareValue(tf.show, ours, m.bytes)
	}
	var names []string
	for _, i := range at {
		lb := f.labels[i]
		if !lb.leaf {
			names = append(names, lb.name)
			continue
		}
		if !m.names[lb.name] && !(m.names["[]"] && strings.HasPrefix(lb.name, "[")) {
			names = append(names, lb.name)
			continue
		}
		if m.why != "" {
			cov.namesOnly++
			return ""
		}
		detailAt := lb.path
		if m.detailAt != "" {
			// The hexdump shows the field (a delta), the detail view what
			// tshark shows (the record's offset or time).
			detailAt = lb.path[:strings.LastIndex(lb.path, "/")+1] + m.detailAt
		} else if p := agree(lb.text); p != "" {
			return fmt.Sprintf("%s %s (in %s): hexdump %s = %s, tshark %q: %s", tf.name, rangeText(tf), tf.where, lb.path, lb.text, tf.show, p)
		}
		d, ok := f.detail[detailAt]
		if !ok && tf.inRecord && lb.name == "Attributes" {
			d, ok = "0", true // the detail view shows a record's Attributes only when not 0
		}
		if !ok {
			return fmt.Sprintf("%s %s: the detail view has no %s", tf.name, rangeText(tf), lb.path)
		}
		if p := agree(d); p != "" {
			return fmt.Sprintf("%s %s (in %s): detail %s: %s, tshark %q: %s", tf.name, rangeText(tf), tf.where, lb.path, d, tf.show, p)
		}
		cov.compared++
		return ""
	}
	return fmt.Sprintf("%s %s = %q (in %s): the hexdump labels it %v, not %s", tf.name, rangeText(tf), tf.show, tf.where, names, m)
}

func rangeText(f pdmlField) string {
	s := fmt.Sprintf("0x%04x-0x%04x", f.start, f.end-1)
	if f.sec > 0 {
		s = fmt.Sprintf("+%s (decompressed section %d)", s, f.sec)
	}
	return s
}

var (
	reInt      = regexp.MustCompile(`^-?\d+$`)
	reHexInt   = regexp.MustCompile(`^0x[0-9a-fA-F]+$`)
	reHexBytes = regexp.MustCompile(`^[0-9a-f]{2}(:[0-9a-f]{2})*$`)
	reLeadInt  = regexp.MustCompile(`^-?\d+`)
)

// compareValue compares tshark's shown value with ours: "" when they
// agree. tshark shows integers in decimal (flags in hex), bytes as
// colon-separated hex, times as dates, strings bare and null as "[ Null ]";
// we show integers first with what they mean after, strings and text
// bytes quoted, other bytes as 0x hex, times as milliseconds with the
// date after.
func compareValue(show, ours string, isBytes bool) string {
	lead := ours
	if i := strings.IndexByte(ours, ' '); i >= 0 {
		lead = ours[:i]
	}
	switch {
	case show == "[ Null ]":
		if ours != "null" {
			return "want null"
		}
	case reInt.MatchString(show) && !isBytes && !strings.HasPrefix(ours, `"`):
		switch lead {
		case "true":
			lead = "1"
		case "false":
			lead = "0"
		}
		if lead != show {
			return "another integer"
		}
	case reHexInt.MatchString(show) && !isBytes:
		if !strings.EqualFold(lead, show) {
			return "another integer"
		}
	case isBytes:
		if show == "" {
			if ours != `""` {
				return "want empty bytes"
			}
			return ""
		}
		if !reHexBytes.MatchString(show) {
			return "tshark shows no bytes"
		}
		want, _ := hex.DecodeString(strings.ReplaceAll(show, ":", ""))
		got, cut, ok := ourBytes(ours)
		if !ok {
			return "not bytes"
		}
		if cut && !bytes.HasPrefix(want, got) || !cut && !bytes.Equal(want, got) {
			return "other bytes"
		}
	default:
		if ts, err := time.Parse("Jan _2, 2006 15:04:05.000000000 MST", show); err == nil {
			ms := reLeadInt.FindString(ours)
			if t, err := time.Parse(time.RFC3339Nano, ours); err == nil {
				ms = strconv.FormatInt(t.UnixMilli(), 10)
			}
			if ms != strconv.FormatInt(ts.UnixMilli(), 10) {
				return "another time"
			}
			return ""
		}
		got, cut, ok := ourBytes(ours)
		if !ok {
			return "not a string"
		}
		if cut && !strings.HasPrefix(show, string(got)) || !cut && show != string(got) {
			return "another string"
		}
	}
	return ""
}

// ourBytes reads a string or bytes value as the views show it: quoted
// text (cut short with "…" when long), or 0x hex, each maybe followed by
// its size in parentheses.
func ourBytes(v string) (b []byte, cut, ok bool) {
	if strings.HasPrefix(v, "0x") {
		h, _, _ := strings.Cut(v[2:], " ")
		h, cut = strings.CutSuffix(h, "…")
		b, err := hex.DecodeString(h)
		return b, cut, err == nil
	}
	if !strings.HasPrefix(v, `"`) {
		return nil, false, false
	}
	q, err := strconv.QuotedPrefix(v)
	if err != nil {
		return nil, false, false
	}
	s, _ := strconv.Unquote(q)
	return []byte(s), strings.HasPrefix(v[len(q):], "…"), true
}
