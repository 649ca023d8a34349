package strategies

import (
	"encoding/json"
	"errors"
	"maps"
	"slices"
	"strings"
	"unicode/utf8"
)

// The values of token-budget's ledger. A budget well below a session's
// working set drops steps faster than an eighth of the budget can hold
// their notes: on the generated coding sessions at 8,000 tokens, what the
// later calls lost were the paths a search printed past its note's preview
// and the lines of an edit made a hundred messages before, whose notes no
// longer fit. Such values are short and repeat across steps; listed once
// each, with no preview around them, the share holds many more of them.

// budgetValueChars bounds one listed value: longer ones (a file's new
// content, a long command) are what a note's preview is for.
const budgetValueChars = 200

// budgetValuesHeader starts the note that lists the values; it begins as
// every note does (ledgerHeader), which is how a client tells notes apart.
const budgetValuesHeader = ledgerHeader + " values the earlier steps named:"

// budgetNotesShare is the part of the ledger's share the notes of the
// latest dropped steps may take; the list of values takes the rest.
const budgetNotesShare = 0.5

// unitValues appends to out the values of a unit of the history (indices
// in h, each message in the form the output sends it): its calls'
// argument values, and of each result the scalar values of a JSON result,
// else the paths that begin its lines. Values longer than budgetValueChars
// are left out.
func (ch *chatHistory) unitValues(out []string, unit []int) []string {
	var vals []string
	for _, i := range unit {
		m := ch.form(i)
		switch m.Role {
		case RoleAssistant:
			for _, tc := range m.ToolCalls {
				out = shortArgumentValues(out, tc.Arguments)
			}
		case RoleTool:
			vals = resultValues(vals[:0], m.Content)
			out = appendShort(out, vals...)
		}
	}
	return out
}

// appendShort appends to out the values no longer than budgetValueChars
// (a text of more bytes than that many characters can hold is not
// counted).
func appendShort(out []string, vals ...string) []string {
	for _, v := range vals {
		if len(v) <= utf8.UTFMax*budgetValueChars && utf8.RuneCountInString(v) <= budgetValueChars {
			out = append(out, v)
		}
	}
	return out
}

// shortArgumentValues appends to out the values of a call's arguments
// (argumentValues) no longer than budgetValueChars, in the same order.
// Arguments up to ledgerJSONBytes are decoded whole, which is quicker;
// longer ones are read a token at a time (streamArgumentValues).
func shortArgumentValues(out []string, args string) []string {
	if len(args) <= ledgerJSONBytes {
		return appendShort(out, argumentValues(nil, args)...)
	}
	return streamArgumentValues(out, args, appendShort)
}

// streamArgumentValues is argumentValues reading the JSON a token at a
// time and keeping the values keep keeps (appendShort: the short ones;
// appendAll: every one): an argument of megabytes (a file's new content,
// thousands of edits, 400,000 small objects) is never held as a decoded
// tree of every value in it, only what is kept and each string while it
// is read.
func streamArgumentValues(out []string, args string, keep func(out []string, vals ...string) []string) []string {
	dec := json.NewDecoder(strings.NewReader(args))
	dec.UseNumber()
	vals, err := jsonLeafValues(dec, nil, 0, keep)
	if err != nil {
		// As argumentValues: text that is no JSON is one value.
		if t := strings.TrimSpace(args); utf8.RuneCountInString(t) >= evidenceMinChars {
			out = keep(out, t)
		}
		return out
	}
	return append(out, vals...)
}

// appendAll appends vals to out.
func appendAll(out []string, vals ...string) []string { return append(out, vals...) }

// maxJSONDepth is the deepest nesting encoding/json decodes; deeper JSON
// is an error, as it is for argumentValues.
const maxJSONDepth = 10000

var errJSONDepth = errors.New("JSON nested too deep")

