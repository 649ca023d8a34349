#!/usr/bin/env python3
"""Generate probes.txt: differential probes of every exact function.

Reads ../coverage/table.txt (which vars are exact), ../coverage/vars.txt
(which are functions) and arglists.tsv (each function's :arglists, written
by arglists.clj), and writes one PTC-Lisp/Clojure program a line:

- for every exact function, calls at each arity with arguments drawn from a
  pool of many kinds of value, typed by the parameter's name (a function
  slot gets functions, a collection slot mostly collections, a string slot
  strings), with about one argument in five drawn from the whole pool on
  purpose, so that wrong types are probed too;
- for the functions that return functions, the returned function applied;
- 2-deep compositions, (f (g x)) and (->> x (g ...) (f ...)), over the
  sequence, map and string functions.

Deterministic: one seeded generator, sorted inputs, duplicates dropped.
Results that may be infinite are taken under (take 5 ...). Run from this
directory: python3 gen.py
"""
import random
import re

SEED = 37
CALLS_PER_ARITY = 9

ANY = ['nil', 'true', '0', '-1', '42', '9223372036854775807', '1.5', '-0.0',
       '1/3', '10N', '1.5M', '##NaN', '\\a', '""', '"abc"', '"a b,c"', ':k',
       ':ns/k', "'sym", '[]', '[1 2 3]', "'(3 1 2)", '#{}', '#{1 2}', '{}',
       '{:a 1 :b 2}', '{"a" 1}', '(sorted-map :b 2 :a 1)',
       '(sorted-set 3 1 2)', '(range 5)', '(map inc [1 2])', '[[1 2] [3]]',
       '[{:a 1} {:a 2}]', 'inc', 'str']
# ANY without the values that make a size or a count absurd or a loop
# endless: what a count or index slot draws when it draws a wrong type.
ANY_SMALL = [v for v in ANY if v not in ('9223372036854775807', '##NaN')]

POOLS = {
    'any': ANY,
    'num': ['0', '1', '-1', '42', '2', '3', '9223372036854775807', '1.5',
            '-0.0', '1/3', '10N', '1.5M', '##NaN', '-2.5', '7'],
    'int': ['0', '1', '2', '3', '-1', '5', '10N'],
    'count': ['0', '1', '2', '3', '-1', '5'],
    'coll': ['[]', '[1 2 3]', "'(3 1 2)", '#{}', '#{1 2}', '{}',
             '{:a 1 :b 2}', '{"a" 1}', '(sorted-map :b 2 :a 1)',
             '(sorted-set 3 1 2)', '(range 5)', '(map inc [1 2])',
             '[[1 2] [3]]', '[{:a 1} {:a 2}]', 'nil', '"abc"', '[1 1 2 3 3]',
             '[3 -1 0 2]', "'()", '[nil false 1]', '[1.5 2 -0.5]'],
    'numcoll': ['[]', '[1 2 3]', "'(3 1 2)", '#{1 2}', '(range 5)',
                '(map inc [1 2])', '[3 -1 0 2]', '[1 1 2 3 3]', 'nil',
                '(sorted-set 3 1 2)', '[1.5 2 -0.5]'],
    'map': ['{}', '{:a 1 :b 2}', '{"a" 1}', '(sorted-map :b 2 :a 1)',
            '{:a {:b 1}}', 'nil', '{:a nil :c 3}', '{1 :x 2 :y}',
            '(hash-map :a 1 :b 2 :c 3 :d 4 :e 5 :f 6 :g 7 :h 8 :i 9)'],
    'vec': ['[]', '[1 2 3]', '[[1 2] [3]]', '[{:a 1} {:a 2}]', '[:a :b]',
            '[nil 1]'],
    'set': ['#{}', '#{1 2}', '#{2 3}', '(sorted-set 3 1 2)', '#{:a}', 'nil',
            '#{1 2 3 4 5 6 7 8 9 10}'],
    'rel': ['#{{:a 1 :b 2} {:a 2 :b 3}}', '#{}', '[{:a 1} {:a 2}]',
            '#{{:a 1 :c 5} {:a 3 :c 6}}', 'nil'],
    'str': ['""', '"abc"', '"a b,c"', '"Hello World"', '"  x y  "',
            '"a\\nb\\r\\n"', '"aBc"', '"a-b-c"', 'nil'],
    'char': ['\\a', '\\space', '\\b'],
    'key': [':a', ':b', '"a"', '0', '1', 'nil', ':ns/k', ':z'],
    'ks': ['[:a]', '[:a :b]', '[]', '[0]', 'nil', "'(:a)", '[:z]'],
    're': ['#"b"', '#"\\s"', '#"[a-z]+"', '#"(a)(b)?"', '#","', '#"\\d+"'],
    'replacement': ['"X"', '"$1"', '""', '"-"', 'str/upper-case'],
    'fn1': ['inc', 'str', 'identity', 'even?', 'keyword', 'vector', 'count',
            '(fn [x] (* 2 x))', '(fn [x] [x x])', 'first', 'nil?'],
    'pred': ['even?', 'odd?', 'nil?', 'keyword?', 'pos?', 'string?',
             '#{1 2}', ':a', '(fn [x] (> x 1))', 'some?', 'identity'],
    'fn2': ['+', 'str', 'conj', 'max', '*', '-', 'vector', 'list',
            '(fn [a b] (+ a (* 2 b)))', 'merge'],
    'fnmany': ['+', 'str', 'vector', 'max', 'list', 'identity', 'inc'],
    'keyfn': ['count', 'first', ':a', '-', 'str', 'identity', 'even?'],
    'cmp': ['compare', '>', '<', '(fn [a b] (compare b a))'],
    'kvfn': ['(fn [acc k v] (assoc acc v k))', '(fn [acc k v] (conj acc k))',
             '(fn [acc k v] (+ acc v))'],
    'kw': [':a', ':ns/k', '"a"', "'sym", '"ns"', 'nil'],
    'name': ['"a"', '"abc"', "'sym", ':k', '"ns"', 'nil', '"a b"'],
    'fmt': ['"%s"', '"%d items"', '"%.2f"', '"%s-%s"', '"%5s|"', '"x"',
            '"%x"', '"%05d"'],
    'form': ['{:a 1 "b" {:c [1 {"d" 2}]}}', '[1 [2 [3]]]', "'(1 (2 3))",
             '{"x" 1}', '[{:a 1} {"b" 2}]', 'nil', ':a', '#{1 [2]}'],
    'xform': ['(map inc)', '(filter even?)', '(take 2)', 'cat', '(dedupe)',
              '(comp (map inc) (filter odd?))', '(partition-all 2)'],
    'smap': ['{1 :one 2 :two}', '{:a :b}', '{}', '[:x :y :z]', '{"a" "A"}'],
    'hier': ['(make-hierarchy)',
             "(derive (make-hierarchy) :ex/dog :ex/animal)"],
    'tag': [':ex/dog', ':ex/animal', ':a', 'String', 'nil'],
}

