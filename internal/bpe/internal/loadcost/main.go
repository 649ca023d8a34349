// Command loadcost measures, in a fresh process, what loading one encoding
// costs and how long the first and later counts of the built-in system
// prompt take, with package bpe or with github.com/tiktoken-go/tokenizer
// (whose vocabularies bpe's files are generated from):
//
//	go run ./internal/bpe/internal/loadcost -impl bpe -encoding o200k_base
//
// It prints heap in use (runtime.MemStats.HeapInuse after a GC) and
// resident set size (VmRSS in /proc/self/status, Linux) before loading,
// after loading, and after the first count; the load time; the first
// count's time; and the median of 20 later counts.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"log"
	"os"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/ptc-sidecar/ptc-sidecar/internal/bpe"
	"github.com/ptc-sidecar/ptc-sidecar/lisp"
	"github.com/tiktoken-go/tokenizer"
)

func main() {
	impl := flag.String("impl", "bpe", "bpe or library")
	encoding := flag.String("encoding", "o200k_base", "o200k_base, cl100k_base or gemma3")
	flag.Parse()
	prompt := lisp.SystemPrompt()

	before := snapshot()
	start := time.Now()
	var count func(string) int
	switch *impl {
	case "bpe":
		e, err := bpe.Get(*encoding)
		if err != nil {
			log.Fatal(err)
		}
		count = e.Count
	case "library":
		c, err := tokenizer.Get(tokenizer.Encoding(*encoding))
		if err != nil {
			log.Fatal(err)
		}
		count = func(s string) int { n, _ := c.Count(s); return n }
	default:
		log.Fatalf("unknown -impl %q", *impl)
	}
	load := time.Since(start)
	loaded := snapshot()

	start = time.Now()
	n := count(prompt)
	first := time.Since(start)
	counted := snapshot()

	var later []time.Duration
	for range 20 {
		start = time.Now()
		count(prompt)
		later = append(later, time.Since(start))
	}
	slices.Sort(later)

	fmt.Printf("%s %s: load %v, first count %v (%d tokens of %d bytes), later counts %v (median of 20)\n",
		*impl, *encoding, load.Round(time.Microsecond), first.Round(time.Microsecond), n, len(prompt), later[10].Round(time.Microsecond))
	fmt.Printf("  heap in use MB: %.1f before, %.1f loaded, %.1f after first count\n", before.heap, loaded.heap, counted.heap)
	fmt.Printf("  RSS MB:         %.1f before, %.1f loaded, %.1f after first count\n", before.rss, loaded.rss, counted.rss)
}

type memory struct{ heap, rss float64 }

func snapshot() memory {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return memory{heap: float64(ms.HeapInuse) / (1 << 20), rss: rssMB()}
}

func rssMB() float64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			var kb float64
			fmt.Sscan(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), &kb)
			return kb / 1024
		}
	}
	return 0
}
