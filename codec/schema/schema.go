// Package schema holds kdissect's declarative description of the Kafka
// protocol: every API's request and response, field by field, with version
// ranges, nullability, tags and defaults, in the text format parsed here
// (files under defs/). The generator in codec/internal/gen turns it into the
// Go types, decoders, encoders and JSON writers of package codec, and into
// the field metadata (codec.FieldInfo, with these annotations), walkers
// (codec.Message.WalkFields) and partition layouts (codec.PartitionLayout)
// that code reading fields by role uses instead of this package at run
// time; a test holds it against Apache Kafka's own message definitions.
//
// The format, one definition per line, indented two spaces per nesting level:
//
//	# comment
//	api 0 Produce                                   # ApiKey and name; then its request and response
//	request versions 0-11 flexible 9+               # validVersions and flexibleVersions ("none" if never)
//	  Acks int16 v0+                                 # field: name, type, versions
//	  TransactionalId string v3+ nullable 3+ default null
//	  TopicData []TopicProduceData v0+               # array of structs; its fields follow, indented
//	    Name string v0+ @topic
//	  CurrentLeader LeaderIdAndEpoch v10+ tag 0 tagged 10+
//	  struct LeaderIdAndEpoch                        # a common struct, declared at message level
//	    LeaderId int32 v0+ default -1
//	header RequestHeader versions 0-2 flexible 2+   # request and response headers
//
// Field attributes: "nullable R" (nullableVersions), "tag N" and "tagged R"
// (tagged field), "flexible R" (field-level flexibleVersions, only "none" is
// used by Kafka), "default V" (a token or a "quoted string"), and the
// summary annotations @topic (topic name, string or []string), @topicid
// (uuid), @partition (int32 partition index), @partitions ([]int32 partition
// indexes), @error (int16 error code) that drive the per-exchange topics and
// errors summaries, and @secret, @sasl and @config (credentials, which
// output redacts unless asked not to).
package schema

import (
	"embed"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strconv"
	"strings"
)

// Versions is an inclusive version range; Max is -1 for "and later" and an
// empty range (Min > Max with Max != -1) means "none".
type Versions struct {
	Min, Max int16
}

// None is the empty version range.
var None = Versions{Min: 1, Max: 0}

// IsNone reports whether v holds no version.
func (v Versions) IsNone() bool { return v.Max != -1 && v.Min > v.Max }

// Contains reports whether version is in v.
func (v Versions) Contains(version int16) bool {
	if v.IsNone() {
		return false
	}
	return version >= v.Min && (v.Max == -1 || version <= v.Max)
}

// Intersect returns the versions in both v and o.
func (v Versions) Intersect(o Versions) Versions {
	if v.IsNone() || o.IsNone() {
		return None
	}
	r := Versions{Min: max(v.Min, o.Min), Max: v.Max}
	switch {
	case v.Max == -1:
		r.Max = o.Max
	case o.Max != -1:
		r.Max = min(v.Max, o.Max)
	}
	if r.Max != -1 && r.Min > r.Max {
		return None
	}
	return r
}

func (v Versions) String() string {
	switch {
	case v.IsNone():
		return "none"
	case v.Max == -1:
		return fmt.Sprintf("%d+", v.Min)
	case v.Min == v.Max:
		return strconv.Itoa(int(v.Min))
	default:
		return fmt.Sprintf("%d-%d", v.Min, v.Max)
	}
}

// ParseVersions parses Kafka's version syntax: "3+", "0-7", "5", "none".
func ParseVersions(s string) (Versions, error) {
	s = strings.TrimPrefix(s, "v")
	switch {
	case s == "none" || s == "":
		return None, nil
	case strings.HasSuffix(s, "+"):
		n, err := strconv.ParseInt(strings.TrimSuffix(s, "+"), 10, 16)
		return Versions{Min: int16(n), Max: -1}, err
	case strings.Contains(s, "-"):
		a, b, _ := strings.Cut(s, "-")
		lo, err1 := strconv.ParseInt(a, 10, 16)
		hi, err2 := strconv.ParseInt(b, 10, 16)
		if err1 != nil || err2 != nil {
			return None, fmt.Errorf("bad version range %q", s)
		}
		return Versions{Min: int16(lo), Max: int16(hi)}, nil
	default:
		n, err := strconv.ParseInt(s, 10, 16)
		return Versions{Min: int16(n), Max: int16(n)}, err
	}
}