# Parameters named like these take the pool named.
BY_NAME = {
    'f': 'fn1', 'fn': 'fn1', 'g': 'fn1', 'h': 'fn1', 'pred': 'pred',
    'p': 'pred', 'p1': 'pred', 'p2': 'pred', 'p3': 'pred', 'ps': 'pred',
    'keyfn': 'keyfn', 'comp': 'cmp', 'comparator': 'cmp',
    'coll': 'coll', 'colls': 'coll', 'c': 'coll', 'c1': 'coll', 'c2': 'coll',
    'c3': 'coll', 'xs': 'coll', 'aseq': 'coll', 'seq': 'coll', 'ys': 'coll',
    'zs': 'coll', 'pad': 'coll', 'vec': 'vec', 'items': 'coll',
    'map': 'map', 'm': 'map', 'maps': 'map', 'kmap': 'map', 'km': 'map',
    'smap': 'smap', 'set': 'set', 's1': 'set', 's2': 'set', 'set1': 'set',
    'set2': 'set', 'sets': 'set', 'xset': 'set', 'xrel': 'rel',
    'yrel': 'rel', 'n': 'count', 'size': 'count', 'index': 'int',
    'start': 'int', 'end': 'int', 'step': 'int', 'i': 'int', 'cnt': 'count',
    'k': 'key', 'key': 'key', 'ks': 'ks', 'keys': 'ks', 'keyseq': 'ks',
    'not-found': 'any', 're': 're', 'match': 're', 'replacement': 'replacement',
    'substr': 'str', 'sep': 'str', 'separator': 'str', 'fmt': 'fmt',
    'form': 'form', 'xform': 'xform', 'num': 'num', 'div': 'num',
    'x': 'any', 'y': 'any', 'z': 'any', 'a': 'any', 'b': 'any',
    'val': 'any', 'v': 'any', 'value': 'any', 'init': 'any', 'name': 'name',
    'tag': 'tag', 'parent': 'tag', 'child': 'tag', 'h': 'hier',
    'from-index': 'int', 'kvs': 'key', 'keyvals': 'key', 'args': 'any',
    'more': 'any', 'e': 'any', 'ex': 'any', 'msg': 'str', 'vals': 'coll',
    'inner': 'fn1', 'outer': 'fn1', 'root': 'form', 'branch?': 'pred',
    'children': 'fn1', 'sc': 'coll', 'test': 'cmp', 'start-key': 'int',
    'end-key': 'int', 'start-test': 'cmp', 'end-test': 'cmp',
    'size-or-seq': 'count', 'init-val-or-seq': 'any', 'arg1': 'any',
    'arg2': 'any', 'arg3': 'any', 'fs': 'fn1', 'cmap': 'map',
    'metadata-map': 'map', 'o': 'any', 'obj': 'any', 't': 'any',
}

