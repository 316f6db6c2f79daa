package replay

import (
	"testing"

	"github.com/kdissect/kdissect/dissect"
)

// BenchmarkReplaySpeedMax replays the idempotent franz-go capture (every
// codec, topics by ID, producer ids rewritten) to an in-process kfake at
// --speed max, a fresh broker each round, and reports replayed requests
// per second. "all" replays every request: the consumer's last Fetch
// waits its MaxWaitMs (500 ms) on the broker, as it did in the capture,
// and bounds the round; "no-fetch" leaves the Fetch requests out.
func BenchmarkReplaySpeedMax(b *testing.B) {
	b.Run("all", func(b *testing.B) { benchReplay(b, nil) })
	var apis []int16
	for k := int16(0); k < 100; k++ {
		if k != 1 {
			apis = append(apis, k)
		}
	}
	b.Run("no-fetch", func(b *testing.B) { benchReplay(b, apis) })
}

func benchReplay(b *testing.B, apis []int16) {
	const path = "../testdata/pcaps/franz_idempotent.pcap"
	var exs []*dissect.Exchange
	d := dissect.New(dissect.Options{})
	dec := dissect.NewDecoder(dissect.DecodeOptions{})
	if err := d.ReadFile(path, func(ex *dissect.Exchange) {
		dec.Decode(ex)
		exs = append(exs, ex)
	}); err != nil {
		b.Fatal(err)
	}
	sent := 0
	for b.Loop() {
		b.StopTimer()
		target := newTarget(b)
		r, err := New(Options{Broker: target.ListenAddrs()[0], APIs: apis})
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		rep, err := r.Run(testCtx(b), func(add func(*dissect.Exchange) error) error {
			for _, ex := range exs {
				if err := add(ex); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
		if !rep.Complete() {
			b.Fatalf("incomplete: %+v %v", rep.Total, rep.Failures)
		}
		sent += rep.Total.Sent
		b.StopTimer()
		target.Close()
		b.StartTimer()
	}
	b.ReportMetric(float64(sent)/b.Elapsed().Seconds(), "requests/s")
}
