package render

import (
	"reflect"
	"slices"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/encoding"
)

// The payload columns' buffers. parquet-go buffers a column's values in
// one byte slice and, when it makes the page, copies them into a second
// (its "scratch") unless their offsets are ascending, which it cannot tell
// of a single value: a page of one long value (a Produce of one 50 MB
// record, or the last row of a file) is held twice in the buffers and a
// third time encoded, and the first copy stays with the column (in the
// scratch) until the file is closed, beside the next long value (v0.32.0
// and v0.32.1, byteArrayColumnBuffer.page). A payload column's buffer
// here makes the page of a single value without the copy, so a long value
// is held once in its buffer and once encoded, and a buffer of a long
// value is let go once its page is written.

// blobSchema returns the schema parquet-go derives from T, with the
// columns named by blobs (each a column path) buffered by blobBuffer. The
// schema writes the same file: only how the values are buffered differs.
func blobSchema[T any](blobs [][]string) *parquet.Schema {
	s := parquet.SchemaOf(new(T))
	return parquet.NewSchema(s.Name(), blobNodeOf(s, nil, blobs))
}

// blobNodeOf returns n (at path) with the leaves at blobs wrapped.
func blobNodeOf(n parquet.Node, path []string, blobs [][]string) parquet.Node {
	if n.Leaf() {
		if slices.ContainsFunc(blobs, func(b []string) bool { return slices.Equal(b, path) }) {
			return blobLeaf{n}
		}
		return n
	}
	// Only the groups on the way to a blob are rebuilt.
	if !slices.ContainsFunc(blobs, func(b []string) bool { return len(b) > len(path) && slices.Equal(b[:len(path)], path) }) {
		return n
	}
	fields := n.Fields()
	g := blobGroup{Node: n, fields: make([]parquet.Field, len(fields))}
	for i, f := range fields {
		g.fields[i] = blobField{Node: blobNodeOf(f, append(slices.Clip(path), f.Name()), blobs), field: f}
	}
	return g
}

// blobGroup is a group node whose fields lead to blob columns.
type blobGroup struct {
	parquet.Node
	fields []parquet.Field
}

func (g blobGroup) Fields() []parquet.Field { return g.fields }

// blobField is a field of a blobGroup: its node (perhaps wrapped) with
// the original field's name and Go value.
type blobField struct {
	parquet.Node
	field parquet.Field
}

func (f blobField) Name() string                           { return f.field.Name() }
func (f blobField) Value(base reflect.Value) reflect.Value { return f.field.Value(base) }

// blobLeaf is a payload column's leaf: its type is a blobType.
type blobLeaf struct{ parquet.Node }

func (l blobLeaf) Type() parquet.Type { return blobType{l.Node.Type()} }

// blobType is a byte array type whose column buffers are blobBuffers.
type blobType struct{ parquet.Type }

func (t blobType) NewColumnBuffer(columnIndex, numValues int) parquet.ColumnBuffer {
	return &blobBuffer{ColumnBuffer: t.Type.NewColumnBuffer(columnIndex, numValues), typ: t.Type}
}

// blobBufferKept is the most bytes of values a blobBuffer hands back to
// parquet-go's pool when its page was written; a larger buffer is left to
// the collector. At 1 MiB, the batches of bodies of an ordinary capture
// were dropped too and allocated again (a fifth more bytes allocated by
// the export of bench's 32 MB capture; 2-4% more at 8 MiB, within the
// runs' spread).
const blobBufferKept = 8 << 20

// blobBuffer is parquet-go's byte array column buffer whose page of a
// single value shares the buffer's bytes instead of copying them, and
// whose large buffers do not go back to parquet-go's pool: a pooled
// buffer outlives two collections, beside the next long value (the JSON
// body of the same Produce, rendered after its records).
type blobBuffer struct {
	parquet.ColumnBuffer
	typ parquet.Type
}

func (b *blobBuffer) Page() parquet.Page {
	if b.Len() != 1 {
		return b.ColumnBuffer.Page()
	}
	var v [1]parquet.Value
	if n, _ := b.ReadValuesAt(v[:], 0); n != 1 {
		return b.ColumnBuffer.Page()
	}
	data := v[0].ByteArray() // the buffer's bytes, not a copy
	return b.typ.NewPage(b.Column(), 1, encoding.ByteArrayValues(data, []uint32{0, uint32(len(data))}))
}

// Reset empties the buffer; the writer calls it once the page was written
// (the page made from the buffer is not kept).
func (b *blobBuffer) Reset() {
	if b.Size() > blobBufferKept {
		b.ColumnBuffer = b.typ.NewColumnBuffer(b.Column(), 0)
		return
	}
	b.ColumnBuffer.Reset()
}

func (b *blobBuffer) Clone() parquet.ColumnBuffer {
	return &blobBuffer{ColumnBuffer: b.ColumnBuffer.Clone(), typ: b.typ}
}