# Parameter types that differ by function from the name's usual type.
BY_VAR = {
    'clojure.core/reduce': {'f': 'fn2', 'val': 'any'},
    'clojure.core/reductions': {'f': 'fn2'},
    'clojure.core/transduce': {'f': 'fn2', 'init': 'any'},
    'clojure.core/merge-with': {'f': 'fn2', 'maps': 'map'},
    'clojure.core/reduce-kv': {'f': 'kvfn', 'init': 'map'},
    'clojure.core/apply': {'f': 'fnmany', 'args': 'coll'},
    'clojure.core/map': {'f': 'fnmany'},
    'clojure.core/mapv': {'f': 'fnmany'},
    'clojure.core/mapcat': {'f': 'fn1'},
    'clojure.core/sort': {'comp': 'cmp', 'coll': 'numcoll'},
    'clojure.core/sort-by': {'comp': 'cmp', 'coll': 'numcoll'},
    'clojure.core/max-key': {'k': 'keyfn', 'x': 'num', 'y': 'num',
                             'more': 'num'},
    'clojure.core/min-key': {'k': 'keyfn', 'x': 'num', 'y': 'num',
                             'more': 'num'},
    'clojure.core/group-by': {'f': 'keyfn'},
    'clojure.core/partition-by': {'f': 'keyfn'},
    'clojure.core/update': {'f': 'fnmany', 'x': 'any', 'y': 'any',
                            'z': 'any', 'more': 'any'},
    'clojure.core/update-in': {'f': 'fnmany', 'args': 'any'},
    'clojure.core/update-keys': {'f': 'fn1'},
    'clojure.core/update-vals': {'f': 'fn1'},
    'clojure.core/assoc': {'map': 'map', 'key': 'key', 'val': 'any',
                           'kvs': 'any'},
    'clojure.core/get-in': {'m': 'form'},
    'clojure.core/assoc-in': {'m': 'form'},
    'clojure.core/nth': {'coll': 'coll', 'index': 'int', 'not-found': 'any'},
    'clojure.core/subs': {'s': 'str'},
    'clojure.core/format': {'args': 'num'},
    'clojure.core/keyword': {'name': 'kw', 'ns': 'kw'},
    'clojure.core/symbol': {'name': 'kw', 'ns': 'kw'},
    'clojure.core/zipmap': {'keys': 'coll', 'vals': 'coll'},
    'clojure.core/select-keys': {'keyseq': 'ks'},
    'clojure.core/contains?': {'key': 'key'},
    'clojure.core/get': {'key': 'key'},
    'clojure.core/find': {'key': 'key'},
    'clojure.core/replace': {'smap': 'smap'},
    'clojure.core/re-find': {'m': 're', 're': 're', 's': 'str'},
    'clojure.core/re-matches': {'re': 're', 's': 'str'},
    'clojure.core/re-seq': {'re': 're', 's': 'str'},
    'clojure.core/re-pattern': {'s': 'str'},
    'clojure.core/str': {'x': 'any', 'ys': 'any'},
    'clojure.core/trampoline': {'f': 'fn1', 'args': 'any'},
    'clojure.core/iterate': {'f': 'fn1', 'x': 'num'},
    'clojure.core/repeatedly': {'f': 'fn1'},
    'clojure.core/partial': {'f': 'fnmany', 'args': 'num', 'more': 'num'},
    'clojure.core/juxt': {'f': 'fn1', 'g': 'fn1', 'h': 'fn1', 'fs': 'fn1'},
    'clojure.core/comp': {'f': 'fn1', 'g': 'fn1', 'fs': 'fn1'},
    'clojure.core/fnil': {'f': 'fnmany', 'x': 'num', 'y': 'num', 'z': 'num'},
    'clojure.core/bit-and': {'x': 'int', 'y': 'int', 'more': 'int'},
    'clojure.core/ex-info': {'msg': 'str', 'map': 'map', 'cause': 'any'},
    'clojure.core/interleave': {'colls': 'coll'},
    'clojure.core/concat': {'x': 'coll', 'y': 'coll', 'zs': 'coll'},
    'clojure.core/into': {'to': 'coll', 'from': 'coll'},
    'clojure.core/conj': {'coll': 'coll', 'x': 'any', 'xs': 'any'},
    'clojure.core/disj': {'set': 'set', 'key': 'any', 'ks': 'any'},
    'clojure.core/dissoc': {'map': 'map', 'key': 'key', 'ks': 'key'},
    'clojure.core/merge': {'maps': 'map'},
    'clojure.core/cons': {'x': 'any', 'seq': 'coll'},
    'clojure.core/list*': {'args': 'coll'},
    'clojure.core/tree-seq': {'branch?': 'pred', 'children': 'fn1',
                              'root': 'form'},
    'clojure.core/take-nth': {'n': 'count'},
    'clojure.core/hash-map': {'keyvals': 'any'},
    'clojure.core/sorted-map': {'keyvals': 'key'},
    'clojure.core/array-map': {'keyvals': 'key'},
    'clojure.core/sorted-set': {'keys': 'num'},
    'clojure.core/hash-set': {'keys': 'any'},
    'clojure.core/sorted-set-by': {'comparator': 'cmp', 'keys': 'num'},
    'clojure.core/sorted-map-by': {'comparator': 'cmp', 'keyvals': 'key'},
    'clojure.core/vary-meta': {'obj': 'coll', 'f': 'fnmany', 'args': 'any'},
    'clojure.core/with-meta': {'obj': 'coll', 'm': 'map'},
    'clojure.core/meta': {'obj': 'coll'},
    'clojure.core/completing': {'f': 'fn2', 'cf': 'fn1'},
    'clojure.core/comparator': {'pred': 'cmp'},
    'clojure.core/rsubseq': {'sc': 'set', 'key': 'num'},
    'clojure.core/subseq': {'sc': 'set', 'key': 'num'},
    'clojure.core/run!': {'proc': 'fn1'},
    'clojure.core/eduction': {'xform': 'xform'},
    'clojure.core/sequence': {'xform': 'xform'},
    'clojure.core/dedupe': {},
    'clojure.core/distinct?': {'x': 'num', 'y': 'num', 'more': 'num'},
    'clojure.core/instance?': {'c': 'class', 'x': 'any'},
    'clojure.core/isa?': {'h': 'hier', 'child': 'tag', 'parent': 'tag'},
    'clojure.core/ancestors': {'h': 'hier', 'tag': 'tag'},
    'clojure.core/descendants': {'h': 'hier', 'tag': 'tag'},
    'clojure.core/parents': {'h': 'hier', 'tag': 'tag'},
    'clojure.core/pmap': {'f': 'fnmany'},
    'clojure.core/pcalls': {'fns': 'thunk'},
    'clojure.core/deref': {'ref': 'ref'},
    'clojure.core/force': {'x': 'ref'},
    'clojure.core/realized?': {'x': 'ref'},
    'clojure.core/delay?': {'x': 'ref'},
    'clojure.core/volatile?': {'x': 'ref'},
    'clojure.core/ex-message': {'ex': 'exc'},
    'clojure.core/ex-data': {'ex': 'exc'},
    'clojure.core/ex-cause': {'ex': 'exc'},
    'clojure.core/printf': {'fmt': 'fmt', 'args': 'num'},
    'clojure.string/join': {'separator': 'str', 'coll': 'coll'},
    'clojure.string/split': {'s': 'str', 're': 're', 'limit': 'int'},
    'clojure.string/escape': {'s': 'str', 'cmap': 'charmap'},
    'clojure.string/index-of': {'s': 'str', 'value': 'strchar',
                                'from-index': 'int'},
    'clojure.string/last-index-of': {'s': 'str', 'value': 'strchar',
                                     'from-index': 'int'},
    'clojure.string/replace': {'s': 'str', 'match': 'match'},
    'clojure.string/replace-first': {'s': 'str', 'match': 'match'},
    'clojure.set/rename-keys': {'map': 'map', 'kmap': 'map'},
    'clojure.set/rename': {'xrel': 'rel', 'kmap': 'map'},
    'clojure.set/index': {'xrel': 'rel', 'ks': 'ks'},
    'clojure.set/project': {'xrel': 'rel', 'ks': 'ks'},
    'clojure.set/join': {'xrel': 'rel', 'yrel': 'rel', 'km': 'map'},
    'clojure.set/select': {'pred': 'pred', 'xset': 'set'},
    'clojure.set/map-invert': {'m': 'map'},
    'clojure.walk/walk': {'inner': 'fn1', 'outer': 'fn1', 'form': 'form'},
    'clojure.walk/postwalk': {'f': 'walkfn'},
    'clojure.walk/prewalk': {'f': 'walkfn'},
}

