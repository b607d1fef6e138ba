#!/usr/bin/env node
// Samples a process's CPU time and memory from /proc (Linux) every --interval-ms until it exits, one JSON line per
// sample: t (epoch µs), cpu (utime + stime, clock ticks), rss and hwm (VmRSS and VmHWM, kB).
// Usage: node procwatch.mjs PID OUT [--interval-ms 50]
import fs from 'node:fs';
import { nowMicros } from './clock.mjs';

const [pid, out, flag, value] = process.argv.slice(2);
if (!pid || !out) {
  process.stderr.write('usage: procwatch.mjs PID OUT [--interval-ms 50]\n');
  process.exit(2);
}
const interval = flag === '--interval-ms' ? Number(value) : 50;
const fd = fs.openSync(out, 'w');

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
  fs.writeSync(fd, JSON.stringify({ t, cpu, rss: kb('VmRSS'), hwm: kb('VmHWM') }) + '\n');
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
