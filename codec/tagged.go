package codec

// TaggedField is a tagged field (KIP-482) that the codec does not know for
// the message version decoded. It is kept with its raw bytes so that
// re-encoding reproduces the frame exactly.
type TaggedField struct {
	Tag  uint32
	Data []byte
}

// appendTagSection writes a tagged-field section: the count, then every field
// in ascending tag order. known holds the encoded known fields (generated code
// builds it in ascending tag order); unknown holds fields kept from decoding.
func appendTagSection(dst []byte, known, unknown []TaggedField) []byte {
	dst = AppendUvarint(dst, uint32(len(known)+len(unknown)))
	i, j := 0, 0
	for i < len(known) || j < len(unknown) {
		var f TaggedField
		if j >= len(unknown) || (i < len(known) && known[i].Tag <= unknown[j].Tag) {
			f = known[i]
			i++
		} else {
			f = unknown[j]
			j++
		}
		dst = AppendUvarint(dst, f.Tag)
		dst = AppendUvarint(dst, uint32(len(f.Data)))
		dst = append(dst, f.Data...)
	}
	return dst
}
