package displayfilter

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/kdissect/kdissect/codec"
	"github.com/kdissect/kdissect/dissect"
)

// Columns are the field expressions of --format fields and csv (-e), one
// per column, in order. Their names are the Env's; request and response
// are the bodies as the JSON Lines contract writes them (decoded from
// that JSON, so a cell holds what the JSON holds: a field a version does
// not have is absent, credentials are redacted unless ShowSecrets).
type Columns struct {
	srcs  []string
	progs []*program
	needs need
	// bodies says which sides' JSON the expressions read: [request, response].
	bodies      [2]bool
	ShowSecrets bool
}

// CompileColumns compiles each expression of srcs; the error, an *Error,
// names the first that does not compile.
func CompileColumns(srcs []string) (*Columns, error) {
	c := &Columns{srcs: srcs}
	for _, s := range srcs {
		p, err := compile(s, false)
		if err != nil {
			return nil, err
		}
		c.progs = append(c.progs, p)
		c.needs |= p.needs
		c.bodies[0] = c.bodies[0] || p.readsBody("request")
		c.bodies[1] = c.bodies[1] || p.readsBody("response")
	}
	return c, nil
}

// Names returns the expressions as given: the header line.
func (c *Columns) Names() []string { return c.srcs }

// Row returns the cells of ex, one per column (see Cell). A column that
// cannot be evaluated on ex (a body field its API does not have, an index
// past the end) is empty, as tshark leaves a field a packet lacks.
// Row may run on many goroutines at once.
func (c *Columns) Row(ex *dissect.Exchange) []string {
	env := new(Env)
	env.fill(ex, c.needs)
	dec := ex.Decoded
	if c.bodies[0] {
		env.Request = nil
		if dec != nil && dec.Request != nil {
			env.Request = bodyJSON(dec.Request, ex.APIVersion, c.ShowSecrets)
		}
	}
	if c.bodies[1] {
		env.Response = nil
		if dec != nil && dec.Response != nil {
			env.Response = bodyJSON(dec.Response, dec.ResponseVersion, c.ShowSecrets)
		}
	}
	row := make([]string, len(c.progs))
	for i, p := range c.progs {
		m := p.vm()
		out, err := m.Run(p.prog, env)
		p.vms.Put(m)
		if err == nil {
			row[i] = Cell(out)
		}
	}
	return row
}

// bodyJSON returns body as its JSON decodes: objects map[string]any,
// arrays []any, integers int64 (float64 when they have a fraction or
// exceed int64), strings, bools and nil.
func bodyJSON(body codec.Message, version int16, showSecrets bool) any {
	w := codec.NewJSONWriter(nil)
	w.ShowSecrets = showSecrets
	w.OffsetBase = 4 // as render.JSONLines: offsets count the frame's size prefix
	body.WriteJSON(w, version)
	d := json.NewDecoder(bytes.NewReader(w.Bytes()))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil // the codec writes valid JSON; nothing to show otherwise
	}
	return numbers(v)
}

// numbers replaces the json.Numbers in v by int64 or float64.
func numbers(v any) any {
	switch x := v.(type) {
	case json.Number:
		if n, err := x.Int64(); err == nil {
			return n
		}
		f, _ := x.Float64()
		return f
	case map[string]any:
		for k, e := range x {
			x[k] = numbers(e)
		}
	case []any:
		for i, e := range x {
			x[i] = numbers(e)
		}
	}
	return v
}

// Cell writes v as a field column's text: a string as it is, a number in
// decimal, true or false, nothing for null, a duration as Go writes it
// (41.2ms), and lists and objects as compact JSON.
func Cell(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case []string:
		if x == nil {
			return "" // packet_comments, absent from the JSON
		}
	case string:
		return x
	case bool:
		return strconv.FormatBool(x)
	case int:
		return strconv.Itoa(x)
	case int64:
		return strconv.FormatInt(x, 10)
	case int32:
		return strconv.FormatInt(int64(x), 10)
	case int16:
		return strconv.FormatInt(int64(x), 10)
	case float64:
		if math.IsInf(x, 0) || math.IsNaN(x) {
			return strconv.FormatFloat(x, 'g', -1, 64)
		}
	case time.Duration:
		return x.String()
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Sprint(v)
	}
	return string(bytes.TrimSuffix(b.Bytes(), []byte("\n")))
}
