#!/usr/bin/env bash
# Side-by-side self-check (issue 15): the full `llmperf4j token-benchmark` and a minimal Node streaming client, one
# after the other against the same out-of-process reference SSE server (Node), which logs when it had each whole
# request, when it wrote the first and the last content chunk, and its event loop's busy periods. Prints the TTFT
# error split into send and receive side (the send side also into the client's own part, the time the server was
# busy and the rest), the stream ceiling with client CPU, peak RSS, and an open loop's send lag, each llmperf4j figure
# as a ratio to the reference client's from the same run, as a Markdown table for BENCHMARKS.md; then a second table of
# what each client made the server do (its counts per request and per chunk, its loop thread's CPU time and context
# switches, procwatch on the server too).
#
# Usage: scripts/side-by-side/side-by-side.sh [--quick] [--only s1,s32,s256,ceiling,open,s1024,s4096] [--out DIR]
#          [--pin SERVER_CPUS:CLIENT_CPUS] [--server-workers N] [--ref-preconnect]
#   --quick   a short smoke run: fewer requests, no 1,024- or 4,096-stream scenario (figures then rough)
#   --only    run only these scenarios (default: all; with --quick all but s1024 and s4096)
#   --out     keep the run's files in DIR (default: a new temporary folder, printed at the end)
#   --pin     run the server on SERVER_CPUS and both clients on CLIENT_CPUS (taskset lists, e.g. 1:0), so the
#             scheduler cannot put a client's threads on the server's core (default: no pinning)
#   --server-workers  run the reference server as N processes sharing the port (default 1), to see how much of
#             the send side is its intake: one process takes in one request at a time
#   --ref-preconnect  the reference client opens one connection per stream before its first request, as llmperf4j
#             does, instead of as its first wave goes out (default: a connect storm inside its first wave's TTFT)
# Needs: Linux (/proc), Node 18 or later, Java 17; Maven only if cli/target/llmperf4j.jar is missing. Everything
# binds to 127.0.0.1; every process it starts is stopped on exit, Ctrl-C and failure included.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"

quick=false
only=""
only_given=""
out=""
pin=""
server_workers=1
ref_preconnect=false
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) quick=true; shift ;;
    --only) only="${2:?--only needs a list}"; only_given="$only"; shift 2 ;;
    --out) out="${2:?--out needs a folder}"; shift 2 ;;
    --pin) pin="${2:?--pin needs SERVER_CPUS:CLIENT_CPUS}"; shift 2 ;;
    --server-workers) server_workers="${2:?--server-workers needs a number}"; shift 2 ;;
    --ref-preconnect) ref_preconnect=true; shift ;;
    -h|--help) sed -n '2,23s/^# \{0,1\}//p' "${BASH_SOURCE[0]}"; exit 0 ;;
    *) echo "side-by-side: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done
[[ "$server_workers" =~ ^[1-9][0-9]*$ ]] || {
  echo "side-by-side: --server-workers wants a whole number of processes, 1 or more (got $server_workers)" >&2
  exit 2
}
if [ -z "$only" ]; then
  if $quick; then only="s1,s32,s256,ceiling,open"; else only="s1,s32,s256,ceiling,open,s1024,s4096"; fi
fi
want() { [[ ",$only," == *",$1,"* ]]; }

command -v node >/dev/null || { echo "side-by-side: node is not on the PATH (Node 18 or later)" >&2; exit 1; }
node_major="$(node -p 'process.versions.node.split(".")[0]')"
[ "$node_major" -ge 18 ] || { echo "side-by-side: Node $node_major is too old (18 or later)" >&2; exit 1; }
[ -r /proc/self/stat ] || { echo "side-by-side: needs Linux's /proc for CPU and memory" >&2; exit 1; }
server_pin=()
client_pin=()
if [ -n "$pin" ]; then
  [[ "$pin" =~ ^[0-9,-]+:[0-9,-]+$ ]] \
    || { echo "side-by-side: --pin wants SERVER_CPUS:CLIENT_CPUS, e.g. 1:0 (got $pin)" >&2; exit 2; }
  command -v taskset >/dev/null || { echo "side-by-side: --pin needs taskset (util-linux)" >&2; exit 1; }
  server_pin=(taskset -c "${pin%%:*}")
  client_pin=(taskset -c "${pin##*:}")
  "${server_pin[@]}" true 2>/dev/null && "${client_pin[@]}" true 2>/dev/null \
    || { echo "side-by-side: --pin $pin: a CPU list this machine does not have" >&2; exit 2; }
fi
if [ ! -f "$root/cli/target/llmperf4j.jar" ]; then
  echo "== building llmperf4j (cli/target/llmperf4j.jar is missing)"
  (cd "$root" && mvn -B -ntp -q -DskipTests package)
fi
ulimit -n 8192 2>/dev/null || ulimit -n "$(ulimit -Hn)" 2>/dev/null || true

run="${out:-$(mktemp -d "${TMPDIR:-/tmp}/side-by-side.XXXXXX")}"
mkdir -p "$run"
clk_tck="$(getconf CLK_TCK)"

