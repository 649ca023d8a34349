package lisp

import (
	"strconv"
	"strings"
	"time"
)

// java.time.LocalDate arithmetic on the ISO date strings LocalDate/parse
// and LocalDate/of give: a date prints and compares as its string, and
// these methods compute what Java's do (a month added to January 31 is
// the last day of February; ChronoUnit/MONTHS counts whole months). The
// day of the week is its name, "MONDAY", as (str (.getDayOfWeek d))
// gives in Clojure, and equals the DayOfWeek constants.
var localDateBuiltins = []*Builtin{
	dateShift(".plusDays", 1, func(t time.Time, n int) time.Time { return t.AddDate(0, 0, n) }),
	dateShift(".minusDays", -1, func(t time.Time, n int) time.Time { return t.AddDate(0, 0, n) }),
	dateShift(".plusWeeks", 1, func(t time.Time, n int) time.Time { return t.AddDate(0, 0, 7*n) }),
	dateShift(".minusWeeks", -1, func(t time.Time, n int) time.Time { return t.AddDate(0, 0, 7*n) }),
	dateShift(".plusMonths", 1, addMonths),
	dateShift(".minusMonths", -1, addMonths),
	dateShift(".plusYears", 1, func(t time.Time, n int) time.Time { return addMonths(t, 12*n) }),
	dateShift(".minusYears", -1, func(t time.Time, n int) time.Time { return addMonths(t, 12*n) }),
	dateCompare(".isBefore", func(c int) bool { return c < 0 }),
	dateCompare(".isAfter", func(c int) bool { return c > 0 }),
	dateCompare(".isEqual", func(c int) bool { return c == 0 }),
	dateField(".getYear", func(t time.Time) Value { return Int(t.Year()) }),
	dateField(".getMonthValue", func(t time.Time) Value { return Int(t.Month()) }),
	dateField(".getMonth", func(t time.Time) Value { return String(strings.ToUpper(t.Month().String())) }),
	dateField(".getDayOfMonth", func(t time.Time) Value { return Int(t.Day()) }),
	dateField(".getDayOfYear", func(t time.Time) Value { return Int(t.YearDay()) }),
	dateField(".getDayOfWeek", func(t time.Time) Value { return String(strings.ToUpper(t.Weekday().String())) }),
	dateField(".isLeapYear", func(t time.Time) Value { return boolValue(daysIn(t.Year(), time.February) == 29) }),
	dateField(".lengthOfMonth", func(t time.Time) Value { return Int(daysIn(t.Year(), t.Month())) }),
	dateField(".lengthOfYear", func(t time.Time) Value { return Int(365 + daysIn(t.Year(), time.February) - 28) }),
	{Name: ".getValue", Sig: "(.getValue entry-or-day)", Doc: "the value of a map entry, or the number of a day of the week, Monday 1 to Sunday 7", Category: "idiom", reach: javaForm,
		MinArgs: 1, MaxArgs: 1, Cost: cost(constant), Fn: func(th *Thread, args []Value) (Value, error) {
			if v, ok := mapEntryItem(args[0], 1); ok {
				return v, nil
			}
			if s, ok := args[0].(String); ok {
				for d := time.Sunday; d <= time.Saturday; d++ {
					if strings.ToUpper(d.String()) == string(s) {
						return Int((int(d)+6)%7 + 1), nil
					}
				}
			}
			return nil, typeErrorf(".getValue", "a map entry or a day of the week (from .getDayOfWeek)", args[0])
		}},
	{Name: ".between", Sig: "(.between ChronoUnit/DAYS from to)", Doc: "whole days, weeks, months or years from one date to another", Category: "idiom", reach: javaForm,
		MinArgs: 3, MaxArgs: 3, Cost: cost(constant), Fn: builtinBetween},
	{Name: "LocalDate/of", Sig: "(LocalDate/of year month day)", Doc: "the date, checked", Category: "idiom", reach: javaStatic,
		aliases: []string{"java.time.LocalDate/of"}, MinArgs: 3, MaxArgs: 3, Cost: cost(builds), Fn: builtinLocalDateOf},
}

// isoDate reads v as a date made by LocalDate/parse.
func isoDate(name string, v Value) (time.Time, error) {
	if s, ok := v.(String); ok {
		if t, err := time.Parse(time.DateOnly, string(s)); err == nil {
			return t, nil
		}
	}
	return time.Time{}, typeErrorf(name, "a date from LocalDate/parse", v).
		WithHint(`dates are ISO strings: (LocalDate/parse "2026-01-08")`)
}

func dateString(t time.Time) Value { return String(t.Format(time.DateOnly)) }

