package codec

// Differential test against franz-go's kmsg (pkg/kmsg v1.15.1), an
// independent implementation generated from Kafka's own JSON message
// definitions: for every ApiKey both know and every version in the range
// both know, request and response bodies go both ways.
//
//  1. kmsg → ours: a kmsg value filled at random by reflection
//     (kmsg_diff_rand_test.go) is encoded by kmsg at the version. We decode
//     it with no error, no trailing bytes and no warnings, and re-encode it
//     byte for byte. kmsg reads our bytes back to a value DeepEqual to what
//     it reads from its own (no normalisation is needed: the bytes are the
//     same). Every tagged field we keep as unknown must be one of the
//     unknown tags the test added (kdUnknownTagPool): a tag kmsg writes as a
//     known field must be known to us too.
//  2. ours → kmsg: one of our values filled at random is encoded by us. We
//     decode it fully and re-encode it to the same bytes; kmsg decodes it
//     without error and re-encodes exactly the same bytes; we decode kmsg's
//     bytes to a value DeepEqual to our first decode. The value filled is
//     never compared itself: fields absent at the version are not written,
//     and a nil written where the version is not nullable comes back empty,
//     so the first decode is the normalised value. kmsg must know every
//     tagged field we write as known.
//  3. In both directions, our decode and kmsg's decode of the same bytes,
//     and our JSON for them, are compared field by field by name
//     (kmsg_diff_names_test.go), so that a field carrying the wrong name
//     (two fields of one type swapped in a decoder and its encoder) fails
//     although every byte matches.
//
// Every other case adds random unknown tagged fields to every struct
// (kmsg.Tags / UnknownTags) at flexible versions. Known tagged fields are
// filled like any other field: mostly non-default values, which must be
// written and read back, and their defaults on purpose (kdGen.defaults),
// which must not be written. Records fields hold nil or a small valid v2
// batch (RecordBatch.AppendTo).
//
// Where kmsg departs from Kafka's definitions: kdSkips lists the
// combinations not compared, kdTagQuirks the tagged fields kmsg writes at
// versions Kafka does not define them (reset to kmsg's default before
// encoding), kdKmsgUnknownTags the tagged fields kmsg does not know. Each
// cites the definition that decides.
//
// KDISSECT_KMSG_DIFF_CASES=n runs n cases per combination and direction
// instead of 20 (4 with -short).

