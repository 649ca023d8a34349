package lisp

import (
	"strings"
	"time"
)

// The date interop of the specification (section 8.13), deterministic:
// (java.util.Date. x) for a timestamp or a date string is that instant
// as epoch milliseconds, which (.getTime d) returns; LocalDate/parse
// checks an ISO date and returns it as its string, which compares and
// prints as the specification shows. The current time, (java.util.Date.)
// and System/currentTimeMillis, would make a program's result depend on
// when it ran, so they are refused with a hint to pass the time in data.
var dateBuiltins = []*Builtin{
	{Name: "java.util.Date.", Sig: "(java.util.Date. timestamp-or-string)", Doc: "epoch milliseconds of the instant", Category: "idiom",
		reach: javaForm, aliases: []string{"Date."},
		MinArgs: 0, MaxArgs: 1, Fn: builtinDate, Cost: cost(scans(arg(0)))},
	{Name: ".getTime", Sig: "(.getTime date)", Doc: "epoch milliseconds of a date made by java.util.Date.", Category: "idiom", reach: javaForm,
		MinArgs: 1, MaxArgs: 1, Cost: cost(constant), Fn: func(th *Thread, args []Value) (Value, error) {
			if ms, ok := args[0].(Int); ok {
				return ms, nil
			}
			return nil, typeErrorf(".getTime", "a date made by (java.util.Date. x)", args[0]).
				WithHint("LocalDate/parse gives an ISO date string: compare those as strings")
		}},
	{Name: "LocalDate/parse", Sig: "(LocalDate/parse s)", Doc: "the ISO date s, checked", Category: "idiom",
		reach: javaStatic, aliases: []string{"java.time.LocalDate/parse"},
		MinArgs: 1, MaxArgs: 1, Fn: builtinLocalDateParse, Cost: cost(scans(arg(0)))},
	{Name: "System/currentTimeMillis", Sig: "(System/currentTimeMillis)", Doc: "refused: the current time", Category: "idiom", reach: javaStatic,
		Cost: cost(constant), Fn: func(th *Thread, args []Value) (Value, error) { return nil, nowError("System/currentTimeMillis") }},
}

func nowError(form string) *Error {
	return Errorf(validationError, "%s is not available: the current time would make the program's result depend on when it ran", form).
		WithHint("pass the current time in as data (e.g. data/now) and use that")
}

func builtinDate(th *Thread, args []Value) (Value, error) {
	if len(args) == 0 {
		return nil, nowError("(java.util.Date.)")
	}
	switch a := args[0].(type) {
	case Int:
		if a > -1_000_000_000_000 && a < 1_000_000_000_000 {
			return a * 1000, nil // seconds, as the specification reads small timestamps
		}
		return a, nil
	case String:
		s := string(a)
		for _, layout := range []string{time.RFC3339Nano, time.DateOnly, time.RFC1123Z, "Mon, 2 Jan 2006 15:04:05 -0700"} {
			if t, err := time.Parse(layout, s); err == nil {
				return Int(t.UnixMilli()), nil
			}
		}
		return nil, Errorf(executionError, "java.util.Date. cannot read the date %s", describe(a)).
			WithHint(`write it as ISO-8601, e.g. "2026-01-08T14:30:00Z" or "2026-01-08"`)
	}
	return nil, typeErrorf("java.util.Date.", "a timestamp or a date string", args[0])
}

func builtinLocalDateParse(th *Thread, args []Value) (Value, error) {
	s, ok := args[0].(String)
	if !ok {
		return nil, typeErrorf("LocalDate/parse", "an ISO date string", args[0])
	}
	if _, err := time.Parse(time.DateOnly, strings.TrimSpace(string(s))); err != nil {
		return nil, Errorf(executionError, "LocalDate/parse cannot read %s as a date", describe(s)).
			WithHint(`write dates as YYYY-MM-DD, e.g. "2026-01-08"`)
	}
	return String(strings.TrimSpace(string(s))), nil
}

