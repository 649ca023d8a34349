#!/usr/bin/env python3
"""Generate probes.txt: the Java interop grid.

Every Java method and static that programs for data tasks call (String's
instance methods, Character/, Math/, Integer/ Long/ Double/ statics,
BigInteger and BigDecimal methods, java.time LocalDate, LocalDateTime,
Duration, Period and ChronoUnit, exceptions' methods), each at each of its
arities, called with arguments drawn from pools typed by the parameter:
every combination of the typical values (up to a cap), then each edge
value (empty, nil, negative, out of range) and each value of a wrong type
in each position with the others typical, and one call with an argument
too many. One program a line; deterministic (sorted pools, no randomness
but a seeded sample under the cap). Run from this directory: python3 gen.py
"""
import itertools
import random

SEED = 37
TYPICAL_CAP = 12

# pool: (typical, edge, wrong type)
POOLS = {
    'str': (['"abc"', '"Hello World"'], ['""', '"  a,b  "', '"ÄöÜ"', 'nil'], ['42', ':k']),
    'cs': (['"b"', '"l"'], ['""', '"xyz"', '"B"', 'nil'], ['1', '\\b']),
    'chr': (['\\b', '\\l'], ['\\z', '\\space'], ['nil', '"ab"', '98']),
    'int': (['1', '2'], ['0', '-1', '99', '2147483648'], ['nil', '1.5', '"1"']),
    'long': (['1', '31'], ['0', '-1', '400', '9223372036854775807'], ['nil', '1.5', '"1"']),
    'regex': (['","', '"\\\\s+"'], ['"[aeiou]"', '""', '"("', 'nil'], ['1']),
    'any': (['"abc"', '1'], ['nil', '"ABC"', '\\a'], ['[1]']),
    'num': (['5', '-7', '2.5'], ['0', '-2.5', '0.0', '9223372036854775807', '##NaN', '##-Inf', '1.5M', '10N'], ['nil', '"5"']),
    'numstr': (['"42"', '"-17"'], ['""', '" 42"', '"12abc"', '"2147483648"', '"9223372036854775808"', '"+5"', '"1e3"', '"3.14"', 'nil'], ['42']),
    'dblstr': (['"3.14"', '"-2"'], ['""', '" 2.5 "', '"1e3"', '"NaN"', '"Infinity"', '"abc"', '"1,5"', 'nil'], ['3']),
    'radix': (['16', '2'], ['36', '1', '37'], ['nil']),
    'dbl': (['2.5', '-0.5'], ['0.0', '##NaN', '##Inf', '1e308'], ['nil', '"1"']),
    'coll': (['["a" "b"]'], ['[]', 'nil'], ['"ab"']),
    'bi': (['(biginteger 12)', '(BigInteger. "123456789012345678901234567890")'], ['(biginteger 0)', '(biginteger -7)'], ['nil', '1.5']),
    'bd': (['1.2345M', '(BigDecimal. "-2.50")'], ['0M', '100M', '(BigDecimal. "0.333")'], ['nil', '1.5']),
    'rm': (['java.math.RoundingMode/HALF_UP', 'java.math.RoundingMode/HALF_EVEN'], ['java.math.RoundingMode/DOWN', 'java.math.RoundingMode/UNNECESSARY'], ['nil', '2']),
    'scale': (['2', '0'], ['-1', '10'], ['nil', '1.5']),
    'date': (['(LocalDate/parse "2024-01-31")', '(LocalDate/of 2023 12 25)'], ['(LocalDate/of 2024 2 29)', '(LocalDate/parse "0001-01-01")'], ['nil', '"2024-01-31"']),
    'datestr': (['"2024-01-31"', '"2023-12-25"'], ['"2024-02-30"', '"2024-1-5"', '""', '"2024-01-31T10:00"', 'nil'], ['20240131']),
    'ldt': (['(LocalDateTime/parse "2024-01-15T10:30:00")', '(LocalDateTime/of 2023 12 31 23 59)'], ['(LocalDateTime/parse "2024-02-29T00:00")'], ['nil', '(LocalDate/parse "2024-01-31")']),
    'ldtstr': (['"2024-01-15T10:30:00"', '"2024-01-15T10:30"'], ['"2024-01-15 10:30"', '"2024-01-15"', '""', 'nil'], ['1']),
    'unit': (['ChronoUnit/DAYS', 'ChronoUnit/MONTHS'], ['ChronoUnit/WEEKS', 'ChronoUnit/YEARS', 'ChronoUnit/HOURS'], ['nil', ':days']),
    'dur': (['(Duration/ofMinutes 90)', '(Duration/ofSeconds 3661)'], ['(Duration/ofMillis -1500)', 'Duration/ZERO'], ['nil', '90']),
    'per': (['(Period/between (LocalDate/parse "2020-03-15") (LocalDate/parse "2024-01-31"))', '(Period/ofDays 45)'], ['Period/ZERO', '(Period/of 1 -2 3)'], ['nil']),
    'fmt': (['(DateTimeFormatter/ofPattern "dd/MM/yyyy")', 'DateTimeFormatter/ISO_LOCAL_DATE'], ['(DateTimeFormatter/ofPattern "MMM d, yyyy")'], ['nil', '"dd/MM/yyyy"']),
    'fmttime': (['(DateTimeFormatter/ofPattern "yyyy-MM-dd HH:mm")'], ['(DateTimeFormatter/ofPattern "HH:mm:ss")', 'DateTimeFormatter/ISO_LOCAL_DATE_TIME'], ['nil']),
    'exc': (['(ex-info "boom" {:a 1})', '(ex-info "outer" {:step 2} (IllegalStateException. "inner"))'],
            ['(Exception. "plain")', '(RuntimeException. (ArithmeticException. "root"))', '(IllegalArgumentException.)', '(ex-info "" {})'],
            ['nil', '"boom"', '{:a 1}']),
}

