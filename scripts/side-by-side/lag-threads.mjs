#!/usr/bin/env node
// What the open loop's send-lag tail coincides with, from a side-by-side run's own files (RUN_DIR/open): the
// journal's send_lag_nanos per request (l4j/requests.jsonl) against procwatch's per-thread samples of the full command
// (l4j.proc.jsonl, every ~250 ms: each thread group's time on a CPU and time runnable but waiting for one) and the
// server's CPU time (server.proc.jsonl). One line per sample window: the sends in it, how many went out more than
// --late-ms late and the largest lag, then each busy thread group's "on CPU / waiting for a CPU" in ms (the pacer
// sends, llmperf4j-io reads and writes, C2 compiles, the VM Thread runs the garbage collector's pauses), and the
// server's CPU. A summary compares the windows with a late send with the others.
// Usage: node lag-threads.mjs RUN_DIR [--late-ms 5]
import fs from 'node:fs';

const args = process.argv.slice(2);
const run = args[0];
if (!run) {
  process.stderr.write('usage: lag-threads.mjs RUN_DIR [--late-ms 5] (a side-by-side run with the open scenario)\n');
  process.exit(2);
}
const lateAt = args.indexOf('--late-ms');
const lateMs = lateAt >= 0 ? Number(args[lateAt + 1]) : 5;
const dir = `${run}/open`;
const lines = (file) => fs.readFileSync(`${dir}/${file}`, 'utf8').split('\n').filter((l) => l.trim())
  .map((l) => JSON.parse(l));
const requests = lines('l4j/requests.jsonl').filter((r) => r.send_lag_nanos >= 0)
  .sort((a, b) => a.start_epoch_micros - b.start_epoch_micros);
if (requests.length === 0) {
  process.stderr.write(`lag-threads: no send_lag_nanos in ${dir}/l4j/requests.jsonl\n`);
  process.exit(1);
}
const samples = lines('l4j.proc.jsonl').filter((s) => s.byName);
const server = lines('server.proc.jsonl');
const clkTck = JSON.parse(fs.readFileSync(`${dir}/meta.json`, 'utf8')).clkTck ?? 100;
const first = requests[0].start_epoch_micros;
const last = requests[requests.length - 1].start_epoch_micros;
const SHOWN = ['llmperf4j-pacer', 'llmperf4j-io', 'llmperf4j-worke', 'java', 'C2 CompilerThre', 'VM Thread'];
const short = { 'llmperf4j-pacer': 'pacer', 'llmperf4j-io': 'io', 'llmperf4j-worke': 'workers', java: 'main',
  'C2 CompilerThre': 'C2', 'VM Thread': 'VM/GC' };

/** The server's CPU time (ms) between two epoch-µs instants, from its nearest samples. */
function serverCpuMs(from, to) {
  const at = (t) => server.reduce((best, s) => (Math.abs(s.t - t) < Math.abs(best.t - t) ? s : best), server[0]);
  return ((at(to).cpu - at(from).cpu) * 1000) / clkTck;
}

const windows = [];
for (let i = 1; i < samples.length; i++) {
  const a = samples[i - 1];
  const b = samples[i];
  if (b.t < first || a.t > last) continue;
  const lags = requests.filter((r) => r.start_epoch_micros >= a.t && r.start_epoch_micros < b.t)
    .map((r) => r.send_lag_nanos / 1e6);
  const threads = {};
  for (const name of SHOWN) {
    const now = b.byName[name];
    const then = a.byName[name] ?? [0, 0];
    if (now) threads[name] = [(now[0] - then[0]) / 1e6, (now[1] - then[1]) / 1e6];
  }
  windows.push({ at: (b.t - first) / 1000, sends: lags.length, late: lags.filter((l) => l > lateMs).length,
    max: lags.length ? Math.max(...lags) : 0, threads, serverMs: serverCpuMs(a.t, b.t), spanMs: (b.t - a.t) / 1000 });
}
const f = (x) => x.toFixed(0);
process.stdout.write(`window end (ms from the first send): sends, late > ${lateMs} ms, max lag ms | thread group on a`
  + ' CPU / waiting for one, ms | server CPU ms\n');
for (const w of windows) {
  const t = SHOWN.filter((n) => w.threads[n]).map((n) => `${short[n]} ${f(w.threads[n][0])}/${f(w.threads[n][1])}`);
  process.stdout.write(`${f(w.at).padStart(7)}  ${String(w.sends).padStart(3)} ${String(w.late).padStart(3)}`
    + ` ${w.max.toFixed(1).padStart(6)} | ${t.join('  ')} | server ${f(w.serverMs)}\n`);
}
const mean = (ws, pick) => (ws.length ? ws.reduce((s, w) => s + pick(w), 0) / ws.length : NaN);
const lateWindows = windows.filter((w) => w.late > 0);
const quiet = windows.filter((w) => w.late === 0);
const per = (ws, name, k) => mean(ws, (w) => (w.threads[name] ? w.threads[name][k] : 0));
process.stdout.write(`\nper window, mean (${lateWindows.length} windows with a send > ${lateMs} ms late | ${quiet.length}`
  + ' without):\n');
for (const name of SHOWN) {
  process.stdout.write(`  ${short[name].padEnd(8)} on a CPU ${per(lateWindows, name, 0).toFixed(1)} | `
    + `${per(quiet, name, 0).toFixed(1)} ms, waiting for one ${per(lateWindows, name, 1).toFixed(1)} | `
    + `${per(quiet, name, 1).toFixed(1)} ms\n`);
}
process.stdout.write(`  server   CPU ${mean(lateWindows, (w) => w.serverMs).toFixed(1)} | `
  + `${mean(quiet, (w) => w.serverMs).toFixed(1)} ms\n`);
