package lisp

import (
	"math"
	"math/bits"
	"strconv"
	"strings"
)

// duration is a java.time.Duration as Java keeps it: whole seconds
// (floored) and the nanoseconds after them, 0 to 999,999,999.
type duration struct{ secs, nanos int64 }

// period is a java.time.Period: years, months and days, each a Java int.
type period struct{ years, months, days int64 }

// overflow is Java's ArithmeticException from Math.addExact and kin.
func overflow(form string) *Error {
	return Errorf(executionError, "%s: the amount is beyond a 64-bit count of seconds", form).
		asJava("ArithmeticException", "long overflow")
}

func addExact(form string, a, b int64) (int64, error) {
	s := a + b
	if (a > 0 && b > 0 && s < 0) || (a < 0 && b < 0 && s >= 0) {
		return 0, overflow(form)
	}
	return s, nil
}

func mulExact(form string, a, b int64) (int64, error) {
	hi, lo := bits.Mul64(uint64(absInt(a)), uint64(absInt(b)))
	if hi != 0 || lo > math.MaxInt64 || a == math.MinInt64 || b == math.MinInt64 {
		if !(a == 0 || b == 0) {
			return 0, overflow(form)
		}
	}
	return a * b, nil
}

func absInt(a int64) int64 {
	if a < 0 {
		return -a
	}
	return a
}

// makeDuration is secs seconds and nanos nanoseconds (any sign),
// normalized.
func makeDuration(form string, secs, nanos int64) (duration, error) {
	s, err := addExact(form, secs, floorDiv(nanos, nanosPerSecond))
	return duration{s, floorMod(nanos, nanosPerSecond)}, err
}

func (d duration) plus(form string, o duration) (duration, error) {
	s, err := addExact(form, d.secs, o.secs)
	if err != nil {
		return d, err
	}
	return makeDuration(form, s, d.nanos+o.nanos)
}

func (d duration) negated(form string) (duration, error) {
	if d.secs == math.MinInt64 {
		return d, overflow(form)
	}
	return makeDuration(form, -d.secs, -d.nanos)
}

// ofUnits is n units of unit nanoseconds.
func ofUnits(form string, n, unit int64) (duration, error) {
	if unit >= nanosPerSecond {
		s, err := mulExact(form, n, unit/nanosPerSecond)
		return duration{s, 0}, err
	}
	return makeDuration(form, floorDiv(n, nanosPerSecond/unit), floorMod(n, nanosPerSecond/unit)*unit)
}

// String is Java's Duration.toString.
func (d duration) String() string {
	if d.secs == 0 && d.nanos == 0 {
		return "PT0S"
	}
	total := d.secs
	if d.secs < 0 && d.nanos > 0 {
		total++
	}
	hours, minutes, secs := total/3600, total%3600/60, total%60
	var b strings.Builder
	b.WriteString("PT")
	if hours != 0 {
		b.WriteString(strconv.FormatInt(hours, 10) + "H")
	}
	if minutes != 0 {
		b.WriteString(strconv.FormatInt(minutes, 10) + "M")
	}
	if secs == 0 && d.nanos == 0 && b.Len() > 2 {
		return b.String()
	}
	if d.secs < 0 && d.nanos > 0 && secs == 0 {
		b.WriteString("-0")
	} else {
		b.WriteString(strconv.FormatInt(secs, 10))
	}
	if d.nanos > 0 {
		frac := d.nanos + nanosPerSecond
		if d.secs < 0 {
			frac = 2*nanosPerSecond - d.nanos
		}
		b.WriteString("." + strings.TrimRight(strconv.FormatInt(frac, 10)[1:], "0"))
	}
	b.WriteByte('S')
	return b.String()
}

// parseDuration reads Java's ISO text of a duration, PnDTnHnMn.nS, each
// part optional and signed.
func parseDuration(form string, text string) (duration, error) {
	bad := func() (duration, error) {
		msg := "Text cannot be parsed to a Duration"
		return duration{}, timeError(form, "DateTimeParseException", msg)
	}
	s := strings.ToUpper(text)
	negate := false
	if strings.HasPrefix(s, "-") || strings.HasPrefix(s, "+") {
		negate, s = s[0] == '-', s[1:]
	}
	if !strings.HasPrefix(s, "P") || len(s) > 64 {
		return bad()
	}
	s = s[1:]
	var d duration
	seen, inTime := false, false
	units := map[byte]int64{'D': nanosPerDay, 'H': nanosPerHour, 'M': nanosPerMinute, 'S': nanosPerSecond}
	for s != "" {
		if s[0] == 'T' && !inTime {
			inTime, s = true, s[1:]
			if s == "" {
				return bad()
			}
			continue
		}
		end := 0
		for end < len(s) && (s[end] == '-' || s[end] == '+' || s[end] == '.' || s[end] == ',' || (s[end] >= '0' && s[end] <= '9')) {
			end++
		}
		if end == 0 || end == len(s) {
			return bad()
		}
		unit, ok := units[s[end]]
		if !ok || (s[end] == 'D') == inTime {
			return bad()
		}
		num := strings.ReplaceAll(s[:end], ",", ".")
		var part duration
		if whole, frac, found := strings.Cut(num, "."); found {
			if s[end] != 'S' || frac == "" || len(frac) > 9 {
				return bad()
			}
			n, err1 := strconv.ParseInt(whole, 10, 64)
			f, err2 := strconv.ParseInt(frac+strings.Repeat("0", 9-len(frac)), 10, 64)
			if err1 != nil || err2 != nil {
				return bad()
			}
			if strings.HasPrefix(whole, "-") {
				f = -f
			}
			part = duration{n, f}
			part, _ = makeDuration(form, part.secs, part.nanos)
		} else {
			n, err := strconv.ParseInt(num, 10, 64)
			if err != nil {
				return bad()
			}
			if part, err = ofUnits(form, n, unit); err != nil {
				return bad()
			}
		}
		var err error
		if d, err = d.plus(form, part); err != nil {
			return bad()
		}
		seen, s = true, s[end+1:]
	}
	if !seen {
		return bad()
	}
	if negate {
		return d.negated(form)
	}
	return d, nil
}

