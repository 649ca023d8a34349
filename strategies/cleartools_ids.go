package strategies

import (
	"slices"
	"strings"
)

// clearedIDChars bounds the identifiers a cleared result keeps after its
// placeholder. A coding agent copies from an old result the path a search
// printed on its 20th line, not its prose: on the generated coding sessions
// every value clear-tool-results lost at triggers of 8,000 and 20,000 tokens
// was such a path (docs/CHAT_STRATEGIES.md, "clear-tool-results").
const clearedIDChars = 200

// clearedIDsLabel introduces the identifiers, so the model reads them as
// what the cleared result named and not as its content.
const clearedIDsLabel = "it named: "

// isCleared reports whether content is a cleared result already: the
// placeholder, alone or with its identifiers (a caller that stored the
// edited history sends it back).
func isCleared(placeholder, content string) bool {
	return content == placeholder || strings.HasPrefix(content, placeholder+" "+clearedIDsLabel)
}

// clearedNames holds the identifiers a cleared result need not list: the
// values of the calls' arguments up to it (sent as they are unless the
// caller clears them too) and what earlier cleared results listed. Results
// are cleared oldest first and stay cleared, so a result's list depends
// only on what came before it and never changes once sent.
type clearedNames map[string]bool

// noteArguments adds the argument values of an assistant message's calls.
func (n clearedNames) noteArguments(m *ChatMessage) {
	var vals []string
	for _, tc := range m.ToolCalls {
		vals = argumentValues(vals[:0], tc.Arguments)
		for _, v := range vals {
			n[v] = true
		}
	}
}

// content is what a result of text is cleared to: the placeholder and,
// after it, the identifiers of the text that n does not hold (clearedIDs),
// which n then holds.
func (n clearedNames) content(placeholder, text string) string {
	ids := clearedIDs(text, clearedIDChars, n)
	if len(ids) == 0 {
		return placeholder
	}
	for _, id := range ids {
		n[id] = true
	}
	return placeholder + " " + clearedIDsLabel + strings.Join(ids, ", ")
}

// clearedIDs lists, up to limit characters in all, the paths that begin
// the lines of text (a search's hits, a listing, a failing test's file),
// each once, leaving out those known holds. Other identifiers (quoted
// strings, opaque tokens) are not listed: scanning a result for them on
// every call made rendering three to six times slower, and no value the
// recorded and generated conversations lost was one.
func clearedIDs(text string, limit int, known map[string]bool) []string {
	var ids []string
	size := 0
	add := func(id string) bool {
		if known[id] || slices.Contains(ids, id) {
			return true
		}
		if size+len(id)+2 > limit {
			return false
		}
		ids = append(ids, id)
		size += len(id) + 2
		return true
	}
	for _, p := range strings.Split(pathsIn(text, "", limit*4), ", ") {
		if p != "" && !add(p) {
			return ids
		}
	}
	return ids
}
