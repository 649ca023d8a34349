package lisp

import (
	"context"
	"testing"
)

// TestIntegerLiterals reads integer literals as Clojure 1.11's reader does,
// in a program and on the wire alike (edn/read-string gives the same
// answers): octal with a leading zero, hexadecimal, a radix from 2 to 36,
// and an N suffix; "08" matches the octal shape yet is no number. The
// expected texts and kinds are Clojure's (recorded with clojure.core/
// read-string and clojure.edn/read-string).
func TestIntegerLiterals(t *testing.T) {
	cases := []struct{ text, want, class string }{
		{"017", "15", "java.lang.Long"},
		{"-017", "-15", "java.lang.Long"},
		{"+017", "15", "java.lang.Long"},
		{"00", "0", "java.lang.Long"},
		{"-0", "0", "java.lang.Long"},
		{"0x10", "16", "java.lang.Long"},
		{"0XFF", "255", "java.lang.Long"},
		{"-0x10", "-16", "java.lang.Long"},
		{"+0x10", "16", "java.lang.Long"},
		{"2r1010", "10", "java.lang.Long"},
		{"2R11", "3", "java.lang.Long"},
		{"-2r11", "-3", "java.lang.Long"},
		{"36rZZ", "1295", "java.lang.Long"},
		{"16rff", "255", "java.lang.Long"},
		{"36rZZN", "46643", "java.lang.Long"}, // the radix digits take the N
		{"0N", "0N", "clojure.lang.BigInt"},
		{"00N", "0N", "clojure.lang.BigInt"},
		{"017N", "15N", "clojure.lang.BigInt"},
		{"0x10N", "16N", "clojure.lang.BigInt"},
		{"0xffffffffffffffff", "18446744073709551615N", "clojure.lang.BigInt"},
		{"0x7fffffffffffffff", "9223372036854775807", "java.lang.Long"},
		{"-0x8000000000000000", "-9223372036854775808", "java.lang.Long"},
		{"0777777777777777777777", "9223372036854775807", "java.lang.Long"},
		{"09.5", "9.5", "java.lang.Double"},
		{"08e2", "800.0", "java.lang.Double"},
		{"017M", "17M", "java.math.BigDecimal"},
		{"1.M", "1M", "java.math.BigDecimal"},
	}
	for _, c := range cases {
		res := run(t, "(pr-str ["+c.text+" (class "+c.text+")])", Env{})
		if res.Err != nil {
			t.Errorf("%s: %v", c.text, res.Err)
			continue
		}
		want := `"[` + c.want + ` ` + c.class + `]"`
		if got := sourceText(res.Value); got != want {
			t.Errorf("%s reads as %s, Clojure reads %s %s", c.text, got, c.want, c.class)
		}
		v, _, err := ReadWire(c.text, WireRead{Ctx: context.Background()})
		if err != nil {
			t.Errorf("wire %s: %v", c.text, err)
		} else if got := sourceText(v); got != c.want {
			t.Errorf("wire %s reads as %s, edn/read-string reads %s", c.text, got, c.want)
		}
	}
	for _, bad := range []string{"08", "09", "-08", "099N", "37r1", "1r0", "0r0", "2r102", "2r1010N", "0x", "0xG", "0x1.5", "0x10M", "2r", "1_000", "0b101"} {
		if res := run(t, bad, Env{}); res.Err == nil || res.Err.Kind != parseError {
			t.Errorf("%s: Clojure refuses it (NumberFormatException), the program read gives %v", bad, res)
		}
		if v, _, err := ReadWire(bad, WireRead{Ctx: context.Background()}); err == nil {
			t.Errorf("wire %s: edn/read-string refuses it, the wire reads %s", bad, sourceText(v))
		}
	}
}
