package lisp

import (
	"strconv"
	"strings"
	"time"
)

// java.time's values (LocalDate, LocalDateTime, LocalTime, Duration,
// Period) are the strings Java's toString gives for them: "2024-01-15",
// "2024-01-15T10:30", "10:30", "PT1H30M", "P1Y2M". A program's result
// prints them as (str x) does in Clojure, they compare and sort as
// strings, which for dates and times of years 0 to 9999 is their order,
// and a turn keeps and reads them back as strings. Each method reads its
// receiver back from the text, whose shape says which class it is: a
// date has no colon, a time no dash, a date-time a T between them; a
// Duration starts with PT, a Period with P and no T.

type temporalKind uint8

const (
	localDate temporalKind = 1 << iota
	localTime
	localDateTime
	instant // an Instant, which has the fields of a date-time in UTC only for arithmetic
)

func (k temporalKind) className() string {
	switch k {
	case localDate:
		return "LocalDate"
	case localTime:
		return "LocalTime"
	case instant:
		return "Instant"
	}
	return "LocalDateTime"
}

// temporal is a LocalDate (day), a LocalTime (nano) or a LocalDateTime
// (both).
type temporal struct {
	kind temporalKind
	day  int64 // days since 1970-01-01
	nano int64 // nanoseconds since midnight
}

const (
	nanosPerSecond = int64(time.Second)
	nanosPerMinute = int64(time.Minute)
	nanosPerHour   = int64(time.Hour)
	nanosPerDay    = 24 * nanosPerHour
	// Java's LocalDate range, as epoch days (Year.MIN_VALUE to MAX_VALUE).
	minEpochDay = -365243219162
	maxEpochDay = 365241780471
	minYear     = -999_999_999
	maxYear     = 999_999_999
)

func (t temporal) hasDate() bool { return t.kind != localTime }
func (t temporal) hasTime() bool { return t.kind != localDate }

// civil is the date's year, month and day.
func (t temporal) civil() (year int64, month time.Month, day int) {
	g := time.Unix(t.day*86400, 0).UTC()
	return int64(g.Year()), g.Month(), g.Day()
}

func (t temporal) weekday() time.Weekday { return time.Unix(t.day*86400, 0).UTC().Weekday() }