# Every process started here and not yet waited for, stopped on any exit.
started=()
forget() { # pid: it has been waited for, so its number may be reused
  local kept=() p
  for p in "${started[@]}"; do [ "$p" = "$1" ] || kept+=("$p"); done
  started=("${kept[@]}")
}
cleanup() {
  local pid
  for pid in "${started[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${started[@]}"; do wait "$pid" 2>/dev/null || true; done
  started=()
}
trap cleanup EXIT
exec 3>&2 # the script's own stderr, for the message below even while a step's output is redirected
trap 'echo "side-by-side: interrupted" >&3; exit 130' INT TERM

server_pid=""
server_watch=""
port=""
start_server() { # dir, then the server's flags; sets port and server_pid
  local dir="$1"; shift
  rm -f "$dir/port"
  "${server_pin[@]}" node "$here/reference-server.mjs" --port 0 --port-file "$dir/port" --log "$dir/server.jsonl" \
    --busy-log "$dir/server.busy.jsonl" --socket-log "$dir/server.sockets.jsonl" --workers "$server_workers" "$@" \
    2>>"$dir/server.err" &
  server_pid=$!
  started+=("$server_pid")
  # its CPU time and its loop thread's scheduling, for each client's window (one process: the primary of several
  # serves nothing)
  server_watch=""
  if [ "$server_workers" = 1 ]; then
    node "$here/procwatch.mjs" "$server_pid" "$dir/server.proc.jsonl" &
    server_watch=$!
    started+=("$server_watch")
  fi
  local i
  for i in $(seq 1 100); do
    [ -s "$dir/port" ] && break
    kill -0 "$server_pid" 2>/dev/null || { cat "$dir/server.err" >&2; exit 1; }
    sleep 0.1
  done
  [ -s "$dir/port" ] || { echo "side-by-side: the reference server did not start" >&2; exit 1; }
  port="$(cat "$dir/port")"
}
stop_server() {
  kill "$server_pid" 2>/dev/null || true
  wait "$server_pid" 2>/dev/null || true
  forget "$server_pid"
  if [ -n "$server_watch" ]; then
    wait "$server_watch" 2>/dev/null || true
    forget "$server_watch"
  fi
}

measured() { # name of the CPU/memory file (without .proc.jsonl), then the command: runs it with procwatch on it
  local proc="$1"; shift
  "$@" &
  local pid=$!
  started+=("$pid")
  node "$here/procwatch.mjs" "$pid" "$proc.proc.jsonl" --threads &
  local watch=$!
  started+=("$watch")
  local rc=0
  wait "$pid" || rc=$?
  forget "$pid"
  wait "$watch" 2>/dev/null || true
  forget "$watch"
  return "$rc"
}

order=0
failed=() # the runs that did not finish: their figures are missing from the table, and the script exits 1
# name, label, kind (latency|ceiling|wide|open), rss (true|false), load (streams; for kind open, the request rate of
# Poisson arrivals), requests, tokens, server flags...
scenario() {
  local name="$1" label="$2" kind="$3" rss="$4" load="$5" requests="$6" tokens="$7"; shift 7
  want "$name" || return 0
  order=$((order + 1))
  local dir="$run/$name"
  local streams="$load" ref_load=(--streams "$load") l4j_load=(--num-concurrent-requests "$load") unit=streams
  if [ "$kind" = open ]; then # the server is warmed at 16 streams
    streams=16 ref_load=(--rate "$load") l4j_load=(--request-rate "$load" --arrival poisson) unit="req/s, Poisson"
  elif $ref_preconnect; then # a closed loop: one connection per stream before the first request, as llmperf4j
    ref_load+=(--preconnect "$load")
  fi
  rm -rf "$dir"; mkdir -p "$dir"
  echo "== $label: $load $unit, $requests requests of $tokens tokens, server $*"
  echo "   $(date -u +%H:%M:%S), load average $(cut -d' ' -f1 /proc/loadavg)"
  start_server "$dir" "$@"
  local url="http://127.0.0.1:$port/v1/chat/completions"
  # Warm the server (not the clients) at this concurrency with short answers, left out of every figure.
  "${client_pin[@]}" node "$here/reference-client.mjs" --url "$url" --streams "$streams" \
    --requests "$((streams * 2))" --max-tokens 16 --id-prefix warm- --out "$dir/warm.jsonl" 2>>"$dir/ref.err"
  sleep 1
  echo "   reference client"
  measured "$dir/ref" "${client_pin[@]}" node "$here/reference-client.mjs" --url "$url" "${ref_load[@]}" \
    --requests "$requests" --max-tokens "$tokens" --prompt-words 64 --out "$dir/ref.jsonl" 2>>"$dir/ref.err" \
    || failed+=("$label: the reference client (see $dir/ref.err)")
  tail -n 1 "$dir/ref.err" | sed 's/^/   /'
  sleep 1
  echo "   llmperf4j token-benchmark"
  OPENAI_API_BASE="http://127.0.0.1:$port/v1" OPENAI_API_KEY=side-by-side \
    measured "$dir/l4j" "${client_pin[@]}" "$root/bin/llmperf4j" token-benchmark --model reference \
    "${l4j_load[@]}" --max-num-completed-requests "$requests" \
    --mean-input-tokens 64 --stddev-input-tokens 0 --mean-output-tokens "$tokens" --stddev-output-tokens 0 \
    --timeout 900 --results-dir "$dir/l4j" >"$dir/l4j.out" 2>&1 \
    || { echo "   llmperf4j failed:"; tail -n 5 "$dir/l4j.out"; failed+=("$label: llmperf4j (see $dir/l4j.out)"); }
  grep -E '^(Number Of Errored Requests|Number Of Completed Requests)' "$dir/l4j.out" | sed 's/^/   /' || true
  stop_server
  cat >"$dir/meta.json" <<EOF
{"name": "$name", "label": "$label", "kind": "$kind", "rss": $rss, "order": $order, "load": $load,
 "requests": $requests, "tokens": $tokens, "server": "$*", "clkTck": $clk_tck}
EOF
}

