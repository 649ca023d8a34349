package lisp

import (
	"strings"
	"testing"
)

// TestReadWorkCountsTokensBytesAndConversions: a text's read work counts
// a unit a byte, readTokenWork a token of every kind (brackets, numbers,
// keywords, strings, characters, comments, discards), readEscapeWork an
// escape in a string, and converting long numbers by their bits in their
// radix: quadratic in every radix but the powers of two, whose
// conversion is linear and costs only the bytes.
func TestReadWorkCountsTokensBytesAndConversions(t *testing.T) {
	for text, tokens := range map[string]int64{
		"":                           0,
		" , \n\t":                    0,
		"[:a :b/c]":                  4,
		`{"k" 1, "l" [nil true]}`:    9,
		`["a\"b" \a \newline \( 12]`: 7,
		"; a comment [1 2]\n[#_1 2]": 5,
		"#{1 2}":                     5,  // '#' and '{' each, as the reader meets them
		`{"a":1,"b":[1.5e3,-2]}`:     10, // JSON: a key's ':' reads with its value
	} {
		want := readByteWork*int64(len(text)) + readTokenWork*tokens + readEscapeWork*int64(strings.Count(text, `\"`))
		if got := ReadWork(text, false); got != want {
			t.Errorf("ReadWork(%q) = %d, want %d (%d tokens)", text, got, want, tokens)
		}
	}
	json := `{"a":1,"b":[1.5e3,-2]}`
	if got := ReadWork(json, true) - ReadWork(json, false); got != 10*(readJSONTokenWork-readTokenWork) {
		t.Errorf("JSON's 10 tokens cost %d more read as JSON, want %d", got, 10*(readJSONTokenWork-readTokenWork))
	}
	escapes := `"` + strings.Repeat(`\n`, 1000) + `"`
	plain := `"` + strings.Repeat("nn", 1000) + `"`
	if got := ReadWork(escapes, false) - ReadWork(plain, false); got != 1000*readEscapeWork {
		t.Errorf("1,000 escapes cost %d more than their bytes, want %d", got, 1000*readEscapeWork)
	}

	digits := strings.Repeat("7", 100_000)
	decimal := NumberReadWork(digits)
	if tenth := NumberReadWork(digits[:10_000]); decimal < 90*tenth {
		t.Errorf("10 times the digits cost %d times the work, want about 100", decimal/max(tenth, 1))
	}
	zs := strings.Repeat("Z", 100_000)
	if radix36 := NumberReadWork("36r" + zs); radix36 < 2*decimal {
		t.Errorf("100,000 radix-36 digits cost %d, want at least twice the %d of decimal ones (log2 36 / log2 10 squared)", radix36, decimal)
	}
	for _, text := range []string{"0x" + strings.Repeat("F", 100_000), "2r" + strings.Repeat("1", 100_000),
		"8r" + digits, "32r" + zs, "36rZZZZ", "1234567890123456789"} {
		if got := NumberReadWork(text); got != 0 {
			t.Errorf("NumberReadWork(%.12q...) = %d, want 0: converted in time linear in its bytes", text, got)
		}
	}
	for text, want := range map[string]int64{
		`{"k":` + digits + `}`:                    decimal, // a JSON value after its key's ':'
		"[-" + digits + "N]":                      decimal,
		"[" + digits + "M 1." + digits + "]":      decimal + NumberReadWork("1"+digits),
		"[a" + digits + " :k" + "]":               0, // a symbol's digits
		`["` + digits + `" \7 ;` + digits + "\n]": 0,
	} {
		if got := NumberReadWork(text); got != want {
			t.Errorf("NumberReadWork(%.30q...) = %d, want %d", text, got, want)
		}
	}
}
