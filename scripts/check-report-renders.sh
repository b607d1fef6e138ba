#!/usr/bin/env bash
# Renders an HTML report in headless Chromium and saves a screenshot, to check by eye that the page draws.
# Usage: scripts/check-report-renders.sh [RESULTS_DIR] [OUT_PNG]
# Without RESULTS_DIR it runs a short benchmark against the embedded server first. Needs Debian's chromium
# (apt-get install -y chromium); the report itself loads nothing from the network.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
results="${1:-}"
out="${2:-$root/target/report-screenshot.png}"
if ! command -v chromium >/dev/null; then
  echo "chromium is not installed; on Debian: apt-get install -y chromium" >&2
  exit 1
fi
if [ -z "$results" ]; then
  results="$(mktemp -d)"
  env -u OPENAI_API_BASE "$root/bin/llmperf4j" token-benchmark --simulator --max-num-completed-requests 40 \
    --num-concurrent-requests 8 --results-dir "$results" > /dev/null
fi
report="$(ls "$results"/*_report.html | head -n 1)"
mkdir -p "$(dirname "$out")"
profile="$(mktemp -d)"
timeout 60 chromium --headless --no-sandbox --disable-gpu --disable-background-networking \
  --disable-component-update --disable-sync --no-first-run --user-data-dir="$profile" \
  --screenshot="$out" --window-size=1280,4200 "file://$(realpath "$report")" 2>/dev/null
rm -rf "$profile"
test -s "$out"
echo "rendered $report -> $out"
