package setting

import (
	"math"
	"strings"
	"testing"
	"time"
)

// The rule of every number: 0 is the default, none is None where allowed,
// and the range holds; an error says what the setting accepts.
func TestNumberSet(t *testing.T) {
	var n int
	var d time.Duration
	var b int64
	count := NewCount(&n, 5, 1, 10)
	dur := NewDuration(&d, time.Second).OrNone("no limit")
	bytes := NewBytes(&b, 1<<20, 1<<10, math.MaxInt32)
	cases := []struct {
		v      *Number[int]
		in     string
		want   int
		errHas string
	}{
		{count, "7", 7, ""},
		{count, "0", 5, ""},
		{count, "10", 10, ""},
		{count, "11", 0, "a whole number from 1 to 10, or 0 for the default"},
		{count, "-1", 0, "a whole number from 1 to 10"},
		{count, "none", 0, "cannot be none: want a whole number from 1 to 10"},
		{count, "seven", 0, "a whole number"},
	}
	for _, c := range cases {
		n = -99
		err := c.v.Set(c.in)
		switch {
		case c.errHas == "" && err != nil:
			t.Errorf("Set(%q): %v", c.in, err)
		case c.errHas == "" && n != c.want:
			t.Errorf("Set(%q) = %d, want %d", c.in, n, c.want)
		case c.errHas != "" && (err == nil || !strings.Contains(err.Error(), c.errHas)):
			t.Errorf("Set(%q): error %v, want one saying %q", c.in, err, c.errHas)
		}
	}
	for in, want := range map[string]time.Duration{"0": time.Second, "0s": time.Second, "250ms": 250 * time.Millisecond, "none": None} {
		if err := dur.Set(in); err != nil || d != want {
			t.Errorf("duration Set(%q) = %v, %v; want %v", in, d, err, want)
		}
	}
	if err := dur.Set("-1s"); err == nil || !strings.Contains(err.Error(), "0 for the default, or none for no limit") {
		t.Errorf("duration Set(-1s): %v", err)
	}
	for in, want := range map[string]int64{"0": 1 << 20, "2KiB": 2 << 10, "3MiB": 3 << 20, "1024": 1024} {
		if err := bytes.Set(in); err != nil || b != want {
			t.Errorf("bytes Set(%q) = %d, %v; want %d", in, b, err, want)
		}
	}
	for _, in := range []string{"1023", "2GiB", "10MB", "-1KiB", "none"} {
		if err := bytes.Set(in); err == nil {
			t.Errorf("bytes Set(%q): no error", in)
		}
	}
}

// What a number prints parses back to the same value.
func TestNumberRoundTrip(t *testing.T) {
	for _, v := range []int64{1, 1023, 1024, 3 << 20, 5 << 30, 7 << 40, None} {
		var x, y int64
		a := NewBytes(&x, 1, 1, math.MaxInt64).OrNone("no limit")
		x = v
		if err := NewBytes(&y, 1, 1, math.MaxInt64).OrNone("no limit").Set(a.String()); err != nil || y != v {
			t.Errorf("%d prints %q, reads back %d (%v)", v, a.String(), y, err)
		}
	}
}

// FillDefaults gives zero fields, and negative ones where none is not
// allowed, their defaults; Find finds a setting by its field.
func TestFillDefaultsAndFind(t *testing.T) {
	var c struct{ a, b, c int }
	c.b, c.c = -1, -1
	settings := []Setting{
		{Name: "a", Value: NewCount(&c.a, 3, 1, 9)},
		{Name: "b", Value: NewCount(&c.b, 4, 1, 9).OrNone("no limit")},
		{Name: "c", Value: NewCount(&c.c, 5, 1, 9)},
	}
	FillDefaults(settings)
	if c.a != 3 || c.b != None || c.c != 5 {
		t.Errorf("filled %+v, want {3 -1 5}", c)
	}
	if got := Find(settings, &c.b).Flag(); got != "--b" {
		t.Errorf("Find(&c.b) = %s, want --b", got)
	}
	if got := settings[1].Help(); got != "; 0: the default; none: no limit" {
		t.Errorf("Help = %q", got)
	}
}
