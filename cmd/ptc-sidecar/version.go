package main

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
)

// version is the release version, set at build time with
// -ldflags "-X main.version=v1.2.3".
var version = "dev"

func init() {
	registerCommand(command{
		name:    "version",
		summary: "print the version and exit",
		run:     runVersion,
	})
}

// binaryVersion is the version of this build: the -ldflags value, else the
// module version recorded by `go install module@version`, else "dev".
func binaryVersion() string {
	if version != "dev" {
		return version
	}
	if info, ok := debug.ReadBuildInfo(); ok && info.Main.Version != "" && info.Main.Version != "(devel)" {
		return info.Main.Version
	}
	return version
}

func runVersion(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		fmt.Fprintf(stderr, "ptc-sidecar version: takes no arguments, got %q\n", args)
		return 2
	}
	fmt.Fprintf(stdout, "ptc-sidecar %s (%s %s/%s)\n", binaryVersion(), runtime.Version(), runtime.GOOS, runtime.GOARCH)
	return 0
}
