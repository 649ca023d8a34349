package lisp

import (
	"cmp"
	"strconv"
	"strings"
	"time"
)

// java.time's statics and methods on the ISO texts that stand for its
// values (interop_time.go): LocalDate, LocalTime, LocalDateTime,
// Duration, Period, ChronoUnit and DateTimeFormatter, computed as Java
// computes them (a month added to January 31 is the last day of
// February; ChronoUnit/MONTHS counts whole months; a time wraps at
// midnight) and failing with Java's exception class and message. The day
// of the week is its name, "MONDAY", as (str (.getDayOfWeek d)) gives in
// Clojure, and equals the DayOfWeek constants; a month likewise.
var localDateBuiltins = concatRows(
	[]*Builtin{
		{Name: ".getValue", Sig: "(.getValue entry-or-day)", Doc: "the value of a map entry, or the number of a day of the week (Monday 1) or of a month", Category: "idiom", reach: javaForm,
			MinArgs: 1, MaxArgs: 1, Cost: cost(temporalText), Fn: func(th *Thread, args []Value) (Value, error) {
				if v, ok := mapEntryItem(args[0], 1); ok {
					return v, nil
				}
				if s, ok := args[0].(String); ok {
					for d := time.Sunday; d <= time.Saturday; d++ {
						if strings.ToUpper(d.String()) == string(s) {
							return Int((int(d)+6)%7 + 1), nil
						}
					}
					for m := time.January; m <= time.December; m++ {
						if strings.ToUpper(m.String()) == string(s) {
							return Int(m), nil
						}
					}
				}
				return nil, typeErrorf(".getValue", "a map entry or a day of the week (from .getDayOfWeek)", args[0])
			}},
		{Name: ".between", Sig: "(.between ChronoUnit/DAYS from to)", Doc: "whole units from one date or time to another", Category: "idiom", reach: javaForm,
			MinArgs: 3, MaxArgs: 3, Cost: cost(temporalText), Fn: func(th *Thread, args []Value) (Value, error) {
				return unitsBetween(".between", args[0], args[1], args[2])
			}},
		timeStatic("LocalDate/parse", "(LocalDate/parse s) (LocalDate/parse s formatter)", "the ISO date s, or s read with formatter", 1, 2, parseAs(localDate)),
		timeStatic("LocalTime/parse", "(LocalTime/parse s) (LocalTime/parse s formatter)", "the ISO time s (10:15, 10:15:30)", 1, 2, parseAs(localTime)),
		timeStatic("LocalDateTime/parse", "(LocalDateTime/parse s) (LocalDateTime/parse s formatter)", "the ISO date-time s (2024-01-15T10:15)", 1, 2, parseAs(localDateTime)),
		timeStatic("LocalDate/of", "(LocalDate/of year month day)", "the date, checked", 3, 3, func(form string, args []Value) (Value, error) {
			// LocalDate.of(int, int, int) and of(int, Month, int): Clojure's
			// reflector matches neither for a float, text or nil, but a nil
			// month is passed as the Month and fails in the call.
			for i, a := range args {
				if _, ok := a.(Int); !ok {
					e := typeErrorf(form, "an integer", a)
					if a != Nil || i != 1 {
						e = e.asJava("IllegalArgumentException", "")
					}
					return nil, e
				}
			}
			f, err := intArgs(form, args)
			if err != nil {
				return nil, err
			}
			d, msg := makeDate(f[0], f[1], f[2])
			if msg != "" {
				return nil, timeError(form, "DateTimeException", msg)
			}
			return d.value(), nil
		}),
		timeStatic("LocalDate/ofEpochDay", "(LocalDate/ofEpochDay n)", "the date n days after 1970-01-01", 1, 1, func(form string, args []Value) (Value, error) {
			n, err := intArg(form, args, 0)
			if err != nil {
				return nil, err
			}
			if n < minEpochDay || n > maxEpochDay {
				return nil, fieldError(form, "EpochDay", minEpochDay, maxEpochDay, n)
			}
			return temporal{kind: localDate, day: n}.value(), nil
		}),
		timeStatic("LocalTime/of", "(LocalTime/of hour minute) (LocalTime/of hour minute second)", "the time, checked", 2, 4, func(form string, args []Value) (Value, error) {
			f, err := intArgs(form, args)
			if err != nil {
				return nil, err
			}
			f = append(f, 0, 0)
			nano, msg := makeTime(f[0], f[1], f[2], f[3])
			if msg != "" {
				return nil, timeError(form, "DateTimeException", msg)
			}
			return temporal{kind: localTime, nano: nano}.value(), nil
		}),
		adjuster("firstDayOfMonth"), adjuster("lastDayOfMonth"), adjuster("firstDayOfNextMonth"),
		adjuster("firstDayOfYear"), adjuster("lastDayOfYear"), adjuster("firstDayOfNextYear"),
		adjuster("next"), adjuster("nextOrSame"), adjuster("previous"), adjuster("previousOrSame"),
		adjuster("firstInMonth"), adjuster("lastInMonth"),
		timeStatic("Year/isLeap", "(Year/isLeap year)", "whether the year is a leap year", 1, 1, func(form string, args []Value) (Value, error) {
			n, err := intArg(form, args, 0)
			return boolValue(isLeap(n)), err
		}),
		timeStatic("ZoneId/of", `(ZoneId/of "UTC")`, "a zone: UTC or a fixed offset", 1, 1, func(form string, args []Value) (Value, error) {
			_, text, err := zoneArg(form, args[0], true)
			return String(text), err
		}),
		timeStatic("ZoneOffset/of", `(ZoneOffset/of "+02:00")`, "a fixed offset from UTC", 1, 1, func(form string, args []Value) (Value, error) {
			_, text, err := zoneArg(form, args[0], false)
			return String(text), err
		}),
		timeStatic("ZoneOffset/ofHours", "(ZoneOffset/ofHours n)", "the offset of n hours from UTC", 1, 1, func(form string, args []Value) (Value, error) {
			n, err := intArg(form, args, 0)
			if err != nil {
				return nil, err
			}
			if n < -18 || n > 18 {
				return nil, timeError(form, "DateTimeException", "Zone offset hours not in valid range: value "+strconv.FormatInt(n, 10)+" is not in the range -18 to 18")
			}
			return String(offsetText(n * 3600)), nil
		}),
		timeStatic("LocalDateTime/ofInstant", "(LocalDateTime/ofInstant instant zone)", "the local date-time of an instant in a zone", 2, 2, ofInstant(localDateTime)),
		timeStatic("LocalDate/ofInstant", "(LocalDate/ofInstant instant zone)", "the local date of an instant in a zone", 2, 2, ofInstant(localDate)),
		timeStatic("LocalDateTime/ofEpochSecond", "(LocalDateTime/ofEpochSecond s nanos offset)", "the local date-time s seconds after the epoch at an offset", 3, 3,
			func(form string, args []Value) (Value, error) {
				secs, err := intArg(form, args, 0)
				if err != nil {
					return nil, err
				}
				nanos, err := intArg(form, args, 1)
				if err != nil {
					return nil, err
				}
				if nanos < 0 || nanos >= nanosPerSecond {
					return nil, fieldError(form, "NanoOfSecond", 0, nanosPerSecond-1, nanos)
				}
				off, _, err := zoneArg(form, args[2], false)
				if err != nil {
					return nil, err
				}
				local, err := addExact(form, secs, off)
				if err != nil {
					return nil, err
				}
				t := temporal{kind: localDateTime, day: floorDiv(local, 86400), nano: floorMod(local, 86400)*nanosPerSecond + nanos}
				if t.day < minEpochDay || t.day > maxEpochDay {
					return nil, fieldError(form, "EpochDay", minEpochDay, maxEpochDay, t.day)
				}
				return t.value(), nil
			}),
		timeStatic("Instant/ofEpochMilli", "(Instant/ofEpochMilli ms)", "the instant ms milliseconds after 1970-01-01T00:00:00Z", 1, 1, instantOf(1_000_000)),
		timeStatic("Instant/ofEpochSecond", "(Instant/ofEpochSecond s)", "the instant s seconds after 1970-01-01T00:00:00Z", 1, 1, instantOf(nanosPerSecond)),
		timeStatic("LocalTime/ofSecondOfDay", "(LocalTime/ofSecondOfDay n)", "the time n seconds after midnight", 1, 1, func(form string, args []Value) (Value, error) {
			n, err := intArg(form, args, 0)
			if err != nil {
				return nil, err
			}
			if n < 0 || n >= nanosPerDay/nanosPerSecond {
				return nil, fieldError(form, "SecondOfDay", 0, nanosPerDay/nanosPerSecond-1, n)
			}
			return temporal{kind: localTime, nano: n * nanosPerSecond}.value(), nil
		}),
		timeStatic("LocalDateTime/of", "(LocalDateTime/of year month day hour minute [second]) (LocalDateTime/of date time)", "the date-time, checked", 2, 7,
			func(form string, args []Value) (Value, error) {
				if len(args) == 2 {
					d, err := temporalArg(form, args[0], localDate)
					if err != nil {
						return nil, err
					}
					t, err := temporalArg(form, args[1], localTime)
					if err != nil {
						return nil, err
					}
					return temporal{kind: localDateTime, day: d.day, nano: t.nano}.value(), nil
				}
				if len(args) < 5 {
					return nil, javaErrorf(arityErrorKind, "IllegalArgumentException", "%s takes a date and a time, or year, month, day, hour, minute and optionally second", form)
				}
				f, err := intArgs(form, args)
				if err != nil {
					return nil, err
				}
				f = append(f, 0, 0)
				d, msg := makeDate(f[0], f[1], f[2])
				if msg == "" {
					var nano int64
					if nano, msg = makeTime(f[3], f[4], f[5], f[6]); msg == "" {
						return temporal{kind: localDateTime, day: d.day, nano: nano}.value(), nil
					}
				}
				return nil, timeError(form, "DateTimeException", msg)
			}),
		timeStatic("Duration/between", "(Duration/between t1 t2)", "the time from t1 to t2", 2, 2, func(form string, args []Value) (Value, error) {
			a, err := temporalArg(form, args[0], localDate|localTime|localDateTime|instant)
			if err != nil {
				return nil, err
			}
			b, err := temporalArg(form, args[1], localDate|localTime|localDateTime|instant)
			if err != nil {
				return nil, err
			}
			d, err := durationBetween(form, a, b)
			return String(d.String()), err
		}),
		timeStatic("Duration/ofSeconds", "(Duration/ofSeconds n) (Duration/ofSeconds n nanos)", "a Duration", 1, 2, func(form string, args []Value) (Value, error) {
			f, err := intArgs(form, args)
			if err != nil {
				return nil, err
			}
			d, err := makeDuration(form, f[0], append(f, 0)[1])
			return String(d.String()), err
		}),
		durationOf("Duration/ofDays", nanosPerDay), durationOf("Duration/ofHours", nanosPerHour), durationOf("Duration/ofMinutes", nanosPerMinute),
		durationOf("Duration/ofMillis", 1_000_000), durationOf("Duration/ofNanos", 1),
		timeStatic("Duration/parse", "(Duration/parse s)", "the Duration of the ISO text s (PT1H30M)", 1, 1, func(form string, args []Value) (Value, error) {
			s, ok := args[0].(String)
			if !ok {
				return nil, typeErrorf(form, "a string", args[0])
			}
			d, err := parseDuration(form, string(s))
			return String(d.String()), err
		}),
		timeStatic("Period/between", "(Period/between d1 d2)", "the years, months and days from d1 to d2", 2, 2, func(form string, args []Value) (Value, error) {
			a, err := temporalArg(form, args[0], localDate)
			if err != nil {
				return nil, err
			}
			b, err := temporalArg(form, args[1], localDate|localDateTime)
			if err != nil {
				return nil, err
			}
			b.kind = localDate
			return String(periodBetween(a, b).String()), nil
		}),
		timeStatic("Period/of", "(Period/of years months days)", "a Period", 3, 3, func(form string, args []Value) (Value, error) {
			f, err := intArgs(form, args)
			if err != nil {
				return nil, err
			}
			return period{f[0], f[1], f[2]}.value(form)
		}),
		periodOf("Period/ofDays", func(n int64) period { return period{days: n} }),
		periodOf("Period/ofWeeks", func(n int64) period { return period{days: 7 * n} }),
		periodOf("Period/ofMonths", func(n int64) period { return period{months: n} }),
		periodOf("Period/ofYears", func(n int64) period { return period{years: n} }),
		{Name: "DateTimeFormatter/ofPattern", Sig: `(DateTimeFormatter/ofPattern "dd/MM/yyyy")`, Doc: "a formatter of the pattern, for .format and parse", Category: "idiom",
			reach: javaStatic, aliases: []string{"java.time.format.DateTimeFormatter/ofPattern"},
			MinArgs: 1, MaxArgs: 2, Cost: cost(scans(arg(0)), patternWork), Fn: func(th *Thread, args []Value) (Value, error) {
				s, ok := args[0].(String)
				if !ok {
					return nil, typeErrorf("DateTimeFormatter/ofPattern", "a pattern string", args[0])
				}
				f, err := compilePattern("DateTimeFormatter/ofPattern", string(s))
				if err != nil {
					return nil, err
				}
				if len(args) == 2 && f.writesNames() {
					if err := englishLocale("DateTimeFormatter/ofPattern", args[1]); err != nil {
						return nil, err
					}
				}
				return s, nil
			}},
		{Name: ".withLocale", Sig: "(.withLocale formatter locale)", Doc: "the formatter, in an English locale", Category: "idiom", reach: javaForm,
			MinArgs: 2, MaxArgs: 2, Cost: cost(patternWork), Fn: func(th *Thread, args []Value) (Value, error) {
				f, err := formatterOf(".withLocale", args[0])
				if err != nil {
					return nil, err
				}
				if _, ok := args[1].(String); !ok || f.writesNames() {
					if err := englishLocale(".withLocale", args[1]); err != nil {
						return nil, err
					}
				}
				return args[0], nil
			}},
		{Name: ".getDisplayName", Sig: "(.getDisplayName day-or-month TextStyle/FULL locale)", Doc: "the English name of a day of the week or a month", Category: "idiom", reach: javaForm,
			MinArgs: 3, MaxArgs: 3, Cost: cost(temporalText), Fn: builtinDisplayName},
		{Name: ".truncatedTo", Sig: "(.truncatedTo t ChronoUnit/HOURS)", Doc: "the time or date-time with the smaller fields zero", Category: "idiom", reach: javaForm,
			MinArgs: 2, MaxArgs: 2, Cost: cost(temporalText, builds), Fn: func(th *Thread, args []Value) (Value, error) {
				t, err := receiver(".truncatedTo", args, localTime|localDateTime)
				if err != nil {
					return nil, err
				}
				u, err := unitArg(".truncatedTo", args[1])
				if err != nil {
					return nil, err
				}
				if u.nanos == 0 || u.nanos > nanosPerDay {
					return nil, timeError(".truncatedTo", "UnsupportedTemporalTypeException", "Unit is too large to be used for truncation")
				}
				t.nano -= t.nano % u.nanos
				return t.value(), nil
			}},
		{Name: ".until", Sig: "(.until from to unit) (.until from-date to-date)", Doc: "whole units from one date or time to another, or the Period between two dates", Category: "idiom", reach: javaForm,
			MinArgs: 2, MaxArgs: 3, Cost: cost(temporalText, builds), Fn: func(th *Thread, args []Value) (Value, error) {
				if len(args) == 2 {
					a, err := receiver(".until", args, localDate)
					if err != nil {
						return nil, err
					}
					b, err := temporalArg(".until", args[1], localDate|localDateTime)
					if err != nil {
						return nil, err
					}
					b.kind = localDate
					return String(periodBetween(a, b).String()), nil
				}
				return unitsBetween(".until", args[2], args[0], args[1])
			}},
		{Name: ".with", Sig: "(.with date (TemporalAdjusters/lastDayOfMonth))", Doc: "the date moved by a TemporalAdjuster", Category: "idiom", reach: javaForm,
			MinArgs: 2, MaxArgs: 2, Cost: cost(temporalText, builds), Fn: builtinWith},
		{Name: ".toEpochSecond", Sig: "(.toEpochSecond date-time offset)", Doc: "the seconds since the epoch of a local date-time at an offset", Category: "idiom", reach: javaForm,
			MinArgs: 2, MaxArgs: 2, Cost: cost(temporalText), Fn: func(th *Thread, args []Value) (Value, error) {
				t, off, err := atOffset(".toEpochSecond", args)
				if err != nil {
					return nil, err
				}
				return Int(t.day*86400 + t.nano/nanosPerSecond - off), nil
			}},
		{Name: ".toInstant", Sig: "(.toInstant date-time offset)", Doc: "the instant of a local date-time at an offset", Category: "idiom", reach: javaForm,
			MinArgs: 2, MaxArgs: 2, Cost: cost(temporalText, builds), Fn: func(th *Thread, args []Value) (Value, error) {
				t, off, err := atOffset(".toInstant", args)
				if err != nil {
					return nil, err
				}
				t.kind = instant
				t, err = addNanos(".toInstant", t, -off, nanosPerSecond)
				return t.value(), err
			}},
		{Name: ".format", Sig: "(.format date formatter) (.format formatter date)", Doc: "the date or time written with the formatter", Category: "idiom", reach: javaForm,
			MinArgs: 2, MaxArgs: 2, Cost: cost(scans(arg(0)), scans(arg(1)), patternWork, builds), Fn: func(th *Thread, args []Value) (Value, error) {
				value, fmtArg := args[0], args[1]
				if _, ok := asTemporal(value); !ok {
					value, fmtArg = args[1], args[0]
				}
				t, err := temporalArg(".format", value, localDate|localTime|localDateTime|instant)
				if err != nil {
					return nil, err
				}
				f, err := formatterOf(".format", fmtArg)
				if err != nil {
					return nil, err
				}
				s, err := f.format(".format", t)
				return String(s), err
			}},
		{Name: ".plus", Sig: "(.plus t amount) (.plus t n unit)", Doc: "t moved forward by a Duration, a Period or n units", Category: "idiom", reach: javaForm,
			MinArgs: 2, MaxArgs: 3, Cost: cost(temporalText, builds), Fn: func(th *Thread, args []Value) (Value, error) { return plusAmount(".plus", args, 1) }},
		{Name: ".minus", Sig: "(.minus t amount) (.minus t n unit)", Doc: "t moved back by a Duration, a Period or n units", Category: "idiom", reach: javaForm,
			MinArgs: 2, MaxArgs: 3, Cost: cost(temporalText, builds), Fn: func(th *Thread, args []Value) (Value, error) { return plusAmount(".minus", args, -1) }},
	},
	shiftMethods(),
	compareMethods(),
	getterMethods(),
	durationMethods(),
	[]*Builtin{
		withMethod(".withDayOfMonth", localDate|localDateTime, func(form string, t temporal, n int64) (temporal, string) {
			y, m, _ := t.civil()
			d, msg := makeDate(y, int64(m), n)
			t.day = d.day
			return t, msg
		}),
		withMethod(".withMonth", localDate|localDateTime, func(form string, t temporal, n int64) (temporal, string) {
			y, _, d := t.civil()
			if n < 1 || n > 12 {
				return t, "Invalid value for MonthOfYear (valid values 1 - 12): " + strconv.FormatInt(n, 10)
			}
			t.day = epochDay(y, time.Month(n), min(d, monthLength(y, time.Month(n))))
			return t, ""
		}),
		withMethod(".withYear", localDate|localDateTime, func(form string, t temporal, n int64) (temporal, string) {
			_, m, d := t.civil()
			if n < minYear || n > maxYear {
				return t, "Invalid value for Year (valid values -999999999 - 999999999): " + strconv.FormatInt(n, 10)
			}
			t.day = epochDay(n, m, min(d, monthLength(n, m)))
			return t, ""
		}),
		withMethod(".withHour", localTime|localDateTime, timeWith(nanosPerHour, 24, "HourOfDay", 23)),
		withMethod(".withMinute", localTime|localDateTime, timeWith(nanosPerMinute, 60, "MinuteOfHour", 59)),
		withMethod(".withSecond", localTime|localDateTime, timeWith(nanosPerSecond, 60, "SecondOfMinute", 59)),
		withMethod(".withNano", localTime|localDateTime, timeWith(1, nanosPerSecond, "NanoOfSecond", 999_999_999)),
		{Name: ".atStartOfDay", Sig: "(.atStartOfDay date)", Doc: "the date-time at midnight of the date", Category: "idiom", reach: javaForm,
			MinArgs: 1, MaxArgs: 1, Cost: cost(temporalText, builds), Fn: func(th *Thread, args []Value) (Value, error) {
				d, err := receiver(".atStartOfDay", args, localDate)
				if err != nil {
					return nil, err
				}
				return temporal{kind: localDateTime, day: d.day}.value(), nil
			}},
		{Name: ".atTime", Sig: "(.atTime date time) (.atTime date hour minute [second])", Doc: "the date-time of the date at a time", Category: "idiom", reach: javaForm,
			MinArgs: 2, MaxArgs: 4, Cost: cost(temporalText, builds), Fn: func(th *Thread, args []Value) (Value, error) {
				d, err := receiver(".atTime", args, localDate)
				if err != nil {
					return nil, err
				}
				if len(args) == 2 {
					t, err := temporalArg(".atTime", args[1], localTime)
					if err != nil {
						return nil, err
					}
					return temporal{kind: localDateTime, day: d.day, nano: t.nano}.value(), nil
				}
				f, err := intArgs(".atTime", args[1:])
				if err != nil {
					return nil, err
				}
				f = append(f, 0)
				nano, msg := makeTime(f[0], f[1], f[2], 0)
				if msg != "" {
					return nil, timeError(".atTime", "DateTimeException", msg)
				}
				return temporal{kind: localDateTime, day: d.day, nano: nano}.value(), nil
			}},
		{Name: ".atDate", Sig: "(.atDate time date)", Doc: "the date-time of the time on a date", Category: "idiom", reach: javaForm,
			MinArgs: 2, MaxArgs: 2, Cost: cost(temporalText, builds), Fn: func(th *Thread, args []Value) (Value, error) {
				t, err := receiver(".atDate", args, localTime)
				if err != nil {
					return nil, err
				}
				d, err := temporalArg(".atDate", args[1], localDate)
				if err != nil {
					return nil, err
				}
				return temporal{kind: localDateTime, day: d.day, nano: t.nano}.value(), nil
			}},
	},
)

