package codec

import (
	"reflect"
	"testing"
)

// TestGappedPathsInnermostParenthesised: a path names a field as
// DecodeError.Path does, and a name in parentheses (a tagged-field
// section, an unknown tag) is kept when it is the innermost, the part that
// was lost. On the Metadata v12 response golden (layout as in
// TestGappedFramesPaths): the first broker's tagged-field count at 42 and
// an unknown tag at [45,47) that its producer put there.
func TestGappedPathsInnermostParenthesised(t *testing.T) {
	f := metadataV12Response(t)
	for _, c := range []struct {
		gap  Gap
		want []NotCaptured
	}{
		{Gap{42, 43}, []NotCaptured{{Path: "Brokers[0].(tagged fields)", Start: 42, End: len(f.frame), Stop: true}}},
		{Gap{45, 46}, []NotCaptured{{Path: "Brokers[0].(unknown tag)", Start: 45, End: 47}}},
	} {
		gaps := []Gap{c.gap}
		cut := decodeGapFrame(f, cutFrame(f.frame, len(f.frame), gaps), len(f.frame), gaps)
		if !reflect.DeepEqual(cut.bodyNotC, c.want) {
			t.Errorf("gap %v: NotCaptured %+v, want %+v", c.gap, cut.bodyNotC, c.want)
		}
	}
}

// metadataV12Response is the golden Metadata v12 response as a gapFrame.
func metadataV12Response(t *testing.T) gapFrame {
	t.Helper()
	for _, c := range goldenCases() {
		if c.name == "Metadata/v12/response" {
			api, _ := LookupAPI(c.key)
			return gapFrame{c.name, api, c.version, true, c.frame}
		}
	}
	t.Fatal("no Metadata v12 response golden")
	return gapFrame{}
}

// TestGappedBodyAfterHeaderStop: when the header already stopped (its
// tagged-field count at 4 lost), the body is all lost, and says so in
// one stop entry with an empty path from where the header stopped, not
// in an entry per field.
func TestGappedBodyAfterHeaderStop(t *testing.T) {
	f := metadataV12Response(t)
	gaps := []Gap{{4, 5}}
	cut := decodeGapFrame(f, cutFrame(f.frame, len(f.frame), gaps), len(f.frame), gaps)
	want := []NotCaptured{{Start: 4, End: len(f.frame), Stop: true}}
	if !reflect.DeepEqual(cut.bodyNotC, want) {
		t.Errorf("body NotCaptured %+v, want %+v", cut.bodyNotC, want)
	}
}
