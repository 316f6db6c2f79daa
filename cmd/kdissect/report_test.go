package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

var updateScreenshot = flag.Bool("update-screenshot", false, "write docs/report.png from the report of "+screenshotCapture+" (needs chromium)")

// screenshotCapture is the capture of the README's screenshot.
const screenshotCapture = pcapsDir + "franz_groups.pcap"

// statsJSONOf runs stats --format json.
func statsJSONOf(t *testing.T, files ...string) map[string]any {
	t.Helper()
	code, out, errs := runCLI(t, append([]string{"stats", "--format", "json"}, files...)...)
	if code != 0 {
		t.Fatalf("stats: exit %d: %s", code, errs)
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// writeReport runs report -o and returns the HTML.
func writeReport(t *testing.T, out string, files ...string) string {
	t.Helper()
	code, _, errs := runCLI(t, append([]string{"report", "-o", out}, files...)...)
	if code != 0 || errs != "" {
		t.Fatalf("report: exit %d, stderr %q", code, errs)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

var (
	totalCell = regexp.MustCompile(`data-total="([a-z_]+)">(\d+)<`)
	apiRow    = regexp.MustCompile(`<tr data-api="([^"]+)">(.*)</tr>`)
	errorRow  = regexp.MustCompile(`<tr data-error="([^"]+)">.*data-col="count">(\d+)<`)
	colCell   = regexp.MustCompile(`data-col="([a-z0-9_]+)"(?: data-us="(\d+)")?>([0-9.]+)<`)
)

// TestReportMatchesStats: the totals, the per-API rows (exchanges, errors,
// latency p50 and p99) and the errors by name that the report prints are
// those of stats --format json on the same captures.
func TestReportMatchesStats(t *testing.T) {
	captures, _ := filepath.Glob(pcapsDir + "*.pcap*")
	dir := t.TempDir()
	for _, files := range append([][]string{captures}, splitEach(captures)...) {
		name := filepath.Base(files[0])
		if len(files) > 1 {
			name = "all"
		}
		t.Run(name, func(t *testing.T) {
			html := writeReport(t, filepath.Join(dir, name+".html"), files...)
			st := statsJSONOf(t, files...)
			capture := st["capture"].(map[string]any)
			totals := map[string]int64{}
			for _, m := range totalCell.FindAllStringSubmatch(html, -1) {
				totals[m[1]], _ = strconv.ParseInt(m[2], 10, 64)
			}
			for _, k := range []string{"packets", "exchanges", "request_bytes", "response_bytes", "errors", "duration_us"} {
				want := int64(capture[k].(float64))
				if got, ok := totals[k]; !ok || got != want {
					t.Errorf("total %s: report %d (shown %v), stats %d", k, got, ok, want)
				}
			}
			rows := map[string]map[string]int64{}
			for _, m := range apiRow.FindAllStringSubmatch(html, -1) {
				cols := map[string]int64{}
				for _, c := range colCell.FindAllStringSubmatch(m[2], -1) {
					v := c[3]
					if c[2] != "" {
						v = c[2] // latency in µs, exact
					}
					cols[c[1]], _ = strconv.ParseInt(v, 10, 64)
				}
				rows[m[1]] = cols
			}
			apis := st["apis"].([]any)
			if len(rows) != len(apis) {
				t.Errorf("report shows %d APIs, stats %d", len(rows), len(apis))
			}
			for _, a := range apis {
				a := a.(map[string]any)
				name := a["api"].(string)
				row := rows[name]
				if row == nil {
					t.Errorf("API %s: not in the report", name)
					continue
				}
				want := map[string]int64{"exchanges": int64(a["exchanges"].(float64)), "errors": int64(a["errors"].(float64))}
				lat := a["latency_us"].(map[string]any)
				if lat["p50"] != nil {
					want["p50_us"], want["p99_us"] = int64(lat["p50"].(float64)), int64(lat["p99"].(float64))
				}
				for k, w := range want {
					if row[k] != w {
						t.Errorf("API %s %s: report %d, stats %d", name, k, row[k], w)
					}
				}
			}
			errs := map[string]int64{}
			for _, m := range errorRow.FindAllStringSubmatch(html, -1) {
				errs[m[1]], _ = strconv.ParseInt(m[2], 10, 64)
			}
			wantErrs := map[string]int64{}
			for _, e := range st["errors"].([]any) {
				e := e.(map[string]any)
				wantErrs[e["name"].(string)] = int64(e["count"].(float64))
			}
			if fmt.Sprint(errs) != fmt.Sprint(wantErrs) {
				t.Errorf("errors by name: report %v, stats %v", errs, wantErrs)
			}
		})
	}
}

func splitEach(files []string) [][]string {
	var out [][]string
	for _, f := range files {
		out = append(out, []string{f})
	}
	return out
}

// chromium returns the headless browser's path, or skips.
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("chromium not installed (Debian's chromium; .ci/run installs it)")
	return ""
}

// runChromium runs headless Chromium on a file with args, logging the
// page's console to stderr, and returns standard output and error.
func runChromium(t *testing.T, browser, page string, args ...string) (string, string) {
	t.Helper()
	abs, err := filepath.Abs(page)
	if err != nil {
		t.Fatal(err)
	}
	all := append([]string{"--headless", "--no-sandbox", "--disable-gpu", "--enable-logging=stderr", "--v=0",
		"--user-data-dir=" + t.TempDir(), "--hide-scrollbars"}, args...)
	cmd := exec.Command(browser, append(all, "file://"+abs)...)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium: %v\n%s", err, stderr.String())
	}
	return stdout.String(), stderr.String()
}

var consoleLine = regexp.MustCompile(`(?m)^.*CONSOLE.*$`)

// TestReportInChromium opens the report in headless Chromium: the page
// logs nothing to its console (a control page that logs an error shows
// that Chromium reports it), every plot is drawn (an <svg> with its axes,
// ticks and legend, and the lines of every plot that has data), and
// nothing in the page points outside it.
func TestReportInChromium(t *testing.T) {
	browser := chromium(t)
	dir := t.TempDir()
	control := filepath.Join(dir, "control.html")
	if err := os.WriteFile(control, []byte(`<!DOCTYPE html><html><body><script>console.error("control error")</script></body></html>`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, errs := runChromium(t, browser, control, "--dump-dom"); !strings.Contains(errs, "control error") {
		t.Fatalf("chromium does not report console errors on stderr here; the check would say nothing:\n%s", errs)
	}

	out := filepath.Join(dir, "report.html")
	html := writeReport(t, out, screenshotCapture)
	dom, errs := runChromium(t, browser, out, "--dump-dom")
	if lines := consoleLine.FindAllString(errs, -1); len(lines) > 0 {
		t.Errorf("console messages:\n%s", strings.Join(lines, "\n"))
	}
	plots := regexp.MustCompile(`(?s)<svg class="plot" id="([a-z]+)".*?</svg>`).FindAllStringSubmatch(dom, -1)
	ids := map[string]bool{}
	for _, p := range plots {
		ids[p[1]] = true
		svg := p[0]
		for _, want := range []string{`class="axis"`, `class="tick"`, `class="xlabel"`, `class="ylabel"`, `class="legend"`} {
			if !strings.Contains(svg, want) {
				t.Errorf("plot %s: no %s", p[1], want)
			}
		}
		if p[1] != "errors" && !regexp.MustCompile(`<path class="series" d="M[0-9.]+ [0-9.]+`).MatchString(svg) {
			t.Errorf("plot %s: no line drawn", p[1])
		}
	}
	for _, id := range []string{"latency", "requests", "bytes", "records", "errors"} {
		if !ids[id] {
			t.Errorf("plot %s not in the page Chromium loaded", id)
		}
	}
	for _, doc := range []string{html, dom} {
		if m := regexp.MustCompile(`(?i)(src|href|url\()\s*=?\s*["']?\s*(https?:)?//`).FindString(doc); m != "" {
			t.Errorf("the page refers outside itself: %q", m)
		}
		if m := regexp.MustCompile(`(?i)https?://`).FindString(doc); m != "" {
			t.Errorf("the page holds a URL: %q", m)
		}
		if regexp.MustCompile(`(?i)<(script|link|iframe|img)\b`).MatchString(doc) {
			t.Errorf("the page has a script, link, frame or image element")
		}
	}

	if *updateScreenshot {
		png := "../../docs/report.png"
		runChromium(t, browser, out, "--window-size=1040,2300", "--screenshot="+mustAbs(t, png))
		t.Logf("wrote %s", png)
	}
}

func mustAbs(t *testing.T, p string) string {
	t.Helper()
	a, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	return a
}
