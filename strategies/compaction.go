package strategies

// A provider's compaction passed through. Anthropic's compaction block (in
// an assistant message) and OpenAI's compaction item (an encrypted summary
// from /responses/compact, carried as an assistant message's compaction
// part) stand for everything before them: the provider reads the
// conversation from the compaction on. So every chat strategy treats the
// history as beginning at the last message holding a compaction part: the
// messages before it are not sent (compaction_replaced counts them, and
// they count as dropped), the compaction message is sent whole right after
// the system prompt on every call, with its tool results when it called
// tools, and the strategy works on what follows it. No strategy drops,
// clears or moves it, so it is never separated from the conversation that
// continues it, and its place (the start of the prompt) never changes,
// which keeps the prompt cache.

// findCompaction sets pinned, floor and replaced from the last message of
// the history that holds a compaction part.
func (ch *chatHistory) findCompaction() {
	h := ch.h
	c := -1
	for i := len(h) - 1; i >= 0 && c < 0; i-- {
		if h[i].hasPart(PartCompaction) {
			c = i
		}
	}
	if c < 0 {
		return
	}
	ch.pinned = []int{c}
	end := c + 1
	if len(h[c].ToolCalls) > 0 {
		for end < len(h) && h[end].Role == RoleTool {
			end++
		}
		block := make([]int, 0, end-c)
		for i := c; i < end; i++ {
			block = append(block, i)
		}
		if repaired := repairSequence(h, block); len(repaired) > 0 {
			ch.pinned = repaired
		}
	}
	ch.floor = end
	for i := range c {
		if h[i].Role != RoleSystem {
			ch.replaced++
		}
	}
}

// pinCompaction makes sure the compaction message is sent in a form
// providers accept: when its tool calls are not all answered (the repair
// dropped its block), it is sent without them.
func (ch *chatHistory) pinCompaction() {
	if len(ch.pinned) != 1 || len(ch.h[ch.pinned[0]].ToolCalls) == 0 {
		return
	}
	c := ch.pinned[0]
	f, ok := ch.sendable[c]
	if !ok {
		f = sendableForm{msg: ch.h[c]}
	}
	f.msg.ToolCalls, f.texts = nil, true
	if ch.sendable == nil {
		ch.sendable = make(map[int]sendableForm)
	}
	ch.sendable[c] = f
}

// isPinned reports whether message i of the history is the compaction or
// one of its tool results.
func (ch *chatHistory) isPinned(i int) bool {
	for _, p := range ch.pinned {
		if p == i {
			return true
		}
	}
	return false
}

// pinnedTokens are the tokens of the pinned messages in counts.
func (ch *chatHistory) pinnedTokens(counts []textCounts) int {
	n := 0
	for _, i := range ch.pinned {
		n += counts[i].tokens
	}
	return n
}
