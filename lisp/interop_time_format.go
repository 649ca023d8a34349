package lisp

import (
	"errors"
	"slices"
	"strconv"
	"strings"
	"time"
)

// DateTimeFormatter: a formatter is its pattern, the string given to
// DateTimeFormatter/ofPattern, or the name of one of Java's constants
// ("ISO_LOCAL_DATE"), which no valid pattern spells (I is not a pattern
// letter). It formats and parses as Java's does in English, the JVM's
// default locale: the pattern letters of dates and times (y u M L d D E
// Q G a H h k K m s S), 'quoted' literals and [optional] sections.
// ofPattern's formatters resolve a parsed date as Java's SMART style
// (February 31 becomes February 28 or 29), the ISO constants as STRICT.

// fmtItem is one element of a pattern.
type fmtItem struct {
	lit      string    // literal text, when letter is 0
	letter   byte      // the pattern letter
	count    int       // how many times it is repeated
	optional []fmtItem // an optional section, when letter is '['
	// Numbers: the digits written and read. exceedsPad writes a sign
	// when the value needs more than minWidth digits (yyyy); fraction is
	// ISO's fraction of a second, written only when not zero.
	minWidth, maxWidth int
	exceedsPad         bool
	reduced            bool // yy: two digits of a year from 2000
	fraction           bool
	offset, zone       bool // ISO's offset and zone id, read and not kept
}

type dateFormatter struct {
	items  []fmtItem
	strict bool
}

// The letters Java knows but this formatter does not write: refused,
// where Java would give another answer.
const unsupportedLetters = "YwWecFANnVvzOXxZpBg"

// The ISO formatters are built once and never changed: formatting and
// parsing only read them.
var (
	isoDate     = []fmtItem{{letter: 'u', count: 4, minWidth: 4, maxWidth: 10, exceedsPad: true}, {lit: "-"}, {letter: 'M', count: 2, minWidth: 2, maxWidth: 2}, {lit: "-"}, {letter: 'd', count: 2, minWidth: 2, maxWidth: 2}}
	isoClock    = []fmtItem{{letter: 'H', count: 2, minWidth: 2, maxWidth: 2}, {lit: ":"}, {letter: 'm', count: 2, minWidth: 2, maxWidth: 2}, {letter: '[', optional: []fmtItem{{lit: ":"}, {letter: 's', count: 2, minWidth: 2, maxWidth: 2}, {letter: '[', optional: []fmtItem{{letter: 'S', fraction: true, minWidth: 0, maxWidth: 9}}}}}}
	isoDateTime = slices.Concat(isoDate, []fmtItem{{lit: "T"}}, isoClock)
	// An offset (Z, +01:00) and a zone ([Europe/Paris]), which ISO_DATE,
	// ISO_TIME and ISO_DATE_TIME read and a local value does not have.
	isoOffset = fmtItem{letter: '[', optional: []fmtItem{{letter: 'O', offset: true}}}
	isoZoned  = fmtItem{letter: '[', optional: []fmtItem{{letter: 'O', offset: true}, {letter: '[', optional: []fmtItem{{lit: "["}, {letter: 'V', zone: true}, {lit: "]"}}}}}

	isoFormatters = map[string]*dateFormatter{
		"ISO_LOCAL_DATE":      {strict: true, items: isoDate},
		"ISO_DATE":            {strict: true, items: slices.Concat(isoDate, []fmtItem{isoOffset})},
		"ISO_LOCAL_TIME":      {strict: true, items: isoClock},
		"ISO_TIME":            {strict: true, items: slices.Concat(isoClock, []fmtItem{isoOffset})},
		"ISO_LOCAL_DATE_TIME": {strict: true, items: isoDateTime},
		"ISO_DATE_TIME":       {strict: true, items: slices.Concat(isoDateTime, []fmtItem{isoZoned})},
		"BASIC_ISO_DATE": {strict: true, items: []fmtItem{{letter: 'u', count: 4, minWidth: 4, maxWidth: 4},
			{letter: 'M', count: 2, minWidth: 2, maxWidth: 2}, {letter: 'd', count: 2, minWidth: 2, maxWidth: 2}, isoOffset}},
	}
)

