package displayfilter

import (
	"testing"

	"github.com/kdissect/kdissect/codec"
)

// TestAPIFormerName: a filter naming key 74 by its Kafka 4.0 name,
// ListClientMetricsResources, finds the exchanges that now carry Kafka
// 4.3.0's name, ListConfigResources (KIP-1142); other names are left as
// written (case matters in ==, as before).
func TestAPIFormerName(t *testing.T) {
	lcr := produceExchange()
	lcr.APIKey = 74
	lcr.Decoded.API, _ = codec.LookupAPI(74)
	lcr.Decoded.Request = &codec.ListConfigResourcesRequest{}
	lcr.Decoded.Response = &codec.ListConfigResourcesResponse{}
	produce := produceExchange()
	for _, tc := range []struct {
		expr         string
		lcr, produce bool
	}{
		{`api == "ListConfigResources"`, true, false},
		{`api == "ListClientMetricsResources"`, true, false},
		{`"ListClientMetricsResources" == api`, true, false},
		{`api != "ListClientMetricsResources"`, false, true},
		{`api in ["Produce", "ListClientMetricsResources"]`, true, true},
		{`api not in ["ListClientMetricsResources"]`, false, true},
		{`api == "produce"`, false, false},
		{`client_id == "ListClientMetricsResources"`, false, false}, // not an API: not renamed
	} {
		f, err := Compile(tc.expr)
		if err != nil {
			t.Fatalf("%s: %v", tc.expr, err)
		}
		for _, c := range []struct {
			name string
			ex   bool
			want bool
		}{{"ListConfigResources", true, tc.lcr}, {"Produce", false, tc.produce}} {
			ex := produce
			if c.ex {
				ex = lcr
			}
			if got, err := f.Match(ex); err != nil || got != c.want {
				t.Errorf("%s on %s: %v, %v; want %v", tc.expr, c.name, got, err, c.want)
			}
		}
	}
}