POOLS.update({
    'class': ['String', 'Long', 'Number', 'clojure.lang.IPersistentMap',
              'clojure.lang.Keyword', 'Double', 'java.util.Map'],
    'thunk': ['(fn [] 1)', '(constantly :x)', '(fn [] [1 2])'],
    'ref': ['(delay 1)', '(delay (+ 1 2))', '(volatile! 3)', '(atom 5)',
            '(reduced 4)', '(promise)', 'nil', '42'],
    'exc': ['(ex-info "boom" {:a 1})', '(ex-info "x" {} (ex-info "y" {}))',
            '(Exception. "plain")', 'nil', '{:a 1}', '"s"'],
    'charmap': ['{\\a "A" \\space "_"}', '{}', '{\\b \\B}', 'nil'],
    'strchar': ['"b"', '""', '\\c', '"x"', '"a"'],
    'match': ['"b"', '"a"', '#"[a-z]"', '#"(\\w)(\\w)"', '\\a', '""'],
    'walkfn': ['identity', '(fn [x] (if (number? x) (inc x) x))',
               '(fn [x] (if (string? x) (keyword x) x))',
               '(fn [x] (if (map? x) (dissoc x :a) x))'],
})

# Functions whose probes run under take: their results may be endless.
ENDLESS = {'clojure.core/range', 'clojure.core/repeat', 'clojure.core/iterate',
           'clojure.core/cycle', 'clojure.core/repeatedly'}

