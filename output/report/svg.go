package report

import (
	"fmt"
	"html/template"
	"math"
	"strconv"
	"strings"
	"time"
)

// line is one series of a plot: a value per bucket, NaN where it has none.
type line struct {
	Name string
	Y    []float64
	Dash bool // drawn dashed (the p99 beside a p50)
}

// plot is a line plot over the capture's time.
type plot struct {
	ID     string // the element id, for the test and for links
	Title  string
	YLabel string // the quantity and its unit: "latency (ms)"
	Empty  string // said inside the plot when no line has a value
	Start  time.Time
	Width  time.Duration // of a bucket
	N      int           // buckets
	Lines  []line
}

// The plot's geometry, in SVG user units.
const (
	svgW, svgH            = 960, 320
	padLeft, padRight     = 78, 250 // the legend is on the right
	padTop, padBottom     = 34, 52
	legendRow             = 16
	maxLegendRows         = 16
	xTicks, yTicks        = 6, 5
	plotW                 = svgW - padLeft - padRight
	plotH                 = svgH - padTop - padBottom
	markerBelow           = 80 // points drawn as dots too when there are fewer
	fontFamily            = "system-ui, sans-serif"
	axisColor, gridColor  = "#333", "#ddd"
	emptyColor, textColor = "#777", "#222"
)

// palette is Tableau 10, which tells lines apart on screen and in print.
var palette = []string{"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"}

// SVG draws the plot: axes with ticks and units, a grid, the lines and a
// legend, as one inline <svg> element.
func (p *plot) SVG() template.HTML {
	var b strings.Builder
	fmt.Fprintf(&b, `<svg class="plot" id="%s" viewBox="0 0 %d %d" width="%d" height="%d" role="img" aria-label="%s" font-family="%s" font-size="12">`,
		p.ID, svgW, svgH, svgW, svgH, template.HTMLEscapeString(p.Title), fontFamily)
	fmt.Fprintf(&b, `<text x="%d" y="20" font-size="15" font-weight="600" fill="%s">%s</text>`, padLeft, textColor, template.HTMLEscapeString(p.Title))

	ymax := 0.0
	for _, l := range p.Lines {
		for _, v := range l.Y {
			if !math.IsNaN(v) {
				ymax = max(ymax, v)
			}
		}
	}
	step, top := niceScale(ymax)
	n := max(p.N, 1)
	x := func(i int) float64 {
		if n == 1 {
			return padLeft + plotW/2
		}
		return padLeft + float64(i)*plotW/float64(n-1)
	}
	y := func(v float64) float64 { return padTop + plotH - v/top*plotH }

	// Grid and y ticks.
	for v := 0.0; v <= top+step/2; v += step {
		yy := y(v)
		fmt.Fprintf(&b, `<path class="grid" d="M%d %.1fH%d" stroke="%s"/>`, padLeft, yy, padLeft+plotW, gridColor)
		fmt.Fprintf(&b, `<text x="%d" y="%.1f" text-anchor="end" dominant-baseline="middle" fill="%s">%s</text>`, padLeft-6, yy, textColor, formatTick(v, step))
	}
	// X ticks: capture time of bucket starts.
	ticks := min(xTicks, n)
	for k := range ticks {
		i := 0
		if ticks > 1 {
			i = k * (n - 1) / (ticks - 1)
		}
		xx := x(i)
		t := p.Start.Add(time.Duration(i) * p.Width)
		fmt.Fprintf(&b, `<path class="tick" d="M%.1f %dV%d" stroke="%s"/>`, xx, padTop+plotH, padTop+plotH+5, axisColor)
		fmt.Fprintf(&b, `<text x="%.1f" y="%d" text-anchor="middle" fill="%s">%s</text>`, xx, padTop+plotH+18, textColor, clock(t, p.Width))
	}
	// Axes, drawn over the grid.
	fmt.Fprintf(&b, `<path class="axis" d="M%d %dV%dH%d" stroke="%s" fill="none"/>`, padLeft, padTop, padTop+plotH, padLeft+plotW, axisColor)
	fmt.Fprintf(&b, `<text class="xlabel" x="%d" y="%d" text-anchor="middle" fill="%s">capture time, UTC (%s), one point per %s</text>`,
		padLeft+plotW/2, svgH-10, textColor, p.Start.UTC().Format("2006-01-02"), p.Width)
	fmt.Fprintf(&b, `<text class="ylabel" transform="translate(16 %d) rotate(-90)" text-anchor="middle" fill="%s">%s</text>`,
		padTop+plotH/2, textColor, template.HTMLEscapeString(p.YLabel))

	drawn := 0
	for li, l := range p.Lines {
		color := palette[li%len(palette)]
		var d strings.Builder
		pen := false
		points := 0
		for i, v := range l.Y {
			if math.IsNaN(v) {
				pen = false
				continue
			}
			cmd := 'L'
			if !pen {
				cmd = 'M'
			}
			fmt.Fprintf(&d, "%c%.1f %.1f", cmd, x(i), y(v))
			pen = true
			points++
		}
		if points == 0 {
			continue
		}
		drawn++
		dash := ""
		if l.Dash {
			dash = ` stroke-dasharray="5 3"`
		}
		fmt.Fprintf(&b, `<path class="series" d="%s" stroke="%s" stroke-width="1.8" fill="none"%s><title>%s</title></path>`,
			d.String(), color, dash, template.HTMLEscapeString(l.Name))
		if p.N < markerBelow {
			for i, v := range l.Y {
				if !math.IsNaN(v) {
					fmt.Fprintf(&b, `<circle cx="%.1f" cy="%.1f" r="2.2" fill="%s"/>`, x(i), y(v), color)
				}
			}
		}
	}
	if drawn == 0 {
		fmt.Fprintf(&b, `<text class="empty" x="%d" y="%d" text-anchor="middle" fill="%s">%s</text>`, padLeft+plotW/2, padTop+plotH/2, emptyColor, template.HTMLEscapeString(p.Empty))
	}

	// Legend.
	lx := padLeft + plotW + 18
	fmt.Fprintf(&b, `<g class="legend">`)
	rows := min(len(p.Lines), maxLegendRows)
	for li := range rows {
		l := p.Lines[li]
		ly := padTop + li*legendRow
		dash := ""
		if l.Dash {
			dash = ` stroke-dasharray="5 3"`
		}
		fmt.Fprintf(&b, `<path d="M%d %dh22" stroke="%s" stroke-width="2.5"%s/>`, lx, ly+6, palette[li%len(palette)], dash)
		fmt.Fprintf(&b, `<text x="%d" y="%d" dominant-baseline="middle" fill="%s">%s</text>`, lx+28, ly+6, textColor, template.HTMLEscapeString(shorten(l.Name, 30)))
	}
	if len(p.Lines) > rows {
		fmt.Fprintf(&b, `<text x="%d" y="%d" fill="%s">and %d more</text>`, lx, padTop+rows*legendRow+10, emptyColor, len(p.Lines)-rows)
	}
	if len(p.Lines) == 0 {
		fmt.Fprintf(&b, `<text x="%d" y="%d" fill="%s">no series</text>`, lx, padTop+6, emptyColor)
	}
	b.WriteString(`</g></svg>`)
	return template.HTML(b.String())
}

