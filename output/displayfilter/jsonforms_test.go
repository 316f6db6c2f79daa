package displayfilter

import (
	"slices"
	"testing"

	"github.com/kdissect/kdissect/codec"
	"github.com/kdissect/kdissect/dissect"
)

// TestJSONForms: a filter compares topic IDs and byte strings in the
// forms the JSON shows and -e prints: a UUID as Kafka's base64 string,
// text bytes as a string, other bytes as {"base64": ...}, null bytes as
// nil.
func TestJSONForms(t *testing.T) {
	api, _ := codec.LookupAPI(codec.ApiKeyJoinGroup)
	id := codec.UUID{0x8c, 0x20, 0xef, 0x6f, 0x79, 0xbf, 0x2f, 0xa2, 0x54, 0x38, 0x42, 0x9a, 0x1a, 0x20, 0x2b, 0xbd}
	ex := &dissect.Exchange{APIKey: codec.ApiKeyJoinGroup, APIVersion: 5, Request: &dissect.Frame{}, Decoded: &dissect.Decoded{API: api,
		Request: &codec.JoinGroupRequest{GroupId: "g", Protocols: []codec.JoinGroupRequestProtocol{
			{Name: "range", Metadata: []byte("text")}, {Name: "sticky", Metadata: []byte{0, 1, 2}}, {Name: "none"}}}}}
	mapi, _ := codec.LookupAPI(codec.ApiKeyMetadata)
	md := &dissect.Exchange{APIKey: codec.ApiKeyMetadata, APIVersion: 12, Request: &dissect.Frame{}, Response: &dissect.Frame{}, Decoded: &dissect.Decoded{API: mapi,
		Request:  &codec.MetadataRequest{},
		Response: &codec.MetadataResponse{Topics: []codec.MetadataResponseTopic{{TopicId: id}}}}}
	for _, tc := range []struct {
		expr string
		ex   *dissect.Exchange
	}{
		{`request.Protocols[0].Metadata == "text"`, ex},
		{`request.Protocols[1].Metadata.base64 == "AAEC"`, ex},
		{`request.Protocols[2].Metadata == nil`, ex},
		{`response.Topics[0].TopicId == "jCDvb3m_L6JUOEKaGiArvQ"`, md},
	} {
		f, err := Compile(tc.expr)
		if err != nil {
			t.Fatalf("%s: %v", tc.expr, err)
		}
		if ok, err := f.Match(tc.ex); !ok || err != nil {
			t.Errorf("%s: %v, %v; want true", tc.expr, ok, err)
		}
	}
	cols, err := CompileColumns([]string{"request.Protocols[0].Metadata", "request.Protocols[1].Metadata"})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := cols.Row(ex), []string{"text", `{"base64":"AAEC"}`}; !slices.Equal(got, want) {
		t.Errorf("columns %q, want %q", got, want)
	}
}
