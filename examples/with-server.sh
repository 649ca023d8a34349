#!/usr/bin/env bash
# Runs a command against the real server: builds ptc-sidecar, starts it on a
# free loopback port, runs the command with the server's address in
# PTC_SIDECAR_TARGET, and stops the server whatever happens. The examples'
# checks (make test-python, make test-typescript) run through it:
#   examples/with-server.sh /usr/bin/python3 examples/python/agent.py
set -euo pipefail
cd "$(dirname "$0")/.."

work=$(mktemp -d)
server_pid=
cleanup() {
	if [ -n "$server_pid" ]; then
		kill "$server_pid" 2>/dev/null || true
		wait "$server_pid" 2>/dev/null || true
	fi
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

go build -o "$work/ptc-sidecar" ./cmd/ptc-sidecar
# The log exists before the server starts: the background shell opens it
# on its own time, and on a busy machine the first read below may come
# first.
: >"$work/server.log"
"$work/ptc-sidecar" serve --listen 127.0.0.1:0 2>>"$work/server.log" &
server_pid=$!

# Port 0 lets the kernel pick a free port; the server logs the address it
# bound in its JSON "serving" line once it is ready. It is waited for as
# long as the server runs, however busy the machine: a server that cannot
# start exits.
addr=
while :; do
	addr=$(sed -n 's/.*"msg":"serving".*"addr":"\([^"]*\)".*/\1/p' "$work/server.log")
	if [ -n "$addr" ] || ! kill -0 "$server_pid" 2>/dev/null; then
		break
	fi
	sleep 0.1
done
if [ -z "$addr" ]; then
	echo "the server did not start:" >&2
	cat "$work/server.log" >&2
	exit 1
fi
echo "ptc-sidecar serving on $addr"

status=0
PTC_SIDECAR_TARGET=$addr "$@" || status=1
if [ "$status" -ne 0 ]; then
	echo "--- server log:" >&2
	cat "$work/server.log" >&2
fi
exit "$status"