# Exact functions not probed here, with the reason.
SKIP = {
    # a reference or a mutable cell: its printed form is an identity
    'clojure.core/atom', 'clojure.core/add-watch', 'clojure.core/remove-watch',
    'clojure.core/alter-meta!', 'clojure.core/reset-meta!',
    'clojure.core/compare-and-set!', 'clojure.core/reset!',
    'clojure.core/reset-vals!', 'clojure.core/swap!', 'clojure.core/swap-vals!',
    'clojure.core/set-validator!', 'clojure.core/get-validator',
    'clojure.core/volatile!', 'clojure.core/vreset!',
    # transients print as identities; probed through persistent! below
    'clojure.core/transient', 'clojure.core/assoc!', 'clojure.core/conj!',
    'clojure.core/disj!', 'clojure.core/dissoc!', 'clojure.core/pop!',
    'clojure.core/persistent!',
    # Java arrays print as identities
    'clojure.core/into-array', 'clojure.core/to-array',
    # namespaces, protocols and multimethods need a definition first
    'clojure.core/require', 'clojure.core/use', 'clojure.core/extenders',
    'clojure.core/extends?', 'clojure.core/satisfies?',
    'clojure.core/get-method', 'clojure.core/methods',
    'clojure.core/prefer-method', 'clojure.core/prefers',
    'clojure.core/remove-all-methods', 'clojure.core/remove-method',
    # the global hierarchy is shared by every probe of one JVM
    'clojure.core/derive', 'clojure.core/underive',
    # the answer is an identity or a hash of one
    'clojure.core/hash', 'clojure.core/memoize',
}

# Functions returning functions: their probes also apply the result.
RETURNS_FN = {
    'clojure.core/comp': ['5', '"a"', '[1 2]'],
    'clojure.core/partial': ['', '1', '1 2'],
    'clojure.core/juxt': ['3', '"ab"', '[1 2]'],
    'clojure.core/complement': ['1', '2', 'nil'],
    'clojure.core/constantly': ['', '1', '1 2'],
    'clojure.core/every-pred': ['2', '1', '2 4', ''],
    'clojure.core/some-fn': ['2', '1', '2 4', ''],
    'clojure.core/fnil': ['nil', '1', 'nil nil', 'nil 2 nil'],
    'clojure.core/comparator': ['1 2', '2 1', '1 1'],
    'clojure.core/completing': ['', '1', '1 2'],
}

# 2-deep compositions: outer and inner functions of sequences, maps and
# strings, with the inner function's extra arguments.
SEQ_FNS = [
    'map inc', 'filter even?', 'remove odd?', 'take 2', 'drop 1',
    'take-while pos?', 'drop-while neg?', 'sort', 'sort-by -', 'reverse',
    'distinct', 'dedupe', 'partition 2', 'partition-all 2', 'frequencies',
    'group-by odd?', 'interpose 0', 'map-indexed vector', 'keep-indexed #(when (odd? %1) %2)',
    'mapcat #(list % %)', 'take-last 2', 'drop-last', 'butlast', 'rest',
    'next', 'seq', 'vec', 'set', 'flatten', 'frequencies', 'into []',
    'into #{}', 'reductions +', 'partition-by odd?', 'split-at 2',
    'split-with odd?', 'keep #(when (pos? %) (* % %))',
    'take-nth 2', 'replace {1 :one}', 'sequence (map inc)', 'nthrest 1',
    'nthnext 2', 'first', 'last', 'second', 'count', 'empty?', 'not-empty',
    'apply +', 'apply max', 'apply str', 'reduce +', 'some even?',
    'every? number?', 'frequencies', 'zipmap [:a :b :c]', 'str/join ","',
]
SEQ_INPUTS = ['[3 1 2 3 -4 0]', "'(5 4 4 1)", '(range 7)', '[]', 'nil',
              '#{1 2 3}', '[1.5 2 0.25 -1]', '(sorted-set 4 2 9)',
              '[10N 2 3]', '(map inc [1 2 3])']