// javaTimeConstants are java.time's static fields: ChronoUnit's units
// (as Java prints them, "Days"), DateTimeFormatter's ISO formatters (by
// name), and the constant values of the classes.
func javaTimeConstants() map[string]Value {
	m := map[string]Value{}
	add := func(pkg, name string, v Value) {
		m[name] = v
		m[pkg+name] = v
	}
	for _, u := range chronoUnits {
		var field strings.Builder
		for i, r := range u.name {
			if i > 0 && r >= 'A' && r <= 'Z' {
				field.WriteByte('_')
			}
			field.WriteRune(r)
		}
		add("java.time.temporal.", "ChronoUnit/"+strings.ToUpper(field.String()), String(u.name))
	}
	for name := range isoFormatters {
		add("java.time.format.", "DateTimeFormatter/"+name, String(name))
	}
	for m := time.January; m <= time.December; m++ {
		add("java.time.", "Month/"+strings.ToUpper(m.String()), String(strings.ToUpper(m.String())))
	}
	for _, style := range []string{"FULL", "SHORT", "NARROW"} {
		add("java.time.format.", "TextStyle/"+style, String(style))
		add("java.time.format.", "TextStyle/"+style+"_STANDALONE", String(style+"_STANDALONE"))
	}
	for name, tag := range javaLocales {
		add("java.util.", "Locale/"+name, String(tag))
	}
	add("java.time.", "ZoneOffset/UTC", String("Z"))
	add("java.time.", "Duration/ZERO", String("PT0S"))
	add("java.time.", "Period/ZERO", String("P0D"))
	add("java.time.", "LocalTime/MIDNIGHT", String("00:00"))
	add("java.time.", "LocalTime/MIN", String("00:00"))
	add("java.time.", "LocalTime/NOON", String("12:00"))
	add("java.time.", "LocalTime/MAX", String("23:59:59.999999999"))
	return m
}

