#!/usr/bin/env bash
# Runs llmperf4j's own performance benchmarks (issue 8) and prints their figures; BENCHMARKS.md records them.
# The full command out of process, side by side with a minimal client: scripts/side-by-side/side-by-side.sh.
# Nothing here runs in `mvn verify`. Needs no network beyond Maven Central (first build) and 127.0.0.1.
#
# Usage: scripts/perf-benchmarks.sh [--quick]
#   --quick            shorter windows (a smoke run; the figures are then rough)
# Environment:
#   CLIENT_JAVA_OPTS   JVM options of the client JVM of the ceiling, peak-RSS, send-lag and calibrate runs (default: the
#                      launcher's, default_java_opts in bin/llmperf4j; set but empty: the JVM's own defaults)
#   ONLY               run only these steps, comma-separated: sse,jmh-engine,jmh-tokenize,ceiling,rss,send-lag,
#                      calibrate,full (full: bin/llmperf4j token-benchmark itself, Llama-2 counting and journal on,
#                      against bin/llmperf4j serve in another process; needs the jar: mvn -B -ntp -DskipTests package)
#
# Figures depend on the machine and on everything else running on it: run on a quiet machine and record the cores.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

quick=false
[ "${1:-}" = "--quick" ] && quick=true
if $quick; then seconds=4; warmup=2; jmh="-wi 1 -i 2 -w 1s -r 1s -f 1 -t 1"; else seconds=10; warmup=3; jmh="-wi 2 -i 3 -w 2s -r 2s -f 1 -t 1"; fi
only="${ONLY:-sse,jmh-engine,jmh-tokenize,ceiling,rss,send-lag,calibrate,full}"
want() { [[ ",$only," == *",$1,"* ]]; }

echo "== perf-benchmarks on $(nproc) cores, $(uname -sr), $(java -version 2>&1 | head -n 1), $(date -u +%Y-%m-%dT%H:%MZ)"
echo "   load average before: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown)"

# Compile every module with the benchmark sources (no install: sibling modules resolve to their target/classes),
# and write each module's test classpath to target/bench.classpath.
mvn -B -q -ntp -Pbenchmarks -DskipTests -pl bench-server,bench-engine,bench-tokenize,cli -am \
  test-compile dependency:build-classpath -Dmdep.outputFile=target/bench.classpath -Dmdep.includeScope=test
classpath() { echo "$root/$1/target/test-classes:$root/$1/target/classes:$(cat "$root/$1/target/bench.classpath")"; }

# The client runs with the launcher's JVM options, so the figures are those of bin/llmperf4j as users run it.
launcher_java_opts="$(sed -n 's/^default_java_opts="\(.*\)"$/\1/p' bin/llmperf4j)"
client_java_opts="${CLIENT_JAVA_OPTS-$launcher_java_opts}"
echo "   client JVM options: [${client_java_opts}]"

results="$(mktemp -d)"
log="$results/all.txt"
run() { # name, module, java arguments (with CP standing for the module's test classpath): runs it, keeps its output
  local name="$1" module="$2"; shift 2
  echo; echo "== $name"; echo "\$ java $* (CP: the test classpath of $module)"
  local args=() a
  for a in "$@"; do if [ "$a" = CP ]; then args+=("$(classpath "$module")"); else args+=("$a"); fi; done
  java "${args[@]}" 2>&1 | tee "$results/$name.txt" | tee -a "$log"
}

if want sse; then
  run sse-throughput bench-server -cp CP io.llmperf4j.server.SseThroughputBenchmark \
    connections=16 warmupSeconds="$warmup" seconds="$seconds" endpoint=chat
fi
if want jmh-engine; then
  # shellcheck disable=SC2086
  run jmh-engine bench-engine -cp CP org.openjdk.jmh.Main 'io.llmperf4j.engine.bench.jmh' $jmh
fi
if want jmh-tokenize; then
  # shellcheck disable=SC2086
  run jmh-tokenize bench-tokenize -Dai.djl.offline=true -DRUST_FLAVOR=cpu -cp CP \
    org.openjdk.jmh.Main 'TokenCountingBenchmark' $jmh
fi
if want ceiling; then
  for streams in 256 1024; do
    # shellcheck disable=SC2086
    run "ceiling-$streams" bench-engine $client_java_opts -cp CP \
      io.llmperf4j.engine.bench.ClientCeilingBenchmark streams="$streams" seconds="$seconds" warmupSeconds="$warmup"
  done
