package lisp

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// interopCase is one line of testdata/interop/interop.jsonl: a Java interop
// form a model writes, with the value Clojure 1.11 gives for it (recorded by
// testdata/interop/record.clj), and for a form PTC-Lisp refuses, the program
// its hint leads to.
type interopCase struct {
	ID       string          `json:"id"`
	Expr     string          `json:"expr"`
	Rewrite  *string         `json:"rewrite"`
	Expected json.RawMessage `json:"expected"`
}

// hintCallHeads finds the names called in a hint's example forms.
var hintCallHeads = regexp.MustCompile(`\(([^\s()\[\]{}"#]+)`)

// TestJavaInterop: every form of the tables (Java interop, cheshire's json
// functions) gives Clojure's value, or
// is refused with a hint naming a builtin, and the rewrite that calls it
// gives Clojure's value.
func TestJavaInterop(t *testing.T) {
	files, err := filepath.Glob("testdata/interop/*.jsonl")
	if err != nil || len(files) < 2 {
		t.Fatalf("case files: %v %v", files, err)
	}
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) { checkInteropFile(t, path) })
	}
}

func checkInteropFile(t *testing.T, path string) {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		var c interopCase
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatal(err)
		}
		n++
		res := run(t, c.Expr, Env{})
		if res.Err == nil || c.Rewrite == nil {
			if ok, got, why := checkConformance(t, corpusCase{ID: c.ID, Expr: c.Expr, Expected: c.Expected}); !ok {
				t.Errorf("%s: %s\n  clojure: %s\n  got:     %s (%s)", c.ID, c.Expr, c.Expected, got, why)
			}
			continue
		}
		// Refused: the hint names what the rewrite calls, and the rewrite
		// gives Clojure's value.
		if res.Err.Hint == "" {
			t.Errorf("%s: %s refused without a hint: %v", c.ID, c.Expr, res.Err)
			continue
		}
		named := false
		for _, m := range hintCallHeads.FindAllStringSubmatch(res.Err.Hint, -1) {
			if strings.Contains(*c.Rewrite, "("+m[1]+" ") && !strings.Contains(c.Expr, "("+m[1]+" ") {
				named = true
			}
		}
		if !named {
			t.Errorf("%s: the hint %q names nothing the rewrite %s calls", c.ID, res.Err.Hint, *c.Rewrite)
		}
		if ok, got, why := checkConformance(t, corpusCase{ID: c.ID, Expr: *c.Rewrite, Expected: c.Expected}); !ok {
			t.Errorf("%s: rewrite %s\n  clojure: %s\n  got:     %s (%s)", c.ID, *c.Rewrite, c.Expected, got, why)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if n < 20 {
		t.Fatalf("%d cases read from %s, want the whole table", n, path)
	}
}