// timeStatic is a static method of a java.time class, under its short
// and its full name.
func timeStatic(name, sig, doc string, minArgs, maxArgs int, fn func(form string, args []Value) (Value, error)) *Builtin {
	return &Builtin{Name: name, Sig: sig, Doc: doc, Category: "idiom", reach: javaStatic, aliases: []string{"java.time." + name},
		MinArgs: minArgs, MaxArgs: maxArgs, Cost: cost(scans(argsFrom(0)), patternWork, builds),
		Fn: func(th *Thread, args []Value) (Value, error) { return fn(name, args) }}
}

func intArgs(form string, args []Value) ([]int64, error) {
	out := make([]int64, len(args))
	for i := range args {
		n, err := intArg(form, args, i)
		if err != nil {
			return nil, err
		}
		if err := javaInt(form, n); err != nil && !strings.HasPrefix(form, "Duration/") {
			return nil, err
		}
		out[i] = n
	}
	return out, nil
}

// parseAs is LocalDate/parse and its kin: ISO text, or text read with a
// formatter.
func parseAs(kind temporalKind) func(string, []Value) (Value, error) {
	return func(form string, args []Value) (Value, error) {
		s, ok := args[0].(String)
		if !ok {
			return nil, typeErrorf(form, "a string", args[0])
		}
		f := isoFormatter(kind)
		if len(args) == 2 {
			var err error
			if f, err = formatterOf(form, args[1]); err != nil {
				return nil, err
			}
		}
		t, msg := f.parse(string(s), kind)
		if msg != "" {
			return nil, timeError(form, "DateTimeParseException", msg).
				WithHint(`ISO text is 2026-01-08, 10:15 or 2026-01-08T10:15; other text needs a formatter: (%s s (DateTimeFormatter/ofPattern "dd/MM/yyyy"))`, form)
		}
		return t.value(), nil
	}
}

