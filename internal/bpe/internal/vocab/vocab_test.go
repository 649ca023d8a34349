package vocab

import (
	"fmt"
	"strings"
	"testing"
)

func TestBuildParseRoundTrip(t *testing.T) {
	tokens := []string{"a", "b", "", "ab", "abc", "\x00", "\xff\xfe", "", "long token with spaces"}
	for i := range 3000 {
		tokens = append(tokens, fmt.Sprintf("tok%d", i))
	}
	data, err := Build(tokens)
	if err != nil {
		t.Fatal(err)
	}
	tab, err := Parse(string(data))
	if err != nil {
		t.Fatal(err)
	}
	if tab.Len() != len(tokens) {
		t.Fatalf("Len = %d, want %d", tab.Len(), len(tokens))
	}
	for r, tok := range tokens {
		if got := tab.Token(r); got != tok {
			t.Fatalf("Token(%d) = %q, want %q", r, got, tok)
		}
		if tok == "" {
			continue
		}
		if got, ok := tab.Rank(tok); !ok || got != uint32(r) {
			t.Fatalf("Rank(%q) = %d, %v; want %d", tok, got, ok, r)
		}
	}
	for _, absent := range []string{"", "c", "ba", "tok3000", "abcd", "tok1 "} {
		if r, ok := tab.Rank(absent); ok {
			t.Errorf("Rank(%q) = %d, want absent", absent, r)
		}
	}
}

func TestBuildRejectsDuplicates(t *testing.T) {
	if _, err := Build([]string{"x", "y", "x"}); err == nil || !strings.Contains(err.Error(), `"x" has ranks 0 and 2`) {
		t.Errorf("Build with a duplicate token: %v", err)
	}
}

func TestParseRejectsDamagedFiles(t *testing.T) {
	data, err := Build([]string{"a", "bc", "def"})
	if err != nil {
		t.Fatal(err)
	}
	good := string(data)
	for name, bad := range map[string]string{
		"empty":         "",
		"magic":         "XPE1" + good[4:],
		"truncated":     good[:len(good)-20],
		"extra bytes":   good + "z",
		"rank bits":     good[:12] + "\x00\x00\x00\x00" + good[16:],
		"offsets order": good[:20] + "\x09\x00\x00\x00" + good[24:],
	} {
		if tab, err := Parse(bad); err == nil && tab.Check() == nil {
			t.Errorf("%s: Parse and Check accepted a damaged file", name)
		}
	}
}

// TestFullTableMisses checks that a lookup in a table of foreign slots
// misses.
func TestFullTableMisses(t *testing.T) {
	data, err := Build([]string{"a", "b", "c"})
	if err != nil {
		t.Fatal(err)
	}
	tab, err := Parse(string(data))
	if err != nil {
		t.Fatal(err)
	}
	full := *tab
	full.buckets = strings.Repeat("\xff\xff\xff\xff", len(tab.buckets)/4)
	if _, ok := full.Rank("zz"); ok {
		t.Error("a full table of foreign slots found a token")
	}
}