func daysIn(year int, m time.Month) int {
	return time.Date(year, m+1, 0, 0, 0, 0, 0, time.UTC).Day()
}

// addMonths adds n months as Java does: the day is kept, or the last day
// of the month when that month is shorter.
func addMonths(t time.Time, n int) time.Time {
	first := time.Date(t.Year(), t.Month(), 1, 0, 0, 0, 0, time.UTC).AddDate(0, n, 0)
	return first.AddDate(0, 0, min(t.Day(), daysIn(first.Year(), first.Month()))-1)
}

// maxDateShift bounds the amount a date moves, so that the result stays a
// four-digit year as ISO dates print.
const maxDateShift = 3_000_000

func dateShift(name string, sign int, shift func(time.Time, int) time.Time) *Builtin {
	return &Builtin{Name: name, Sig: "(" + name + " date n)", Doc: "the date moved, as Java's", Category: "idiom", reach: javaForm,
		MinArgs: 2, MaxArgs: 2, Cost: cost(builds), Fn: func(th *Thread, args []Value) (Value, error) {
			t, err := isoDate(name, args[0])
			if err != nil {
				return nil, err
			}
			n, ok := args[1].(Int)
			if !ok {
				return nil, typeErrorf(name, "an integer", args[1])
			}
			if n > maxDateShift || n < -maxDateShift {
				return nil, Errorf(executionError, "%s: %d is beyond the dates supported", name, n)
			}
			out := shift(t, sign*int(n))
			if out.Year() < 0 || out.Year() > 9999 {
				return nil, Errorf(executionError, "%s: the date is beyond year 9999 or before year 0", name)
			}
			return dateString(out), nil
		}}
}

func dateCompare(name string, test func(int) bool) *Builtin {
	return &Builtin{Name: name, Sig: "(" + name + " date other)", Doc: "compare two dates", Category: "idiom", reach: javaForm,
		MinArgs: 2, MaxArgs: 2, Cost: cost(constant), Fn: func(th *Thread, args []Value) (Value, error) {
			a, err := isoDate(name, args[0])
			if err != nil {
				return nil, err
			}
			b, err := isoDate(name, args[1])
			if err != nil {
				return nil, err
			}
			return boolValue(test(a.Compare(b))), nil
		}}
}

func dateField(name string, field func(time.Time) Value) *Builtin {
	return &Builtin{Name: name, Sig: "(" + name + " date)", Doc: "a field of the date", Category: "idiom", reach: javaForm,
		MinArgs: 1, MaxArgs: 1, Cost: cost(constant), Fn: func(th *Thread, args []Value) (Value, error) {
			t, err := isoDate(name, args[0])
			if err != nil {
				return nil, err
			}
			return field(t), nil
		}}
}

// builtinBetween is (.between unit from to), truncated toward zero as
// Java's ChronoUnit.between.
func builtinBetween(th *Thread, args []Value) (Value, error) {
	a, err := isoDate(".between", args[1])
	if err != nil {
		return nil, err
	}
	b, err := isoDate(".between", args[2])
	if err != nil {
		return nil, err
	}
	days := (b.Unix() - a.Unix()) / 86400
	// Java's LocalDate.monthsUntil: proleptic months, with the day of
	// month as a fraction of 32.
	months := (int64(b.Year())*12+int64(b.Month()))*32 + int64(b.Day()) - ((int64(a.Year())*12+int64(a.Month()))*32 + int64(a.Day()))
	months /= 32
	switch args[0] {
	case String("Days"):
		return Int(days), nil
	case String("Weeks"):
		return Int(days / 7), nil
	case String("Months"):
		return Int(months), nil
	case String("Years"):
		return Int(months / 12), nil
	}
	return nil, typeErrorf(".between", "ChronoUnit/DAYS, WEEKS, MONTHS or YEARS", args[0])
}

func builtinLocalDateOf(th *Thread, args []Value) (Value, error) {
	var f [3]int
	for i, v := range args {
		n, ok := v.(Int)
		if !ok {
			return nil, typeErrorf("LocalDate/of", "an integer", v)
		}
		f[i] = int(min(max(n, -1), 100_000))
	}
	t := time.Date(f[0], time.Month(f[1]), f[2], 0, 0, 0, 0, time.UTC)
	if f[0] < 0 || f[0] > 9999 || f[1] < 1 || f[1] > 12 || f[2] < 1 || t.Day() != f[2] {
		return nil, Errorf(executionError, "LocalDate/of: %s-%s-%s is not a date", strconv.Itoa(f[0]), strconv.Itoa(f[1]), strconv.Itoa(f[2]))
	}
	return dateString(t), nil
}