MAP_FNS = [
    'keys', 'vals', 'seq', 'sort', 'count', 'first', 'vec', 'into {}',
    'into []', 'into (sorted-map)', 'update-vals inc', 'update-keys name',
    'select-keys [:a :c]', 'dissoc :a', 'assoc :z 26', 'merge {:a 0}',
    'set/map-invert', 'walk/stringify-keys', 'walk/keywordize-keys',
    'reduce-kv (fn [m k v] (assoc m v k)) {}', 'filter (comp odd? val)',
    'map key', 'map val', 'sort-by val', 'group-by val', 'empty',
    'frequencies', 'zipmap [1 2 3]', 'find :a', 'get :b', 'contains? :a',
]
MAP_INPUTS = ['{:a 1 :b 2 :c 3}', '{}', '(sorted-map :b 2 :a 1)',
              '{"x" 1 "y" 2}', 'nil', '{:a 1 :b 1}',
              '(zipmap (range 10) (range 10 20))']
STR_FNS = [
    'str/upper-case', 'str/lower-case', 'str/capitalize', 'str/trim',
    'str/triml', 'str/trimr', 'str/reverse', 'str/split-lines', 'str/blank?',
    'seq', 'count', 'vec', 'set', 'frequencies', 'first', 'last', 'reverse',
    'str/split #","', 'str/split #" "', 're-seq #"\\w+"', 're-find #"\\d+"',
    'str/replace "a" "A"', 'str/join "-"', 'apply str', 'sort', 'distinct',
    'str/includes? "b"', 'str/index-of "b"', 'subs 1', 'keyword', 'symbol',
    'name', 'str/trim-newline', 'parse-long', 'parse-double', 'parse-boolean',
]
STR_INPUTS = ['"Hello, World"', '""', '"  a b  "', '"12"', '"3.5e2"',
              '"true"', '"a,b,,c"', '"x\\ny\\n"', 'nil', '"ABC"']

# Functions that take their subject last (->> threads it there); the rest
# take it first and are called as (f x args...).
FIRST_ARG = {'str/split', 'str/replace', 'str/join', 'str/includes?',
             'str/index-of', 'subs', 'select-keys', 'dissoc', 'assoc',
             'merge', 'find', 'get', 'contains?', 'update-vals',
             'update-keys'}


def parse_arglists(text):
    """[[param, ...], ...] from an :arglists printed form; '&' kept."""
    if text in ('nil', ''):
        return []
    out = []
    for vec in re.findall(r'\[([^\[\]]*(?:\[[^\[\]]*\][^\[\]]*)*)\]', text):
        out.append(re.findall(r'\{[^}]*\}|\[[^\]]*\]|[^\s]+', vec))
    return out


def slot(var, param):
    p = param.strip('*')
    if p.startswith('{') or p.startswith('['):
        return 'any'
    if var in BY_VAR and p in BY_VAR[var]:
        return BY_VAR[var][p]
    if var.startswith('clojure.string/') and p in ('s', 'x'):
        return 'str'
    if var.startswith('clojure.set/') and p in ('s1', 's2', 'sets', 'x'):
        return 'set'
    if p in ('s',):
        return 'coll' if var.startswith('clojure.core/') else 'str'
    if p in ('x', 'y', 'more') and ARITH.search(var):
        return 'num'
    return BY_NAME.get(p, 'any')


ARITH = re.compile(r'core/([-+*/<>=]|[<>=]=|==|\*\'|\+\'|-\'|inc|dec|quot|rem|'
                   r'mod|max|min|abs|zero\?|pos\?|neg\?|even\?|odd\?|num|'
                   r'bit-|unchecked-|int\b|long|double|float|short|byte|'
                   r'bigint|biginteger|bigdec|NaN\?|infinite\?|rationalize|'
                   r'nat-int|pos-int|neg-int|char$|unsigned)')


def draw(rng, kind, wrong=0.2):
    if rng.random() < wrong:
        return rng.choice(ANY_SMALL if kind in ('count', 'int') else ANY)
    return rng.choice(POOLS[kind])


def alias(var):
    ns, name = var.split('/', 1)
    if name == '' or var == 'clojure.core//':
        return '/'
    return {'clojure.core': '', 'clojure.string': 'clojure.string/',
            'clojure.set': 'clojure.set/', 'clojure.walk': 'clojure.walk/'}[ns] + name


def drawn_calls(rng, var, params, n, pick):
    """n calls of var at the arity params, each argument drawn by pick(rng,
    kind); yields each call (under take when endless) before the next is
    drawn, so that a caller's own draws between them keep their order."""
    fixed = [p for p in params if p != '&']
    rest = None
    if '&' in params:
        rest = params[params.index('&') + 1]
        fixed = params[:params.index('&')]
    name = alias(var)
    for i in range(n):
        args = [pick(rng, slot(var, p)) for p in fixed]
        if rest is not None:
            for _ in range(i % 3 + (1 if not fixed else 0)):
                args.append(pick(rng, slot(var, rest)))
        call = '(' + ' '.join([name] + args) + ')'
        if var in ENDLESS:
            call = '(take 5 ' + call + ')'
        yield call