// Annotation marks a field's role in the exchange summary.
type Annotation string

// Summary annotations.
const (
	Topic      Annotation = "topic"
	TopicID    Annotation = "topicid"
	Partition  Annotation = "partition"
	Partitions Annotation = "partitions"
	Error      Annotation = "error"
	// Secret marks a credential (a delegation token HMAC, a salted
	// password): output redacts it unless secrets are asked for.
	Secret Annotation = "secret"
	// SASL marks a SASL token (SaslAuthenticate AuthBytes): output redacts
	// the credential in it (PLAIN password, SCRAM proof, OAUTHBEARER token).
	SASL Annotation = "sasl"
	// Config marks a config value (a nullable string beside a Name field):
	// output redacts it when the name is a password-like config, as Kafka
	// does when it logs requests.
	Config Annotation = "config"
	// Unaligned marks a records field that is a raw chunk, not a sequence
	// of whole batches (FetchSnapshot's UnalignedRecords, a slice of a
	// snapshot file): it is kept raw, never decoded as records.
	Unaligned Annotation = "unaligned"
)

// Field is one field of a struct.
type Field struct {
	Name        string
	Type        string // as in Kafka: int8 ... float64, bool, uuid, string, bytes, records, []T, or a struct name
	Versions    Versions
	Nullable    Versions
	Tag         int // -1 when the field is not tagged
	Tagged      Versions
	Flexible    *Versions // field-level flexibleVersions override, nil when absent
	Default     string    // "" when absent
	HasDefault  bool
	Annotations []Annotation
	Fields      []*Field // the struct's fields when Type names a struct declared inline
	Line        int
}

// Has reports whether f carries annotation a.
func (f *Field) Has(a Annotation) bool {
	for _, x := range f.Annotations {
		if x == a {
			return true
		}
	}
	return false
}

// IsArray reports whether the field is an array.
func (f *Field) IsArray() bool { return strings.HasPrefix(f.Type, "[]") }

// ElemType returns the element type of an array, or the type itself.
func (f *Field) ElemType() string { return strings.TrimPrefix(f.Type, "[]") }

// IsStruct reports whether the field (or its element) is a struct.
func (f *Field) IsStruct() bool { return !IsPrimitive(f.ElemType()) }

// IsTagged reports whether the field is a tagged field.
func (f *Field) IsTagged() bool { return f.Tag >= 0 }

// primitives are Kafka's non-struct field types.
var primitives = map[string]bool{
	"bool": true, "int8": true, "int16": true, "uint16": true, "int32": true, "uint32": true,
	"int64": true, "float64": true, "uuid": true, "string": true, "bytes": true, "records": true,
}

// IsPrimitive reports whether t is a Kafka primitive type.
func IsPrimitive(t string) bool { return primitives[t] }

// Struct is a named struct type: a message, an inline struct or a common struct.
type Struct struct {
	Name   string
	Fields []*Field
}

// Message is one request, response or header.
type Message struct {
	Kind     string // "request", "response" or "header"
	Name     string // e.g. "ProduceRequest"
	APIKey   int16  // -1 for headers
	APIName  string // e.g. "Produce"
	Valid    Versions
	Flexible Versions
	Fields   []*Field
	Common   []*Struct // common structs, referenced by name from fields
	File     string
}

// API is one ApiKey with its request and response.
type API struct {
	Key      int16
	Name     string
	Request  *Message
	Response *Message
}

// Schema is the whole protocol.
type Schema struct {
	APIs    []*API     // sorted by key
	Headers []*Message // RequestHeader, ResponseHeader
}

//go:embed defs/*.schema
var defs embed.FS

// Load parses the schema embedded in this package.
func Load() (*Schema, error) { return LoadFS(defs, "defs") }

