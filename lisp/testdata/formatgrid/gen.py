#!/usr/bin/env python3
"""Writes probes.txt: format's conversions crossed with the flags, widths,
precisions and values where Java's Formatter has edge cases (signs, -0.0,
NaN and the infinities, BigDecimal zeros, nil and collections, flags a
conversion does not take). probe.clj records Clojure's answers."""
fl = ['%.2f', '%f', '%.0f', '%+.2f', '%,.2f', '%e', '%.3e', '%g', '%.3g', '%10.2f', '%-8.1f|', '%5.1f',
      '%08.2f', '%s', '%(.2f', '% .2f', '%+e', '%(e', '%08.1e', '% g', '%(,.2f', '%-+10.1f|', '%+,010.2f']
fv = ['-0.0', '0.0', '1.5', '-1.5', '2.5', '0.125', '1234567.891', '-1234567.891', '##NaN', '##Inf', '##-Inf',
      '1e-5', '1e20', '1.5M', '-0.0M', '100N', '3', '-3', 'nil', '-0.001', '-0.004', '0.0M', '0M', '0.00M',
      '-0.001M', '(float -0.0)', '(float 1.5)', '-1234.5', '1e-300', '-1e300', '0.00001', '123456.0',
      '-1234.5M', '12345678901234567890.5M']
ds = ['%d', '%+d', '%x', '%X', '%o', '%,d', '%05d', '%-5d|', '%(d', '% d', '%s']
dv = ['0', '-1', '-255', '255', '1234567', '-1234567', '100N', '-100N', '12345678901234567890N', '1.5', 'nil',
      '-9223372036854775808']
ss = ['%s', '%S', '%10s|', '%-10s|', '%.2s']
sv = ['nil', '[1 2]', '{:a 1}', '#{1}', '(list 1 2)', '1.5M', '100N', '-0.0', '"abc"', ':k', '\\a', 'true',
      '{:a/x 1}']
flags = ['-', '#', '+', ' ', '0', ',', '(', '+ ', '-0', '--', '']
convs = {'s': ['"ab"', 'nil'], 'S': ['"ab"'], 'd': ['-5', '5N'], 'x': ['-5', '255N'], 'o': ['-8'], 'f': ['-1.5'],
         'e': ['-1.5'], 'g': ['-1.5'], 'c': ['\\a'], 'b': ['true'], 'h': ['"a"'], 'X': ['255']}
probes = []
for specs, values in [(fl, fv), (ds, dv), (ss, sv)]:
    probes += ['(format "%s" %s)' % (s, v) for s in specs for v in values]
for f in flags:
    for c, values in convs.items():
        for v in values:
            probes += ['(format "%%%s5%s|" %s)' % (f, c, v), '(format "%%%s%s|" %s)' % (f, c, v),
                       '(format "%%%s5.1%s|" %s)' % (f, c, v)]
probes += ['(format "%d %q" "x" 1)', '(format "%s %-d" 1 2)', '(format "%.2f %#s" "x" 1)']
with open('probes.txt', 'w') as out:
    out.write('\n'.join(dict.fromkeys(probes)) + '\n')