import (
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"os"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// kdMessage is what kmsg requests and responses have in common.
type kdMessage interface {
	MaxVersion() int16
	SetVersion(int16)
	IsFlexible() bool
	AppendTo([]byte) []byte
	ReadFrom([]byte) error
}

func kdNewKmsg(key int16, response bool) kdMessage {
	if response {
		if m := kmsg.ResponseForKey(key); m != nil {
			return m
		}
		return nil
	}
	if m := kmsg.RequestForKey(key); m != nil {
		return m
	}
	return nil
}

// kdCombo is one ApiKey, version and side both implementations know.
type kdCombo struct {
	api      *API
	version  int16
	response bool
}

func (c kdCombo) side() string {
	if c.response {
		return "response"
	}
	return "request"
}

func (c kdCombo) name() string { return fmt.Sprintf("%s/v%d/%s", c.api.Name, c.version, c.side()) }

func (c kdCombo) newOurs() Message {
	if c.response {
		return c.api.NewResponse()
	}
	return c.api.NewRequest()
}

func (c kdCombo) newKmsg() kdMessage {
	m := kdNewKmsg(c.api.Key, c.response)
	m.SetVersion(c.version)
	return m
}

// kdKmsgMaxVersion returns kmsg's highest version of key, or -1 when kmsg
// does not know the key. kmsg declares no lowest version: it encodes every
// version from 0.
func kdKmsgMaxVersion(key int16, response bool) int16 {
	m := kdNewKmsg(key, response)
	if m == nil {
		return -1
	}
	return m.MaxVersion()
}

// kdCombos lists every (key, version, side) both implementations know: keys
// 0-200 that kmsg and the codec know, versions from max(our min, 0) to
// min(our max, kmsg's max).
func kdCombos() []kdCombo {
	var out []kdCombo
	for key := int16(0); key <= 200; key++ {
		api, ok := LookupAPI(key)
		if !ok {
			continue
		}
		for _, response := range []bool{false, true} {
			hi := min(api.MaxVersion, kdKmsgMaxVersion(key, response))
			for v := max(api.MinVersion, 0); v <= hi; v++ {
				out = append(out, kdCombo{api, v, response})
			}
		}
	}
	return out
}

// kdSkips holds combinations not tested, "<name>/<direction>" (direction
// "kmsg→ours" or "ours→kmsg") to the reason, which must cite the Kafka
// definition that shows kmsg wrong.
var kdSkips = map[string]string{
	// StopReplicaRequest.json (Kafka 3.x; the API is gone from 4.0): v4
	// adds isKRaftController (bool, "versions": "4+") right after
	// ControllerId, before ControllerEpoch. kmsg v1.15.1 declares it after
	// ControllerEpoch, so its v4 bytes put the bool in the wrong place.
	"StopReplica/v4/request/kmsg→ours": "kmsg puts isKRaftController after ControllerEpoch; StopReplicaRequest.json puts it after ControllerId",
	"StopReplica/v4/request/ours→kmsg": "kmsg puts isKRaftController after ControllerEpoch; StopReplicaRequest.json puts it after ControllerId",
}

// kdTagQuirk is a tagged field that kmsg writes at every flexible version
// whenever it holds a non-default value, while Kafka defines it only from
// a later version (its "taggedVersions"): Kafka's generated writers refuse a
// non-default value there (UnsupportedVersionException), so Kafka never
// sends such bytes. Below from, the field is set back to kmsg's default
// before kmsg encodes the random value. (We would keep the tag as an
// unknown tagged field, which is right too, and the bytes would still
// round-trip; the reset keeps the check that every tag kmsg writes as known
// is known to us exact.)
type kdTagQuirk struct {
	key      int16
	response bool
	path     string // kmsg field names from the top-level struct, through slices
	from     int16  // first version of the field's taggedVersions
	def      string // the Kafka definition
}

var kdTagQuirks = []kdTagQuirk{
	{0, true, "Topics.Partitions.CurrentLeader", 10, `ProduceResponse.json: CurrentLeader "taggedVersions": "10+", tag 0`},
	{0, true, "Brokers", 10, `ProduceResponse.json: NodeEndpoints "taggedVersions": "10+", tag 0`},
	{1, false, "ReplicaState", 15, `FetchRequest.json: ReplicaState "taggedVersions": "15+", tag 1`},
	{1, false, "Topics.Partitions.ReplicaDirectoryID", 17, `FetchRequest.json: ReplicaDirectoryId "taggedVersions": "17+", tag 0`},
	{1, false, "Topics.Partitions.HighWatermark", 18, `FetchRequest.json (apache/kafka trunk, KIP-1166): HighWatermark "taggedVersions": "18+", tag 1`},
	{1, true, "Brokers", 16, `FetchResponse.json: NodeEndpoints "taggedVersions": "16+", tag 0`},
	{52, true, "NodeEndpoints", 1, `VoteResponse.json: NodeEndpoints "taggedVersions": "1+", tag 0`},
	{59, false, "Topics.Partitions.ReplicaDirectoryID", 1, `FetchSnapshotRequest.json: ReplicaDirectoryId "taggedVersions": "1+", tag 0`},
	{59, true, "NodeEndpoints", 1, `FetchSnapshotResponse.json: NodeEndpoints "taggedVersions": "1+", tag 0`},
	{63, false, "OfflineLogDirs", 1, `BrokerHeartbeatRequest.json: OfflineLogDirs "taggedVersions": "1+", tag 0`},
	{63, false, "CordonedLogDirs", 2, `BrokerHeartbeatRequest.json (apache/kafka trunk, KIP-1066): CordonedLogDirs "taggedVersions": "2+", tag 1`},
}

// kdKmsgUnknownTags lists tagged fields Kafka defines that kmsg does not
// know, so kmsg keeps them as unknown tags (and still re-encodes them
// exactly): "<kmsg struct type> <tag>".
var kdKmsgUnknownTags = map[string]string{
	"UpdateMetadataRequest 0": `UpdateMetadataRequest.json: Type int8 "taggedVersions": "8+", tag 0; kmsg v1.15.1 has no Type field`,
}

// kdApplyTagQuirks sets the kdTagQuirks fields of km back to kmsg's
// defaults where the version is below the field's first tagged version.
func kdApplyTagQuirks(km kdMessage, c kdCombo) {
	for _, q := range kdTagQuirks {
		if q.key == c.api.Key && q.response == c.response && c.version < q.from {
			kdResetKmsgField(reflect.ValueOf(km).Elem(), strings.Split(q.path, "."))
		}
	}
}

// kdResetKmsgField sets the field at path (through slices and pointers) to
// the value a fresh kmsg struct of its parent type holds after Default().
func kdResetKmsgField(v reflect.Value, path []string) {
	switch v.Kind() {
	case reflect.Pointer:
		if !v.IsNil() {
			kdResetKmsgField(v.Elem(), path)
		}
		return
	case reflect.Slice:
		for i := 0; i < v.Len(); i++ {
			kdResetKmsgField(v.Index(i), path)
		}
		return
	}
	f := v.FieldByName(path[0])
	if !f.IsValid() {
		panic("kmsg diff: no field " + path[0] + " in " + v.Type().String())
	}
	if len(path) > 1 {
		kdResetKmsgField(f, path[1:])
		return
	}
	fresh := reflect.New(v.Type())
	if d, ok := fresh.Interface().(interface{ Default() }); ok {
		d.Default()
	}
	f.Set(fresh.Elem().FieldByName(path[0]))
}

func TestKmsgDiff(t *testing.T) {
	cases := 20
	if testing.Short() {
		cases = 4
	}
	if n, err := strconv.Atoi(os.Getenv("KDISSECT_KMSG_DIFF_CASES")); err == nil && n > 0 {
		cases = n // a deeper run: KDISSECT_KMSG_DIFF_CASES=2000 go test ./codec -run 'TestKmsgDiff$'
	}
	var combos, total int
	var skipped []string
	perKey := map[string]int{}
	names := newKdNameStats() // the names kdCompareByName matched and did not
	for _, c := range kdCombos() {
		t.Run(c.name(), func(t *testing.T) {
			combos++
			for _, dir := range []string{"kmsg→ours", "ours→kmsg"} {
				if why, ok := kdSkips[c.name()+"/"+dir]; ok {
					skipped = append(skipped, c.name()+"/"+dir+": "+why)
					continue
				}
				rng := rand.New(rand.NewPCG(uint64(c.api.Key)<<16|uint64(c.version), kdSeed(c.response, dir)))
				for i := range cases {
					g := &kdGen{rng: rng, tags: i%2 == 1}
					var ok bool
					if dir == "kmsg→ours" {
						ok = kdKmsgToOurs(t, c, g, i, names)
					} else {
						ok = kdOursToKmsg(t, c, g, i, names)
					}
					if !ok {
						break // one failure per combination and direction is enough
					}
					total++
					perKey[c.api.Name]++
				}
			}
		})
	}
	keys := make([]string, 0, len(perKey))
	for k := range perKey {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&b, " %s:%d", k, perKey[k])
	}
	t.Logf("cases per API:%s", b.String())
	t.Logf("%d fields compared by name with kmsg's and in our JSON (%d kmsg fields matched)", names.compared, len(names.kmsgMatched))
	if um := names.unmatched(); len(um) != 0 {
		t.Errorf("%d field names match no field on the other side (add a rule or a reviewed kdNameTable/kdKmsgOnly entry):\n%s", len(um), strings.Join(um, "\n"))
	}
	for _, s := range skipped {
		t.Logf("skipped %s", s)
	}
	tested := map[kdCombo]bool{}
	for _, c := range kdCombos() {
		tested[c] = true
	}
	for _, c := range kdAllCombos() {
		if !tested[c] {
			t.Logf("not compared (kmsg does not know it): %s", c.name())
		}
	}
	if !t.Failed() {
		t.Logf("%d key/version/side combinations, %d cases, all byte-identical (%d combination directions skipped)", combos, total, len(skipped))
	} else {
		t.Logf("%d key/version/side combinations, %d cases passed (%d combination directions skipped)", combos, total, len(skipped))
	}
}