// The java.time.LocalDate arithmetic models write: a LocalDate is its ISO
// string here (LocalDate/parse), so the methods take and give ISO
// strings, with Java's rules: adding months or years keeps the day of the
// month, clamped to the month's last day (2024-01-31 plus a month is
// 2024-02-29), and ChronoUnit's between counts whole units from the first
// date to the second.
var localDateBuiltins = []*Builtin{
	{Name: "LocalDate/of", Sig: "(LocalDate/of year month day)", Doc: "the ISO date of year, month and day", Category: "idiom",
		reach: javaStatic, aliases: []string{"java.time.LocalDate/of"},
		MinArgs: 3, MaxArgs: 3, Cost: cost(constant), Fn: builtinLocalDateOf},
	{Name: "LocalDate/now", Sig: "(LocalDate/now)", Doc: "refused: the current date", Category: "idiom",
		reach: javaStatic, aliases: []string{"java.time.LocalDate/now"},
		Cost: cost(constant), Fn: func(th *Thread, args []Value) (Value, error) { return nil, nowError("LocalDate/now") }},
	dateShift(".plusDays", 0, 0, 1), dateShift(".minusDays", 0, 0, -1),
	dateShift(".plusWeeks", 0, 0, 7), dateShift(".minusWeeks", 0, 0, -7),
	dateShift(".plusMonths", 0, 1, 0), dateShift(".minusMonths", 0, -1, 0),
	dateShift(".plusYears", 1, 0, 0), dateShift(".minusYears", -1, 0, 0),
	dateField(".getYear", func(t time.Time) int { return t.Year() }),
	dateField(".getMonthValue", func(t time.Time) int { return int(t.Month()) }),
	dateField(".getDayOfMonth", func(t time.Time) int { return t.Day() }),
	dateField(".getDayOfYear", func(t time.Time) int { return t.YearDay() }),
	dateCompare(".isBefore", func(c int) bool { return c < 0 }),
	dateCompare(".isAfter", func(c int) bool { return c > 0 }),
	chronoUnit("DAYS"), chronoUnit("WEEKS"), chronoUnit("MONTHS"), chronoUnit("YEARS"),
	{Name: ".between", Sig: "(.between ChronoUnit/DAYS from to)", Doc: "whole units from the ISO date from to to", Category: "idiom", reach: javaForm,
		MinArgs: 3, MaxArgs: 3, Cost: cost(scans(arg(1)), scans(arg(2))), Fn: builtinBetween},
}

// localDate reads an ISO date string for fn.
func localDate(fn string, v Value) (time.Time, error) {
	s, ok := v.(String)
	if ok {
		if t, err := time.Parse(time.DateOnly, string(s)); err == nil {
			return t, nil
		}
	}
	return time.Time{}, typeErrorf(fn, "a date (an ISO date string from LocalDate/parse)", v).
		WithHint(`make the date with (LocalDate/parse "2024-01-31")`)
}

// addDate adds years, months and days as LocalDate's plus methods do:
// months first, keeping the day within the month.
func addDate(t time.Time, years, months, days int) time.Time {
	if years != 0 || months != 0 {
		y, m, d := t.Date()
		first := time.Date(y+years, m+time.Month(months), 1, 0, 0, 0, 0, time.UTC)
		last := first.AddDate(0, 1, -1).Day()
		t = time.Date(first.Year(), first.Month(), min(d, last), 0, 0, 0, 0, time.UTC)
	}
	return t.AddDate(0, 0, days)
}

func dateShift(name string, years, months, days int) *Builtin {
	return &Builtin{Name: name, Sig: "(" + name + " date n)", Doc: "the ISO date moved by n units, as LocalDate's", Category: "idiom", reach: javaForm,
		MinArgs: 2, MaxArgs: 2, Cost: cost(scans(arg(0))), Fn: func(th *Thread, args []Value) (Value, error) {
			t, err := localDate(name, args[0])
			if err != nil {
				return nil, err
			}
			n, ok := args[1].(Int)
			if !ok || n < -1_000_000 || n > 1_000_000 {
				return nil, typeErrorf(name, "an integer count within a million", args[1])
			}
			k := int(n)
			t = addDate(t, years*k, months*k, days*k)
			if t.Year() < 0 || t.Year() > 9999 {
				return nil, Errorf(executionError, "%s: the date %s is outside the years 0 to 9999", name, t.Format(time.DateOnly))
			}
			return String(t.Format(time.DateOnly)), nil
		}}
}

func dateField(name string, field func(time.Time) int) *Builtin {
	return &Builtin{Name: name, Sig: "(" + name + " date)", Doc: "a field of the ISO date, as LocalDate's", Category: "idiom", reach: javaForm,
		MinArgs: 1, MaxArgs: 1, Cost: cost(scans(arg(0))), Fn: func(th *Thread, args []Value) (Value, error) {
			t, err := localDate(name, args[0])
			if err != nil {
				return nil, err
			}
			return Int(field(t)), nil
		}}
}

func dateCompare(name string, holds func(int) bool) *Builtin {
	return &Builtin{Name: name, Sig: "(" + name + " date other)", Doc: "compares two ISO dates, as LocalDate's", Category: "idiom", reach: javaForm,
		MinArgs: 2, MaxArgs: 2, Cost: cost(scans(arg(0)), scans(arg(1))), Fn: func(th *Thread, args []Value) (Value, error) {
			a, err := localDate(name, args[0])
			if err != nil {
				return nil, err
			}
			b, err := localDate(name, args[1])
			if err != nil {
				return nil, err
			}
			return boolValue(holds(a.Compare(b))), nil
		}}
}

// chronoUnit is ChronoUnit/UNIT, a value only .between reads; called, it
// is an error naming that use.
func chronoUnit(unit string) *Builtin {
	name := "ChronoUnit/" + unit
	return &Builtin{Name: name, Sig: "(.between " + name + " from to)", Doc: "the unit for .between", Category: "idiom",
		reach: javaStatic, aliases: []string{"java.time.temporal.ChronoUnit/" + unit},
		Cost: cost(constant), Fn: func(th *Thread, args []Value) (Value, error) {
			return nil, Errorf(validationError, "%s is a unit, not a function", name).
				WithHint("count with (.between %s from to)", name)
		}}
}