// asDuration reads v as a Duration: its text starts with PT, or P and a
// count of days.
func asDuration(v Value) (duration, bool) {
	s, ok := v.(String)
	if !ok || !strings.Contains(string(s), "T") || !strings.HasPrefix(string(s), "P") {
		return duration{}, false
	}
	d, err := parseDuration("", string(s))
	return d, err == nil
}

func durationArg(form string, v Value) (duration, error) {
	d, ok := asDuration(v)
	if !ok {
		return d, typeErrorf(form, "a Duration", v).
			WithHint("(Duration/between t1 t2) or (Duration/ofMinutes n) makes one")
	}
	return d, nil
}

// String is Java's Period.toString.
func (p period) String() string {
	if p == (period{}) {
		return "P0D"
	}
	s := "P"
	for _, part := range []struct {
		n    int64
		unit string
	}{{p.years, "Y"}, {p.months, "M"}, {p.days, "D"}} {
		if part.n != 0 {
			s += strconv.FormatInt(part.n, 10) + part.unit
		}
	}
	return s
}

// value is p as its text, or Java's error for a part beyond an int.
func (p period) value(form string) (Value, error) {
	for _, n := range []int64{p.years, p.months, p.days} {
		if err := javaInt(form, n); err != nil {
			return nil, err
		}
	}
	return String(p.String()), nil
}

// asPeriod reads v as a Period: P then years, months, weeks and days.
func asPeriod(v Value) (period, bool) {
	s, ok := v.(String)
	if !ok || len(s) > 64 || !strings.HasPrefix(string(s), "P") || strings.Contains(string(s), "T") || len(s) < 3 {
		return period{}, false
	}
	var p period
	rest := string(s[1:])
	order := "YMWD"
	for rest != "" {
		end := 0
		for end < len(rest) && (rest[end] == '-' || rest[end] == '+' || (rest[end] >= '0' && rest[end] <= '9')) {
			end++
		}
		if end == 0 || end == len(rest) {
			return p, false
		}
		i := strings.IndexByte(order, rest[end])
		n, err := strconv.ParseInt(rest[:end], 10, 32)
		if i < 0 || err != nil {
			return p, false
		}
		switch order[i] {
		case 'Y':
			p.years = n
		case 'M':
			p.months = n
		case 'W':
			p.days += 7 * n
		case 'D':
			p.days += n
		}
		order, rest = order[i+1:], rest[end+1:]
	}
	return p, true
}

func periodArg(form string, v Value) (period, error) {
	p, ok := asPeriod(v)
	if !ok {
		return p, typeErrorf(form, "a Period", v).WithHint("(Period/between d1 d2) or (Period/ofDays n) makes one")
	}
	return p, nil
}

// periodBetween is Java's LocalDate.until(end): years, months and days.
func periodBetween(start, end temporal) period {
	sy, sm, sd := start.civil()
	ey, em, ed := end.civil()
	months := (ey*12 + int64(em)) - (sy*12 + int64(sm))
	days := int64(ed - sd)
	if months > 0 && days < 0 {
		months--
		calc, _ := addMonthsTo("", start, months)
		days = end.day - calc.day
	} else if months < 0 && days > 0 {
		months++
		days -= int64(monthLength(ey, em))
	}
	return period{months / 12, months % 12, days}
}

// addPeriod is Java's Period.addTo: the months, then the days.
func addPeriod(form string, t temporal, p period, sign int64) (temporal, error) {
	if t.kind == localTime {
		unit := "Days"
		if p.years != 0 || p.months != 0 {
			unit = "Months"
		}
		return t, timeError(form, "UnsupportedTemporalTypeException", "Unsupported unit: "+unit)
	}
	var err error
	if months := p.years*12 + p.months; months != 0 && t.kind == instant {
		return t, timeError(form, "UnsupportedTemporalTypeException", "Unsupported unit: Months")
	} else if months != 0 {
		if t, err = addMonthsTo(form, t, sign*months); err != nil {
			return t, err
		}
	}
	return addDays(form, t, sign*p.days)
}

// addDuration is t moved by d, as Java's plus(Duration).
func addDuration(form string, t temporal, d duration, sign int64) (temporal, error) {
	if t.kind == localDate {
		return t, timeError(form, "UnsupportedTemporalTypeException", "Unsupported unit: Seconds")
	}
	if sign < 0 {
		var err error
		if d, err = d.negated(form); err != nil {
			return t, err
		}
	}
	t, err := addNanos(form, t, d.secs, nanosPerSecond)
	if err != nil {
		return t, err
	}
	return addNanos(form, t, d.nanos, 1)
}

// durationBetween is Java's Duration.between(start, end).
func durationBetween(form string, start, end temporal) (duration, error) {
	if start.kind == localDate {
		return duration{}, timeError(form, "UnsupportedTemporalTypeException", "Unsupported unit: Seconds")
	}
	end, err := convertTo(form, start.kind, end)
	if err != nil {
		return duration{}, err
	}
	secs := (end.day-start.day)*86400 + end.nano/nanosPerSecond - start.nano/nanosPerSecond
	return makeDuration(form, secs, end.nano%nanosPerSecond-start.nano%nanosPerSecond)
}
