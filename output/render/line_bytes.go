package render

// AppendTo appends the line's bytes, its newline included, to dst: for
// another consumer of the same rendering (a Kafka sink) before WriteLine
// recycles it.
func (l *Line) AppendTo(dst []byte) []byte {
	for _, p := range l.parts {
		dst = append(dst, p...)
	}
	return dst
}