func kdSeed(response bool, dir string) uint64 {
	s := uint64(0)
	if response {
		s = 1
	}
	if dir == "ours→kmsg" {
		s |= 2
	}
	return s
}

// kdDecode decodes body with a fresh message of c and returns the message
// and a description of what went wrong ("" when the decode is complete: no
// error, no trailing bytes, no warnings).
func kdDecode(c kdCombo, body []byte) (Message, string) {
	m := c.newOurs()
	r := NewReader(body)
	m.ReadFrom(r, c.version)
	switch {
	case r.Err() != nil:
		return m, fmt.Sprintf("decode error: %v", r.Err())
	case r.Remaining() != 0:
		return m, fmt.Sprintf("%d trailing bytes after the body", r.Remaining())
	case len(r.Warnings) != 0:
		return m, fmt.Sprintf("warnings: %q", r.Warnings)
	}
	return m, ""
}

func kdJSON(m Message, version int16) string {
	w := NewJSONWriter(nil)
	m.WriteJSON(w, version)
	return string(w.Bytes())
}

// kdBytesDiff describes where got differs from want.
func kdBytesDiff(got, want []byte) string {
	at := 0
	for at < len(got) && at < len(want) && got[at] == want[at] {
		at++
	}
	return fmt.Sprintf("first difference at byte %d (got %d bytes, want %d)\n got  %s\n want %s", at, len(got), len(want), kdHex(got), kdHex(want))
}