// LoadFS parses every *.schema file in dir of fsys.
func LoadFS(fsys fs.FS, dir string) (*Schema, error) {
	names, err := fs.Glob(fsys, path.Join(dir, "*.schema"))
	if err != nil {
		return nil, err
	}
	s := &Schema{}
	for _, n := range names {
		b, err := fs.ReadFile(fsys, n)
		if err != nil {
			return nil, err
		}
		if err := s.parseFile(path.Base(n), string(b)); err != nil {
			return nil, err
		}
	}
	sort.Slice(s.APIs, func(i, j int) bool { return s.APIs[i].Key < s.APIs[j].Key })
	for i := 1; i < len(s.APIs); i++ {
		if s.APIs[i].Key == s.APIs[i-1].Key {
			return nil, fmt.Errorf("api key %d declared twice (%s, %s)", s.APIs[i].Key, s.APIs[i-1].Name, s.APIs[i].Name)
		}
	}
	for _, a := range s.APIs {
		if a.Request == nil || a.Response == nil {
			return nil, fmt.Errorf("api %d %s lacks a request or a response", a.Key, a.Name)
		}
	}
	return s, nil
}

type line struct {
	n      int
	indent int
	toks   []string
}

func tokenize(s string) ([]string, error) {
	var toks []string
	for {
		s = strings.TrimLeft(s, " \t")
		if s == "" || s[0] == '#' {
			return toks, nil
		}
		if s[0] == '"' {
			q, err := strconv.QuotedPrefix(s)
			if err != nil {
				return nil, err
			}
			toks = append(toks, q)
			s = s[len(q):]
			continue
		}
		i := strings.IndexAny(s, " \t")
		if i < 0 {
			i = len(s)
		}
		toks = append(toks, s[:i])
		s = s[i:]
	}
}

func (s *Schema) parseFile(file, text string) error {
	var lines []line
	for i, raw := range strings.Split(text, "\n") {
		trimmed := strings.TrimLeft(raw, " ")
		toks, err := tokenize(trimmed)
		if err != nil {
			return fmt.Errorf("%s:%d: %w", file, i+1, err)
		}
		if len(toks) == 0 {
			continue
		}
		ind := len(raw) - len(trimmed)
		if ind%2 != 0 || strings.ContainsRune(raw[:ind], '\t') {
			return fmt.Errorf("%s:%d: indentation must be a multiple of two spaces", file, i+1)
		}
		lines = append(lines, line{n: i + 1, indent: ind / 2, toks: toks})
	}
	p := &parser{file: file, lines: lines}
	var api *API
	for p.i < len(p.lines) {
		l := p.lines[p.i]
		if l.indent != 0 {
			return p.errf(l, "unexpected indentation")
		}
		switch l.toks[0] {
		case "api":
			if len(l.toks) != 3 {
				return p.errf(l, "want: api KEY NAME")
			}
			k, err := strconv.ParseInt(l.toks[1], 10, 16)
			if err != nil {
				return p.errf(l, "bad api key %q", l.toks[1])
			}
			api = &API{Key: int16(k), Name: l.toks[2]}
			s.APIs = append(s.APIs, api)
			p.i++
		case "request", "response":
			if api == nil {
				return p.errf(l, "%s before api", l.toks[0])
			}
			m, err := p.message(l, l.toks[0], api.Name+strings.ToUpper(l.toks[0][:1])+l.toks[0][1:], 1)
			if err != nil {
				return err
			}
			m.APIKey, m.APIName = api.Key, api.Name
			if l.toks[0] == "request" {
				if api.Request != nil {
					return p.errf(l, "second request for %s", api.Name)
				}
				api.Request = m
			} else {
				if api.Response != nil {
					return p.errf(l, "second response for %s", api.Name)
				}
				api.Response = m
			}
		case "header":
			if len(l.toks) < 2 {
				return p.errf(l, "want: header NAME versions R flexible R")
			}
			m, err := p.message(l, "header", l.toks[1], 2)
			if err != nil {
				return err
			}
			m.APIKey = -1
			s.Headers = append(s.Headers, m)
		default:
			return p.errf(l, "unknown declaration %q", l.toks[0])
		}
	}
	return nil
}

type parser struct {
	file  string
	lines []line
	i     int
}

func (p *parser) errf(l line, format string, args ...any) error {
	return fmt.Errorf("%s:%d: %s", p.file, l.n, fmt.Sprintf(format, args...))
}