// jsonLeafValues reads one JSON value from dec (nested depth deep) and
// appends the values of it keep keeps to out in jsonValues' order: an
// object's in the order of its sorted keys, a key given twice holding its
// last value.
func jsonLeafValues(dec *json.Decoder, out []string, depth int, keep func(out []string, vals ...string) []string) ([]string, error) {
	tok, err := dec.Token()
	if err != nil {
		return out, err
	}
	switch t := tok.(type) {
	case string:
		return keep(out, jsonValues(nil, t)...), nil
	case json.Number:
		return keep(out, jsonValues(nil, t)...), nil
	case json.Delim:
		if depth >= maxJSONDepth {
			return out, errJSONDepth
		}
		if t == '[' {
			for dec.More() {
				if out, err = jsonLeafValues(dec, out, depth+1, keep); err != nil {
					return out, err
				}
			}
			_, err = dec.Token()
			return out, err
		}
		// An object: the values of each key, kept until its end; keys
		// with none are not kept (unless an earlier value is replaced).
		var byKey map[string][]string // made for the first key kept
		for dec.More() {
			k, err := dec.Token()
			if err != nil {
				return out, err
			}
			key, _ := k.(string)
			vals, err := jsonLeafValues(dec, nil, depth+1, keep)
			if err != nil {
				return out, err
			}
			if _, seen := byKey[key]; seen || len(vals) > 0 {
				if byKey == nil {
					byKey = map[string][]string{}
				}
				byKey[key] = vals
			}
		}
		if _, err := dec.Token(); err != nil {
			return out, err
		}
		for _, k := range slices.Sorted(maps.Keys(byKey)) {
			out = append(out, byKey[k]...)
		}
	}
	return out, nil
}

// resultValues appends the values of a tool result's text: a JSON
// result's scalar values (up to ledgerJSONBytes), else the paths that
// begin its lines.
func resultValues(out []string, text string) []string {
	t := strings.TrimSpace(text)
	if len(t) <= ledgerJSONBytes && (strings.HasPrefix(t, "{") || strings.HasPrefix(t, "[")) {
		var v any
		dec := json.NewDecoder(strings.NewReader(t))
		dec.UseNumber()
		if dec.Decode(&v) == nil {
			return jsonValues(out, v)
		}
	}
	for _, p := range strings.Split(pathsIn(text, "", 4*budgetValueChars), ", ") {
		if p != "" {
			out = append(out, p)
		}
	}
	return out
}

// budgetValuesScanChars bounds, per token of the list's share, the
// characters of values gathered for it: a token holds fewer characters
// than this, so the list is full before they run out, and the scan of the
// dropped units stops there instead of reading the whole history on every
// call.
const budgetValuesScanChars = 8

// droppedValues returns the values of the dropped units (the latest
// first), each once, leaving out those shown (contained in shown), until
// they hold budgetValuesScanChars characters per token of reserve.
func (ch *chatHistory) droppedValues(dropped [][]int, shown string, reserve int) []string {
	seen := map[string]bool{}
	var list, vals []string
	size := 0
	for _, unit := range dropped {
		if size > budgetValuesScanChars*reserve {
			break
		}
		vals = ch.unitValues(vals[:0], unit)
		for _, v := range vals {
			if seen[v] || strings.Contains(shown, v) {
				continue
			}
			seen[v] = true
			list = append(list, v)
			size += len(v) + 1
		}
	}
	return list
}

// budgetValuesNote is the note listing the values of list, in its order,
// as many as fit reserve tokens; "" when none does.
func budgetValuesNote(rem *Remembered, tok counter, list []string, reserve int) (string, error) {
	text := func(n int) string {
		return budgetValuesHeader + "\n" + strings.Join(list[:n], "\n")
	}
	fits := func(n int) (bool, error) {
		c, err := rem.tokens(tok, []ChatMessage{{Role: RoleUser, Content: text(n)}})
		return c <= reserve, err
	}
	// The most that fit, by bisection: a list's tokens grow with its length.
	lo, hi := 0, len(list)
	for lo < hi {
		mid := (lo + hi + 1) / 2
		ok, err := fits(mid)
		if err != nil {
			return "", err
		}
		if ok {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	if lo == 0 {
		return "", nil
	}
	return text(lo), nil
}