func kdHex(b []byte) string {
	if len(b) > 512 {
		return hex.EncodeToString(b[:512]) + "..."
	}
	return hex.EncodeToString(b)
}

// kdOurStrayTags returns the unknown tagged fields of our decoded value
// that the test did not add (tags outside kdUnknownTagPool), as "<our
// struct type> <tag>": fields the other side wrote as known that we do not
// know.
func kdOurStrayTags(m Message) []string {
	var out []string
	var walk func(v reflect.Value)
	walk = func(v reflect.Value) {
		switch v.Kind() {
		case reflect.Pointer:
			if !v.IsNil() {
				walk(v.Elem())
			}
		case reflect.Struct:
			if v.Type() == kdTypeRecords {
				return
			}
			for i := 0; i < v.NumField(); i++ {
				f := v.Field(i)
				if !v.Type().Field(i).IsExported() {
					continue
				}
				if f.Type() == kdTypeTaggedList {
					for _, tf := range f.Interface().([]TaggedField) {
						if !slices.Contains(kdUnknownTagPool, tf.Tag) {
							out = append(out, fmt.Sprintf("%s %d", v.Type().Name(), tf.Tag))
						}
					}
					continue
				}
				walk(f)
			}
		case reflect.Slice:
			for i := 0; i < v.Len(); i++ {
				walk(v.Index(i))
			}
		}
	}
	walk(reflect.ValueOf(m))
	return out
}

// kdKmsgStrayTags is kdOurStrayTags for a kmsg value, leaving out the
// tags kdKmsgUnknownTags explains.
func kdKmsgStrayTags(m kdMessage) []string {
	var out []string
	var walk func(v reflect.Value)
	walk = func(v reflect.Value) {
		switch v.Kind() {
		case reflect.Pointer:
			if !v.IsNil() {
				walk(v.Elem())
			}
		case reflect.Struct:
			for i := 0; i < v.NumField(); i++ {
				f := v.Field(i)
				if !v.Type().Field(i).IsExported() {
					continue
				}
				if f.Type() == kdTypeKmsgTags {
					f.Addr().Interface().(*kmsg.Tags).Each(func(tag uint32, _ []byte) {
						name := fmt.Sprintf("%s %d", v.Type().Name(), tag)
						if _, ok := kdKmsgUnknownTags[name]; !ok && !slices.Contains(kdUnknownTagPool, tag) {
							out = append(out, name)
						}
					})
					continue
				}
				walk(f)
			}
		case reflect.Slice:
			for i := 0; i < v.Len(); i++ {
				walk(v.Index(i))
			}
		}
	}
	walk(reflect.ValueOf(m))
	return out
}

