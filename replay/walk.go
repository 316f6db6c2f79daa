package replay

import (
	"slices"

	"github.com/kdissect/kdissect/codec"
)

// The rewriting reads and sets fields by role through the codec's
// generated walkers (codec.Message.WalkFields): topic names and IDs,
// producer ids and epochs, member ids, generations, group and
// transactional ids, each a codec.FieldRef whose Info.Flags says its role
// and whose Ptr points at the field.

// refString reads a string or nullable string field ("" for null).
func refString(r codec.FieldRef) string {
	switch p := r.Ptr.(type) {
	case *string:
		return *p
	case **string:
		if *p != nil {
			return **p
		}
	}
	return ""
}

// setRefString sets a string or nullable string field (a null stays
// null).
func setRefString(r codec.FieldRef, s string) {
	switch p := r.Ptr.(type) {
	case *string:
		*p = s
	case **string:
		if *p != nil {
			*p = &s
		}
	}
}

// fillName sets the empty string topic name fields among refs (those of
// one struct) to name; nullable names are left alone, as a version that
// has them has IDs too.
func fillName(refs []codec.FieldRef, name string) {
	for _, r := range refs {
		if p, ok := r.Ptr.(*string); ok && r.Info.Has(codec.FieldTopic) && *p == "" {
			*p = name
		}
	}
}

// topRefs returns the refs of m's own fields, not of the structs inside.
func topRefs(m codec.Message) []codec.FieldRef {
	api, ok := codec.LookupAPI(m.APIKey())
	if !ok {
		return nil
	}
	fields := api.RequestFields()
	if m.IsResponse() {
		fields = api.ResponseFields()
	}
	var out []codec.FieldRef
	m.WalkFields(func(refs []codec.FieldRef) {
		for _, r := range refs {
			if slices.Contains(fields, r.Info) {
				out = append(out, r)
			}
		}
	})
	return out
}

// topString returns the first of m's own string fields with the flag ("" when
// it has none).
func topString(m codec.Message, flag codec.FieldFlags) string {
	for _, r := range topRefs(m) {
		if r.Info.Has(flag) {
			return refString(r)
		}
	}
	return ""
}