fi
if want rss; then
  # 256 streams at a paced 20 ms between tokens: the client's memory in a steady run, with the client options above
  # and, for comparison, with the JVM's own defaults (G1, heap sized from the machine's RAM)
  # shellcheck disable=SC2086
  run rss-256 bench-engine $client_java_opts -cp CP io.llmperf4j.engine.bench.ClientCeilingBenchmark \
    streams=256 itlMs=20 tokens=64 seconds="$seconds" warmupSeconds="$warmup"
  run rss-256-jvm-defaults bench-engine -cp CP io.llmperf4j.engine.bench.ClientCeilingBenchmark \
    streams=256 itlMs=20 tokens=64 seconds="$seconds" warmupSeconds="$warmup"
fi
if want send-lag; then
  # shellcheck disable=SC2086
  run send-lag bench-engine $client_java_opts -cp CP io.llmperf4j.engine.bench.OpenLoopSendLagBenchmark \
    rate=200 seconds="$seconds" warmupSeconds=2 arrival=poisson
fi
if want calibrate; then
  # shellcheck disable=SC2086
  run calibrate cli $client_java_opts -Dai.djl.offline=true -cp CP io.llmperf4j.cli.Main calibrate --concurrency 1,256 \
    --ttft-ms 20 --inter-token-ms 5 --output-tokens 16 --results-dir "$results/calibration"
fi

if want full; then
  # The whole command as users run it (launcher JVM options, built-in Llama-2 counting, per-token ITL, requests.jsonl),
  # against the simulator in another process: the ceiling (zero delays, 64 streams x 1,024 tokens) with the client's
  # CPU, and the peak RSS of paced runs (256 streams x 256 tokens at 10 ms; 4,096 streams x 64 tokens at 200 ms).
  if [ ! -f cli/target/llmperf4j.jar ]; then
    echo; echo "== full: skipped, cli/target/llmperf4j.jar is missing (mvn -B -ntp -DskipTests package)"
  else
    full_run() { # name, server delay (ms), streams, tokens, requests
      local name="$1" itl="$2" streams="$3" tokens="$4" requests="$5" port sp jp hwm=0 h out="$results/full-$1"
      port=$((20000 + RANDOM % 5000))
      mkdir -p "$out"
      bin/llmperf4j serve --port "$port" --ttft-ms "$([ "$itl" = 0 ] && echo 0 || echo 50)" --inter-token-delay-ms "$itl" \
        --max-concurrent-sequences 100000 > "$out/serve.log" 2>&1 & sp=$!
      for _ in $(seq 100); do curl -s -o /dev/null "http://127.0.0.1:$port/v1/models" && break; sleep 0.2; done
      echo; echo "== full-$name: bin/llmperf4j token-benchmark --num-concurrent-requests $streams" \
        "--mean-output-tokens $tokens --max-num-completed-requests $requests (server: serve --inter-token-delay-ms $itl)"
      OPENAI_API_BASE="http://127.0.0.1:$port/v1" OPENAI_API_KEY=dummy bin/llmperf4j token-benchmark --model m \
        --num-concurrent-requests "$streams" --mean-input-tokens 64 --stddev-input-tokens 0 \
        --mean-output-tokens "$tokens" --stddev-output-tokens 0 --max-num-completed-requests "$requests" \
        --timeout 600 --results-dir "$out" > "$out/stdout.txt" 2>&1 & jp=$!
      while kill -0 "$jp" 2>/dev/null; do # the launcher execs java: this pid is the client JVM
        h=$(awk '/VmHWM/{print $2}' "/proc/$jp/status" 2>/dev/null || echo 0); [ "${h:-0}" -gt "$hwm" ] && hwm=$h
        sleep 0.2
      done
      wait "$jp" || true
      kill "$sp"; wait "$sp" 2>/dev/null || true
      grep -h -o '"output_tokens_per_s": *[0-9.]*\|"process_cpu_share": *[0-9.]*\|"available_processors": *[0-9]*' \
        "$out"/*_llmperf4j_summary.json | awk '!seen[$0]++' | tr '\n' ' ' | sed -e "s/^/RESULT full-$name /" | tee -a "$log"
      echo "peak RSS $((hwm / 1024)) MB" | tee -a "$log"
    }
    full_run ceiling 0 64 1024 3000
    full_run rss-256 10 256 256 2560
    full_run rss-4096 200 4096 64 8192
  fi
fi

echo
echo "== figures (full output in $results)"
grep -h -E '^RESULT|events/s \(|tokens per text|events per client CPU-second|^(SseDecoding|ChunkParsing|TokenCounting)Benchmark\.|^Benchmark |^ +(1|256) ' "$log" \
  | sed -e 's/^/  /' || true
echo "   load average after: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown)"