// kdKmsgToOurs runs direction 1 for one random kmsg value.
func kdKmsgToOurs(t *testing.T, c kdCombo, g *kdGen, i int, names *kdNameStats) bool {
	t.Helper()
	km := c.newKmsg()
	g.fillKmsg(reflect.ValueOf(km).Elem(), true)
	kdApplyTagQuirks(km, c)
	b := km.AppendTo(nil)

	ours, problem := kdDecode(c, b)
	if problem != "" {
		t.Errorf("kmsg→ours case %d: kmsg's bytes: %s\n kmsg %s\n ours so far %s", i, problem, kdHex(b), kdJSON(ours, c.version))
		return false
	}
	re := ours.AppendTo(nil, c.version)
	if string(re) != string(b) {
		t.Errorf("kmsg→ours case %d: our re-encoding differs from kmsg's bytes: %s\n ours decoded %s", i, kdBytesDiff(re, b), kdJSON(ours, c.version))
		return false
	}
	if stray := kdOurStrayTags(ours); len(stray) != 0 {
		t.Errorf("kmsg→ours case %d: kmsg wrote tagged fields %v that we keep as unknown\n kmsg %s\n ours %s", i, stray, kdHex(b), kdJSON(ours, c.version))
		return false
	}
	fromKmsg, fromOurs := c.newKmsg(), c.newKmsg()
	err1, err2 := fromKmsg.ReadFrom(b), fromOurs.ReadFrom(re)
	if err1 != nil || err2 != nil {
		t.Errorf("kmsg→ours case %d: kmsg cannot read back (its bytes: %v, ours: %v)", i, err1, err2)
		return false
	}
	if !reflect.DeepEqual(fromKmsg, fromOurs) {
		t.Errorf("kmsg→ours case %d: kmsg reads our bytes differently: %s", i, goldenDiff(fromOurs, fromKmsg))
		return false
	}
	return kdByName(t, c, "kmsg→ours", i, ours, fromKmsg, b, names)
}

// kdOursToKmsg runs direction 2 for one random value of ours.
func kdOursToKmsg(t *testing.T, c kdCombo, g *kdGen, i int, names *kdNameStats) bool {
	t.Helper()
	x := c.newOurs()
	g.fillOurs(reflect.ValueOf(x).Elem())
	b := x.AppendTo(nil, c.version)

	d1, problem := kdDecode(c, b)
	if problem != "" {
		t.Errorf("ours→kmsg case %d: our own bytes: %s\n ours %s\n value %s", i, problem, kdHex(b), kdJSON(x, c.version))
		return false
	}
	if re := d1.AppendTo(nil, c.version); string(re) != string(b) {
		t.Errorf("ours→kmsg case %d: decoding and re-encoding our bytes differs: %s", i, kdBytesDiff(re, b))
		return false
	}
	km := c.newKmsg()
	if err := km.ReadFrom(b); err != nil {
		t.Errorf("ours→kmsg case %d: kmsg cannot decode our bytes: %v\n ours %s\n json %s", i, err, kdHex(b), kdJSON(d1, c.version))
		return false
	}
	kb := km.AppendTo(nil)
	if string(kb) != string(b) {
		t.Errorf("ours→kmsg case %d: kmsg re-encodes our bytes differently: %s\n ours decoded %s", i, kdBytesDiff(kb, b), kdJSON(d1, c.version))
		return false
	}
	if stray := kdKmsgStrayTags(km); len(stray) != 0 {
		t.Errorf("ours→kmsg case %d: we wrote tagged fields %v that kmsg keeps as unknown\n ours %s\n json %s", i, stray, kdHex(b), kdJSON(d1, c.version))
		return false
	}
	d2, problem := kdDecode(c, kb)
	if problem != "" {
		t.Errorf("ours→kmsg case %d: kmsg's bytes: %s", i, problem)
		return false
	}
	if !reflect.DeepEqual(d1, d2) {
		t.Errorf("ours→kmsg case %d: decoding kmsg's bytes differs from decoding ours: %s", i, goldenDiff(d2, d1))
		return false
	}
	return kdByName(t, c, "ours→kmsg", i, d1, km, b, names)
}
