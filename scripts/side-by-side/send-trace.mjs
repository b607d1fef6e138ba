#!/usr/bin/env node
// Lines up a send-trace.sh run (DIR): per llmperf4j request, on CLOCK_MONOTONIC in µs from its start stamp, when its
// I/O thread entered and left the sendto that wrote it, the request-written stamp (requests.jsonl's phases), the
// server's receipt (server.jsonl), and whether the I/O thread was switched out runnable (preempted) right after that
// sendto, and by which thread. Then a summary: how many were preempted, the median time from the sendto's return to
// the written stamp with and without a preemption, and how many written stamps came after the server's receipt.
// Usage: node send-trace.mjs DIR
import fs from 'node:fs';

const dir = process.argv[2];
if (!dir) {
  process.stderr.write('usage: send-trace.mjs DIR (a send-trace.sh run)\n');
  process.exit(2);
}
/** A switch-out this soon after the sendto's return is the return itself (the kernel's exit to user space). */
const AT_RETURN_NS = 20_000;

const LINE = /^\s*(.+?)\s+(\d+)\s+\[(\d+)\]\s+(\d+)\.(\d+):\s+(\S+):\s*(.*)$/;
function events(file) {
  const out = [];
  for (const line of fs.readFileSync(`${dir}/${file}`, 'utf8').split('\n')) {
    const m = LINE.exec(line);
    if (!m) continue;
    out.push({ comm: m[1], tid: Number(m[2]), cpu: Number(m[3]), ns: Number(m[4]) * 1e9 + Number(m[5]),
      event: m[6], detail: m[7] });
  }
  return out;
}
const client = events('client.txt');
const offsetMicros = Number(fs.readFileSync(`${dir}/epoch-minus-mono-micros`, 'utf8'));
const received = new Map();
for (const line of fs.readFileSync(`${dir}/server.jsonl`, 'utf8').split('\n')) {
  if (!line.trim()) continue;
  const r = JSON.parse(line);
  received.set(r.id, r);
}
const journal = fs.readdirSync(`${dir}/l4j`).find((f) => f === 'requests.jsonl');
if (!journal) {
  process.stderr.write(`send-trace: no requests.jsonl in ${dir}/l4j\n`);
  process.exit(1);
}
const us = (ns) => (ns / 1000).toFixed(1).padStart(8);
const median = (xs) => {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor((s.length - 1) / 2)];
};

const preempted = [];
const notPreempted = [];
let afterReceipt = 0;
let counted = 0;
process.stdout.write('nth  start→sendto  in sendto  sendto return→written  server had it   (µs from the start stamp)\n');
for (const line of fs.readFileSync(`${dir}/l4j/requests.jsonl`, 'utf8').split('\n')) {
  if (!line.trim()) continue;
  const r = JSON.parse(line);
  const server = received.get(r.client_request_id);
  if (!server || !r.phases || r.phases.request_written_nanos < 0) continue;
  const start = (r.start_epoch_micros - offsetMicros) * 1000;
  const written = start + r.phases.request_written_nanos;
  const receipt = (server.recv - offsetMicros) * 1000;
  const enter = client.filter((e) => e.event === 'syscalls:sys_enter_sendto' && e.comm.includes('llmperf4j-io')
    && e.ns >= start - 50_000 && e.ns <= written).pop();
  if (!enter) {
    process.stdout.write(`${String(server.nth).padStart(3)}  (no sendto of an I/O thread before the written stamp)\n`);
    continue;
  }
  const exit = client.find((e) => e.event === 'syscalls:sys_exit_sendto' && e.tid === enter.tid && e.ns >= enter.ns);
  if (!exit) continue;
  const switchedOut = client.find((e) => e.event === 'sched:sched_switch' && e.ns >= exit.ns
    && e.ns - exit.ns <= AT_RETURN_NS && e.detail.includes(`prev_pid=${enter.tid} `)
    && /prev_state=R\+? /.test(e.detail));
  const by = switchedOut ? / ==> next_comm=(.*?) next_pid=/.exec(switchedOut.detail)?.[1] : null;
  counted++;
  if (written > receipt) afterReceipt++;
  (by ? preempted : notPreempted).push(written - exit.ns);
  process.stdout.write(`${String(server.nth).padStart(3)} ${us(enter.ns - start)} ${us(exit.ns - enter.ns)}`
    + ` ${us(written - exit.ns)}              ${us(receipt - start)}`
    + `${by ? `   preempted at the sendto's return by ${by}` : ''}\n`);
}
process.stdout.write(`\n${counted} requests: ${preempted.length} with the I/O thread preempted at the sendto's return`
  + ` (sendto return → written stamp, median ${(median(preempted) / 1000).toFixed(1)} µs), ${notPreempted.length}`
  + ` not (median ${(median(notPreempted) / 1000).toFixed(1)} µs); ${afterReceipt} written stamps after the`
  + ' server had the request\n');