// niceScale returns a tick step of 1, 2 or 5 times a power of ten and the
// axis top (a multiple of it) for values up to ymax.
func niceScale(ymax float64) (step, top float64) {
	if ymax <= 0 || math.IsNaN(ymax) || math.IsInf(ymax, 0) {
		return 1, yTicks
	}
	raw := ymax / yTicks
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 5, 10} {
		if step = m * mag; step >= raw {
			break
		}
	}
	return step, math.Ceil(ymax/step) * step
}

// formatTick writes a tick value with the decimals its step needs.
func formatTick(v, step float64) string {
	dec := 0
	if step < 1 {
		dec = int(math.Ceil(-math.Log10(step)))
	}
	switch {
	case v >= 1e9:
		return strconv.FormatFloat(v/1e9, 'f', -1, 64) + "G"
	case v >= 1e6 && step >= 1e5:
		return strconv.FormatFloat(v/1e6, 'f', -1, 64) + "M"
	case v >= 1e4 && step >= 1e3:
		return strconv.FormatFloat(v/1e3, 'f', -1, 64) + "k"
	}
	return strconv.FormatFloat(v, 'f', dec, 64)
}

// clock writes a tick's time, as precise as the buckets are.
func clock(t time.Time, width time.Duration) string {
	t = t.UTC()
	switch {
	case width < time.Second:
		return t.Format("15:04:05.000")
	case width >= 24*time.Hour:
		return t.Format("01-02")
	case width >= time.Hour:
		return t.Format("01-02 15:04")
	}
	return t.Format("15:04:05")
}

func shorten(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