func durationOf(name string, unit int64) *Builtin {
	return timeStatic(name, "("+name+" n)", "a Duration", 1, 1, func(form string, args []Value) (Value, error) {
		n, err := intArg(form, args, 0)
		if err != nil {
			return nil, err
		}
		d, err := ofUnits(form, n, unit)
		return String(d.String()), err
	})
}

func periodOf(name string, make func(int64) period) *Builtin {
	return timeStatic(name, "("+name+" n)", "a Period", 1, 1, func(form string, args []Value) (Value, error) {
		n, err := intArg(form, args, 0)
		if err != nil {
			return nil, err
		}
		if err := javaInt(form, n); err != nil {
			return nil, err
		}
		return make(n).value(form)
	})
}

// temporalNoMethod is Clojure's error for a method the receiver's class does not
// have.
func temporalNoMethod(name string, class string, nargs int) *Error {
	msg := "No matching method " + name[1:] + " found taking " + strconv.Itoa(nargs) + " args for class java.time." + class
	if nargs == 0 { // Clojure reads (.name x) as a field or a method
		msg = "No matching field found: " + name[1:] + " for class java.time." + class
	}
	return Errorf(executionError, "%s: %s has no such method", name, class).asJava("IllegalArgumentException", msg)
}

// receiver reads the first argument as a value of the classes kinds,
// with Clojure's error for another java.time class.
//
// The receiver's text is parsed once: parsed again by temporalArg, a
// loop of .plusDays spent 280 ns of CPU a step to the step limit.
func receiver(name string, args []Value, kinds temporalKind) (temporal, error) {
	t, ok := asTemporal(args[0])
	if !ok {
		return temporalArg(name, args[0], kinds) // its type error
	}
	if t.kind&kinds == 0 {
		return t, temporalNoMethod(name, t.kind.className(), len(args)-1)
	}
	return t, nil
}

// temporalText charges a java.time method for reading its arguments'
// ISO text and writing the result's: 0.5-1.5 µs, up to two dozen loop
// steps' time, which the step of the call alone paid for (a
// loop of .plusDays spent 280 ns of CPU a step to the step limit).
//
// Only a call given a text is charged: .getValue of a map entry reads
// none.
var temporalText = costTerm{what: "a fixed charge for reading and writing dates' ISO text", sel: allArgs,
	charge: func(th *Thread, vs []Value) error {
		for _, v := range vs {
			if _, ok := v.(String); ok {
				return th.step(temporalTextSteps)
			}
		}
		return nil
	}}

const temporalTextSteps = 24

// patternWork charges what a DateTimeFormatter pattern among the
// arguments costs, compiled from its text at every call and run: two
// steps a byte (compiling and writing a 900-byte pattern took 130 µs a
// call, charged a step per 64 bytes), besides temporalText.
var patternWork = costTerm{what: "two steps per byte of a date pattern compiled and run, and the dates' ISO text", sel: allArgs,
	charge: func(th *Thread, vs []Value) error {
		steps := int64(temporalTextSteps)
		for _, v := range vs {
			if s, ok := v.(String); ok {
				steps += 2 * int64(len(s))
			}
		}
		return th.step(steps)
	}}

