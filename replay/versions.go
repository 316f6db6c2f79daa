package replay

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/kdissect/kdissect/codec"
)

// chooseVersion returns the version to send a request captured at v when
// the target offers min..max of its ApiKey (ok false: not at all) and the
// codec knows api's range: v when both allow it, else the nearest
// version both allow. It fails when there is none.
func chooseVersion(api *codec.API, v, bmin, bmax int16, offered bool) (int16, error) {
	if !offered {
		return v, fmt.Errorf("the target does not offer %s", api.Name)
	}
	lo, hi := max(bmin, api.MinVersion), min(bmax, api.MaxVersion)
	if lo > hi {
		return v, fmt.Errorf("%s: the target offers v%d-v%d, the codec knows v%d-v%d: no version in common", api.Name, bmin, bmax, api.MinVersion, api.MaxVersion)
	}
	return min(max(v, lo), hi), nil
}

// lostFields returns the fields of req, captured at version from, that
// version to cannot carry: those whose value differs after encoding at
// to and decoding again, written as paths of Kafka field names
// ("TopicData.PartitionData.Records"), sorted, without repeats. Topic
// IDs, which the replay swaps for names (and back) itself, are not
// listed. An error says the request does not survive the trip at all.
func lostFields(api *codec.API, req codec.Message, from, to int16) ([]string, error) {
	b := req.AppendTo(nil, to)
	back := api.NewRequest()
	if _, err := codec.Decode(back, b, to); err != nil {
		return nil, fmt.Errorf("%s v%d: re-encoded request does not decode: %w", api.Name, to, err)
	}
	var orig, trip any
	if err := json.Unmarshal(jsonOf(req, from), &orig); err != nil {
		return nil, fmt.Errorf("%s v%d: %w", api.Name, from, err)
	}
	if err := json.Unmarshal(jsonOf(back, from), &trip); err != nil {
		return nil, fmt.Errorf("%s v%d: %w", api.Name, from, err)
	}
	var lost []string
	diffJSON("", orig, trip, &lost)
	slices.Sort(lost)
	return slices.Compact(lost), nil
}

func jsonOf(m codec.Message, version int16) []byte {
	w := codec.NewJSONWriter(nil)
	m.WriteJSON(w, version)
	return w.Bytes()
}

// diffJSON appends to lost the paths where a and b differ.
func diffJSON(path string, a, b any, lost *[]string) {
	switch av := a.(type) {
	case map[string]any:
		bv, ok := b.(map[string]any)
		if !ok {
			*lost = append(*lost, path)
			return
		}
		for k, x := range av {
			if k == "TopicId" {
				continue
			}
			p := k
			if path != "" {
				p = path + "." + k
			}
			diffJSON(p, x, bv[k], lost)
		}
	case []any:
		bv, ok := b.([]any)
		if !ok || len(av) != len(bv) {
			*lost = append(*lost, path)
			return
		}
		for i := range av {
			diffJSON(path, av[i], bv[i], lost)
		}
	default:
		if fmt.Sprint(a) != fmt.Sprint(b) {
			*lost = append(*lost, path)
		}
	}
}

// describeLost formats lostFields' answer for a report.
func describeLost(fields []string) string {
	if len(fields) == 0 {
		return ""
	}
	return "cannot be represented: " + strings.Join(fields, ", ")
}
