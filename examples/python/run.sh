#!/usr/bin/env bash
# Runs the Python example agent against the real server: builds ptc-sidecar,
# starts it on a free port, runs the agent on the ptc_sidecar package
# (clients/python/src) over both tool protocols, and stops the server
# whatever happens.
# Needs Go, and Debian's python3-grpcio and python3-protobuf (PYTHON picks
# the interpreter, default /usr/bin/python3: the one Debian's packages serve).
set -euo pipefail
cd "$(dirname "$0")/../.."

python=${PYTHON:-/usr/bin/python3}
export PYTHONDONTWRITEBYTECODE=1 # keep the tree clean
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

if ! "$python" -c 'import grpc, google.protobuf' 2>/dev/null; then
	echo "$python cannot import grpc and protobuf: install python3-grpcio and python3-protobuf" >&2
	exit 1
fi

go build -o "$work/ptc-sidecar" ./cmd/ptc-sidecar
"$work/ptc-sidecar" serve --listen 127.0.0.1:0 2>"$work/server.log" &
server_pid=$!

# Port 0 lets the kernel pick a free port; the server logs the address it
# bound in its JSON "serving" line.
addr=
for _ in $(seq 100); do
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
PYTHONPATH="$PWD/clients/python/src" "$python" examples/python/agent.py --target "$addr" --protocol both || status=1
if [ "$status" -ne 0 ]; then
	echo "--- server log:" >&2
	cat "$work/server.log" >&2
fi
exit "$status"