// isoFormatter is ISO_LOCAL_DATE, ISO_LOCAL_TIME or ISO_LOCAL_DATE_TIME.
func isoFormatter(kind temporalKind) *dateFormatter {
	switch kind {
	case localDate:
		return isoFormatters["ISO_LOCAL_DATE"]
	case localTime:
		return isoFormatters["ISO_LOCAL_TIME"]
	}
	return isoFormatters["ISO_LOCAL_DATE_TIME"]
}

// formatterOf reads v as a formatter: a pattern or a constant's name.
func formatterOf(form string, v Value) (*dateFormatter, error) {
	s, ok := v.(String)
	if !ok {
		return nil, typeErrorf(form, "a DateTimeFormatter", v).
			WithHint(`(DateTimeFormatter/ofPattern "dd/MM/yyyy") makes one`)
	}
	if iso, ok := isoFormatters[string(s)]; ok {
		return iso, nil
	}
	return compilePattern(form, string(s))
}

// maxSectionDepth bounds the nesting of [optional] sections, which
// formatting and parsing walk recursively.
const maxSectionDepth = 16

// compilePattern reads a pattern as DateTimeFormatter.ofPattern does.
func compilePattern(form, pattern string) (*dateFormatter, error) {
	bad := func(msg string) error {
		return Errorf(executionError, "%s: %s", form, msg).asJava("IllegalArgumentException", msg)
	}
	var stack [][]fmtItem
	var items []fmtItem
	for i := 0; i < len(pattern); {
		c := pattern[i]
		switch {
		case (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'):
			n := 1
			for i+n < len(pattern) && pattern[i+n] == c {
				n++
			}
			i += n
			it, err := letterItem(c, n)
			if err != "" {
				if strings.HasPrefix(err, "unsupported") {
					return nil, Errorf(validationError, "%s: the pattern letter %c is not supported", form, c).
						WithHint("format with the letters y u M L d D E Q G a H h k K m s S, or build the text with str")
				}
				return nil, bad(err)
			}
			items = append(items, it)
		case c == '\'':
			end := i + 1
			var lit strings.Builder
			for {
				if end >= len(pattern) {
					return nil, bad("Pattern ends with an incomplete string literal: " + pattern)
				}
				if pattern[end] == '\'' {
					if end+1 < len(pattern) && pattern[end+1] == '\'' {
						lit.WriteByte('\'')
						end += 2
						continue
					}
					break
				}
				lit.WriteByte(pattern[end])
				end++
			}
			if end == i+1 {
				lit.WriteByte('\'') // '' is a quote
			}
			items = append(items, fmtItem{lit: lit.String()})
			i = end + 1
		case c == '[':
			if len(stack) >= maxSectionDepth {
				return nil, Errorf(validationError, "%s: the pattern nests more than %d optional sections", form, maxSectionDepth)
			}
			stack = append(stack, items)
			items = nil
			i++
		case c == ']':
			if len(stack) == 0 {
				return nil, bad("Pattern invalid as it contains ] without previous [")
			}
			section := fmtItem{letter: '[', optional: items}
			items = append(stack[len(stack)-1], section)
			stack = stack[:len(stack)-1]
			i++
		case c == '{' || c == '}' || c == '#':
			return nil, bad("Pattern includes reserved character: '" + string(c) + "'")
		default:
			items = append(items, fmtItem{lit: string(c)})
			i++
		}
	}
	for len(stack) > 0 { // an open section ends with the pattern, as in Java
		items = append(stack[len(stack)-1], fmtItem{letter: '[', optional: items})
		stack = stack[:len(stack)-1]
	}
	return &dateFormatter{items: items}, nil
}

// letterItem is the item for a letter repeated n times, or Java's error.
func letterItem(c byte, n int) (fmtItem, string) {
	it := fmtItem{letter: c, count: n}
	tooMany := "Too many pattern letters: " + string(c)
	switch c {
	case 'y', 'u':
		switch {
		case n == 2:
			it.reduced, it.minWidth, it.maxWidth = true, 2, 2
		case n > 19:
			return it, tooMany
		case n < 4:
			it.minWidth, it.maxWidth = n, 19
		default:
			it.minWidth, it.maxWidth, it.exceedsPad = n, 19, true
		}
	case 'M', 'L', 'Q', 'q':
		if n > 5 {
			return it, tooMany
		}
		it.minWidth, it.maxWidth = n, 19
		if n == 2 {
			it.maxWidth = 2
		}
	case 'd', 'H', 'h', 'k', 'K', 'm', 's':
		if n > 2 {
			return it, tooMany
		}
		it.minWidth, it.maxWidth = n, 19
		if n == 2 {
			it.maxWidth = 2
		}
	case 'D':
		switch n {
		case 1:
			it.minWidth, it.maxWidth = 1, 19
		case 2:
			it.minWidth, it.maxWidth = 2, 3
		case 3:
			it.minWidth, it.maxWidth = 3, 3
		default:
			return it, tooMany
		}
	case 'E', 'G':
		if n > 5 {
			return it, tooMany
		}
	case 'a':
		if n > 1 {
			return it, tooMany
		}
	case 'S':
		if n > 9 {
			return it, "Minimum width must be from 0 to 9 inclusive but was " + strconv.Itoa(n)
		}
		it.minWidth, it.maxWidth = n, n
	default:
		if strings.IndexByte(unsupportedLetters, c) >= 0 {
			return it, "unsupported"
		}
		return it, "Unknown pattern letter: " + string(c)
	}
	return it, ""
}

// writesNames reports whether f writes a name (a month, a day, AM/PM),
// which depends on the locale.
func (f *dateFormatter) writesNames() bool {
	var names func(items []fmtItem) bool
	names = func(items []fmtItem) bool {
		for _, it := range items {
			if (it.letter == '[' && names(it.optional)) || (it.letter != 0 && it.letter != '[' && texts(it.letter, it.count) != nil) {
				return true
			}
		}
		return false
	}
	return names(f.items)
}

// fieldNames are Java's names of the fields the letters stand for.
var fieldNames = map[byte]string{'y': "YearOfEra", 'u': "Year", 'M': "MonthOfYear", 'L': "MonthOfYear", 'd': "DayOfMonth",
	'D': "DayOfYear", 'E': "DayOfWeek", 'Q': "QuarterOfYear", 'q': "QuarterOfYear", 'G': "Era", 'H': "HourOfDay",
	'h': "ClockHourOfAmPm", 'k': "ClockHourOfDay", 'K': "HourOfAmPm", 'm': "MinuteOfHour", 's': "SecondOfMinute",
	'S': "NanoOfSecond", 'a': "AmPmOfDay"}

func timeLetter(c byte) bool { return strings.IndexByte("HhkKmsSa", c) >= 0 }

// fieldValue is the value of a letter's field in t.
func fieldValue(c byte, t temporal) int64 {
	h := t.nano / nanosPerHour
	switch c {
	case 'y':
		if y, _, _ := t.civil(); y <= 0 {
			return 1 - y
		}
		y, _, _ := t.civil()
		return y
	case 'u':
		y, _, _ := t.civil()
		return y
	case 'M', 'L':
		_, m, _ := t.civil()
		return int64(m)
	case 'Q', 'q':
		_, m, _ := t.civil()
		return (int64(m)-1)/3 + 1
	case 'd':
		_, _, d := t.civil()
		return int64(d)
	case 'D':
		y, _, _ := t.civil()
		return t.day - epochDay(y, time.January, 1) + 1
	case 'E':
		return int64((int(t.weekday())+6)%7 + 1)
	case 'G':
		if y, _, _ := t.civil(); y <= 0 {
			return 0
		}
		return 1
	case 'H':
		return h
	case 'h':
		if h%12 == 0 {
			return 12
		}
		return h % 12
	case 'k':
		if h == 0 {
			return 24
		}
		return h
	case 'K':
		return h % 12
	case 'm':
		return t.nano / nanosPerMinute % 60
	case 's':
		return t.nano / nanosPerSecond % 60
	case 'S':
		return t.nano % nanosPerSecond
	case 'a':
		return h / 12
	}
	return 0
}

var (
	monthShort = []string{"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"}
	dayNames   = []string{"Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"}
)

// texts is the text a letter is written as at its count, by value (from
// 1; AM/PM and the era from 0), or nil for a number.
func texts(c byte, n int) []string {
	var full []string
	switch c {
	case 'M', 'L':
		if n < 3 {
			return nil
		}
		for m := time.January; m <= time.December; m++ {
			full = append(full, m.String())
		}
		if n == 3 {
			return monthShort
		}
	case 'E':
		full = dayNames
		if n <= 3 {
			return abbreviate(full, 3)
		}
	case 'Q', 'q':
		switch n {
		case 3:
			return []string{"Q1", "Q2", "Q3", "Q4"}
		case 4:
			return []string{"1st quarter", "2nd quarter", "3rd quarter", "4th quarter"}
		}
		return nil
	case 'a':
		return []string{"AM", "PM"}
	case 'G':
		full = []string{"Before Christ", "Anno Domini"}
		if n <= 3 {
			return []string{"BC", "AD"}
		}
		if n == 5 {
			return []string{"B", "A"}
		}
		return full
	default:
		return nil
	}
	if n == 5 {
		return abbreviate(full, 1)
	}
	return full
}

func abbreviate(names []string, n int) []string {
	out := make([]string, len(names))
	for i, s := range names {
		out[i] = s[:n]
	}
	return out
}

// textIndex maps a field's value to its index in texts.
func textIndex(c byte, v int64) int64 {
	if c == 'a' || c == 'G' {
		return v
	}
	return v - 1
}

// errMissingField ends an optional section whose field the value lacks.
var errMissingField = errors.New("missing field")

// format writes t with f, or Java's error for a field t does not have.
func (f *dateFormatter) format(form string, t temporal) (string, error) {
	var b strings.Builder
	if err := f.write(form, &b, f.items, t, false); err != nil {
		return "", err
	}
	return b.String(), nil
}

func (f *dateFormatter) write(form string, b *strings.Builder, items []fmtItem, t temporal, optional bool) error {
	for _, it := range items {
		if it.letter == 0 {
			b.WriteString(it.lit)
			continue
		}
		if it.letter == '[' {
			// Java writes a section only when the value has all its
			// fields.
			var section strings.Builder
			if err := f.write(form, &section, it.optional, t, true); err == errMissingField {
				continue
			} else if err != nil {
				return err
			}
			b.WriteString(section.String())
			continue
		}
		if it.offset || it.zone || timeLetter(it.letter) && !t.hasTime() || !timeLetter(it.letter) && !t.hasDate() {
			if optional {
				return errMissingField
			}
			return timeError(form, "UnsupportedTemporalTypeException", "Unsupported field: "+fieldNames[it.letter])
		}
		v := fieldValue(it.letter, t)
		if names := texts(it.letter, it.count); names != nil {
			b.WriteString(names[textIndex(it.letter, v)])
			continue
		}
		switch {
		case it.fraction:
			if v != 0 {
				b.WriteString("." + strings.TrimRight(zeroPad(v, 9), "0"))
			}
		case it.letter == 'S':
			b.WriteString(zeroPad(v, 9)[:it.count])
		case it.reduced:
			b.WriteString(zeroPad(floorMod(v, 100), 2))
		case v < 0:
			b.WriteString("-" + zeroPad(-v, it.minWidth))
		default:
			s := zeroPad(v, it.minWidth)
			if it.exceedsPad && len(s) > it.minWidth {
				s = "+" + s
			}
			b.WriteString(s)
		}
	}
	return nil
}

// parsed is what parsing read: fields by letter.
type parsed map[byte]int64

// parseError is Java's DateTimeParseException message.
func textParseError(text, detail string) string {
	return "Text '" + text + "' could not be parsed" + detail
}

// parse reads text as a value of kind, or gives Java's message.
func (f *dateFormatter) parse(text string, kind temporalKind) (temporal, string) {
	fields := parsed{}
	pos, ok := f.read(text, 0, f.items, fields)
	if !ok {
		return temporal{}, textParseError(text, " at index "+strconv.Itoa(pos))
	}
	if pos < len(text) {
		return temporal{}, textParseError(text, ", unparsed text found at index "+strconv.Itoa(pos))
	}
	t, msg := f.resolve(fields, kind)
	if msg != "" {
		return temporal{}, textParseError(text, ": "+msg)
	}
	return t, ""
}

// read matches items at pos; on failure the index where it failed.
func (f *dateFormatter) read(text string, pos int, items []fmtItem, fields parsed) (int, bool) {
	for i, it := range items {
		switch {
		case it.letter == 0:
			if !strings.HasPrefix(text[pos:], it.lit) {
				return pos, false
			}
			pos += len(it.lit)
		case it.offset:
			n := offsetLength(text[pos:])
			if n == 0 {
				return pos, false
			}
			pos += n
		case it.zone:
			n := 0
			for pos+n < len(text) && text[pos+n] != ']' {
				n++
			}
			if n == 0 {
				return pos, false
			}
			pos += n
		case it.letter == '[':
			trial := parsed{}
			if end, ok := f.read(text, pos, it.optional, trial); ok {
				for k, v := range trial {
					fields[k] = v
				}
				pos = end
			}
		case texts(it.letter, it.count) != nil:
			names := texts(it.letter, it.count)
			found := -1
			for j, name := range names {
				if strings.HasPrefix(text[pos:], name) && (found < 0 || len(name) > len(names[found])) {
					found = j
				}
			}
			if found < 0 {
				return pos, false
			}
			v := int64(found)
			if it.letter != 'a' && it.letter != 'G' {
				v++
			}
			fields[it.letter] = v
			pos += len(names[found])
		default:
			digits := 0
			for pos+digits < len(text) && text[pos+digits] >= '0' && text[pos+digits] <= '9' {
				digits++
			}
			sign := int64(1)
			start := pos
			if it.exceedsPad && pos < len(text) && (text[pos] == '+' || text[pos] == '-') {
				if text[pos] == '-' {
					sign = -1
				}
				pos++
				for digits = 0; pos+digits < len(text) && text[pos+digits] >= '0' && text[pos+digits] <= '9'; {
					digits++
				}
			}
			if it.fraction {
				if !strings.HasPrefix(text[pos:], ".") {
					continue
				}
				pos++
				for digits = 0; pos+digits < len(text) && digits < 9 && text[pos+digits] >= '0' && text[pos+digits] <= '9'; {
					digits++
				}
				if digits == 0 {
					return pos, false
				}
				n, _ := strconv.ParseInt(text[pos:pos+digits]+strings.Repeat("0", 9-digits), 10, 64)
				fields['S'] = n
				pos += digits
				continue
			}
			// A number of variable width leaves the digits of the
			// fixed-width numbers that follow it, as Java's adjacent
			// value parsing does ("yyyyMMdd").
			reserve := 0
			if it.maxWidth > it.minWidth {
				for _, next := range items[i+1:] {
					if next.letter == 0 || next.letter == '[' || texts(next.letter, next.count) != nil || next.minWidth != next.maxWidth {
						break
					}
					reserve += next.minWidth
				}
			}
			take := min(digits-reserve, it.maxWidth)
			if take < it.minWidth || take <= 0 {
				return start, false
			}
			n, err := strconv.ParseInt(text[pos:pos+take], 10, 64)
			if err != nil {
				return start, false
			}
			switch {
			case it.letter == 'S':
				n *= pow10(9 - take)
			case it.reduced:
				n += 2000
			}
			fields[it.letter] = sign * n
			pos += take
		}
	}
	return pos, true
}

// offsetLength is the length of the offset text starts with: Z, or a
// sign and hours and minutes (+01:00, +01:00:30), or 0.
func offsetLength(text string) int {
	if strings.HasPrefix(text, "Z") {
		return 1
	}
	if len(text) < 6 || (text[0] != '+' && text[0] != '-') || text[3] != ':' {
		return 0
	}
	for _, i := range []int{1, 2, 4, 5} {
		if text[i] < '0' || text[i] > '9' {
			return 0
		}
	}
	if len(text) >= 9 && text[6] == ':' && text[7] >= '0' && text[7] <= '9' && text[8] >= '0' && text[8] <= '9' {
		return 9
	}
	return 6
}

func pow10(n int) int64 {
	p := int64(1)
	for range n {
		p *= 10
	}
	return p
}

// resolve makes a value of kind from the fields read.
func (f *dateFormatter) resolve(fields parsed, kind temporalKind) (temporal, string) {
	t := temporal{kind: kind}
	var dateText, timeText string
	hasDate, hasTime := false, false
	year, hasYear := fields['u']
	if y, ok := fields['y']; ok && !hasYear {
		year, hasYear = y, true
		if era, ok := fields['G']; ok && era == 0 {
			year = 1 - y
		}
	}
	month, hasMonth := fields['M']
	if m, ok := fields['L']; ok {
		month, hasMonth = m, true
	}
	switch day, hasDay := fields['d']; {
	case hasYear && hasMonth && hasDay:
		if !f.strict {
			if month < 1 || month > 12 {
				return t, "Invalid value for MonthOfYear (valid values 1 - 12): " + strconv.FormatInt(month, 10)
			}
			if day < 1 || day > 31 {
				return t, "Invalid value for DayOfMonth (valid values 1 - 28/31): " + strconv.FormatInt(day, 10)
			}
			day = min(day, int64(monthLength(year, time.Month(month))))
		}
		d, msg := makeDate(year, month, day)
		if msg != "" {
			return t, msg
		}
		t.day, hasDate = d.day, true
	case hasYear && fields['D'] != 0:
		doy := fields['D']
		length := int64(365)
		if isLeap(year) {
			length = 366
		}
		if doy < 1 || doy > length {
			return t, "Invalid value for DayOfYear (valid values 1 - 365/366): " + strconv.FormatInt(doy, 10)
		}
		t.day, hasDate = epochDay(year, time.January, 1)+doy-1, true
	}
	if hasDate {
		dateText = temporal{kind: localDate, day: t.day}.String()
		if dow, ok := fields['E']; ok && dow != fieldValue('E', temporal{kind: localDate, day: t.day}) {
			return t, "Conflict found: Field DayOfWeek " + strconv.FormatInt(fieldValue('E', temporal{kind: localDate, day: t.day}), 10) +
				" differs from DayOfWeek " + strconv.FormatInt(dow, 10) + " derived from " + dateText
		}
	}
	hour, hasHour := fields['H']
	if k, ok := fields['k']; ok && !hasHour {
		hour, hasHour = k%24, true
	}
	if ap, ok := fields['a']; ok && !hasHour {
		if h, ok := fields['h']; ok {
			hour, hasHour = h%12+12*ap, true
		} else if h, ok := fields['K']; ok {
			hour, hasHour = h+12*ap, true
		}
	}
	if hasHour {
		_, hasMinute := fields['m']
		if hasMinute || !f.strict {
			nano, msg := makeTime(hour, fields['m'], fields['s'], fields['S'])
			if msg != "" {
				return t, msg
			}
			t.nano, hasTime = nano, true
			timeText = temporal{kind: localTime, nano: nano}.String()
		}
	}
	if (kind.hasDateKind() && !hasDate) || (kind.hasTimeKind() && !hasTime) {
		resolved := ""
		switch {
		case hasDate && hasTime:
			resolved = " resolved to " + dateText + "T" + timeText
		case hasDate:
			resolved = " resolved to " + dateText
		case hasTime:
			resolved = " resolved to " + timeText
		}
		return t, "Unable to obtain " + kind.className() + " from TemporalAccessor: {},ISO" + resolved + " of type java.time.format.Parsed"
	}
	return t, ""
}

func (k temporalKind) hasDateKind() bool { return k != localTime }
func (k temporalKind) hasTimeKind() bool { return k != localDate }
