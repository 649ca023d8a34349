#!/usr/bin/env python3
"""Writes probes.txt: patterns RE2 cannot run (lookahead, lookbehind,
backreferences, possessive quantifiers, atomic groups, class intersection),
crossed with inputs and with each regex function. probe.clj records
Clojure's answers."""
patterns = [
    r'\d+(?=px)', r'(?=aba)', r'a(?!b)', r'\w+(?=\s|$)', r'\b(?!un)\w+',
    r'^(?=.*\d)(?=.*[a-z]).{6,}$', r'(?<=\$)\d+(\.\d+)?', r'(?<!\d)\d{3}(?!\d)',
    r'(?<=a|bc)\w', r'(?<![a-z])[A-Z]+', r'\b(\w+)\s+\1\b', r'(.)\1+', r'(\w)(\w)\2\1',
    r'(?i)(a)\1', r'(?<q>[\'"]).*?\k<q>', r'\d++\d', r'a*+b', r'(?>a|ab)c', r'(?>\d+)px',
    r'[a-z&&[^aeiou]]+', r'[\w&&[^\d]]+', r'(?=(\d\d))', r'x*(?=y)', r'(?m)^\w+(?=:)',
    r'(?s)a.+?(?=c)', r'(?x) \d+ (?= \s* kg)', r'(a|ab)(c|bcd)(d*)(?=$)', r'(a+)+(?=b)',
    r'(?<=^|,)[^,]*', r'(?<!^)(?=[A-Z])', r'(?<=[a-z])(?=[A-Z])', r'(\d)(?=(\d{3})+$)',
    r'\d(?=(\d{3})+(?!\d))', r'(?i)(?<=X)y', r'(?<=(\w))\1', r'(a*)*(?=b)', r'([ab])(?!\1)[ab]',
    r'(?<!\\)"', r'(?=\w*\d)\w+', r'\s*+,\s*+', r'(?<=\d{2})\d', r'(?<=a.{0,2})b',
    r'[^\p{L}&&[^\d]]+', r'(?!$)', r'(?i)ß(?=x)', r'(\w+)@(?!example\.com)(\w+\.\w+)',
    r'(?:(?!ab).)+', r'\w+(?<!ing)\b', r'(?<=\s|^)#(\w+)',
]
inputs = [
    '', 'ab', 'aba abab', '100px 20em 3px', 'cost $42.50 and $7', 'hello  world world',
    'bookkeeper', 'camelCaseString XMLHttp', '1234567', 'a,b,,c', 'Password1', 'aAbB aa Aa',
    '\'quoted\' "double" \'mixed"', 'unhappy unknown happy', 'key: value\nname: x',
    'aaac', 'aaab', 'abcd', 'α1β22 é', 'xxy xy y', '12 kg 3kg 4 lb', 'say \\"hi\\" "x"',
    'me@site.org you@example.com', 'running sing sang', '#tag a#b #c', 'xy Xy XY',
]
def lit(s):
    return '"' + s.replace('\\', '\\\\').replace('"', '\\"').replace('\n', '\\n') + '"'
def regex(p):
    return '#"' + p.replace('"', '\\"') + '"'
probes = []
for p in patterns:
    for s in inputs:
        r, t = regex(p), lit(s)
        probes += ['(re-seq %s %s)' % (r, t), '(re-find %s %s)' % (r, t), '(re-matches %s %s)' % (r, t),
                   '(clojure.string/replace %s %s "<$0>")' % (t, r),
                   '(clojure.string/split %s %s)' % (t, r)]
    probes += ['(clojure.string/replace-first "aba abab x" %s "[$0]")' % regex(p),
               '(clojure.string/replace "ab 12 xy" %s (fn [m] (str "{" (if (string? m) m (first m)) "}")))' % regex(p),
               '(pr-str %s)' % regex(p)]
with open('probes.txt', 'w') as out:
    out.write(''.join(p.replace('\n', ' ') + '\n' for p in probes))
