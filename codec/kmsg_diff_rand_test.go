package codec

// Random values for the kmsg differential test (kmsg_diff_test.go), filled
// by reflection into franz-go kmsg structs and into ours.

import (
	"math"
	"math/rand/v2"
	"reflect"
	"slices"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// kdGen fills values at random.
type kdGen struct {
	rng   *rand.Rand
	small bool // seeds: at most one element per array, short strings
	tags  bool // add random unknown tagged fields to every struct
}

var (
	kdTypeKmsgTags   = reflect.TypeFor[kmsg.Tags]()
	kdTypeRecords    = reflect.TypeFor[Records]()
	kdTypeTaggedList = reflect.TypeFor[[]TaggedField]()
)

// kdUnknownTagPool holds the tag numbers used for unknown tagged fields.
// They are all above every tag Kafka defines (0-3 today), because kmsg
// writes its known tagged fields first and its unknown ones after them, so
// an unknown tag below a known one would come out of order (see
// kmsg.Tags.AppendEach and every generated AppendTo). 127/128 and 16383/
// 16384 straddle the 1- to 2- and 2- to 3-byte uvarint boundaries.
var kdUnknownTagPool = []uint32{10, 11, 17, 31, 127, 128, 300, 16383, 16384}

// int returns a random integer of the given bit size, biased towards the
// values that catch encoding mistakes: 0, ±1, small numbers, the extremes.
func (g *kdGen) int(bits uint) int64 {
	lo, hi := int64(-1)<<(bits-1), int64(1)<<(bits-1)-1
	switch g.rng.IntN(8) {
	case 0:
		return 0
	case 1:
		return -1
	case 2:
		return hi
	case 3:
		return lo
	case 4, 5:
		return g.rng.Int64N(200) - 50
	default:
		return lo + int64(g.rng.Uint64()>>(64-bits))
	}
}

func (g *kdGen) uint(bits uint) uint64 {
	switch g.rng.IntN(4) {
	case 0:
		return 0
	case 1:
		return 1<<bits - 1
	default:
		return g.rng.Uint64() >> (64 - bits)
	}
}

// kdRunes mixes ASCII with two- to four-byte UTF-8 characters.
var kdRunes = []rune("abcxyz019-_./ é€😀")

func (g *kdGen) string() string {
	n := g.rng.IntN(7)
	if g.small {
		n = g.rng.IntN(3)
	}
	r := make([]rune, n)
	for i := range r {
		r[i] = kdRunes[g.rng.IntN(len(kdRunes))]
	}
	return string(r)
}

func (g *kdGen) bytes() []byte {
	n := g.rng.IntN(9)
	if g.small {
		n = g.rng.IntN(3)
	}
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(g.rng.UintN(256))
	}
	return b
}

// arrayLen returns -1 (a nil slice) or an element count.
func (g *kdGen) arrayLen() int {
	if g.rng.IntN(5) == 0 {
		return -1
	}
	if g.small {
		return g.rng.IntN(2)
	}
	return g.rng.IntN(4)
}

// records returns nil or a small valid v2 record batch, encoded by
// RecordBatch.AppendTo with a correct CRC.
func (g *kdGen) records() []byte {
	if g.rng.IntN(3) == 0 {
		return nil
	}
	b := RecordBatch{
		BaseOffset:           g.rng.Int64N(1 << 40),
		PartitionLeaderEpoch: int32(g.rng.IntN(100)),
		Attributes:           int16(g.rng.IntN(2)) << 3, // CreateTime or LogAppendTime, uncompressed
		BaseTimestamp:        1700000000000 + g.rng.Int64N(1e6),
		ProducerId:           -1,
		ProducerEpoch:        -1,
		BaseSequence:         -1,
	}
	n := 1 + g.rng.IntN(2)
	for i := range n {
		rec := Record{TimestampDelta: int64(i), OffsetDelta: int32(i), Value: g.bytes()}
		if g.rng.IntN(2) == 0 {
			rec.Key = g.bytes()
		}
		if g.rng.IntN(3) == 0 {
			rec.Headers = []RecordHeader{{Key: g.string(), Value: g.bytes()}}
		}
		b.Records = append(b.Records, rec)
	}
	b.LastOffsetDelta = int32(n - 1)
	b.MaxTimestamp = b.BaseTimestamp + int64(n-1)
	return b.AppendTo(nil)
}

// unknownTags returns 0-2 unknown tagged fields in ascending tag order.
func (g *kdGen) unknownTags() []TaggedField {
	n := g.rng.IntN(3)
	if n == 0 {
		return nil
	}
	tags := make([]uint32, 0, n)
	for len(tags) < n {
		t := kdUnknownTagPool[g.rng.IntN(len(kdUnknownTagPool))]
		if !slices.Contains(tags, t) {
			tags = append(tags, t)
		}
	}
	slices.Sort(tags)
	out := make([]TaggedField, n)
	for i, t := range tags {
		out[i] = TaggedField{Tag: t, Data: g.bytes()}
	}
	return out
}