// shiftMethods are .plusDays, .minusHours and their kin, on dates, times,
// date-times, Durations and Periods as each class has them.
func shiftMethods() []*Builtin {
	type shift struct {
		unit    string
		classes temporalKind
		amount  bool // Duration has it
		period  bool // Period has it
	}
	var rows []*Builtin
	for _, s := range []shift{
		{"Nanos", localTime | localDateTime | instant, true, false}, {"Millis", instant, true, false},
		{"Seconds", localTime | localDateTime | instant, true, false}, {"Minutes", localTime | localDateTime, true, false},
		{"Hours", localTime | localDateTime, true, false}, {"Days", localDate | localDateTime, true, true},
		{"Weeks", localDate | localDateTime, false, false}, {"Months", localDate | localDateTime, false, true},
		{"Years", localDate | localDateTime, false, true},
	} {
		u, _ := unitNamed(String(s.unit))
		for _, sign := range []int64{1, -1} {
			name := ".plus" + s.unit
			if sign < 0 {
				name = ".minus" + s.unit
			}
			rows = append(rows, &Builtin{Name: name, Sig: "(" + name + " t n)", Doc: "the value moved, as Java's", Category: "idiom", reach: javaForm,
				MinArgs: 2, MaxArgs: 2, Cost: cost(temporalText, builds), Fn: func(th *Thread, args []Value) (Value, error) {
					n, err := intArg(name, args, 1)
					if err != nil {
						return nil, err
					}
					if d, ok := asDuration(args[0]); ok && s.amount {
						o, err := ofUnits(name, n, u.nanos)
						if err == nil && sign < 0 {
							o, err = o.negated(name)
						}
						if err == nil {
							d, err = d.plus(name, o)
						}
						return String(d.String()), err
					}
					if p, ok := asPeriod(args[0]); ok && s.period {
						switch u.name {
						case "Days":
							p.days += sign * n
						case "Months":
							p.months += sign * n
						default:
							p.years += sign * n
						}
						return p.value(name)
					}
					t, err := receiver(name, args, s.classes)
					if err != nil {
						return nil, err
					}
					if sign < 0 && n == -n && n != 0 {
						return nil, overflow(name)
					}
					t, err = plusUnit(name, t, sign*n, u)
					return t.value(), err
				}})
		}
	}
	return rows
}

// plusAmount is .plus or .minus: of a Duration to a Duration, a Period to
// a Period, or of an amount or n units to a date or time.
func plusAmount(name string, args []Value, sign int64) (Value, error) {
	if len(args) == 3 {
		n, err := intArg(name, args, 1)
		if err != nil {
			return nil, err
		}
		u, err := unitArg(name, args[2])
		if err != nil {
			return nil, err
		}
		if d, ok := asDuration(args[0]); ok {
			if u.months > 0 || u.nanos > nanosPerDay {
				return nil, timeError(name, "UnsupportedTemporalTypeException", "Unit must not have an estimated duration")
			}
			o, err := ofUnits(name, sign*n, u.nanos)
			if err == nil {
				d, err = d.plus(name, o)
			}
			return String(d.String()), err
		}
		t, err := temporalArg(name, args[0], localDate|localTime|localDateTime|instant)
		if err != nil {
			return nil, err
		}
		t, err = plusUnit(name, t, sign*n, u)
		return t.value(), err
	}
	if d, ok := asDuration(args[0]); ok {
		o, err := durationArg(name, args[1])
		if err == nil && sign < 0 {
			o, err = o.negated(name)
		}
		if err == nil {
			d, err = d.plus(name, o)
		}
		return String(d.String()), err
	}
	if p, ok := asPeriod(args[0]); ok {
		o, err := periodArg(name, args[1])
		if err != nil {
			return nil, err
		}
		return period{p.years + sign*o.years, p.months + sign*o.months, p.days + sign*o.days}.value(name)
	}
	t, err := temporalArg(name, args[0], localDate|localTime|localDateTime|instant)
	if err != nil {
		return nil, err
	}
	if d, ok := asDuration(args[1]); ok {
		t, err = addDuration(name, t, d, sign)
	} else if p, ok := asPeriod(args[1]); ok {
		t, err = addPeriod(name, t, p, sign)
	} else {
		// plus has two one-argument overloads: reflection matches neither
		return nil, typeErrorf(name, "a Duration or a Period", args[1]).
			WithHint("(.plus t 2 ChronoUnit/HOURS), (.plus t (Duration/ofMinutes 30)) or (.plusDays t 1)").
			notSeqable(args[1])
	}
	return t.value(), err
}

// sameJavaTime reports whether a and b read as values of one java.time
// class, which .compareTo compares as that class does rather than as
// strings (a java.time value is its text here).
func sameJavaTime(a, b Value) bool {
	if _, ok := asDuration(a); ok {
		_, ok := asDuration(b)
		return ok
	}
	x, ok := asTemporal(a)
	if !ok {
		return false
	}
	y, ok := asTemporal(b)
	return ok && x.kind == y.kind
}

// temporalCompareTo is Java's compareTo: a date by its year, month and day
// differences, a time by the sign, a Duration by seconds then nanos.
func temporalCompareTo(args []Value) (Value, error) {
	if a, ok := asDuration(args[0]); ok {
		b, err := durationArg(".compareTo", args[1])
		if err != nil {
			return nil, err
		}
		if a.secs != b.secs {
			return Int(cmp.Compare(a.secs, b.secs)), nil
		}
		return Int(a.nanos - b.nanos), nil
	}
	a, err := temporalArg(".compareTo", args[0], localDate|localTime|localDateTime|instant)
	if err != nil {
		return nil, err
	}
	b, err := temporalArg(".compareTo", args[1], a.kind)
	if err != nil {
		return nil, err
	}
	return Int(compareTemporal(a, b)), nil
}

func compareTemporal(a, b temporal) int64 {
	if a.kind == instant { // by seconds, then the difference of the nanoseconds
		as, bs := a.day*86400+a.nano/nanosPerSecond, b.day*86400+b.nano/nanosPerSecond
		if as != bs {
			return int64(cmp.Compare(as, bs))
		}
		return a.nano%nanosPerSecond - b.nano%nanosPerSecond
	}
	if a.hasDate() {
		ay, am, ad := a.civil()
		by, bm, bd := b.civil()
		switch {
		case ay != by:
			return ay - by
		case am != bm:
			return int64(am - bm)
		case ad != bd:
			return int64(ad - bd)
		}
	}
	if a.hasTime() {
		return int64(cmp.Compare(a.nano, b.nano))
	}
	return 0
}

func compareMethods() []*Builtin {
	var rows []*Builtin
	for _, c := range []struct {
		name    string
		classes temporalKind
		test    func(int64) bool
	}{
		{".isBefore", localDate | localTime | localDateTime | instant, func(c int64) bool { return c < 0 }},
		{".isAfter", localDate | localTime | localDateTime | instant, func(c int64) bool { return c > 0 }},
		{".isEqual", localDate | localDateTime, func(c int64) bool { return c == 0 }},
	} {
		rows = append(rows, &Builtin{Name: c.name, Sig: "(" + c.name + " t other)", Doc: "compare two dates or times", Category: "idiom", reach: javaForm,
			MinArgs: 2, MaxArgs: 2, Cost: cost(temporalText), Fn: func(th *Thread, args []Value) (Value, error) {
				a, err := receiver(c.name, args, c.classes)
				if err != nil {
					return nil, err
				}
				b, err := temporalArg(c.name, args[1], a.kind)
				if err != nil {
					return nil, err
				}
				return boolValue(c.test(compareTemporal(a, b))), nil
			}})
	}
	return rows
}