def calls(rng, var, params):
    """Calls of var at the arity params, CALLS_PER_ARITY of them."""
    out = []
    for call in drawn_calls(rng, var, params, CALLS_PER_ARITY, draw):
        out.append(call)
        if var in RETURNS_FN:
            applied = rng.choice(RETURNS_FN[var])
            out.append('(' + ' '.join(filter(None, [call, applied])) + ')')
    return out


def compositions(rng):
    out = []
    for fns, inputs in ((SEQ_FNS, SEQ_INPUTS), (MAP_FNS, MAP_INPUTS),
                        (STR_FNS, STR_INPUTS)):
        for g in fns:
            for f in rng.sample(fns, 12):
                x = rng.choice(inputs)
                out.append('(->> ' + x + ' (' + g + ') (' + f + '))')
                head = g.split(' ', 1)
                if head[0] in FIRST_ARG and len(head) > 1:
                    inner = '(' + head[0] + ' ' + x + ' ' + head[1] + ')'
                else:
                    inner = '(' + g + ' ' + x + ')'
                fh = f.split(' ', 1)
                if fh[0] in FIRST_ARG and len(fh) > 1:
                    out.append('(' + fh[0] + ' ' + inner + ' ' + fh[1] + ')')
                else:
                    out.append('(' + f + ' ' + inner + ')')
    # transients, through persistent!
    for x in ['[1 2]', '{:a 1}', '#{1 2}', '[]', '{}']:
        for op in ['conj! 3', 'assoc! 0 :z', 'assoc! :b 2', 'dissoc! :a',
                   'disj! 1', 'pop!']:
            out.append('(persistent! (' + op.split(' ', 1)[0] + ' (transient '
                       + x + ')' + (' ' + op.split(' ', 1)[1] if ' ' in op else '')
                       + '))')
    return out


# The second round's kinds of value, which the pools above do not draw:
# sorted collections with comparators, lazy seqs of range/iterate/repeat/
# cycle, a record (defined by the probe's top-level do), characters,
# ratios, BigDecimals and BigInts, namespaced keywords and maps, nested
# nils, values that carry metadata, map entries, subvectors and rseqs.
WIDE = {
    'coll': ['(sorted-map-by > 1 :a 3 :c 2 :b)', '(sorted-set-by > 3 1 2)',
             '(sorted-set-by (fn [a b] (compare b a)) "b" "a" "c")',
             '(range 2 9 3)', '(take 4 (iterate inc 0))', '(repeat 3 :x)',
             '(take 3 (cycle [1 2]))', '(->Pt 1 2)', '[\\a \\b]', '"héllo"',
             '[nil [nil]]', '{:a nil nil 1}', '#{nil}', "'(nil)",
             '[[] nil {}]', '(with-meta [1 2] {:m 1})', '^:x {:a 1}',
             '(first {:a 1})', '(subvec [1 2 3 4] 1 3)', '(rseq [1 2 3])',
             '#:x{:a 1 :b 2}', '[:x/a :x/b]', '[1/2 0.5M 3N]',
             '(array-map :b 1 :a 2)', '(lazy-seq nil)', '(list)'],
    'num': ['1/2', '-3/4', '2.50M', '0.1M', '100000000000000000000N',
            '(int 3)', '1e300', '-7', '(/ 1 3)', '3.0', '(bigdec 1)'],
    'map': ['(sorted-map-by > 1 :a 3 :c 2 :b)', '(->Pt 1 2)',
            '#:x{:a 1 :b 2}', '{:a nil nil 1}', '{nil nil}',
            '(with-meta {:a 1} {:m 1})', '(array-map :b 1 :a 2)',
            '{:a {:b nil}}', '{\\a 1 \\b 2}'],
    'set': ['(sorted-set-by > 3 1 2)', '#{nil}', '#{:x/a :a}',
            '(with-meta #{1} {:m 1})', '#{\\a \\b}', '#{1/2 0.5}'],
    'key': [':x/a', ':x', '\\a', '1/2', '2.0', '[1]', "'sym"],
    'str': ['"héllo"', '"A\\tB"', '"ß"', '"\\u00e9e\\u0301"', '"12"'],
    'char': ['\\Z', '\\newline', '\\1', '\\é'],
    'vec': ['(with-meta [1 2] {:m 1})', '(subvec [1 2 3 4] 1 3)',
            '[nil [nil]]', '[\\a \\b]', '[1/2 0.5M 3N]'],
    'count': ['(int 2)', '2.0', '1/2', '3N'],
    'int': ['(int 2)', '2.0', '1/2', '3N'],
}
WIDE['any'] = sorted({v for vs in WIDE.values() for v in vs})
WIDE_CALLS_PER_ARITY = 3
RECORD = '(defrecord Pt [x y])'


