package strategies

// measure fills the message, character and token figures of stats: before
// is what the uncompressed history would send, after what the strategy sends.
func measure(stats *Stats, tokenizer string, before, after []ChatMessage) error {
	if tokenizer == "" {
		tokenizer = DefaultTokenizer
	}
	tb, err := CountMessageTokens(tokenizer, before)
	if err != nil {
		return err
	}
	ta, err := CountMessageTokens(tokenizer, after)
	if err != nil {
		return err
	}
	stats.Tokenizer = tokenizer
	stats.MessagesBefore, stats.MessagesAfter = len(before), len(after)
	stats.CharsBefore, stats.CharsAfter = CountMessageChars(before), CountMessageChars(after)
	stats.TokensBefore, stats.TokensAfter = tb, ta
	return nil
}
