// Package setting describes a configuration setting once: its name, what it
// means, the field it sets, its default and the values it accepts. The
// server and the binary each list their settings as a table of these, and
// the binary makes every row a command-line flag and an environment
// variable, so that a setting's name, default and range are written in one
// place and every message naming it says the same.
//
// Numbers follow one rule: 0 means the default, and where a setting may be
// lifted ("no limit", "nothing remembered") the word none says so, stored
// as None.
package setting

import (
	"errors"
	"flag"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// Setting is one named setting bound to the field it sets.
type Setting struct {
	// Name is lower-case words joined by '-': the flag is --Name.
	Name string
	// Usage says what the setting means; a word in back quotes names its
	// value in the flag's help. How 0 and none read is added by Help.
	Usage string
	// Value parses into and prints the field.
	Value flag.Value
}

// Help is the setting's description with what 0 and none mean, as the
// flag's help shows it.
func (s Setting) Help() string {
	if n, ok := s.Value.(number); ok {
		return s.Usage + n.rule()
	}
	return s.Usage
}

// Flag is the setting as a command-line flag, for messages: --max-turns.
func (s Setting) Flag() string { return "--" + s.Name }

// Find returns the setting of settings that sets the field at ptr; it
// panics when none does, a table that does not match its struct.
func Find(settings []Setting, ptr any) Setting {
	for _, s := range settings {
		if f, ok := s.Value.(interface{ field() any }); ok && f.field() == ptr {
			return s
		}
	}
	panic(fmt.Sprintf("setting: no setting sets the field %T %p", ptr, ptr))
}

// FillDefaults sets every number setting whose field is 0, or negative
// where none is not allowed, to its default: what a struct built in Go
// (rather than from flags) means by its zero fields.
func FillDefaults(settings []Setting) {
	for _, s := range settings {
		if n, ok := s.Value.(number); ok {
			n.fill()
		}
	}
}

// None is the value a number setting holds for the word none.
const None = -1

// Unit is how a number setting is written.
type Unit int

const (
	Count    Unit = iota // a whole number
	Bytes                // bytes, with an optional KiB, MiB, GiB or TiB suffix
	Duration             // a Go duration such as 500ms or 10s
)

// Number is a setting holding a count, a size in bytes or a duration, in
// a field of integer type T.
type Number[T ~int | ~int64] struct {
	p        *T
	def      T
	unit     Unit
	min, max int64
	// noneMeans is what none means ("no limit"); empty: none is refused.
	noneMeans string
}

// number is what every Number[T] is.
type number interface {
	fill()
	rule() string
}

// NewCount is a count setting at p, accepting min to max, whose default
// (what 0 sets) is def.
func NewCount[T ~int | ~int64](p *T, def T, min, max int64) *Number[T] {
	return &Number[T]{p: p, def: def, unit: Count, min: min, max: max}
}

// NewBytes is a byte size setting at p, accepting min to max bytes, whose
// default is def.
func NewBytes[T ~int | ~int64](p *T, def T, min, max int64) *Number[T] {
	return &Number[T]{p: p, def: def, unit: Bytes, min: min, max: max}
}

// NewDuration is a duration setting at p, positive, whose default is def.
func NewDuration[T ~int64](p *T, def T) *Number[T] {
	return &Number[T]{p: p, def: def, unit: Duration, min: 1, max: math.MaxInt64}
}

// OrNone lets the setting be none, meaning what meaning says ("no
// limit"); the field then holds None.
func (n *Number[T]) OrNone(meaning string) *Number[T] {
	n.noneMeans = meaning
	return n
}

// Default is what 0 sets.
func (n *Number[T]) Default() T { return n.def }

// Get is the field's value; None for none.
func (n *Number[T]) Get() int64 { return int64(*n.p) }

// Put sets the field to v.
func (n *Number[T]) Put(v int64) { *n.p = T(v) }

func (n *Number[T]) field() any { return n.p }

func (n *Number[T]) fill() {
	if *n.p == 0 || *n.p < 0 && n.noneMeans == "" {
		*n.p = n.def
	}
}

func (n *Number[T]) rule() string {
	r := "; 0: the default"
	if n.unit == Bytes {
		r = " (suffixes KiB, MiB, GiB, TiB allowed)" + r
	}
	if n.noneMeans != "" {
		r += "; none: " + n.noneMeans
	}
	return r
}

func (n *Number[T]) String() string {
	if n == nil || n.p == nil { // flag.PrintDefaults probes a zero value
		return ""
	}
	v := int64(*n.p)
	switch {
	case v < 0:
		return "none"
	case n.unit == Duration:
		return time.Duration(v).String()
	case n.unit == Bytes:
		return FormatBytes(v)
	}
	return strconv.FormatInt(v, 10)
}

func (n *Number[T]) Set(s string) error {
	if s == "none" {
		if n.noneMeans == "" {
			return fmt.Errorf("cannot be none: want %s", n.want())
		}
		*n.p = None
		return nil
	}
	v, ok := n.parse(s)
	if !ok || v != 0 && (v < n.min || v > n.max) {
		return errors.New("want " + n.want())
	}
	if v == 0 {
		*n.p = n.def
		return nil
	}
	*n.p = T(v)
	return nil
}

func (n *Number[T]) parse(s string) (int64, bool) {
	switch n.unit {
	case Bytes:
		return ParseBytes(s)
	case Duration:
		d, err := time.ParseDuration(s)
		return int64(d), err == nil && d >= 0
	}
	v, err := strconv.ParseInt(s, 10, 64)
	return v, err == nil && v >= 0
}

// want describes the values the setting accepts.
func (n *Number[T]) want() string {
	var w string
	switch n.unit {
	case Bytes:
		w = "a number of bytes"
		switch {
		case n.max == math.MaxInt64:
			w += " of at least " + FormatBytes(n.min)
		case n.min <= 1:
			w += " up to " + FormatBytes(n.max)
		default:
			w += " from " + FormatBytes(n.min) + " to " + FormatBytes(n.max)
		}
		w += ", optionally with a KiB, MiB, GiB or TiB suffix"
	case Duration:
		w = "a duration such as 10s or 500ms"
	default:
		w = fmt.Sprintf("a whole number from %d to %d", n.min, n.max)
	}
	if n.noneMeans != "" {
		return w + ", 0 for the default, or none for " + n.noneMeans
	}
	return w + ", or 0 for the default"
}

// byteUnits are the suffixes of byte counts, largest first.
var byteUnits = []struct {
	suffix string
	size   int64
}{{"TiB", 1 << 40}, {"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}}

// ParseBytes reads a whole number of bytes, optionally with a KiB, MiB,
// GiB or TiB suffix.
func ParseBytes(s string) (int64, bool) {
	digits, unit := s, int64(1)
	for _, u := range byteUnits {
		if rest, ok := strings.CutSuffix(s, u.suffix); ok {
			digits, unit = rest, u.size
			break
		}
	}
	n, err := strconv.ParseInt(digits, 10, 64)
	if err != nil || n < 0 || n > math.MaxInt64/unit {
		return 0, false
	}
	return n * unit, true
}

// FormatBytes writes n with the largest binary suffix that divides it.
func FormatBytes(n int64) string {
	for _, u := range byteUnits {
		if n >= u.size && n%u.size == 0 {
			return strconv.FormatInt(n/u.size, 10) + u.suffix
		}
	}
	return strconv.FormatInt(n, 10)
}