machine="$(nproc) cores ($(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)), \
$(awk '/MemTotal/ {printf "%.0f GiB", $2 / 1048576}' /proc/meminfo), $(uname -sr), \
$(java -version 2>&1 | head -n 1), Node $(node --version)"
load_before="$(cut -d' ' -f1-3 /proc/loadavg)"
started_at="$(date -u +%Y-%m-%dT%H:%MZ)"
started_s="$(date +%s)"
echo "== side-by-side on $machine; load average $load_before; files in $run"
if awk -v l="${load_before%% *}" -v n="$(nproc)" 'BEGIN { exit !(l > n) }'; then
  echo "   note: load average ${load_before%% *} on $(nproc) cores: other processes compete for the CPU, so the figures"
  echo "   (the p99s most) carry their scheduling delays; rerun on a quieter machine to judge a target"
fi

if $quick; then w1=4; w32=64; w256=256; wceil=128; wopen=400; w1024=1024; w4096=4096; else
  w1=20; w32=128; w256=1024; wceil=512; wopen=2000; w1024=1024; w4096=8192; fi
latency_server=(--ttft-ms 50 --itl-ms 10)
scenario s1 "1 stream" latency false 1 "$w1" 256 "${latency_server[@]}"
scenario s32 "32 streams" latency false 32 "$w32" 256 "${latency_server[@]}"
scenario s256 "256 streams" latency true 256 "$w256" 256 "${latency_server[@]}"
scenario ceiling "ceiling: 64 streams × 1,024 tokens" ceiling false 64 "$wceil" 1024 \
  --ttft-ms 0 --itl-ms 0 --events-per-write 16
# an open loop: short answers (16 tokens, as the T1 scenario's) arriving 200 a second, about 40 in flight
scenario open "open loop: 200 req/s" open false 200 "$wopen" 16 "${latency_server[@]}"
scenario s1024 "1,024 streams, 200 ms between chunks" wide true 1024 "$w1024" 256 --ttft-ms 50 --itl-ms 200
# memory at scale: 64-token answers keep it to two waves of about 13 s
scenario s4096 "4,096 streams, 200 ms between chunks" wide true 4096 "$w4096" 64 --ttft-ms 50 --itl-ms 200

cmd="scripts/side-by-side/side-by-side.sh"
$quick && cmd="$cmd --quick"
[ -n "${only_given}" ] && cmd="$cmd --only $only_given"
[ -n "${out}" ] && cmd="$cmd --out $out"
[ -n "${pin}" ] && cmd="$cmd --pin $pin"
[ "$server_workers" != 1 ] && cmd="$cmd --server-workers $server_workers"
$ref_preconnect && cmd="$cmd --ref-preconnect"
echo
echo "== figures (Markdown, for BENCHMARKS.md)"
echo
echo "\`$cmd\`, $started_at, commit $(git -C "$root" describe --always --dirty 2>/dev/null || echo unknown),"
echo "$(( ($(date +%s) - started_s + 30) / 60 )) min; $machine;"
echo "load average $load_before before, $(cut -d' ' -f1-3 /proc/loadavg) after. Server: reference-server.mjs$(
  [ "$server_workers" = 1 ] || echo " in $server_workers processes"); 64-token"
echo "prompts; 50 ms TTFT, 10 ms between chunks, 256 output tokens, except the ceiling (no TTFT or delay, 1,024 tokens,"
echo "16 SSE events per socket write), the open loop (16 output tokens), the 1,024-stream run (200 ms between chunks)"
echo "and the 4,096-stream run (200 ms between chunks, 64 output tokens)."
echo
node "$here/analyze.mjs" "$run" "$only"
echo
echo "(files: $run)"
if [ ${#failed[@]} -gt 0 ]; then
  echo "side-by-side: ${#failed[@]} run(s) failed, their figures are missing above:" >&2
  printf '  %s\n' "${failed[@]}" >&2
  exit 1
fi