def draw_wide(rng, kind):
    """An argument of kind, from the second round's values half the time."""
    pool = WIDE.get(kind)
    if pool and rng.random() < 0.5:
        return rng.choice(pool)
    return draw(rng, kind)


def wide_calls(rng, var, params):
    """Calls of var at the arity params with the second round's values; a
    call that uses the record defines it first, in a top-level do."""
    out = []
    for call in drawn_calls(rng, var, params, WIDE_CALLS_PER_ARITY, draw_wide):
        if var in RETURNS_FN:
            call = '(' + ' '.join(filter(None, [call, rng.choice(RETURNS_FN[var])])) + ')'
        out.append(with_record(call))
    return out


def with_record(call):
    return '(do ' + RECORD + ' ' + call + ')' if '->Pt' in call else call


# 3-deep compositions draw from these inputs too.
WIDE_SEQ_INPUTS = ['(range 2 9 3)', '(take 4 (iterate inc 0))',
                   '(repeat 3 2)', '(sorted-set-by > 3 1 2)',
                   '[nil 1 nil 2]', '[1/2 0.5M 3N 2.5]', '(rseq [1 2 3])',
                   '(with-meta [4 1 3] {:m 1})', '[\\a \\b \\a]',
                   '(take 3 (cycle [1 2]))']
WIDE_MAP_INPUTS = ['(sorted-map-by > 1 :a 3 :c 2 :b)', '(->Pt 1 2)',
                   '#:x{:a 1 :b 2}', '{:a nil nil 1}',
                   '(with-meta {:a 1 :b 2} {:m 1})']
WIDE_STR_INPUTS = ['"héllo"', '"A\\tB"', '"ß"', '"1,2,,3"']


def apply_fn(f, inner):
    fh = f.split(' ', 1)
    if fh[0] in FIRST_ARG and len(fh) > 1:
        return '(' + fh[0] + ' ' + inner + ' ' + fh[1] + ')'
    return '(' + f + ' ' + inner + ')'


def deep_compositions(rng, n=300):
    """(f (g (h x))) and (->> x (h) (g) (f)): three functions of one family
    applied in turn, over the first round's inputs and the new ones."""
    out = []
    for fns, inputs in ((SEQ_FNS, SEQ_INPUTS + WIDE_SEQ_INPUTS),
                        (MAP_FNS, MAP_INPUTS + WIDE_MAP_INPUTS),
                        (STR_FNS, STR_INPUTS + WIDE_STR_INPUTS)):
        for i in range(n):
            h, g, f = (rng.choice(fns) for _ in range(3))
            x = rng.choice(inputs)
            if i % 2 == 0:
                out.append(with_record('(->> ' + x + ' (' + h + ') (' + g + ') (' + f + '))'))
            else:
                out.append(with_record(apply_fn(f, apply_fn(g, apply_fn(h, x)))))
    # a map function, then two sequence functions
    for i in range(n // 2):
        h, g, f = rng.choice(MAP_FNS), rng.choice(SEQ_FNS), rng.choice(SEQ_FNS)
        x = rng.choice(MAP_INPUTS + WIDE_MAP_INPUTS)
        out.append(with_record('(->> ' + x + ' (' + h + ') (' + g + ') (' + f + '))'))
    return out


def main():
    table = open('../coverage/table.txt').read()
    exact = set(re.findall(r'^== (\S+) exact$', table, re.M))
    fns = {l.split()[0] for l in open('../coverage/vars.txt') if l.split()[1:] == ['fn']}
    arglists = {}
    for line in open('arglists.tsv'):
        v, a = line.rstrip('\n').split('\t')
        arglists[v] = parse_arglists(a)
    rng = random.Random(SEED)
    probes = []
    for var in sorted(exact & fns - SKIP):
        for params in arglists.get(var, []):
            probes.extend(calls(rng, var, params))
    probes.extend(compositions(rng))
    first_round = len(set(probes))
    # the second round, drawn after the first so that its probes stay
    for var in sorted(exact & fns - SKIP):
        for params in arglists.get(var, []):
            probes.extend(wide_calls(rng, var, params))
    probes.extend(deep_compositions(rng))
    seen, unique = set(), []
    for p in probes:
        if p not in seen:
            seen.add(p)
            unique.append(p)
    with open('probes.txt', 'w') as f:
        for p in unique:
            f.write(p + '\n')
    print(len(unique), 'probes,', first_round, 'of the first round')


if __name__ == '__main__':
    main()