// defaults returns a fresh value of v's struct type set to its defaults by
// its method named method (kmsg's Default, our SetDefaults), and whether
// every field of v is to keep its default (one struct in six). Otherwise
// each field keeps its default with probability 1/6. Random values almost
// never hit a default, and defaults are what decide whether a tagged field
// is written at all (neither Kafka nor kmsg nor we write one that holds its
// default), so they must be drawn on purpose: a tagged struct at its
// defaults but with unknown tagged fields of its own, for one, must still
// be written.
func (g *kdGen) defaults(v reflect.Value, method string) (reflect.Value, bool) {
	fresh := reflect.New(v.Type())
	if m := fresh.MethodByName(method); m.IsValid() {
		m.Call(nil)
	}
	return fresh.Elem(), g.rng.IntN(6) == 0
}

// scalar fills the primitive v (the kinds both packages use alike) and
// reports whether it was one.
func (g *kdGen) scalar(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Bool:
		v.SetBool(g.rng.IntN(2) == 0)
	case reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(g.int(uint(v.Type().Bits())))
	case reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(g.uint(uint(v.Type().Bits())))
	case reflect.Float64:
		// Finite values only: NaN is not DeepEqual to itself.
		f := []float64{0, -1, 0.5, math.MaxFloat64, math.SmallestNonzeroFloat64, g.rng.NormFloat64() * 1e6}[g.rng.IntN(6)]
		v.SetFloat(f)
	case reflect.String:
		v.SetString(g.string())
	case reflect.Array: // UUIDs
		for i := 0; i < v.Len(); i++ {
			v.Index(i).SetUint(uint64(g.rng.UintN(256)))
		}
		if g.rng.IntN(4) == 0 {
			v.SetZero()
		}
	default:
		return false
	}
	return true
}

// fillKmsg fills a kmsg struct (or any value inside one) at random. The
// top-level Version is left alone; Tags get unknown tagged fields when g.tags
// is set; []byte fields named Records or RecordBatches (the records fields:
// Produce, Fetch, ShareFetch) get nil or a valid record batch.
func (g *kdGen) fillKmsg(v reflect.Value, top bool) {
	if g.scalar(v) {
		return
	}
	switch v.Kind() {
	case reflect.Struct:
		if v.Type() == kdTypeKmsgTags {
			if g.tags {
				t := v.Addr().Interface().(*kmsg.Tags)
				for _, f := range g.unknownTags() {
					t.Set(f.Tag, f.Data)
				}
			}
			return
		}
		defaults, all := g.defaults(v, "Default")
		for i := 0; i < v.NumField(); i++ {
			f := v.Type().Field(i)
			if !f.IsExported() || top && f.Name == "Version" {
				continue
			}
			if f.Type != kdTypeKmsgTags && (all || g.rng.IntN(6) == 0) {
				v.Field(i).Set(defaults.Field(i))
				continue
			}
			if f.Type == reflect.TypeFor[[]byte]() && (f.Name == "Records" || f.Name == "RecordBatches") {
				v.Field(i).SetBytes(g.records())
				continue
			}
			g.fillKmsg(v.Field(i), false)
		}
	case reflect.Pointer:
		if g.rng.IntN(4) == 0 {
			v.SetZero()
			return
		}
		p := reflect.New(v.Type().Elem())
		g.fillKmsg(p.Elem(), false)
		v.Set(p)
	case reflect.Slice:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			if g.rng.IntN(5) == 0 {
				v.SetZero()
			} else {
				v.SetBytes(g.bytes())
			}
			return
		}
		n := g.arrayLen()
		if n < 0 {
			v.SetZero()
			return
		}
		s := reflect.MakeSlice(v.Type(), n, n)
		for i := range n {
			g.fillKmsg(s.Index(i), false)
		}
		v.Set(s)
	default:
		panic("kmsg diff: cannot fill " + v.Type().String())
	}
}

// fillOurs fills one of our message structs (or any value inside one) at
// random: nil or a valid batch for Records, unknown tagged fields in
// ascending order when g.tags is set, nil sometimes for every *string,
// *struct and slice. A nil where the field is not nullable at the version is
// written as empty; the test compares decodes, never the value filled.
func (g *kdGen) fillOurs(v reflect.Value) {
	switch v.Type() {
	case kdTypeRecords:
		v.SetZero()
		v.FieldByName("Raw").SetBytes(g.records())
		return
	case kdTypeTaggedList:
		v.SetZero()
		if g.tags {
			v.Set(reflect.ValueOf(g.unknownTags()))
		}
		return
	}
	if g.scalar(v) {
		return
	}
	switch v.Kind() {
	case reflect.Struct:
		defaults, all := g.defaults(v, "SetDefaults")
		for i := 0; i < v.NumField(); i++ {
			f := v.Type().Field(i)
			if !f.IsExported() {
				continue
			}
			if f.Type != kdTypeTaggedList && (all || g.rng.IntN(6) == 0) {
				v.Field(i).Set(defaults.Field(i))
				continue
			}
			g.fillOurs(v.Field(i))
		}
	case reflect.Pointer:
		if g.rng.IntN(4) == 0 {
			v.SetZero()
			return
		}
		p := reflect.New(v.Type().Elem())
		g.fillOurs(p.Elem())
		v.Set(p)
	case reflect.Slice:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			if g.rng.IntN(5) == 0 {
				v.SetZero()
			} else {
				v.SetBytes(g.bytes())
			}
			return
		}
		n := g.arrayLen()
		if n < 0 {
			v.SetZero()
			return
		}
		s := reflect.MakeSlice(v.Type(), n, n)
		for i := range n {
			g.fillOurs(s.Index(i))
		}
		v.Set(s)
	default:
		panic("kmsg diff: cannot fill " + v.Type().String())
	}
}