// message parses "KIND [NAME] versions R flexible R" and its indented body.
func (p *parser) message(l line, kind, name string, attrStart int) (*Message, error) {
	m := &Message{Kind: kind, Name: name, File: p.file, Flexible: None}
	toks := l.toks[attrStart:]
	for len(toks) > 0 {
		if len(toks) < 2 {
			return nil, p.errf(l, "attribute %q lacks a value", toks[0])
		}
		v, err := ParseVersions(toks[1])
		if err != nil {
			return nil, p.errf(l, "%v", err)
		}
		switch toks[0] {
		case "versions":
			m.Valid = v
		case "flexible":
			m.Flexible = v
		default:
			return nil, p.errf(l, "unknown message attribute %q", toks[0])
		}
		toks = toks[2:]
	}
	if m.Valid.IsNone() {
		return nil, p.errf(l, "message %s has no versions", name)
	}
	p.i++
	for p.i < len(p.lines) && p.lines[p.i].indent >= 1 {
		fl := p.lines[p.i]
		if fl.indent != 1 {
			return nil, p.errf(fl, "unexpected indentation")
		}
		if fl.toks[0] == "struct" {
			if len(fl.toks) != 2 {
				return nil, p.errf(fl, "want: struct NAME")
			}
			p.i++
			fs, err := p.fields(2)
			if err != nil {
				return nil, err
			}
			m.Common = append(m.Common, &Struct{Name: fl.toks[1], Fields: fs})
			continue
		}
		f, err := p.field(fl)
		if err != nil {
			return nil, err
		}
		m.Fields = append(m.Fields, f)
	}
	return m, nil
}

// fields parses consecutive field lines at indent and their children.
func (p *parser) fields(indent int) ([]*Field, error) {
	var out []*Field
	for p.i < len(p.lines) && p.lines[p.i].indent >= indent {
		l := p.lines[p.i]
		if l.indent != indent {
			return nil, p.errf(l, "unexpected indentation")
		}
		f, err := p.field(l)
		if err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	return out, nil
}

func (p *parser) field(l line) (*Field, error) {
	if len(l.toks) < 3 {
		return nil, p.errf(l, "want: NAME TYPE VERSIONS [attributes]")
	}
	f := &Field{Name: l.toks[0], Type: l.toks[1], Tag: -1, Nullable: None, Tagged: None, Line: l.n}
	if !strings.HasPrefix(l.toks[2], "v") {
		return nil, p.errf(l, "field %s: versions must come third, as vN+ or vN-M", f.Name)
	}
	var err error
	if f.Versions, err = ParseVersions(l.toks[2]); err != nil {
		return nil, p.errf(l, "field %s: %v", f.Name, err)
	}
	toks := l.toks[3:]
	for len(toks) > 0 {
		t := toks[0]
		if strings.HasPrefix(t, "@") {
			a := Annotation(t[1:])
			switch a {
			case Topic, TopicID, Partition, Partitions, Error, Secret, SASL, Config, Unaligned:
			default:
				return nil, p.errf(l, "unknown annotation %s", t)
			}
			f.Annotations = append(f.Annotations, a)
			toks = toks[1:]
			continue
		}
		if len(toks) < 2 {
			return nil, p.errf(l, "attribute %q lacks a value", t)
		}
		val := toks[1]
		toks = toks[2:]
		switch t {
		case "nullable":
			f.Nullable, err = ParseVersions(val)
		case "tagged":
			f.Tagged, err = ParseVersions(val)
		case "flexible":
			// Kafka only ever opts a field out of flexible encoding
			// (RequestHeader's ClientId); any other override would need
			// generator support.
			if val != "none" {
				return nil, p.errf(l, "field %s: only \"flexible none\" is supported", f.Name)
			}
			v := None
			f.Flexible = &v
		case "tag":
			var n int64
			n, err = strconv.ParseInt(val, 10, 32)
			f.Tag = int(n)
		case "default":
			f.HasDefault = true
			f.Default = val
			if strings.HasPrefix(val, `"`) {
				f.Default, err = strconv.Unquote(val)
			}
		default:
			return nil, p.errf(l, "field %s: unknown attribute %q", f.Name, t)
		}
		if err != nil {
			return nil, p.errf(l, "field %s: %s: %v", f.Name, t, err)
		}
	}
	if (f.Tag >= 0) != !f.Tagged.IsNone() {
		return nil, p.errf(l, "field %s: tag and tagged go together", f.Name)
	}
	p.i++
	if p.i < len(p.lines) && p.lines[p.i].indent > l.indent {
		if IsPrimitive(f.ElemType()) {
			return nil, p.errf(p.lines[p.i], "field %s of type %s cannot have fields", f.Name, f.Type)
		}
		if f.Fields, err = p.fields(l.indent + 1); err != nil {
			return nil, err
		}
	}
	return f, nil
}