func epochDay(year int64, month time.Month, day int) int64 {
	u := time.Date(int(year), month, day, 0, 0, 0, 0, time.UTC).Unix()
	return floorDiv(u, 86400)
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

func floorMod(a, b int64) int64 { return a - floorDiv(a, b)*b }

func isLeap(year int64) bool { return year%4 == 0 && (year%100 != 0 || year%400 == 0) }

func monthLength(year int64, m time.Month) int {
	switch m {
	case time.February:
		if isLeap(year) {
			return 29
		}
		return 28
	case time.April, time.June, time.September, time.November:
		return 30
	}
	return 31
}

// String is Java's toString of the value.
func (t temporal) String() string {
	if t.kind == instant {
		return instantText(time.Unix(t.day*86400+t.nano/nanosPerSecond, t.nano%nanosPerSecond).UTC())
	}
	var b strings.Builder
	if t.hasDate() {
		y, m, d := t.civil()
		switch {
		case y > 9999:
			b.WriteString("+" + strconv.FormatInt(y, 10))
		case y < 0:
			b.WriteString("-" + zeroPad(-y, 4))
		default:
			b.WriteString(zeroPad(y, 4))
		}
		b.WriteString("-" + zeroPad(int64(m), 2) + "-" + zeroPad(int64(d), 2))
	}
	if t.kind == localDateTime {
		b.WriteByte('T')
	}
	if t.hasTime() {
		h, mi, s, n := t.nano/nanosPerHour, t.nano/nanosPerMinute%60, t.nano/nanosPerSecond%60, t.nano%nanosPerSecond
		b.WriteString(zeroPad(h, 2) + ":" + zeroPad(mi, 2))
		if s > 0 || n > 0 {
			b.WriteString(":" + zeroPad(s, 2))
			switch {
			case n == 0:
			case n%1_000_000 == 0:
				b.WriteString("." + zeroPad(n/1_000_000, 3))
			case n%1000 == 0:
				b.WriteString("." + zeroPad(n/1000, 6))
			default:
				b.WriteString("." + zeroPad(n, 9))
			}
		}
	}
	return b.String()
}

func zeroPad(n int64, width int) string {
	s := strconv.FormatInt(n, 10)
	if len(s) < width {
		s = strings.Repeat("0", width-len(s)) + s
	}
	return s
}

func (t temporal) value() Value { return String(t.String()) }

// timeError is a java.time exception: class is its short name
// (DateTimeException and its subclasses), message Java's.
func timeError(form, class, message string) *Error {
	return Errorf(executionError, "%s: %s", form, message).asJava(class, message)
}

// fieldError is Java's message for a field out of its range.
func fieldError(form, field string, lo, hi, v int64) *Error {
	return timeError(form, "DateTimeException", "Invalid value for "+field+" (valid values "+
		strconv.FormatInt(lo, 10)+" - "+strconv.FormatInt(hi, 10)+"): "+strconv.FormatInt(v, 10))
}

// makeDate checks year, month and day as LocalDate.of does and returns
// the date, or Java's message.
func makeDate(year, month, day int64) (temporal, string) {
	switch {
	case year < minYear || year > maxYear:
		return temporal{}, "Invalid value for Year (valid values -999999999 - 999999999): " + strconv.FormatInt(year, 10)
	case month < 1 || month > 12:
		return temporal{}, "Invalid value for MonthOfYear (valid values 1 - 12): " + strconv.FormatInt(month, 10)
	case day < 1 || day > 31:
		return temporal{}, "Invalid value for DayOfMonth (valid values 1 - 28/31): " + strconv.FormatInt(day, 10)
	case day > int64(monthLength(year, time.Month(month))):
		if day == 29 {
			return temporal{}, "Invalid date 'February 29' as '" + strconv.FormatInt(year, 10) + "' is not a leap year"
		}
		return temporal{}, "Invalid date '" + strings.ToUpper(time.Month(month).String()) + " " + strconv.FormatInt(day, 10) + "'"
	}
	return temporal{kind: localDate, day: epochDay(year, time.Month(month), int(day))}, ""
}

// makeTime checks the fields of a time as LocalTime.of does.
func makeTime(h, m, s, n int64) (int64, string) {
	for _, f := range []struct {
		name   string
		v, max int64
	}{{"HourOfDay", h, 23}, {"MinuteOfHour", m, 59}, {"SecondOfMinute", s, 59}, {"NanoOfSecond", n, 999_999_999}} {
		if f.v < 0 || f.v > f.max {
			return 0, "Invalid value for " + f.name + " (valid values 0 - " + strconv.FormatInt(f.max, 10) + "): " + strconv.FormatInt(f.v, 10)
		}
	}
	return h*nanosPerHour + m*nanosPerMinute + s*nanosPerSecond + n, ""
}

// shapeOf says which class a text is by its shape.
func shapeOf(s string) temporalKind {
	switch {
	case strings.IndexByte(s, 'T') > 0:
		return localDateTime
	case strings.IndexByte(s, ':') > 0:
		return localTime
	}
	return localDate
}

// asTemporal reads v as a date, time, date-time or instant, as its
// receiver is.
func asTemporal(v Value) (temporal, bool) {
	s, ok := v.(String)
	if !ok || len(s) > 64 {
		return temporal{}, false
	}
	if strings.HasSuffix(string(s), "Z") {
		t, err := time.Parse(time.RFC3339Nano, string(s))
		if err != nil {
			return temporal{}, false
		}
		u := t.Unix()
		return temporal{kind: instant, day: floorDiv(u, 86400), nano: floorMod(u, 86400)*nanosPerSecond + int64(t.Nanosecond())}, true
	}
	t, err := isoFormatter(shapeOf(string(s))).parse(string(s), shapeOf(string(s)))
	return t, err == ""
}

// temporalArg is asTemporal for an argument of form, with kinds the
// classes form accepts.
func temporalArg(form string, v Value, kinds temporalKind) (temporal, error) {
	t, ok := asTemporal(v)
	if !ok || t.kind&kinds == 0 {
		var names []string
		for _, k := range []temporalKind{localDate, localTime, localDateTime, instant} {
			if kinds&k != 0 {
				names = append(names, k.className())
			}
		}
		return temporal{}, typeErrorf(form, "a "+strings.Join(names, " or "), v).
			WithHint(`dates and times are their ISO text: (LocalDate/parse "2026-01-08"), (LocalTime/parse "10:15"), (LocalDateTime/parse "2026-01-08T10:15")`)
	}
	return t, nil
}

// intArg reads argument i of form as an integer.
func intArg(form string, args []Value, i int) (int64, error) {
	n, err := javaIntParam(form, args[i], 64) // a float is truncated, as Clojure passes it to a long
	return int64(n), err
}

// javaInt is Clojure's conversion of a long argument to a Java int
// parameter.
func javaInt(form string, n int64) error {
	if n != int64(int32(n)) {
		return Errorf(executionError, "%s: %d does not fit in Java's int", form, n).
			asJava("ArithmeticException", "integer overflow")
	}
	return nil
}

// addNanos moves t by n nanoseconds (hours, minutes, seconds as Java's
// plusHours...): a time wraps around midnight, a date-time moves its date.
func addNanos(form string, t temporal, n, unit int64) (temporal, error) {
	if t.kind == localTime {
		t.nano = floorMod(t.nano+floorMod(n, nanosPerDay/unit)*unit, nanosPerDay)
		return t, nil
	}
	days, rest := n/(nanosPerDay/unit), n%(nanosPerDay/unit)*unit
	total := t.nano + rest
	t.nano = floorMod(total, nanosPerDay)
	return addDays(form, t, days+floorDiv(total, nanosPerDay))
}

func addDays(form string, t temporal, n int64) (temporal, error) {
	d, err := addExact(form, t.day, n)
	if err != nil {
		return t, err
	}
	if d < minEpochDay || d > maxEpochDay {
		return t, fieldError(form, "EpochDay", minEpochDay, maxEpochDay, d)
	}
	t.day = d
	return t, nil
}

// addMonthsTo adds n months as Java does: the day is kept, or the last
// day of the month when that month is shorter.
func addMonthsTo(form string, t temporal, n int64) (temporal, error) {
	y, m, d := t.civil()
	if n > 24*maxYear || n < -24*maxYear {
		return t, fieldError(form, "Year", minYear, maxYear, y+n/12)
	}
	total := y*12 + int64(m) - 1 + n
	ny, nm := floorDiv(total, 12), time.Month(floorMod(total, 12)+1)
	if ny < minYear || ny > maxYear {
		return t, fieldError(form, "Year", minYear, maxYear, ny)
	}
	t.day = epochDay(ny, nm, min(d, monthLength(ny, nm)))
	return t, nil
}

// chronoUnit is a ChronoUnit: its name as Java prints it and its length
// in nanoseconds, or in months for the date-based units beyond a week.
type chronoUnit struct {
	name   string
	nanos  int64 // time-based units and DAYS, WEEKS
	months int64 // MONTHS and longer
}

var chronoUnits = []chronoUnit{
	{"Nanos", 1, 0}, {"Micros", 1000, 0}, {"Millis", 1_000_000, 0}, {"Seconds", nanosPerSecond, 0},
	{"Minutes", nanosPerMinute, 0}, {"Hours", nanosPerHour, 0}, {"HalfDays", 12 * nanosPerHour, 0},
	{"Days", nanosPerDay, 0}, {"Weeks", 7 * nanosPerDay, 0}, {"Months", 0, 1}, {"Years", 0, 12},
	{"Decades", 0, 120}, {"Centuries", 0, 1200}, {"Millennia", 0, 12000},
}

func (u chronoUnit) dateBased() bool { return u.nanos >= nanosPerDay || u.months > 0 }

func unitNamed(v Value) (chronoUnit, bool) {
	if s, ok := v.(String); ok {
		for _, u := range chronoUnits {
			if u.name == string(s) {
				return u, true
			}
		}
	}
	return chronoUnit{}, false
}

func unitArg(form string, v Value) (chronoUnit, error) {
	u, ok := unitNamed(v)
	if !ok {
		return u, typeErrorf(form, "a ChronoUnit (ChronoUnit/DAYS, HOURS, MINUTES...)", v)
	}
	return u, nil
}

// supports reports whether a value of kind k has unit u, with Java's
// error when it does not.
func supports(form string, k temporalKind, u chronoUnit) error {
	if (k == localDate && !u.dateBased()) || (k == localTime && u.dateBased()) || (k == instant && (u.months > 0 || u.nanos > nanosPerDay)) {
		return timeError(form, "UnsupportedTemporalTypeException", "Unsupported unit: "+u.name)
	}
	return nil
}

// convertTo reads end as a value of start's class, as Java's until does
// (LocalDate.from, LocalTime.from, LocalDateTime.from).
func convertTo(form string, kind temporalKind, end temporal) (temporal, error) {
	if end.kind == kind {
		return end, nil
	}
	switch {
	case kind == instant || end.kind == instant:
	case kind == localDate && end.hasDate():
		return temporal{kind: localDate, day: end.day}, nil
	case kind == localTime && end.hasTime():
		return temporal{kind: localTime, nano: end.nano}, nil
	}
	return end, timeError(form, "DateTimeException", "Unable to obtain "+kind.className()+" from TemporalAccessor: "+
		end.String()+" of type java.time."+end.kind.className())
}

// until is Java's start.until(end, unit): whole units, truncated.
func until(form string, start, end temporal, u chronoUnit) (int64, error) {
	if err := supports(form, start.kind, u); err != nil {
		return 0, err
	}
	end, err := convertTo(form, start.kind, end)
	if err != nil {
		return 0, err
	}
	if start.kind == localDateTime && u.dateBased() {
		// The end date moves a day toward the start when its time of
		// day has not reached the start's.
		if end.day > start.day && end.nano < start.nano {
			end.day--
		} else if end.day < start.day && end.nano > start.nano {
			end.day++
		}
	}
	if u.months > 0 {
		return monthsUntil(start, end) / u.months, nil
	}
	if u.dateBased() && start.kind != instant {
		return (end.day - start.day) / (u.nanos / nanosPerDay), nil
	}
	// days*nanosPerDay may overflow for far dates: divide in two parts.
	days, nanos := end.day-start.day, end.nano-start.nano
	if u.nanos >= nanosPerSecond {
		perDay := nanosPerDay / u.nanos
		if days > 0 && nanos < 0 {
			days, nanos = days-1, nanos+nanosPerDay
		} else if days < 0 && nanos > 0 {
			days, nanos = days+1, nanos-nanosPerDay
		}
		return days*perDay + nanos/u.nanos, nil
	}
	return (days*nanosPerDay + nanos) / u.nanos, nil
}

// monthsUntil is Java's LocalDate.monthsUntil: proleptic months, with the
// day of the month as a fraction of 32.
func monthsUntil(a, b temporal) int64 {
	ay, am, ad := a.civil()
	by, bm, bd := b.civil()
	return ((by*12+int64(bm))*32 + int64(bd) - ((ay*12+int64(am))*32 + int64(ad))) / 32
}

// plusUnit is Java's t.plus(n, unit).
func plusUnit(form string, t temporal, n int64, u chronoUnit) (temporal, error) {
	if err := supports(form, t.kind, u); err != nil {
		return t, err
	}
	switch {
	case u.months > 0:
		if n > 24*maxYear || n < -24*maxYear {
			return t, fieldError(form, "Year", minYear, maxYear, n)
		}
		return addMonthsTo(form, t, n*u.months)
	case u.dateBased() && t.kind != instant:
		days, err := mulExact(form, n, u.nanos/nanosPerDay)
		if err != nil {
			return t, err
		}
		return addDays(form, t, days)
	}
	return addNanos(form, t, n, u.nanos)
}

// javaTimeClasses are the java.time classes whose statics are here, by
// their short names, with their packages.
var javaTimeClasses = map[string]string{"LocalDate": "java.time.", "LocalTime": "java.time.", "LocalDateTime": "java.time.",
	"Duration": "java.time.", "Period": "java.time.", "DayOfWeek": "java.time.", "Month": "java.time.", "Instant": "java.time.",
	"Year": "java.time.", "ZoneId": "java.time.", "ZoneOffset": "java.time.", "ChronoUnit": "java.time.temporal.", "TemporalAdjusters": "java.time.temporal.", "DateTimeFormatter": "java.time.format."}

// javaTimeAbsent are the java.time classes programs name that are not
// here: zones, offsets and the rarer temporals.
var javaTimeAbsent = map[string]string{"ZonedDateTime": "java.time.",
	"OffsetDateTime": "java.time.", "OffsetTime": "java.time.", "YearMonth": "java.time.",
	"MonthDay": "java.time.", "Clock": "java.time.", "ChronoField": "java.time.temporal.", "IsoFields": "java.time.temporal."}

// unknownJavaTime reports a static of a java.time class that is not here,
// naming the ones that are; nil when ns is no such class.
func (c *compiler) unknownJavaTime(ns, name string) *Error {
	class := ns[strings.LastIndexByte(ns, '.')+1:]
	if pkg, ok := javaTimeAbsent[class]; ok && (ns == class || ns == pkg+class) {
		return c.errorf(undefinedSymbol, "%s is not available: there are no time zones or other java.time classes here than local dates and times", ns).
			WithHint(`use LocalDate, LocalTime, LocalDateTime, Instant, Duration, Period, ChronoUnit, TemporalAdjusters or DateTimeFormatter: (LocalDateTime/parse "2026-01-08T10:15")`)
	}
	pkg, ok := javaTimeClasses[class]
	if !ok || (ns != class && ns != pkg+class) {
		return nil
	}
	return c.errorf(undefinedSymbol, "%s/%s is not available", ns, name).
		WithHint("the statics of %s here are %s", class, strings.Join(javaStaticsOf(class), ", "))
}