// getterMethods read a field of a date, time or date-time.
func getterMethods() []*Builtin {
	dates, times := localDate|localDateTime, localTime|localDateTime
	year := func(t temporal) int64 { y, _, _ := t.civil(); return y }
	rows := []struct {
		name    string
		classes temporalKind
		get     func(t temporal) Value
	}{
		{".getYear", dates, func(t temporal) Value { return Int(year(t)) }},
		{".getMonthValue", dates, func(t temporal) Value { return Int(fieldValue('M', t)) }},
		{".getMonth", dates, func(t temporal) Value { _, m, _ := t.civil(); return String(strings.ToUpper(m.String())) }},
		{".getDayOfMonth", dates, func(t temporal) Value { return Int(fieldValue('d', t)) }},
		{".getDayOfYear", dates, func(t temporal) Value { return Int(fieldValue('D', t)) }},
		{".getDayOfWeek", dates, func(t temporal) Value { return String(strings.ToUpper(t.weekday().String())) }},
		{".isLeapYear", localDate, func(t temporal) Value { return boolValue(isLeap(year(t))) }},
		{".lengthOfMonth", localDate, func(t temporal) Value { _, m, _ := t.civil(); return Int(monthLength(year(t), m)) }},
		{".lengthOfYear", localDate, func(t temporal) Value { return Int(365 + monthLength(year(t), time.February) - 28) }},
		{".toEpochDay", localDate, func(t temporal) Value { return Int(t.day) }},
		{".getHour", times, func(t temporal) Value { return Int(fieldValue('H', t)) }},
		{".getMinute", times, func(t temporal) Value { return Int(fieldValue('m', t)) }},
		{".getSecond", times, func(t temporal) Value { return Int(fieldValue('s', t)) }},
		{".toSecondOfDay", localTime, func(t temporal) Value { return Int(t.nano / nanosPerSecond) }},
		{".toNanoOfDay", localTime, func(t temporal) Value { return Int(t.nano) }},
		{".toLocalDate", localDateTime, func(t temporal) Value { return temporal{kind: localDate, day: t.day}.value() }},
		{".toLocalTime", localDateTime, func(t temporal) Value { return temporal{kind: localTime, nano: t.nano}.value() }},
	}
	out := make([]*Builtin, 0, len(rows))
	for _, r := range rows {
		out = append(out, &Builtin{Name: r.name, Sig: "(" + r.name + " t)", Doc: "a field of the date or time, as Java's", Category: "idiom", reach: javaForm,
			MinArgs: 1, MaxArgs: 1, Cost: cost(temporalText), Fn: func(th *Thread, args []Value) (Value, error) {
				t, err := receiver(r.name, args, r.classes)
				if err != nil {
					return nil, err
				}
				return r.get(t), nil
			}})
	}
	return out
}

// durationMethods read and combine Durations (and Periods, where Java's
// Period has the method).
func durationMethods() []*Builtin {
	type method struct {
		name string
		fn   func(form string, d duration) (Value, error)
	}
	whole := func(unit int64) func(string, duration) (Value, error) {
		return func(form string, d duration) (Value, error) { return Int(d.secs / (unit / nanosPerSecond)), nil }
	}
	part := func(unit, modulo int64) func(string, duration) (Value, error) {
		return func(form string, d duration) (Value, error) {
			return Int(d.secs / (unit / nanosPerSecond) % modulo), nil
		}
	}
	rows := []method{
		{".toDays", whole(nanosPerDay)}, {".toHours", whole(nanosPerHour)}, {".toMinutes", whole(nanosPerMinute)},
		{".getSeconds", whole(nanosPerSecond)}, {".toSeconds", whole(nanosPerSecond)},
		{".toDaysPart", whole(nanosPerDay)}, {".toHoursPart", part(nanosPerHour, 24)}, {".toMinutesPart", part(nanosPerMinute, 60)},
		{".toSecondsPart", part(nanosPerSecond, 60)},
		{".toMillisPart", func(form string, d duration) (Value, error) { return Int(d.nanos / 1_000_000), nil }},
		{".toMillis", func(form string, d duration) (Value, error) {
			ms, err := mulExact(form, d.secs, 1000)
			if err == nil {
				ms, err = addExact(form, ms, d.nanos/1_000_000)
			}
			return Int(ms), err
		}},
		{".toNanos", func(form string, d duration) (Value, error) {
			ns, err := mulExact(form, d.secs, nanosPerSecond)
			if err == nil {
				ns, err = addExact(form, ns, d.nanos)
			}
			return Int(ns), err
		}},
		{".abs", func(form string, d duration) (Value, error) {
			if d.secs < 0 {
				n, err := d.negated(form)
				return String(n.String()), err
			}
			return String(d.String()), nil
		}},
	}
	var out []*Builtin
	for _, r := range rows {
		out = append(out, &Builtin{Name: r.name, Sig: "(" + r.name + " duration)", Doc: "the Duration's amount, as Java's", Category: "idiom", reach: javaForm,
			MinArgs: 1, MaxArgs: 1, Cost: cost(temporalText), Fn: func(th *Thread, args []Value) (Value, error) {
				d, err := durationArg(r.name, args[0])
				if err != nil {
					return nil, err
				}
				return r.fn(r.name, d)
			}})
	}
	out = append(out,
		&Builtin{Name: ".getNano", Sig: "(.getNano t)", Doc: "the nanoseconds of a time or Duration", Category: "idiom", reach: javaForm,
			MinArgs: 1, MaxArgs: 1, Cost: cost(temporalText), Fn: func(th *Thread, args []Value) (Value, error) {
				if d, ok := asDuration(args[0]); ok {
					return Int(d.nanos), nil
				}
				t, err := receiver(".getNano", args, localTime|localDateTime)
				return Int(t.nano % nanosPerSecond), err
			}},
		amountTest(".isNegative", func(d duration) bool { return d.secs < 0 }, func(p period) bool { return p.years < 0 || p.months < 0 || p.days < 0 }),
		amountTest(".isZero", func(d duration) bool { return d == duration{} }, func(p period) bool { return p == period{} }),
		&Builtin{Name: ".negated", Sig: "(.negated amount)", Doc: "the Duration or Period with its sign changed", Category: "idiom", reach: javaForm,
			MinArgs: 1, MaxArgs: 1, Cost: cost(temporalText, builds), Fn: func(th *Thread, args []Value) (Value, error) {
				if p, ok := asPeriod(args[0]); ok {
					return period{-p.years, -p.months, -p.days}.value(".negated")
				}
				d, err := durationArg(".negated", args[0])
				if err == nil {
					d, err = d.negated(".negated")
				}
				return String(d.String()), err
			}},
		&Builtin{Name: ".multipliedBy", Sig: "(.multipliedBy amount n)", Doc: "the Duration or Period times n", Category: "idiom", reach: javaForm,
			MinArgs: 2, MaxArgs: 2, Cost: cost(temporalText, builds), Fn: func(th *Thread, args []Value) (Value, error) {
				n, err := intArg(".multipliedBy", args, 1)
				if err != nil {
					return nil, err
				}
				if p, ok := asPeriod(args[0]); ok {
					if err := javaInt(".multipliedBy", n); err != nil {
						return nil, err
					}
					return period{p.years * n, p.months * n, p.days * n}.value(".multipliedBy")
				}
				d, err := durationArg(".multipliedBy", args[0])
				if err != nil {
					return nil, err
				}
				s, err := mulExact(".multipliedBy", d.secs, n)
				if err != nil {
					return nil, err
				}
				ns, err := mulExact(".multipliedBy", d.nanos, n)
				if err != nil {
					return nil, err
				}
				d, err = makeDuration(".multipliedBy", s, ns)
				return String(d.String()), err
			}},
		&Builtin{Name: ".dividedBy", Sig: "(.dividedBy duration n)", Doc: "the Duration divided by n", Category: "idiom", reach: javaForm,
			MinArgs: 2, MaxArgs: 2, Cost: cost(temporalText, builds), Fn: func(th *Thread, args []Value) (Value, error) {
				d, err := durationArg(".dividedBy", args[0])
				if err != nil {
					return nil, err
				}
				n, err := intArg(".dividedBy", args, 1)
				if err != nil {
					return nil, err
				}
				if n == 0 {
					return nil, Errorf(executionError, ".dividedBy: division by zero").asJava("ArithmeticException", "Cannot divide by zero")
				}
				// Whole seconds, then the remainder with the nanoseconds,
				// truncated toward zero as Java's BigDecimal division.
				q, r := d.secs/n, d.secs%n
				rest := (r*nanosPerSecond + d.nanos) / n
				d, err = makeDuration(".dividedBy", q, rest)
				return String(d.String()), err
			}},
	)
	for _, r := range []struct {
		name string
		get  func(p period) int64
	}{{".getYears", func(p period) int64 { return p.years }}, {".getMonths", func(p period) int64 { return p.months }},
		{".getDays", func(p period) int64 { return p.days }}, {".toTotalMonths", func(p period) int64 { return p.years*12 + p.months }}} {
		out = append(out, &Builtin{Name: r.name, Sig: "(" + r.name + " period)", Doc: "the Period's amount", Category: "idiom", reach: javaForm,
			MinArgs: 1, MaxArgs: 1, Cost: cost(temporalText), Fn: func(th *Thread, args []Value) (Value, error) {
				p, err := periodArg(r.name, args[0])
				if err != nil {
					return nil, err
				}
				return Int(r.get(p)), nil
			}})
	}
	return out
}