# (form, [arity as parameter types]); a form with a leading dot is a
# method whose first parameter is its receiver.
STRING = [
    ('.length', [['str']]), ('.charAt', [['str', 'int']]),
    ('.substring', [['str', 'int'], ['str', 'int', 'int']]),
    ('.indexOf', [['str', 'cs'], ['str', 'chr'], ['str', 'cs', 'int']]),
    ('.lastIndexOf', [['str', 'cs'], ['str', 'chr'], ['str', 'cs', 'int']]),
    ('.contains', [['str', 'cs']]), ('.startsWith', [['str', 'cs'], ['str', 'cs', 'int']]),
    ('.endsWith', [['str', 'cs']]), ('.toUpperCase', [['str']]), ('.toLowerCase', [['str']]),
    ('.trim', [['str']]), ('.strip', [['str']]), ('.stripLeading', [['str']]), ('.stripTrailing', [['str']]),
    ('.isEmpty', [['str']]), ('.isBlank', [['str']]),
    ('.replace', [['str', 'cs', 'cs'], ['str', 'chr', 'chr']]),
    ('.replaceAll', [['str', 'regex', 'cs']]), ('.replaceFirst', [['str', 'regex', 'cs']]),
    ('.split', [['str', 'regex'], ['str', 'regex', 'int']]), ('.matches', [['str', 'regex']]),
    ('.equals', [['str', 'any']]), ('.equalsIgnoreCase', [['str', 'cs']]),
    ('.compareTo', [['str', 'cs']]), ('.compareToIgnoreCase', [['str', 'cs']]),
    ('.concat', [['str', 'cs']]), ('.repeat', [['str', 'int']]),
    ('.chars', [['str']]), ('.toCharArray', [['str']]), ('.getBytes', [['str']]),
    ('.codePointAt', [['str', 'int']]), ('.hashCode', [['str']]), ('.toString', [['str']]),
    ('.lines', [['str']]), ('.charAt', [['str', 'long']]),
    ('String/valueOf', [['any']]), ('String/join', [['cs', 'coll']]),
    ('String/format', [['str']]),
]
CHARACTER = [('Character/' + m, [['chr']]) for m in (
    'isDigit', 'isLetter', 'isLetterOrDigit', 'isWhitespace', 'isUpperCase', 'isLowerCase',
    'isAlphabetic', 'isSpaceChar', 'toUpperCase', 'toLowerCase', 'getNumericValue', 'toString',
    'valueOf')] + [('Character/digit', [['chr', 'radix']]), ('Character/forDigit', [['int', 'radix']])]
MATH = [('Math/' + m, [['num']]) for m in (
    'abs', 'sqrt', 'floor', 'ceil', 'round', 'signum', 'log', 'log10', 'exp', 'cbrt',
    'negateExact', 'toIntExact', 'rint')] + [('Math/' + m, [['num', 'num']]) for m in (
    'max', 'min', 'pow', 'floorDiv', 'floorMod', 'hypot', 'addExact', 'multiplyExact', 'subtractExact')]
NUMBERS = []
for cls, parse in (('Integer', 'parseInt'), ('Long', 'parseLong')):
    NUMBERS += [(f'{cls}/{parse}', [['numstr'], ['numstr', 'radix']]), (f'{cls}/valueOf', [['numstr'], ['long']])]
    NUMBERS += [(f'{cls}/{m}', [['long']]) for m in ('toBinaryString', 'toHexString', 'toOctalString', 'signum', 'bitCount', 'toString')]
    NUMBERS += [(f'{cls}/{m}', [['long', 'long']]) for m in ('compare', 'max', 'min', 'sum')]
    NUMBERS += [(f'{cls}/toString', [['long', 'radix']])]
