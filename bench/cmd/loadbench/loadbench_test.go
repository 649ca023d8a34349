package main

import (
	"os"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestParseStatCPU(t *testing.T) {
	// A command name with spaces and parentheses, utime 250 and stime 50 ticks.
	stat := "4242 (ptc side) car)) S 1 4242 4242 0 -1 4194560 100 0 0 0 250 50 0 0 20 0 8 0 123 0 0"
	got, err := parseStatCPU(stat)
	if err != nil || got != 3*time.Second {
		t.Errorf("parseStatCPU = %v, %v; want 3s", got, err)
	}
	if _, err := parseStatCPU("4242 (short) S 1"); err == nil {
		t.Error("a truncated stat line is accepted")
	}
	self, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		t.Skip("no /proc:", err)
	}
	if _, err := parseStatCPU(string(self)); err != nil {
		t.Errorf("this process's stat: %v", err)
	}
}

func TestParseStatusMemory(t *testing.T) {
	status := "Name:\tptc-sidecar\nVmHWM:\t   51200 kB\nVmRSS:\t   20480 kB\nThreads:\t8\n"
	rss, peak, err := parseStatusMemory(status)
	if err != nil || rss != 20<<20 || peak != 50<<20 {
		t.Errorf("parseStatusMemory = %d, %d, %v; want 20 MiB, 50 MiB", rss, peak, err)
	}
	if _, _, err := parseStatusMemory("VmRSS:\tlots kB\n"); err == nil {
		t.Error("a malformed VmRSS is accepted")
	}
}

func TestParseFlags(t *testing.T) {
	cfg, err := parseFlags([]string{"-clients", "1, 64", "-workloads", "evalturn", "-duration", "2s", "-server-args", " --max-concurrent-streams  8 --max-turns=50 "})
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.clients) != 2 || cfg.clients[1] != 64 || cfg.workloads[0] != "evalturn" || cfg.duration != 2*time.Second ||
		!slices.Equal(cfg.serverArgs, []string{"--max-concurrent-streams", "8", "--max-turns=50"}) {
		t.Errorf("parsed %+v", cfg)
	}
	for _, bad := range [][]string{
		{"-clients", "0"}, {"-clients", "x"}, {"-workloads", "chat"}, {"-duration", "0s"},
		{"-duration", "1h"}, {"-rounds", "0"}, {"-conns", "-1"}, {"-max-requests", "0"},
		{"-replicas", "0"}, {"-runs", "0"}, {"-turns", "101"},
	} {
		if _, err := parseFlags(bad); err == nil || !strings.HasPrefix(err.Error(), bad[0]) {
			t.Errorf("%v: error %v, want one naming %s", bad, err, bad[0])
		}
	}
}
