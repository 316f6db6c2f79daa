package codec

import (
	"errors"
	"fmt"
	"strings"
)

//go:generate go run ./internal/gen -defs schema/defs -out .

// Message is the body of a Kafka request or response, as generated from the
// schema (codec/schema/defs). A Message value does not carry its version:
// every method takes the ApiVersion, as Kafka's own generated classes do.
type Message interface {
	// APIKey returns the ApiKey of the message.
	APIKey() int16
	// IsResponse reports whether the message is a response body.
	IsResponse() bool
	// ReadFrom decodes the body at version from r; r.Err reports failure.
	ReadFrom(r *Reader, version int16)
	// AppendTo appends the body encoded at version to dst.
	AppendTo(dst []byte, version int16) []byte
	// WriteJSON writes the body as a JSON object whose keys are Kafka's
	// field names, holding the fields present at version.
	WriteJSON(w *JSONWriter, version int16)
	// Summarize adds the topics, partitions, errors and record sets the body
	// holds to sm.
	Summarize(sm *Summary, version int16)
	// SetDefaults sets every field to its default value.
	SetDefaults()
	// NotCaptured lists the fields of a body read from a gapped Reader
	// (NewGappedReader) whose bytes fell in a gap, in wire order; nil
	// when every byte was read. WriteJSON leaves those fields out and
	// ends the object with a "not_captured" member listing these.
	NotCaptured() []NotCaptured
	// WalkFields calls fn once for each struct of the body (the body
	// first, then the structs inside in field order, depth first) that
	// holds fields with a role (topic names and IDs, partition indexes,
	// producer ids and epochs, member ids, generations, group and
	// transactional ids; see FieldFlags), with pointers to those fields
	// whatever the version. fn may set them through the pointers; it
	// must not keep refs: the slice may be reused.
	WalkFields(fn func(refs []FieldRef))
}

// API describes one ApiKey: its name as Kafka spells it and the versions the
// codec decodes and encodes.
type API struct {
	Key          int16
	Name         string
	MinVersion   int16
	MaxVersion   int16
	FlexibleFrom int16 // first flexible version (KIP-482), -1 if none

	newRequest, newResponse func() Message
	// requestFields, responseFields: the bodies' fields (RequestFields).
	requestFields, responseFields []*FieldInfo
}

// SupportsVersion reports whether the codec has a layout for version.
func (a *API) SupportsVersion(version int16) bool {
	return version >= a.MinVersion && version <= a.MaxVersion
}

// IsFlexible reports whether version uses the flexible encoding (compact
// strings and arrays, tagged fields; KIP-482).
func (a *API) IsFlexible(version int16) bool {
	return a.FlexibleFrom >= 0 && version >= a.FlexibleFrom
}

// NewRequest returns an empty request body with default field values.
func (a *API) NewRequest() Message {
	m := a.newRequest()
	m.SetDefaults()
	return m
}

// NewResponse returns an empty response body with default field values.
func (a *API) NewResponse() Message {
	m := a.newResponse()
	m.SetDefaults()
	return m
}

// apiIndex maps an ApiKey to its position in apiTable plus one.
var apiIndex = func() (idx [1024]uint16) {
	for i, a := range apiTable {
		idx[a.Key] = uint16(i + 1)
	}
	return idx
}()

// LookupAPI returns the API with the given key; ok is false for keys the
// codec does not know.
func LookupAPI(key int16) (api *API, ok bool) {
	if key < 0 || int(key) >= len(apiIndex) || apiIndex[key] == 0 {
		return nil, false
	}
	return &apiTable[apiIndex[key]-1], true
}

// APIs returns every API the codec knows, sorted by key.
func APIs() []API {
	out := make([]API, len(apiTable))
	copy(out, apiTable[:])
	return out
}

// APIName returns the name of key, or "Unknown(<key>)".
func APIName(key int16) string {
	if a, ok := LookupAPI(key); ok {
		return a.Name
	}
	return fmt.Sprintf("Unknown(%d)", key)
}

// apiAliases are former names of APIs that Kafka renamed, by the key
// they name.
var apiAliases = map[string]int16{
	"ListClientMetricsResources": 74, // Kafka 4.0's name of ListConfigResources (KIP-1142)
}

// APIKeyByName returns the key of the API named name as Kafka spells it
// (case does not matter), or by a name Kafka gave it before (key 74 was
// ListClientMetricsResources until KIP-1142 named it ListConfigResources).
func APIKeyByName(name string) (int16, bool) {
	for i := range apiTable {
		if strings.EqualFold(apiTable[i].Name, name) {
			return apiTable[i].Key, true
		}
	}
	for alias, key := range apiAliases {
		if strings.EqualFold(alias, name) {
			return key, true
		}
	}
	return 0, false
}

// RenamedAPI returns the name Kafka now gives the API it once named old
// (exactly as Kafka spelled it then): "ListConfigResources" for
// "ListClientMetricsResources".
func RenamedAPI(old string) (string, bool) {
	if key, ok := apiAliases[old]; ok {
		return APIName(key), true
	}
	return "", false
}

// ErrTrailingBytes is returned (wrapped) by Decode when bytes remain after
// the body.
var ErrTrailingBytes = errors.New("trailing bytes after body")

// Decode decodes body b of m at version. It returns ErrUnsupportedVersion
// for a version the codec has no layout for, a *DecodeError when b is
// malformed, and an error wrapping ErrTrailingBytes when b holds more than
// the body. Warnings (lenient reads) are returned even on success.
func Decode(m Message, b []byte, version int16) (warnings []string, err error) {
	api, ok := LookupAPI(m.APIKey())
	if !ok {
		return nil, fmt.Errorf("%w %d", ErrUnknownAPIKey, m.APIKey())
	}
	if !api.SupportsVersion(version) {
		return nil, fmt.Errorf("%s v%d: %w (codec knows v%d-v%d)", api.Name, version, ErrUnsupportedVersion, api.MinVersion, api.MaxVersion)
	}
	r := NewReader(b)
	m.ReadFrom(r, version)
	if err := r.Err(); err != nil {
		return r.Warnings, fmt.Errorf("decode %s v%d: %w", api.Name, version, err)
	}
	if r.Remaining() > 0 {
		return r.Warnings, fmt.Errorf("decode %s v%d: %w: %d bytes", api.Name, version, ErrTrailingBytes, r.Remaining())
	}
	return r.Warnings, nil
}
