#!/usr/bin/env bash
# Where a 1-stream request's send time goes, from the kernel's side (issue 15): runs the reference server and the full
# llmperf4j command at 1 stream under `perf record` (scheduler switches and the write, read and epoll system calls of
# both processes, on CLOCK_MONOTONIC, Java's System.nanoTime clock), then send-trace.mjs lines up per request the
# client's start and request-written stamps (requests.jsonl), its I/O thread's sendto, the thread's switches between
# that sendto and the stamp (switched out runnable = preempted, and by whom) and the server's receipt. This is how the
# 1-stream "request written → the server had it" of -0.3 ms was traced to the woken server run on the writer's core.
#
# Usage: scripts/side-by-side/send-trace.sh [--requests 20] [--out DIR]
# Needs: Linux perf with tracepoints (root, or kernel.perf_event_paranoid -1), Node 18+, Java 17, the built jar
# (cli/target/llmperf4j.jar). Binds to 127.0.0.1 only; every process it starts is stopped on exit.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
requests=20
out=""
while [ $# -gt 0 ]; do
  case "$1" in
    --requests) requests="${2:?--requests needs a number}"; shift 2 ;;
    --out) out="${2:?--out needs a folder}"; shift 2 ;;
    -h|--help) sed -n '2,11s/^# \{0,1\}//p' "${BASH_SOURCE[0]}"; exit 0 ;;
    *) echo "send-trace: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done
[[ "$requests" =~ ^[1-9][0-9]*$ ]] || { echo "send-trace: --requests wants a whole number, 1 or more" >&2; exit 2; }
command -v perf >/dev/null || { echo "send-trace: perf is not on the PATH" >&2; exit 1; }
perf list 'sched:sched_switch' 2>/dev/null | grep -q sched_switch \
  || { echo "send-trace: perf sees no sched tracepoints (run as root, or set kernel.perf_event_paranoid to -1)" >&2; exit 1; }
[ -f "$root/cli/target/llmperf4j.jar" ] \
  || { echo "send-trace: build first: (cd $root && mvn -B -ntp -DskipTests package)" >&2; exit 1; }

dir="${out:-$(mktemp -d "${TMPDIR:-/tmp}/send-trace.XXXXXX")}"
mkdir -p "$dir"
started=()
cleanup() {
  local pid
  for pid in "${started[@]}"; do kill -INT "$pid" 2>/dev/null || true; done
  for pid in "${started[@]}"; do wait "$pid" 2>/dev/null || true; done
}
trap cleanup EXIT

node "$here/reference-server.mjs" --port 0 --port-file "$dir/port" --log "$dir/server.jsonl" --ttft-ms 50 \
  --itl-ms 10 2>"$dir/server.err" &
server=$!
started+=("$server")
for _ in $(seq 1 100); do [ -s "$dir/port" ] && break; sleep 0.1; done
[ -s "$dir/port" ] || { echo "send-trace: the reference server did not start" >&2; exit 1; }
port="$(cat "$dir/port")"
node "$here/reference-client.mjs" --url "http://127.0.0.1:$port/v1/chat/completions" --streams 1 --requests 2 \
  --max-tokens 16 --id-prefix warm- --out "$dir/warm.jsonl" 2>/dev/null

events=(-e sched:sched_switch -e syscalls:sys_enter_sendto -e syscalls:sys_exit_sendto -e syscalls:sys_enter_write
  -e syscalls:sys_exit_write -e syscalls:sys_enter_writev -e syscalls:sys_exit_writev -e syscalls:sys_enter_read
  -e syscalls:sys_exit_read)
perf record -q -k mono -o "$dir/server.perf" "${events[@]}" -p "$server" 2>"$dir/perf-server.err" &
server_perf=$!
started=("$server_perf" "${started[@]}") # stopped first, so it writes its file
sleep 1
echo "send-trace: llmperf4j, 1 stream, $requests requests (files in $dir)"
OPENAI_API_BASE="http://127.0.0.1:$port/v1" OPENAI_API_KEY=send-trace \
  perf record -q -k mono -o "$dir/client.perf" "${events[@]}" -- "$root/bin/llmperf4j" token-benchmark \
  --model reference --num-concurrent-requests 1 --max-num-completed-requests "$requests" --mean-input-tokens 64 \
  --stddev-input-tokens 0 --mean-output-tokens 256 --stddev-output-tokens 0 --timeout 900 \
  --results-dir "$dir/l4j" >"$dir/l4j.out" 2>&1 || { echo "send-trace: llmperf4j failed (see $dir/l4j.out)" >&2; exit 1; }
cleanup
started=()
# the epoch's offset from CLOCK_MONOTONIC now (both step together only on a clock step, as clock.mjs says)
node --input-type=module -e "
import { nowMicros } from '$here/clock.mjs';
const mono = Number(process.hrtime.bigint()) / 1000; const wall = nowMicros();
process.stdout.write(String(wall - mono));" >"$dir/epoch-minus-mono-micros"
perf script -i "$dir/client.perf" --ns -F comm,tid,cpu,time,event,trace >"$dir/client.txt" 2>/dev/null
perf script -i "$dir/server.perf" --ns -F comm,tid,cpu,time,event,trace >"$dir/server.txt" 2>/dev/null
node "$here/send-trace.mjs" "$dir"