func builtinBetween(th *Thread, args []Value) (Value, error) {
	unit, ok := args[0].(*Builtin)
	if !ok || !strings.HasPrefix(unit.Name, "ChronoUnit/") {
		return nil, typeErrorf(".between", "a ChronoUnit (ChronoUnit/DAYS, WEEKS, MONTHS or YEARS)", args[0])
	}
	from, err := localDate(".between", args[1])
	if err != nil {
		return nil, err
	}
	to, err := localDate(".between", args[2])
	if err != nil {
		return nil, err
	}
	days := int64(to.Sub(from).Hours() / 24)
	switch unit.Name {
	case "ChronoUnit/DAYS":
		return Int(days), nil
	case "ChronoUnit/WEEKS":
		return Int(days / 7), nil
	}
	// LocalDate.until: whole months, less one where the end's day of the
	// month has not reached the start's.
	months := int64(to.Year()*12+int(to.Month())) - int64(from.Year()*12+int(from.Month()))
	if months > 0 && to.Day() < from.Day() {
		months--
	} else if months < 0 && to.Day() > from.Day() {
		months++
	}
	if unit.Name == "ChronoUnit/YEARS" {
		return Int(months / 12), nil
	}
	return Int(months), nil
}

func builtinLocalDateOf(th *Thread, args []Value) (Value, error) {
	var f [3]int
	for i, a := range args {
		n, ok := a.(Int)
		if !ok || n < 0 || n > 9999 {
			return nil, typeErrorf("LocalDate/of", "a year, month and day as integers", a)
		}
		f[i] = int(n)
	}
	t := time.Date(f[0], time.Month(f[1]), f[2], 0, 0, 0, 0, time.UTC)
	if f[1] < 1 || f[1] > 12 || t.Day() != f[2] {
		return nil, Errorf(executionError, "LocalDate/of: %d-%02d-%02d is no date", f[0], f[1], f[2])
	}
	return String(t.Format(time.DateOnly)), nil
}

// An Instant is its ISO-8601 UTC string here, as Java's Instant.toString
// writes it: the fraction in groups of three digits, none when zero.
var instantBuiltins = []*Builtin{
	{Name: "Instant/parse", Sig: "(Instant/parse s)", Doc: "the ISO-8601 instant s, as Java's Instant.toString writes it", Category: "idiom",
		reach: javaStatic, aliases: []string{"java.time.Instant/parse"},
		MinArgs: 1, MaxArgs: 1, Cost: cost(scans(arg(0))), Fn: func(th *Thread, args []Value) (Value, error) {
			t, err := instant("Instant/parse", args[0])
			if err != nil {
				return nil, err
			}
			return String(instantText(t)), nil
		}},
	{Name: "Instant/now", Sig: "(Instant/now)", Doc: "refused: the current time", Category: "idiom",
		reach: javaStatic, aliases: []string{"java.time.Instant/now"},
		Cost: cost(constant), Fn: func(th *Thread, args []Value) (Value, error) { return nil, nowError("Instant/now") }},
	instantField(".toEpochMilli", "epoch milliseconds", time.Time.UnixMilli),
	instantField(".getEpochSecond", "epoch seconds", time.Time.Unix),
}

func instantField(name, what string, field func(time.Time) int64) *Builtin {
	return &Builtin{Name: name, Sig: "(" + name + " instant)", Doc: what + " of an instant from Instant/parse", Category: "idiom", reach: javaForm,
		MinArgs: 1, MaxArgs: 1, Cost: cost(scans(arg(0))), Fn: func(th *Thread, args []Value) (Value, error) {
			t, err := instant(name, args[0])
			if err != nil {
				return nil, err
			}
			return Int(field(t)), nil
		}}
}

// instant reads an ISO-8601 instant, which Java's Instant.parse requires
// to end in Z.
func instant(fn string, v Value) (time.Time, error) {
	s, ok := v.(String)
	if !ok {
		return time.Time{}, typeErrorf(fn, "an ISO-8601 instant string", v)
	}
	t, err := time.Parse(time.RFC3339Nano, string(s))
	if err != nil || !strings.HasSuffix(string(s), "Z") {
		return time.Time{}, Errorf(executionError, "%s cannot read %s as an instant", fn, describe(s)).
			WithHint(`write instants as ISO-8601 in UTC, e.g. "2026-01-08T14:30:00Z"`)
	}
	return t.UTC(), nil
}

func instantText(t time.Time) string {
	layout := "2006-01-02T15:04:05"
	switch ns := t.Nanosecond(); {
	case ns == 0:
	case ns%1_000_000 == 0:
		layout += ".000"
	case ns%1_000 == 0:
		layout += ".000000"
	default:
		layout += ".000000000"
	}
	return t.Format(layout) + "Z"
}
