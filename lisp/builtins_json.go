package lisp

import "strings"

// Cheshire's JSON functions, which models write as json/parse-string and
// json/generate-string (cheshire.core aliased as json): the sandbox's
// JSON reader and writer (json.go) under Cheshire's names and arguments.
var jsonBuiltins = []*Builtin{
	{Name: "json/parse-string", Sig: "(json/parse-string s) (json/parse-string s true)", Doc: "the JSON text s as data: keys stay strings, or become keywords with true", Category: "idiom",
		reach: javaStatic, aliases: []string{"cheshire.core/parse-string"},
		MinArgs: 1, MaxArgs: 2, Fn: builtinJSONParse, Cost: cost(scans(arg(0)), builds)},
	{Name: "json/generate-string", Sig: "(json/generate-string x)", Doc: "x as compact JSON text: keywords as their names, sets as arrays", Category: "idiom",
		reach: javaStatic, aliases: []string{"cheshire.core/generate-string"},
		MinArgs: 1, MaxArgs: 1, Fn: builtinJSONGenerate, Cost: cost(visits(arg(0)), builds)},
}

func builtinJSONParse(th *Thread, args []Value) (Value, error) {
	s, ok := args[0].(String)
	if !ok {
		return nil, typeErrorf("json/parse-string", "a JSON string", args[0])
	}
	stringKeys := true
	if len(args) == 2 {
		switch k := args[1].(type) {
		case Bool:
			stringKeys = !bool(k)
		case *Builtin:
			if k.Name != "keyword" {
				return nil, typeErrorf("json/parse-string", "true or keyword for keyword keys", args[1])
			}
			stringKeys = false
		default:
			return nil, typeErrorf("json/parse-string", "true or keyword for keyword keys", args[1])
		}
	}
	if strings.TrimSpace(string(s)) == "" {
		return Nil, nil // Cheshire reads no value from blank text
	}
	v, cost, err := decodeJSONKeys(string(s), 0, stringKeys)
	if err != nil {
		return nil, Errorf(executionError, "json/parse-string: %v", err).
			WithHint("check the text is JSON, e.g. (json/parse-string \"{\\\"a\\\": 1}\" true)")
	}
	if err := th.alloc(cost); err != nil {
		return nil, err
	}
	return v, nil
}

func builtinJSONGenerate(th *Thread, args []Value) (Value, error) {
	text, err := EncodeJSON(args[0])
	if err != nil {
		return nil, Errorf(typeError, "json/generate-string: %v", err)
	}
	if err := th.alloc(int64(len(text))); err != nil {
		return nil, err
	}
	return String(text), nil
}
