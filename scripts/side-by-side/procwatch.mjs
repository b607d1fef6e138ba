#!/usr/bin/env node
// Samples a process's CPU time and memory from /proc (Linux) every --interval-ms until it exits, one JSON line per
// sample: t (epoch µs), cpu (utime + stime, clock ticks), rss and hwm (VmRSS and VmHWM, kB), and the scheduler's
// counts of its main thread (for a Node process, its event loop), main: [on a CPU, waiting for one (runnable, not
// running), both ns; times it ran; voluntary and involuntary context switches] (/proc/PID/task/PID/schedstat and
// status; absent when the kernel gives none). With --threads, every fifth sample also has byName: the same five
// numbers summed over the threads of each name less its trailing digits and dashes ("llmperf4j-io-1-1" ->
// "llmperf4j-io"), so the analysis can tell how often a client's threads slept and were woken, and how long they
// waited for a CPU (reading every thread's files costs about 1 ms a time for 20 threads: every 250 ms, not 50).
// Usage: node procwatch.mjs PID OUT [--interval-ms 50] [--threads]
import fs from 'node:fs';
import { nowMicros } from './clock.mjs';

const [pid, out, ...flags] = process.argv.slice(2);
if (!pid || !out) {
  process.stderr.write('usage: procwatch.mjs PID OUT [--interval-ms 50] [--threads]\n');
  process.exit(2);
}
const intervalAt = flags.indexOf('--interval-ms');
const interval = intervalAt >= 0 ? Number(flags[intervalAt + 1]) : 50;
const threads = flags.includes('--threads');
const THREADS_EVERY = 5;
let samples = 0;
/** Thread names by id, read once per thread. */
const names = new Map();
const fd = fs.openSync(out, 'w');

/** [on CPU ns, waiting ns, times run, voluntary switches, involuntary switches] of one thread, or null. */
function schedOf(task) {
  try {
    const [run, wait, slices] = fs.readFileSync(`${task}/schedstat`, 'latin1').trim().split(' ').map(Number);
    const status = fs.readFileSync(`${task}/status`, 'latin1');
    const count = (name) => Number((status.match(new RegExp(`^${name}:\\s+(\\d+)`, 'm')) ?? [0, -1])[1]);
    return [run, wait, slices, count('voluntary_ctxt_switches'), count('nonvoluntary_ctxt_switches')];
  } catch {
    return null; // the thread ended, or the kernel has no schedstat
  }
}

/** The threads' counts summed by name less trailing digits and dashes. */
function byName() {
  const out = {};
  let tids;
  try {
    tids = fs.readdirSync(`/proc/${pid}/task`);
  } catch {
    return out;
  }
  for (const tid of tids) {
    let comm = names.get(tid);
    if (comm === undefined) {
      try {
        comm = fs.readFileSync(`/proc/${pid}/task/${tid}/comm`, 'latin1').trim().replace(/[-\d]+$/, '');
      } catch {
        continue;
      }
      names.set(tid, comm);
    }
    const counts = schedOf(`/proc/${pid}/task/${tid}`);
    if (counts === null) continue;
    const sum = out[comm] ?? (out[comm] = [0, 0, 0, 0, 0]);
    for (let i = 0; i < 5; i++) sum[i] += counts[i];
  }
  return out;
}

function sample() {
  let stat;
  let status;
  try {
    stat = fs.readFileSync(`/proc/${pid}/stat`, 'latin1');
    status = fs.readFileSync(`/proc/${pid}/status`, 'latin1');
  } catch {
    return false;
  }
  const t = nowMicros();
  // Fields after the command name, which is in parentheses and may hold spaces: state is field 3, utime 14, stime 15.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  if (fields[0] === 'Z' || fields[0] === 'X') return false;
  const kb = (name) => Number((status.match(new RegExp(`^${name}:\\s+(\\d+)`, 'm')) ?? [0, -1])[1]);
  const cpu = Number(fields[11]) + Number(fields[12]);
  const line = { t, cpu, rss: kb('VmRSS'), hwm: kb('VmHWM') };
  const main = schedOf(`/proc/${pid}/task/${pid}`);
  if (main !== null) line.main = main;
  if (threads && samples++ % THREADS_EVERY === 0) line.byName = byName();
  fs.writeSync(fd, JSON.stringify(line) + '\n');
  return true;
}

if (sample()) {
  const timer = setInterval(() => {
    if (!sample()) {
      clearInterval(timer);
      fs.closeSync(fd);
    }
  }, interval);
}