func amountTest(name string, dtest func(duration) bool, ptest func(period) bool) *Builtin {
	return &Builtin{Name: name, Sig: "(" + name + " amount)", Doc: "a test of the Duration or Period", Category: "idiom", reach: javaForm,
		MinArgs: 1, MaxArgs: 1, Cost: cost(temporalText), Fn: func(th *Thread, args []Value) (Value, error) {
			if p, ok := asPeriod(args[0]); ok {
				return boolValue(ptest(p)), nil
			}
			d, err := durationArg(name, args[0])
			if err != nil {
				return nil, err
			}
			return boolValue(dtest(d)), nil
		}}
}

// withMethod is .withDayOfMonth and its kin: a copy with one field set.
func withMethod(name string, classes temporalKind, set func(form string, t temporal, n int64) (temporal, string)) *Builtin {
	return &Builtin{Name: name, Sig: "(" + name + " t n)", Doc: "the date or time with the field set, as Java's", Category: "idiom", reach: javaForm,
		MinArgs: 2, MaxArgs: 2, Cost: cost(temporalText, builds), Fn: func(th *Thread, args []Value) (Value, error) {
			t, err := receiver(name, args, classes)
			if err != nil {
				return nil, err
			}
			n, err := intArg(name, args, 1)
			if err != nil {
				return nil, err
			}
			t, msg := set(name, t, n)
			if msg != "" {
				return nil, timeError(name, "DateTimeException", msg)
			}
			return t.value(), nil
		}}
}

// timeWith sets the field of unit nanoseconds (of modulo values) to n.
func timeWith(unit, modulo int64, field string, hi int64) func(string, temporal, int64) (temporal, string) {
	return func(form string, t temporal, n int64) (temporal, string) {
		if n < 0 || n > hi {
			return t, "Invalid value for " + field + " (valid values 0 - " + strconv.FormatInt(hi, 10) + "): " + strconv.FormatInt(n, 10)
		}
		old := t.nano / unit % modulo
		t.nano += (n - old) * unit
		return t, ""
	}
}

// javaLocales are Locale's constants, as Locale.toString writes them.
// Names of days and months are English here, as the JVM's default
// locale gives them; another locale is refused where it would change a
// name, and numbers are the same in all of these.
var javaLocales = map[string]string{"US": "en_US", "ENGLISH": "en", "UK": "en_GB", "CANADA": "en_CA", "ROOT": "",
	"FRENCH": "fr", "GERMAN": "de", "ITALIAN": "it", "JAPANESE": "ja", "KOREAN": "ko", "CHINESE": "zh",
	"FRANCE": "fr_FR", "GERMANY": "de_DE", "ITALY": "it_IT", "JAPAN": "ja_JP", "KOREA": "ko_KR", "CHINA": "zh_CN",
	"CANADA_FRENCH": "fr_CA"}

func englishLocale(form string, v Value) error {
	s, ok := v.(String)
	if !ok {
		return typeErrorf(form, "a Locale (Locale/US)", v)
	}
	if s != "" && s != "en" && !strings.HasPrefix(string(s), "en_") {
		return Errorf(validationError, "%s: names of days and months are in English here, not in the locale %s", form, s).
			WithHint("use Locale/US, or leave the locale out: (DateTimeFormatter/ofPattern pattern)")
	}
	return nil
}

// builtinDisplayName is .getDisplayName of a day of the week or a month
// (their names, "MONDAY"), in a TextStyle.
func builtinDisplayName(th *Thread, args []Value) (Value, error) {
	name, _ := args[0].(String)
	style, _ := args[1].(String)
	if err := englishLocale(".getDisplayName", args[2]); err != nil {
		return nil, err
	}
	count := map[String]int{"FULL": 4, "FULL_STANDALONE": 4, "SHORT": 3, "SHORT_STANDALONE": 3, "NARROW": 5, "NARROW_STANDALONE": 5}[style]
	if count == 0 {
		return nil, typeErrorf(".getDisplayName", "a TextStyle (TextStyle/FULL, SHORT or NARROW)", args[1])
	}
	for i, d := range dayNames {
		if strings.ToUpper(d) == string(name) {
			return String(texts('E', count)[i]), nil
		}
	}
	for m := time.January; m <= time.December; m++ {
		if strings.ToUpper(m.String()) == string(name) {
			return String(texts('M', count)[m-1]), nil
		}
	}
	return nil, typeErrorf(".getDisplayName", "a day of the week or a month", args[0])
}

// instantOf is Instant/ofEpochMilli or ofEpochSecond: n units of unit
// nanoseconds after the epoch, within Java's years -1000000000 to
// 1000000000.
func instantOf(unit int64) func(string, []Value) (Value, error) {
	return func(form string, args []Value) (Value, error) {
		n, err := intArg(form, args, 0)
		if err != nil {
			return nil, err
		}
		perDay := nanosPerDay / unit
		t := temporal{kind: instant, day: floorDiv(n, perDay), nano: floorMod(n, perDay) * unit}
		if t.day < minEpochDay || t.day > maxEpochDay {
			return nil, timeError(form, "DateTimeException", "Instant exceeds minimum or maximum instant")
		}
		return t.value(), nil
	}
}

