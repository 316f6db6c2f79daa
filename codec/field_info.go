package codec

import "strings"

// FieldInfo is a field's declaration in the schema (codec/schema/defs), as
// the generator writes it into the package: what a view needs to label a
// traced field and to know its role without reading the schema at run
// time. Values are shared and must not be modified.
type FieldInfo struct {
	// Name is the field's name as Kafka spells it.
	Name string
	// Type is Kafka's type: int8 ... float64, bool, uuid, string, bytes,
	// records, []T, or a struct name.
	Type string
	// Flags are the field's annotations and roles.
	Flags FieldFlags
	// Fields are the fields of the struct the field (or its elements)
	// holds, common structs resolved; nil for a primitive.
	Fields []*FieldInfo
}

// FieldFlags are the annotations of a field (see codec/schema: @topic,
// @topicid, ...) and the roles the generator gives fields by Kafka's
// names (FieldProducerID ... FieldTransactionalID).
type FieldFlags uint32

// Field flags. The first are the schema's annotations.
const (
	FieldTopic      FieldFlags = 1 << iota // @topic: a topic name (string, nullable string or []string)
	FieldTopicID                           // @topicid: a topic ID (uuid)
	FieldPartition                         // @partition: a partition index (int32)
	FieldPartitions                        // @partitions: partition indexes ([]int32)
	FieldError                             // @error: an error code (int16)
	FieldSecret                            // @secret: a credential, redacted
	FieldSASL                              // @sasl: a SASL token, whose credential is redacted
	FieldConfig                            // @config: a config value, redacted when its Name is password-like
	FieldUnaligned                         // @unaligned: a raw records chunk, not whole batches

	// Roles given by name, with the Go type replay rewrites them as.
	FieldProducerID      // int64 ProducerId, V3AndBelowProducerId
	FieldProducerEpoch   // int16 ProducerEpoch, V3AndBelowProducerEpoch
	FieldMemberID        // string MemberId, and JoinGroup's Leader (a member id)
	FieldGeneration      // int32 GenerationId, GenerationIdOrMemberEpoch, MemberEpoch
	FieldGroupID         // string GroupId: the group a coordinator serves
	FieldTransactionalID // string or nullable string TransactionalId
)

// Has reports whether f carries every flag of fl.
func (f *FieldInfo) Has(fl FieldFlags) bool { return f.Flags&fl == fl }

// IsArray reports whether the field is an array.
func (f *FieldInfo) IsArray() bool { return strings.HasPrefix(f.Type, "[]") }

// Field returns the field called name among the fields of the struct f
// holds, or nil.
func (f *FieldInfo) Field(name string) *FieldInfo { return fieldNamed(f.Fields, name) }

func fieldNamed(fs []*FieldInfo, name string) *FieldInfo {
	for _, c := range fs {
		if c.Name == name {
			return c
		}
	}
	return nil
}

// RequestFields returns the fields of the API's request body, in
// declaration order.
func (a *API) RequestFields() []*FieldInfo { return a.requestFields }

// ResponseFields returns the fields of the API's response body, in
// declaration order.
func (a *API) ResponseFields() []*FieldInfo { return a.responseFields }

// HeaderFields returns the fields of a header, by the schema's name
// ("RequestHeader", "ResponseHeader"); nil for another name.
func HeaderFields(name string) []*FieldInfo { return headerFields(name) }

// FieldRef points at one field of a decoded message, for code that reads
// or rewrites fields by role without reflection (see Message.WalkFields).
type FieldRef struct {
	// Info is the field's declaration; Info.Flags says its role.
	Info *FieldInfo
	// Ptr points at the field, by its Go type: *string, **string (a
	// nullable string), *[]string, *UUID, *int64, *int32, *int16 or
	// *[]int32.
	Ptr any
}

// PartitionLayout locates a list of topics of a message M and the
// partitions each topic holds, for code that splits a message by
// partition or merges answers without reflection: T is the topic
// struct, P the partition struct, or int32 for a list of partition
// indexes. Each function returns a pointer into its argument. The
// generator writes one, PartitionsOf<Message><Field>, for each top-level
// list of a message whose structs name a topic (@topic string or
// @topicid) and hold one list of partitions (structs with an int32
// @partition, or @partitions).
type PartitionLayout[M, T, P any] struct {
	Topics func(m *M) *[]T
	// Name is nil when the topic struct has no string @topic field, ID
	// when it has no @topicid: a topic is named by either, per version.
	Name       func(t *T) *string
	ID         func(t *T) *UUID
	Partitions func(t *T) *[]P
	// Index is the partition's index: its @partition field, or the int32
	// itself.
	Index func(p *P) *int32
	// ErrorCode is the partition's first @error field; nil when it has
	// none.
	ErrorCode func(p *P) *int16
}
