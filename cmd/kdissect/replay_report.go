package main

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/kdissect/kdissect/codec"
	"github.com/kdissect/kdissect/replay"
)

// writeReplayJSON writes the report as one JSON object (replay.Report's
// encoding) and a newline.
func writeReplayJSON(w io.Writer, rep *replay.Report) error {
	b, err := json.Marshal(rep)
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// writeReplayTables writes the report as tables: the plan (dry run
// only), per API and total, downgrades, failures and notes.
func writeReplayTables(w io.Writer, rep *replay.Report) error {
	if rep.DryRun {
		t := newTable(w, "#", "stream", "api", "captured version", "action", "topics", "records", "notes")
		for _, e := range rep.Plan {
			note := e.Reason
			if len(e.Rewrites) > 0 {
				note = strings.TrimPrefix(note+"; "+strings.Join(e.Rewrites, "; "), "; ")
			}
			t.Append([]string{strconv.Itoa(e.Index), strconv.Itoa(e.Stream), e.API, "v" + strconv.Itoa(int(e.Version)), e.Action,
				strings.Join(e.Topics, ","), strconv.Itoa(e.Records), note})
		}
		if err := t.Render(); err != nil {
			return err
		}
		if rep.PlanOmitted > 0 {
			fmt.Fprintf(w, "%d more requests not listed (--max-plan)\n", rep.PlanOmitted)
		}
		fmt.Fprintf(w, "dry run: %d requests would be sent, %d skipped; nothing was sent\n", rep.Total.Captured-skipped(rep.Total), skipped(rep.Total))
		fmt.Fprintln(w, "versions are the captured ones: a dry run connects to nothing, so it cannot know which the target offers (a replay sends the nearest it does)")
		return nil
	}
	target := rep.Target
	speed := "max"
	if rep.Speed > 0 {
		speed = strconv.FormatFloat(rep.Speed, 'g', -1, 64)
	}
	fmt.Fprintf(w, "replay to %s at speed %s in %v\n", target, speed, time.Duration(rep.Took)*time.Microsecond)
	t := newTable(w, "api", "captured", "sent", "answered", "failed", "skipped", "downgraded", "records sent", "records accepted",
		"errors captured", "errors replayed", "p50 captured", "p50 replayed", "p99 captured", "p99 replayed")
	row := func(s replay.APIStat) {
		t.Append([]string{s.API, strconv.Itoa(s.Captured), strconv.Itoa(s.Sent), answered(s), strconv.Itoa(s.Failed),
			strconv.Itoa(skipped(s)), strconv.Itoa(s.Downgraded), strconv.Itoa(s.Records), strconv.Itoa(s.Accepted),
			countList(s.CapturedErrors), countList(s.ReplayedErrors),
			micros(s.CapturedLatency.P50), micros(s.ReplayedLatency.P50), micros(s.CapturedLatency.P99), micros(s.ReplayedLatency.P99)})
	}
	for _, s := range rep.APIs {
		row(s)
	}
	row(rep.Total)
	if err := t.Render(); err != nil {
		return err
	}
	if len(rep.Downgrades) > 0 {
		fmt.Fprintln(w, "sent at another version (the target does not offer the captured one, or --read-only needs a newer):")
		d := newTable(w, "api", "captured", "sent", "change", "broker", "requests", "fields the sent version cannot carry")
		for _, g := range rep.Downgrades {
			broker := g.Broker
			if broker == "" {
				broker = "all"
			}
			d.Append([]string{g.API, "v" + strconv.Itoa(int(g.From)), "v" + strconv.Itoa(int(g.To)), g.Change, broker, strconv.Itoa(g.Requests), strings.Join(g.Lost, ", ")})
		}
		if err := d.Render(); err != nil {
			return err
		}
	}
	if rep.Total.NewErrors > 0 {
		var per []string
		for _, s := range rep.APIs {
			if s.NewErrors > 0 {
				per = append(per, fmt.Sprintf("%s×%d", s.API, s.NewErrors))
			}
		}
		fmt.Fprintf(w, "errors not in the capture: %d answered requests got an error their captured answer did not have (%s; see errors replayed)\n", rep.Total.NewErrors, strings.Join(per, " "))
	}
	if sk := skipReasons(rep.Total); sk != "" {
		fmt.Fprintln(w, "skipped:", sk)
	}
	for _, f := range rep.Failures {
		fmt.Fprintf(w, "failed: stream %d request %d %s: %s\n", f.Stream, f.Index, f.API, f.Error)
	}
	if rep.Total.Failed > len(rep.Failures) {
		fmt.Fprintf(w, "failed: %d more\n", rep.Total.Failed-len(rep.Failures))
	}
	for _, n := range rep.Notes {
		fmt.Fprintln(w, "note:", n)
	}
	return nil
}

// answered shows the answers, with the Acks=0 requests that expect none.
func answered(s replay.APIStat) string {
	if s.NoAnswer > 0 {
		return fmt.Sprintf("%d (+%d acks=0)", s.Answered, s.NoAnswer)
	}
	return strconv.Itoa(s.Answered)
}

func skipped(s replay.APIStat) int {
	n := 0
	for _, c := range s.Skipped {
		n += c
	}
	return n
}

func skipReasons(s replay.APIStat) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(s.Skipped)) {
		parts = append(parts, fmt.Sprintf("%d %s", s.Skipped[k], k))
	}
	return strings.Join(parts, ", ")
}

// countList shows counts by name: "NOT_LEADER_OR_FOLLOWER×3 UNKNOWN_TOPIC_OR_PARTITION×1".
func countList(m map[string]int) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		parts = append(parts, fmt.Sprintf("%s×%d", k, m[k]))
	}
	return strings.Join(parts, " ")
}

func micros(us *int64) string {
	if us == nil {
		return "-"
	}
	return (time.Duration(*us) * time.Microsecond).String()
}

// warnUnmatched warns, naming the flag, of each --api, --stream and
// --topic value that selects nothing from the capture.
func warnUnmatched(w io.Writer, u *replay.Unmatched) {
	for _, k := range u.APIs {
		fmt.Fprintf(w, "kdissect: warning: --api %s selects nothing: the capture has no %s request\n", codec.APIName(k), codec.APIName(k))
	}
	for _, n := range u.Streams {
		fmt.Fprintf(w, "kdissect: warning: --stream %d selects nothing: the capture has no request on connection %d\n", n, n)
	}
	for _, t := range u.Topics {
		fmt.Fprintf(w, "kdissect: warning: --topic %s selects nothing: no captured request names that topic\n", t)
	}
	for _, t := range u.MapTopics {
		fmt.Fprintf(w, "kdissect: warning: --map-topic %s=... renames nothing: no captured request names topic %s\n", t, t)
	}
}
