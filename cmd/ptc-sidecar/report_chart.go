package main

import (
	"fmt"
	"html"
	"math"
	"slices"
	"strings"
)

// The report's chart: per kind of log, one scatter of the strategies, the
// bill against the baseline's across, evidence recall up, each point
// labelled with its strategy. The best place is the top left: keeps what
// the model uses, bills little. Hand-written SVG, no script.

const (
	chartWidth  = 720
	panelHeight = 420
	marginLeft  = 70
	marginRight = 250 // room for the labels of the rightmost points
	marginTop   = 40
	marginBot   = 50
	labelHeight = 14
)

// chartSVG draws one panel per group, stacked.
func chartSVG(groups []*reportGroup) string {
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="12">`+"\n",
		chartWidth, panelHeight*len(groups), chartWidth, panelHeight*len(groups))
	b.WriteString(`<rect width="100%" height="100%" fill="white"/>` + "\n")
	for i, g := range groups {
		writePanel(&b, g, i*panelHeight)
	}
	b.WriteString("</svg>\n")
	return b.String()
}

func writePanel(b *strings.Builder, g *reportGroup, top int) {
	base := g.tallies[0]
	type point struct {
		label  string
		x, y   float64 // bill vs baseline, recall
		px, py float64
	}
	var pts []point
	maxX, minY := 1.0, 1.0
	for _, t := range g.tallies {
		p := point{label: t.label, x: ratio(t.bill, base.bill), y: t.meanRecall()}
		pts = append(pts, p)
		maxX, minY = math.Max(maxX, p.x), math.Min(minY, p.y)
	}
	xMax := math.Ceil(maxX*1.05*10) / 10
	yMin := math.Max(0, math.Floor(minY*10-0.5)/10)
	if yMin >= 1 {
		yMin = 0.9
	}
	plotW := float64(chartWidth - marginLeft - marginRight)
	plotH := float64(panelHeight - marginTop - marginBot)
	x0, y0 := float64(marginLeft), float64(top+marginTop)
	px := func(x float64) float64 { return x0 + x/xMax*plotW }
	py := func(y float64) float64 { return y0 + (1-(y-yMin)/(1-yMin))*plotH }

	fmt.Fprintf(b, `<text x="%d" y="%d" font-size="14" font-weight="bold">%s: bill against evidence recall, %d calls</text>`+"\n",
		marginLeft, top+22, html.EscapeString(g.title), base.calls)
	// Axes and grid.
	fmt.Fprintf(b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="none" stroke="#999"/>`+"\n", x0, y0, plotW, plotH)
	for x := 0.0; x <= xMax+1e-9; x += tickStep(xMax) {
		fmt.Fprintf(b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#eee"/>`, px(x), y0, px(x), y0+plotH)
		fmt.Fprintf(b, `<text x="%.1f" y="%.1f" text-anchor="middle" fill="#555">%.1f</text>`+"\n", px(x), y0+plotH+16, x)
	}
	for y := yMin; y <= 1+1e-9; y += tickStep(1 - yMin) {
		fmt.Fprintf(b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#eee"/>`, x0, py(y), x0+plotW, py(y))
		fmt.Fprintf(b, `<text x="%.1f" y="%.1f" text-anchor="end" fill="#555">%.2f</text>`+"\n", x0-6, py(y)+4, y)
	}
	fmt.Fprintf(b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#c33" stroke-dasharray="4 3"/>`+"\n", px(1), y0, px(1), y0+plotH)
	whose := "the " + g.baseline + "'s"
	if g.baseline == "full" {
		whose = "full's"
	}
	fmt.Fprintf(b, `<text x="%.1f" y="%.1f" text-anchor="middle">bill, as a share of %s (with prompt caching)</text>`+"\n", x0+plotW/2, y0+plotH+36, html.EscapeString(whose))
	fmt.Fprintf(b, `<text transform="translate(%.1f %.1f) rotate(-90)" text-anchor="middle">evidence recall (mean per call)</text>`+"\n", x0-48, y0+plotH/2)
	// Points, then labels placed top to bottom so that none overlaps the
	// one above it.
	for i := range pts {
		pts[i].px, pts[i].py = px(pts[i].x), py(pts[i].y)
	}
	order := make([]int, len(pts))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, c int) int {
		switch {
		case pts[a].py < pts[c].py:
			return -1
		case pts[a].py > pts[c].py:
			return 1
		}
		return 0
	})
	var placed []struct{ x, y float64 }
	for _, i := range order {
		p := pts[i]
		colour := "#1f5fa8"
		if i == 0 {
			colour = "#c33"
		}
		fmt.Fprintf(b, `<circle cx="%.1f" cy="%.1f" r="4.5" fill="%s"><title>%s: bill %.2f, recall %.3f</title></circle>`+"\n",
			p.px, p.py, colour, html.EscapeString(p.label), p.x, p.y)
		lx, ly := p.px+8, p.py+4
		for _, q := range placed {
			if math.Abs(q.x-lx) < 170 && math.Abs(q.y-ly) < labelHeight {
				ly = q.y + labelHeight
			}
		}
		placed = append(placed, struct{ x, y float64 }{lx, ly})
		if ly > p.py+4+labelHeight/2 { // moved down: a leader line to its point
			fmt.Fprintf(b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s" stroke-width="0.5"/>`+"\n", p.px, p.py, lx-2, ly-4, colour)
		}
		fmt.Fprintf(b, `<text x="%.1f" y="%.1f" fill="%s">%s (%.2f, %.3f)</text>`+"\n", lx, ly, colour, html.EscapeString(p.label), p.x, p.y)
	}
}

// tickStep is the distance between grid lines over a span: 0.1, 0.05 or
// 0.02 for short spans, 0.2 or 0.5 for long.
func tickStep(span float64) float64 {
	for _, s := range []float64{0.02, 0.05, 0.1, 0.2, 0.5, 1} {
		if span/s <= 10 {
			return s
		}
	}
	return math.Ceil(span / 10)
}

// reportHTML is a page holding the tables and the chart, readable offline.
func reportHTML(groups []*reportGroup, tables string) string {
	var b strings.Builder
	b.WriteString("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>ptc-sidecar report</title>\n")
	b.WriteString("<style>body{font-family:sans-serif;margin:2em;max-width:1100px}pre{font-size:12px;background:#f6f6f6;padding:1em;overflow-x:auto}</style></head><body>\n")
	b.WriteString("<h1>What each strategy sends, bills and keeps</h1>\n")
	b.WriteString("<p>Evidence recall: the share of the values each next call of the model copied from its context (strings of 3 or more characters, numbers of 3 or more digits) that the compressed prompt still holds. Top left is best: the evidence kept, at a small bill.</p>\n")
	b.WriteString(chartSVG(groups))
	b.WriteString("<pre>")
	b.WriteString(html.EscapeString(tables))
	b.WriteString("</pre>\n</body></html>\n")
	return b.String()
}