// unitsBetween is (.between unit from to) and (.until from to unit).
func unitsBetween(form string, unit, from, to Value) (Value, error) {
	u, err := unitArg(form, unit)
	if err != nil {
		return nil, err
	}
	a, err := temporalArg(form, from, localDate|localTime|localDateTime|instant)
	if err != nil {
		return nil, err
	}
	b, err := temporalArg(form, to, localDate|localTime|localDateTime|instant)
	if err != nil {
		return nil, err
	}
	n, err := until(form, a, b, u)
	return Int(n), err
}

// adjuster is a static of TemporalAdjusters: the adjuster is its call as
// text, "lastDayOfMonth" or "next(MONDAY)", which .with applies.
func adjuster(method string) *Builtin {
	name := "TemporalAdjusters/" + method
	takesDay := strings.HasPrefix(method, "next") || strings.HasPrefix(method, "previous") || strings.HasSuffix(method, "InMonth")
	n := 0
	if takesDay {
		n = 1
	}
	return &Builtin{Name: name, Sig: "(" + name + strings.Repeat(" day-of-week", n) + ")", Doc: "a TemporalAdjuster, for .with", Category: "idiom",
		reach: javaStatic, aliases: []string{"java.time.temporal." + name}, MinArgs: n, MaxArgs: n, Cost: cost(temporalText, builds),
		Fn: func(th *Thread, args []Value) (Value, error) {
			if !takesDay {
				return String(method), nil
			}
			if _, err := weekdayArg(name, args[0]); err != nil {
				return nil, err
			}
			return String(method + "(" + string(args[0].(String)) + ")"), nil
		}}
}

// weekdayArg reads a DayOfWeek, as .getDayOfWeek and DayOfWeek/MONDAY give
// it: Monday 1 to Sunday 7.
func weekdayArg(form string, v Value) (int64, error) {
	if s, ok := v.(String); ok {
		for i, d := range dayNames {
			if strings.ToUpper(d) == string(s) {
				return int64(i + 1), nil
			}
		}
	}
	return 0, typeErrorf(form, "a day of the week (DayOfWeek/MONDAY)", v)
}

// builtinWith is (.with date adjuster): Java's TemporalAdjusters.
func builtinWith(th *Thread, args []Value) (Value, error) {
	t, err := receiver(".with", args, localDate|localDateTime)
	if err != nil {
		return nil, err
	}
	adj, _ := args[1].(String)
	method, day, _ := strings.Cut(strings.TrimSuffix(string(adj), ")"), "(")
	dow := int64(0)
	if day != "" {
		if dow, err = weekdayArg(".with", String(day)); err != nil {
			return nil, err
		}
	}
	y, m, _ := t.civil()
	weekday := fieldValue('E', t)
	switch method {
	case "firstDayOfMonth":
		t.day = epochDay(y, m, 1)
	case "lastDayOfMonth":
		t.day = epochDay(y, m, monthLength(y, m))
	case "firstDayOfNextMonth":
		t.day = epochDay(y, m, monthLength(y, m)) + 1
	case "firstDayOfYear":
		t.day = epochDay(y, time.January, 1)
	case "lastDayOfYear":
		t.day = epochDay(y, time.December, 31)
	case "firstDayOfNextYear":
		t.day = epochDay(y, time.December, 31) + 1
	case "next":
		t.day += floorMod(dow-weekday-1, 7) + 1
	case "nextOrSame":
		t.day += floorMod(dow-weekday, 7)
	case "previous":
		t.day -= floorMod(weekday-dow-1, 7) + 1
	case "previousOrSame":
		t.day -= floorMod(weekday-dow, 7)
	case "firstInMonth":
		first := temporal{kind: localDate, day: epochDay(y, m, 1)}
		t.day = first.day + floorMod(dow-fieldValue('E', first), 7)
	case "lastInMonth":
		last := temporal{kind: localDate, day: epochDay(y, m, monthLength(y, m))}
		t.day = last.day - floorMod(fieldValue('E', last)-dow, 7)
	default:
		return nil, typeErrorf(".with", "a TemporalAdjuster", args[1]).
			WithHint("(TemporalAdjusters/lastDayOfMonth) and the other TemporalAdjusters make one; (.withDayOfMonth d 1) sets the day")
	}
	if t.day < minEpochDay || t.day > maxEpochDay {
		return nil, fieldError(".with", "EpochDay", minEpochDay, maxEpochDay, t.day)
	}
	return t.value(), nil
}

// zoneArg reads a zone: "Z" (ZoneOffset/UTC), "UTC", "GMT" or a fixed
// offset "+02:00"; anyZone takes the region names of ZoneId too. The
// zone's rules are not here, so a region other than UTC is refused.
func zoneArg(form string, v Value, anyZone bool) (offset int64, text string, err error) {
	s, ok := v.(String)
	if !ok {
		return 0, "", typeErrorf(form, "a zone (ZoneOffset/UTC)", v)
	}
	switch {
	case s == "Z":
		return 0, "Z", nil
	case anyZone && (s == "UTC" || s == "GMT" || s == "UT"):
		return 0, string(s), nil
	case len(s) == 6 && offsetLength(string(s)) == 6:
		h, m := int64(s[1]-'0')*10+int64(s[2]-'0'), int64(s[4]-'0')*10+int64(s[5]-'0')
		if h <= 18 && m <= 59 && h*60+m <= 18*60 {
			off := h*3600 + m*60
			if s[0] == '-' {
				off = -off
			}
			return off, offsetText(off), nil
		}
	}
	return 0, "", Errorf(validationError, "%s: the zone %s is not available: only UTC and fixed offsets are", form, describe(s)).
		WithHint(`use ZoneOffset/UTC, or a fixed offset such as (ZoneOffset/of "+02:00")`)
}

// offsetText is Java's ZoneOffset text: Z, or +HH:MM.
func offsetText(secs int64) string {
	if secs == 0 {
		return "Z"
	}
	sign := "+"
	if secs < 0 {
		sign, secs = "-", -secs
	}
	return sign + zeroPad(secs/3600, 2) + ":" + zeroPad(secs/60%60, 2)
}

// ofInstant is LocalDateTime/ofInstant or LocalDate/ofInstant.
func ofInstant(kind temporalKind) func(string, []Value) (Value, error) {
	return func(form string, args []Value) (Value, error) {
		t, err := temporalArg(form, args[0], instant)
		if err != nil {
			return nil, err
		}
		off, _, err := zoneArg(form, args[1], true)
		if err != nil {
			return nil, err
		}
		if t, err = addNanos(form, t, off, nanosPerSecond); err != nil {
			return nil, err
		}
		t.kind = kind
		if kind == localDate {
			t.nano = 0
		}
		return t.value(), nil
	}
}

// atOffset reads (.toEpochSecond date-time offset) and its kin.
func atOffset(form string, args []Value) (temporal, int64, error) {
	t, err := receiver(form, args, localDateTime)
	if err != nil {
		return t, 0, err
	}
	off, _, err := zoneArg(form, args[1], false)
	return t, off, err
}
