package codec_test

import (
	"testing"

	"github.com/kdissect/kdissect/codec"
	"github.com/kdissect/kdissect/internal/capgen"
)

// benchSamples returns the exchanges the capture generator writes.
func benchSamples(b *testing.B) []capgen.Sample {
	b.Helper()
	samples, err := capgen.Samples(1)
	if err != nil {
		b.Fatal(err)
	}
	return samples
}

// BenchmarkDecodeHeader decodes request and response headers of the
// generator's exchanges.
func BenchmarkDecodeHeader(b *testing.B) {
	s := benchSamples(b)[0] // ApiVersions v3: request header v2 (flexible), response header v0
	b.Run("request", func(b *testing.B) {
		v := codec.RequestHeaderVersion(s.APIKey, s.APIVersion)
		b.ReportAllocs()
		for b.Loop() {
			var h codec.RequestHeader
			r := codec.NewReader(s.Request[4:])
			h.ReadFrom(r, v)
			if r.Err() != nil {
				b.Fatal(r.Err())
			}
		}
	})
	b.Run("response", func(b *testing.B) {
		v := codec.ResponseHeaderVersion(s.APIKey, s.APIVersion)
		b.ReportAllocs()
		for b.Loop() {
			var h codec.ResponseHeader
			r := codec.NewReader(s.Response[4:])
			h.ReadFrom(r, v)
			if r.Err() != nil {
				b.Fatal(r.Err())
			}
		}
	})
}

// BenchmarkDecodeBody decodes the header and body of each request and
// response the generator writes, per API (Produce and Fetch per codec).
// Record sets stay raw here (codec.Records): BenchmarkDecodeRecordSet and
// BenchmarkDecodeRecords time them.
func BenchmarkDecodeBody(b *testing.B) {
	for _, s := range benchSamples(b) {
		api, ok := codec.LookupAPI(s.APIKey)
		if !ok {
			b.Fatalf("%s: no API %d", s.Name, s.APIKey)
		}
		for _, side := range []string{"request", "response"} {
			frame, hv, newBody := s.Request[4:], codec.RequestHeaderVersion(s.APIKey, s.APIVersion), api.NewRequest
			if side == "response" {
				frame, hv, newBody = s.Response[4:], codec.ResponseHeaderVersion(s.APIKey, s.APIVersion), api.NewResponse
			}
			b.Run(s.Name+"/"+side, func(b *testing.B) {
				b.SetBytes(int64(len(frame)))
				b.ReportAllocs()
				for b.Loop() {
					r := codec.NewReader(frame)
					if side == "request" {
						var h codec.RequestHeader
						h.ReadFrom(r, hv)
					} else {
						var h codec.ResponseHeader
						h.ReadFrom(r, hv)
					}
					body := newBody()
					body.ReadFrom(r, s.APIVersion)
					if r.Err() != nil || r.Remaining() != 0 {
						b.Fatalf("%v, %d bytes left", r.Err(), r.Remaining())
					}
				}
			})
		}
	}
}

// BenchmarkDecodeRecords decodes the record sets of the generator's
// Produce requests and Fetch responses, per codec, reporting allocations
// and time per record.
func BenchmarkDecodeRecords(b *testing.B) {
	for _, s := range benchSamples(b) {
		if s.Records == 0 {
			continue
		}
		api, _ := codec.LookupAPI(s.APIKey)
		frame, hv, body := s.Request[4:], codec.RequestHeaderVersion(s.APIKey, s.APIVersion), api.NewRequest()
		if s.APIKey == 1 {
			frame, hv, body = s.Response[4:], codec.ResponseHeaderVersion(s.APIKey, s.APIVersion), api.NewResponse()
		}
		r := codec.NewReader(frame)
		var h codec.RequestHeader
		var rh codec.ResponseHeader
		if s.APIKey == 1 {
			rh.ReadFrom(r, hv)
		} else {
			h.ReadFrom(r, hv)
		}
		body.ReadFrom(r, s.APIVersion)
		var sum codec.Summary
		body.Summarize(&sum, s.APIVersion)
		b.Run(s.Name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(frame)))
			opts := codec.RecordDecodeOptions{MaxDecompressedBytes: codec.DefaultMaxDecompressedBytes}
			for b.Loop() {
				n := 0
				for _, rr := range sum.Records {
					n += codec.DecodeRecordSet(rr.Records.Raw, opts).Count()
				}
				if n != s.Records {
					b.Fatalf("%d records, want %d", n, s.Records)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(s.Records), "ns/record")
		})
	}
}
