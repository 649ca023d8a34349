module github.com/ptc-sidecar/ptc-sidecar/bench/starlark

go 1.26.8

require github.com/ptc-sidecar/ptc-sidecar v0.0.0

require golang.org/x/text v0.43.0 // indirect

require (
	go.starlark.net v0.0.0-20260908191801-89a6a09411d5
	golang.org/x/sys v0.49.0 // indirect
)

replace github.com/ptc-sidecar/ptc-sidecar => ../..