NUMBERS += [('Double/parseDouble', [['dblstr']]), ('Double/valueOf', [['dblstr'], ['dbl']]),
            ('Double/isNaN', [['dbl']]), ('Double/isInfinite', [['dbl']]), ('Double/isFinite', [['dbl']]),
            ('Double/compare', [['dbl', 'dbl']]), ('Double/toString', [['dbl']]),
            ('Double/max', [['dbl', 'dbl']]), ('Double/min', [['dbl', 'dbl']]), ('Double/sum', [['dbl', 'dbl']])]
BIG = [('BigInteger.', [['numstr']]), ('BigInteger/valueOf', [['long']]), ('BigDecimal.', [['dblstr']]), ('BigDecimal/valueOf', [['num']])]
BIG += [('.' + m, [['bi', 'bi']]) for m in ('add', 'subtract', 'multiply', 'divide', 'mod', 'remainder', 'gcd', 'compareTo', 'max', 'min')]
BIG += [('.' + m, [['bi']]) for m in ('abs', 'negate', 'signum', 'bitLength', 'toString', 'longValue', 'intValue', 'doubleValue')]
BIG += [('.pow', [['bi', 'int']]), ('.toString', [['bi', 'radix']]), ('.isProbablePrime', [['bi', 'int']]), ('.modPow', [['bi', 'bi', 'bi']])]
BIG += [('.' + m, [['bd', 'bd']]) for m in ('add', 'subtract', 'multiply', 'divide', 'remainder', 'compareTo', 'max', 'min')]
BIG += [('.' + m, [['bd']]) for m in ('negate', 'abs', 'signum', 'scale', 'precision', 'stripTrailingZeros', 'toPlainString',
                                       'doubleValue', 'intValue', 'longValue', 'toBigInteger', 'unscaledValue', 'toString')]
BIG += [('.setScale', [['bd', 'scale'], ['bd', 'scale', 'rm']]), ('.divide', [['bd', 'bd', 'rm'], ['bd', 'bd', 'scale', 'rm']]),
        ('.movePointLeft', [['bd', 'scale']]), ('.movePointRight', [['bd', 'scale']])]
TIME = [('LocalDate/parse', [['datestr'], ['str', 'fmt']]), ('LocalDate/of', [['long', 'int', 'int']]),
        ('LocalDateTime/parse', [['ldtstr']]), ('ChronoUnit/DAYS .between', [['date', 'date']]),
        ('Duration/between', [['ldt', 'ldt']]), ('Period/between', [['date', 'date']])]
TIME += [('.' + m, [['date', 'long']]) for m in ('plusDays', 'minusDays', 'plusWeeks', 'plusMonths', 'minusMonths', 'plusYears', 'withDayOfMonth')]
TIME += [('.' + m, [['date']]) for m in ('getYear', 'getMonthValue', 'getMonth', 'getDayOfMonth', 'getDayOfWeek', 'getDayOfYear',
                                         'lengthOfMonth', 'isLeapYear', 'toEpochDay', 'atStartOfDay', 'toString')]
TIME += [('.' + m, [['date', 'date']]) for m in ('isBefore', 'isAfter', 'isEqual', 'compareTo', 'equals')]
TIME += [('.until', [['date', 'date'], ['date', 'date', 'unit']]), ('.between', [['unit', 'date', 'date']]), ('.format', [['date', 'fmt']])]
TIME += [('.' + m, [['ldt']]) for m in ('getHour', 'getMinute', 'getSecond', 'toLocalDate', 'toLocalTime', 'getDayOfWeek')]
TIME += [('.' + m, [['ldt', 'long']]) for m in ('plusHours', 'plusMinutes', 'minusSeconds', 'plusDays')]
TIME += [('.format', [['ldt', 'fmttime']]), ('.isBefore', [['ldt', 'ldt']]), ('.between', [['unit', 'ldt', 'ldt']])]
TIME += [('.' + m, [['dur']]) for m in ('toMinutes', 'toHours', 'toDays', 'getSeconds', 'toMillis', 'toSeconds', 'isNegative', 'isZero', 'toString', 'toMinutesPart')]
TIME += [('.' + m, [['dur', 'dur']]) for m in ('plus', 'minus', 'compareTo')]
TIME += [('.' + m, [['dur', 'long']]) for m in ('plusMinutes', 'multipliedBy', 'dividedBy')]
TIME += [('Duration/' + m, [['long']]) for m in ('ofMinutes', 'ofHours', 'ofSeconds', 'ofDays', 'ofMillis')]
TIME += [('.' + m, [['per']]) for m in ('getDays', 'getMonths', 'getYears', 'toTotalMonths', 'isNegative', 'toString')]
TIME += [('Period/' + m, [['long']]) for m in ('ofDays', 'ofMonths', 'ofYears', 'ofWeeks')]
EXC = [('.' + m, [['exc']]) for m in ('getMessage', 'getCause', 'getData', 'getLocalizedMessage', 'toString')]
EXC += [(m, [['exc']]) for m in ('ex-message', 'ex-data', 'ex-cause')]