// TestJavaInteropHostileInput: arguments out of every range are errors
// that name the form, and a replacement that would grow a string past the
// memory budget is refused before it is built.
func TestJavaInteropHostileInput(t *testing.T) {
	for src, want := range map[string]string{
		`(.substring "abc" 9223372036854775807)`:                              ".substring",
		`(.charAt "" 0)`:                                                      ".charAt",
		`(.plusDays "2024-01-01" 9223372036854775807)`:                        ".plusDays",
		`(.plusMonths "+999999999-12-01" 1)`:                                  ".plusMonths",
		`(.minusYears "-999999999-01-01" 5)`:                                  ".minusYears",
		`(.plusWeeks "2024-01-01" 9223372036854775807)`:                       ".plusWeeks",
		`(.plusSeconds "2024-01-01T00:00" -9223372036854775808)`:              ".plusSeconds",
		`(.minusHours "10:00" -9223372036854775808)`:                          ".minusHours",
		`(LocalDateTime/of 2024 1 1 24 0)`:                                    "LocalDateTime/of",
		`(LocalTime/parse "10:15" "yyyy{")`:                                   "LocalTime/parse",
		`(DateTimeFormatter/ofPattern "yyyyyyyyyyyyyyyyyyyyyy")`:              "DateTimeFormatter/ofPattern",
		`(.format "2024-01-01" (DateTimeFormatter/ofPattern "HH"))`:           ".format",
		`(Duration/ofDays 9223372036854775807)`:                               "Duration/ofDays",
		`(.toNanos (Duration/ofDays 106752))`:                                 ".toNanos",
		`(.multipliedBy (Duration/ofSeconds 9223372036854775807) 2)`:          ".multipliedBy",
		`(.dividedBy (Duration/ofSeconds 1) 0)`:                               ".dividedBy",
		`(Duration/parse "PT9223372036854775807H")`:                           "Duration/parse",
		`(Duration/between "2024-01-01" "2024-01-02")`:                        "Duration/between",
		`(Period/of 9223372036854775807 0 0)`:                                 "Period/of",
		`(.plus "2024-01-01" 1 "Fortnights")`:                                 ".plus",
		`(.getHour "2024-01-01")`:                                             ".getHour",
		`(.withDayOfMonth "2024-02-01" 30)`:                                   ".withDayOfMonth",
		`(LocalDateTime/ofEpochSecond 9223372036854775807 0 "+18:00")`:        "LocalDateTime/ofEpochSecond",
		`(LocalDateTime/ofInstant "2024-01-01T00:00:00Z" "Mars/Base")`:        "LocalDateTime/ofInstant",
		`(.toInstant "+999999999-12-31T23:59" "-18:00")`:                      ".toInstant",
		`(Instant/ofEpochSecond -9223372036854775808)`:                        "Instant/ofEpochSecond",
		`(.with "2024-01-01" "next(FUNDAY)")`:                                 ".with",
		`(DateTimeFormatter/ofPattern (apply str (repeat 40 "[")))`:           "DateTimeFormatter/ofPattern",
		`(Period/ofWeeks 400000000)`:                                          "Period/ofWeeks",
		`(.plusDays (Period/ofDays 2147483647) 1)`:                            ".plusDays",
		`(.isBefore "2024-01-01" 5)`:                                          ".isBefore",
		`(LocalDate/of 9223372036854775807 1 1)`:                              "LocalDate/of",
		`(Integer/parseInt "ff" 99)`:                                          "Integer/parseInt",
		`(Math/floorMod 5 0)`:                                                 "Math/floorMod",
		`(.between "Hours" "2024-01-01" "2024-01-02")`:                        ".between",
		`(json/parse-string (apply str (repeat 2000 "[")))`:                   "json/parse-string",
		`(json/generate-string {1 2})`:                                        "json/generate-string",
		`(json/generate-string {:a 1} {:pretty true})`:                        "json/generate-string",
		`(Instant/parse "2024-01-15T10:30:00")`:                               "Instant/parse",
		`(dir 1)`:                                                             "dir",
		`(let [s (apply str (repeat 100000 "a"))] (count (.replace s "" s)))`: "memory limit",
		`(.repeat "ab" 9223372036854775807)`:                                  ".repeat",
		`(.repeat (apply str (repeat 1000 "a")) 100000000)`:                   "memory limit",
		`(.subList [1 2] 0 9223372036854775807)`:                              ".subList",
		`(.get [1 2] -9223372036854775808)`:                                   ".get",
		`(Integer/sum 9223372036854775807 1)`:                                 "Integer/sum",
		`(Math/multiplyExact -9223372036854775808 -1)`:                        "Math/multiplyExact",
		`(re-find #"(?<=a)(b" "ab")`:                                          "cannot be compiled",
	} {
		res := run(t, src, Env{})
		if res.Err == nil || !strings.Contains(res.Err.Error(), want) {
			t.Errorf("%s: %v, want an error naming %s", src, res.Err, want)
		}
	}
}