FIELDS = ['Integer/MAX_VALUE', 'Integer/MIN_VALUE', 'Long/MAX_VALUE', 'Long/MIN_VALUE', 'Double/MAX_VALUE',
          'Double/MIN_VALUE', 'Double/POSITIVE_INFINITY', 'Double/NEGATIVE_INFINITY', 'Double/NaN', 'Math/PI', 'Math/E',
          '(inc Integer/MAX_VALUE)', '(inc Long/MAX_VALUE)', '(+ 1 Double/MAX_VALUE)', 'BigInteger/ONE', 'BigInteger/ZERO',
          'BigInteger/TEN', 'BigDecimal/ZERO', 'BigDecimal/ONE', 'BigDecimal/TEN', 'LocalDate/MIN', 'LocalDate/EPOCH',
          'ChronoUnit/DAYS', 'Duration/ZERO', 'Period/ZERO', 'DayOfWeek/MONDAY', '(str DayOfWeek/FRIDAY)']


def calls(form, types):
    """The calls of one arity: typical combinations, then each edge and
    wrong value in each position, then an argument too many."""
    typ = [POOLS[t][0] for t in types]
    out = [list(c) for c in itertools.product(*typ)]
    if len(out) > TYPICAL_CAP:
        out = random.Random(SEED + len(form)).sample(out, TYPICAL_CAP)
    for i, t in enumerate(types):
        for v in POOLS[t][1] + POOLS[t][2]:
            args = [p[0] for p in typ]
            args[i] = v
            out.append(args)
    out.append([p[0] for p in typ] + [typ[-1][0] if typ else '1'])
    return [call(form, a) for a in out]


def call(form, args):
    if form == 'ChronoUnit/DAYS .between':
        return '(.between ChronoUnit/DAYS ' + ' '.join(args) + ')'
    return '(' + form + (' ' if args else '') + ' '.join(args) + ')'


def exception_calls(form, types):
    """An exception's methods, on the value and on the caught exception."""
    out = calls(form, types)
    for e in POOLS['exc'][0] + POOLS['exc'][1]:
        out.append(f'(try (throw {e}) (catch Exception e ({form} e)))')
    return out


CAUGHT = [
    '(try (/ 1 0) (catch ArithmeticException e (.getMessage e)))',
    '(try (Integer/parseInt "x1") (catch NumberFormatException e (.getMessage e)))',
    '(try (Long/parseLong "") (catch Exception e (.getMessage e)))',
    '(try (.substring "abc" 5) (catch StringIndexOutOfBoundsException e (.getMessage e)))',
    '(try (.charAt "abc" 3) (catch Exception e (.getMessage e)))',
    '(try (LocalDate/parse "2024-02-30") (catch Exception e (.getMessage e)))',
    '(try (LocalDate/of 2023 2 29) (catch Exception e (.getMessage e)))',
    '(try (Math/addExact Long/MAX_VALUE 1) (catch ArithmeticException e (.getMessage e)))',
    '(try (.divide 1M 3M) (catch ArithmeticException e (.getMessage e)))',
    '(try (throw (ex-info "boom" {:a 1})) (catch clojure.lang.ExceptionInfo e [(.getMessage e) (.getData e)]))',
    '(try (throw (ex-info "boom" {:a 1})) (catch Exception e (:a (ex-data e))))',
    '(try (throw (Exception. "x")) (catch Exception e (.getSimpleName (class e))))',
    '(try (throw (ex-info "x" {})) (catch Exception e (.getName (class e))))',
    '(try (nth [1] 5) (catch IndexOutOfBoundsException e (class (.getMessage e))))',
    '(try (throw (ex-info "outer" {} (ex-info "inner" {:k 2}))) (catch Exception e (ex-data (.getCause e))))',
    '(try (throw (ex-info "outer" {} (ex-info "inner" {:k 2}))) (catch Exception e (.getMessage (ex-cause e))))',
]


def main():
    lines = []
    for form, arities in STRING + CHARACTER + MATH + NUMBERS + BIG + TIME:
        for types in arities:
            lines += calls(form, types)
    for form, arities in EXC:
        for types in arities:
            lines += exception_calls(form, types)
    lines += FIELDS + CAUGHT
    seen, out = set(), []
    for line in lines:
        if line not in seen:
            seen.add(line)
            out.append(line)
    with open('probes.txt', 'w') as f:
        f.write('\n'.join(out) + '\n')
    print(len(out), 'probes')


main()
