#!/usr/bin/env node
// Joins the side-by-side run's files by request id and prints the figures as a Markdown table, each llmperf4j figure
// next to the reference client's from the same run and as a ratio to it.
//
// Usage: node analyze.mjs RUN_DIR [SCENARIO,...]
//   RUN_DIR: the folder side-by-side.sh wrote, one sub-folder per scenario with meta.json, server.jsonl, ref.jsonl,
//   ref.proc.jsonl, l4j/ (llmperf4j's --results-dir), l4j.proc.jsonl and server.busy.jsonl (the server's event-loop
//   busy periods, loop-busy.mjs; runs older than it have none, and their split rows show '–'); SCENARIO: only these
//   (default: all).
//   Runs with server.sockets.jsonl (the server's connections) and server.proc.jsonl (procwatch of the server) also get
//   a second table, what each client made the server do over its run: per request and per 1,000 chunks, the reads,
//   bytes and headers of its requests, the timer callbacks, socket writes, writes the kernel did not take whole and
//   'drain' events of its answers, its connections, the loop's callbacks and turns, and the server's loop thread's
//   CPU time, time waiting for a CPU and context switches next to the client's threads' (issue 15).
//   When llmperf4j's output (l4j.out) says its client warm-up stopped at its time bound before the JIT compilers
//   settled (ClientWarmup's notice, on a busy machine), the table says so and a warning goes to stderr: that run
//   compiled the client's read path inside its window, so its client costs more CPU per chunk than a settled one.
// Also writes RUN_DIR/figures.json (every figure, unrounded; per scenario also the server's loop figures from its busy
// log: periods, and per gap between two the time outside its callbacks and its poll) and RUN_DIR/table.md.
//
// Per request, with the server's and the client's stamps on the same wall clock:
//   TTFT error   = client TTFT - server TTFT = (client first content - client start) - (server first write - receipt)
//   send side    = server had the whole request - client start stamp
//   receive side = client stamped the first content - server wrote it
//   turnaround   = server had a request - server wrote the last content chunk of the previous request on the same
//                  connection (the server's clock only: how soon a closed loop's client comes back)
//   turnaround's parts = last chunk written → the client stamped it (receive) → the client's start stamp of the next
//                  request on that connection (re-send) → the server had it (send side); they add up to the turnaround.
//                  A client that reads the last chunk late has queued before its own start stamp: its send side is
//                  short because its request comes after the server's loop turn that wrote that chunk is over
//   started in that turn = the start stamp came before the end of the server's busy period (loop turn) that wrote
//                  the previous response's last chunk on that connection: the request waits in the server's socket
//                  for the rest of that turn (the other streams' chunks due in it), however promptly it was written
//   last chunks per turn = per response, how many of this client's responses had their last chunk written in the
//                  same busy period (how synchronized its streams are: a wave re-sends into one turn)
//   written      = the client's stamp just after the kernel took its request's last byte - its start stamp
//                  (llmperf4j: the journal's phases.request_written_nanos; the reference client: a nextTick after
//                  the agent's flush, only when that write completed at once). On loopback the write syscall itself
//                  delivers the bytes and wakes an idle server, which can have the request before the call returns.
//   in the server's socket = server had the whole request - the client's written stamp: how long the request
//                  waited in the kernel for the server to read it (for the reference client only a bound: its
//                  stamp can come after the server's, then the figure is negative)
//   the send side's split (reused connections with a written stamp): own = start -> written; busy = the part of
//                  written -> receipt inside the server's busy periods (its event loop running its callbacks: the
//                  timer batches writing every due stream's chunk, the parsing of other requests; a loop turn's
//                  callbacks are one period); rest = the part outside them (the loop in its poll: the request is
//                  in its socket by the written stamp, so woken and not yet on a CPU; and its own code between a
//                  wake-up and the callback that stamps the receipt: libuv's socket reads). own + busy + rest = send side for each request; less busy = own +
//                  rest. When the server had the request before the client's written stamp (recv < written, one
//                  stream), busy is 0 and rest is that negative span.
//   server write = the server's time inside one socket write of the response (head and chunks), averaged per
//                  request: what answering this client costs the server's single thread (on loopback a write wakes
//                  a reader asleep in epoll inside the call)
//   send lag     = (open loop) when the request went out - when its schedule wanted it out (llmperf4j: its
//                  journal's send_lag_nanos, else its *_open_loop.json summary; the reference client: start -
//                  intended), and the TTFT error from the intended send = send lag + TTFT error
// (error = send + receive). "new" = the first request on its connection (the server counts requests per
// connection), "reused" = the others. Percentiles are nearest-rank.
import fs from 'node:fs';
import path from 'node:path';

const run = process.argv[2];
const only = process.argv[3] ? process.argv[3].split(',') : null;
if (!run) {
  process.stderr.write('usage: analyze.mjs RUN_DIR\n');
  process.exit(2);
}

const readJsonl = (file) => fs.existsSync(file)
  ? fs.readFileSync(file, 'utf8').split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l)) : [];

/** RFC 4180 rows (quoted fields may hold commas, quotes and newlines). */
function parseCsv(text) {
  const rows = [];
  let row = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') { field += '"'; i++; } else if (c === '"') quoted = false; else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') { row.push(field); field = ''; } else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') i++;
      row.push(field); rows.push(row); row = []; field = '';
    } else field += c;
  }
  if (field !== '' || row.length) { row.push(field); rows.push(row); }
  return rows;
}

/**
 * How llmperf4j's client warm-up ended, from its output: settled false (with its requests) when it printed that it
 * stopped at its time bound before the JIT compilers settled (on a busy machine), true when it printed no such notice,
 * null without an output file.
 */
function warmupOutcome(file) {
  if (!fs.existsSync(file)) return { settled: null };
  const stopped = fs.readFileSync(file, 'utf8')
    .match(/client warm-up: stopped at its \d+ s bound after ([\d,]+) requests/);
  return stopped ? { settled: false, requests: stopped[1] } : { settled: true };
}

/** llmperf4j's records as {id, start, first, last, ok} in epoch µs: its journal, else its requests CSV. */
function llmperf4jRecords(dir) {
  const journal = path.join(dir, 'requests.jsonl');
  if (fs.existsSync(journal)) {
    return readJsonl(journal).map((r) => ({
      id: r.client_request_id, start: r.start_epoch_micros,
      intended: r.send_lag_nanos >= 0 ? r.start_epoch_micros - r.send_lag_nanos / 1000 : undefined,
      written: r.phases?.request_written_nanos >= 0 ? r.start_epoch_micros + r.phases.request_written_nanos / 1000 : -1,
      first: r.ttft_nanos >= 0 ? r.start_epoch_micros + r.ttft_nanos / 1000 : -1,
      last: r.last_content_nanos >= 0 ? r.start_epoch_micros + r.last_content_nanos / 1000 : -1,
      ok: r.failure == null,
    }));
  }
  const csv = fs.existsSync(dir) ? fs.readdirSync(dir).find((f) => f.endsWith('_requests.csv')) : null;
  if (!csv) return [];
  const [header, ...rows] = parseCsv(fs.readFileSync(path.join(dir, csv), 'utf8'));
  const col = (name) => header.indexOf(name);
  return rows.filter((r) => r.length === header.length).map((r) => {
    const start = Math.round(Number(r[col('start_time_epoch_s')]) * 1e6);
    const ttft = r[col('ttft_s')];
    const e2e = r[col('end_to_end_latency_s')];
    return { id: r[col('client_request_id')], start, written: -1, first: ttft === '' ? -1 : start + Number(ttft) * 1e6,
      last: e2e === '' ? -1 : start + Number(e2e) * 1e6, ok: r[col('error_kind')] === '' };
  });
}

function referenceRecords(file) {
  return readJsonl(file).map((r) => ({ id: r.id, start: r.start, written: r.written ?? -1, first: r.first,
    last: r.last, ok: !r.error, intended: r.intended }));
}

/** The open loop's send lag in ms, {n, p50, p99, p999, max}, from a summary: journals before send_lag_nanos. */
function summarySendLag(dir) {
  const file = fs.existsSync(dir) ? fs.readdirSync(dir).find((f) => f.endsWith('_open_loop.json')) : null;
  const lag = file ? JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8')).send_lag_ms : null;
  if (!lag) return { n: 0, p50: NaN, p99: NaN, p999: NaN, max: NaN };
  return { n: lag.count, p50: lag.p50, p99: lag.p99, p999: lag.p999, max: lag.max };
}

/** The same from each request's start and intended stamps (nearest-rank, as every figure here). */
function sendLag(records) {
  const lags = records.filter((r) => r.intended !== undefined).map((r) => (r.start - r.intended) / 1000);
  return { ...summary(lags), p999: percentile(lags, 99.9), max: lags.length ? Math.max(...lags) : NaN };
}

function percentile(values, p) {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)];
}

const summary = (values) => ({ n: values.length, p50: percentile(values, 50), p99: percentile(values, 99) });

/**
 * The server's busy periods by worker (the prefix of its connection numbers, '' for one process): a flat array of
 * (start, end, idle at start) triplets in time order, or an empty map when the run has no busy log.
 */
function busyPeriods(file) {
  const byWorker = new Map();
  for (const line of readJsonl(file)) {
    const p = line.periods;
    for (let k = 3; k < p.length; k += 3) {
      if (p[k] < p[k - 2] || p[k + 1] < p[k]) {
        throw new Error(`${file}: worker '${line.worker}': busy periods out of order at ${k / 3}`);
      }
    }
    byWorker.set(line.worker, p);
  }
  return byWorker;
}

/** The number of callbacks in each busy period by worker, in the periods' order (empty for older logs). */
function periodCallbacks(file) {
  const byWorker = new Map();
  for (const line of readJsonl(file)) byWorker.set(line.worker, line.callbacksPerPeriod ?? []);
  return byWorker;
}

/**
 * The server's own figures from its busy log: periods and callbacks, and per gap between two periods the time its
 * loop spent neither in a stamped callback nor blocked in its poll (libuv's own code, the socket reads, waking
 * the callbacks), µs: the part of a request's rest that was the server working outside its callbacks.
 */
function serverLoopFigures(busy) {
  let periods = 0;
  const outside = [];
  for (const p of busy.values()) {
    periods += p.length / 3;
    for (let k = 3; k < p.length; k += 3) outside.push((p[k] - p[k - 2]) - (p[k + 2] - p[k - 1]));
  }
  return { workers: busy.size, periods, gapOutsidePollMicros: summary(outside) };
}

/** The worker prefix of a server connection number ('2-17' -> '2-', '17' -> ''). */
const workerOf = (sock) => {
  const text = String(sock);
  const dash = text.lastIndexOf('-');
  return dash < 0 ? '' : text.slice(0, dash + 1);
};

/**
 * Splits the span [a, b] (epoch µs) against busy periods: busy = the time inside them, rest = the time outside,
 * each summed segment by segment. An empty or reversed span is all rest.
 */
function splitSpan(periods, a, b) {
  if (!(b > a)) return { busy: 0, rest: b - a };
  const count = periods.length / 3;
  let lo = 0;
  let hi = count;
  while (lo < hi) { // the first period that ends after a
    const mid = (lo + hi) >> 1;
    if (periods[mid * 3 + 1] <= a) lo = mid + 1; else hi = mid;
  }
  let busy = 0;
  let rest = 0;
  let cursor = a;
  for (let k = lo; k < count && cursor < b; k++) {
    const start = periods[k * 3];
    const end = periods[k * 3 + 1];
    if (start > cursor) {
      const gap = Math.min(start, b) - cursor;
      rest += gap;
      cursor += gap;
    }
    if (cursor < b) {
      const inside = Math.min(end, b) - cursor;
      busy += inside;
      cursor += inside;
    }
  }
  if (cursor < b) rest += b - cursor; // after the last period
  return { busy, rest };
}

/** The index of the period t falls inside (ends included), or -1. */
function periodIndex(periods, t) {
  let lo = 0;
  let hi = periods.length / 3;
  while (lo < hi) { // the first period that ends at or after t
    const mid = (lo + hi) >> 1;
    if (periods[mid * 3 + 1] < t) lo = mid + 1; else hi = mid;
  }
  return lo < periods.length / 3 && periods[lo * 3] <= t ? lo : -1;
}

/** Whether t falls inside one of the periods (ends included). */
const insidePeriod = (periods, t) => periodIndex(periods, t) >= 0;

/** A procwatch counter (value(sample), a number or NaN) at time t, interpolated between samples. */
function counterAt(samples, t, value) {
  if (samples.length === 0) return NaN;
  if (t <= samples[0].t) return value(samples[0]);
  for (let i = 1; i < samples.length; i++) {
    if (samples[i].t >= t) {
      const a = samples[i - 1];
      const b = samples[i];
      return value(a) + ((value(b) - value(a)) * (t - a.t)) / (b.t - a.t);
    }
  }
  return value(samples[samples.length - 1]);
}

/** The client's CPU ticks at time t, interpolated between procwatch samples. */
const cpuAt = (samples, t) => counterAt(samples, t, (s) => s.cpu);

/** How much a procwatch counter grew over [from, to]. */
const grewBy = (samples, from, to, value) => counterAt(samples, to, value) - counterAt(samples, from, value);

/** The main thread's scheduler counts (procwatch's main), field i; NaN when the samples have none. */
const mainCount = (i) => (s) => (s.main ? s.main[i] : NaN);

/** The scheduler counts summed over a client's threads whose name matches (procwatch --threads), field i. */
const threadsCount = (i, match) => (s) => (s.byName ? Object.entries(s.byName)
  .filter(([name]) => match(name)).reduce((sum, [, c]) => sum + c[i], 0) : NaN);

/**
 * What serving this client made the server do, per request and per chunk (issue 15: its loop ran its callbacks a
 * larger share of llmperf4j's run than of the reference client's). From the server's own counts of each joined
 * request (intake, timer batches, writes that the kernel did not take whole, drains), its connection log (opens
 * and closes inside the client's run, by whom), its busy log (callbacks and busy time inside the client's run), and
 * procwatch's samples of the server's loop thread (CPU time, time runnable but waiting for a CPU, context switches)
 * and of the client's threads, over the client's run (first start -> last content).
 */
function serverWork(joined, windowStart, windowEnd, chunks, busy, callbacks, sockets, serverProc, clientProc) {
  const n = joined.length;
  const sum = (f) => joined.reduce((total, { s }) => total + (f(s) ?? 0), 0);
  const inWindow = (t) => t >= windowStart && t <= windowEnd;
  const ids = new Set(joined.map(({ s }) => s.id));
  const mine = sockets.filter((k) => ids.has(k.firstId) || ids.has(k.lastId));
  let callbacksInWindow = 0;
  let periodsInWindow = 0;
  for (const [worker, periods] of busy) {
    const counts = callbacks.get(worker) ?? [];
    for (let k = 0; k < periods.length; k += 3) {
      if (!inWindow(periods[k])) continue;
      periodsInWindow++;
      callbacksInWindow += counts[k / 3] ?? NaN;
    }
  }
  const busyMicros = [...busy.values()].reduce((total, p) => total + splitSpan(p, windowStart, windowEnd).busy, 0);
  const windowMicros = windowEnd - windowStart;
  const server = (i) => grewBy(serverProc, windowStart, windowEnd, mainCount(i));
  const threadSamples = clientProc.filter((x) => x.byName); // every fifth sample has them
  const clientAll = (i) => grewBy(threadSamples, windowStart, windowEnd, threadsCount(i, () => true));
  // the thread that reads the responses: llmperf4j's I/O threads, the reference client's (Node's) main thread
  const clientReader = (i) => grewBy(threadSamples, windowStart, windowEnd,
    threadsCount(i, (name) => name === 'llmperf4j-io' || name === 'node'));
  const requestsWithIntake = joined.filter(({ s }) => s.dataEvents !== undefined).length;
  return {
    requests: n, chunks, windowMicros,
    perRequest: {
      dataEvents: sum((s) => s.dataEvents) / requestsWithIntake,
      requestBytes: sum((s) => s.requestBytes) / requestsWithIntake,
      headerBytes: sum((s) => s.headerBytes) / requestsWithIntake,
      headerCount: sum((s) => s.headerCount) / requestsWithIntake,
      notable: joined.filter(({ s }) => s.notable).length,
      batches: sum((s) => s.batches) / requestsWithIntake,
      writes: sum((s) => s.writes) / n,
      writesQueued: sum((s) => s.writesQueued) / requestsWithIntake,
      drains: sum((s) => s.drains) / requestsWithIntake,
      writeMicros: sum((s) => s.writeMicros) / n,
    },
    queuedMaxBytes: summary(joined.filter(({ s }) => s.queuedMax !== undefined).map(({ s }) => s.queuedMax)),
    sockets: {
      carried: mine.length,
      openedInRun: mine.filter((k) => inWindow(k.opened)).length,
      closedInRun: mine.filter((k) => k.closed >= 0 && inWindow(k.closed)).length,
      closedBy: Object.fromEntries(['client', 'server', 'error', 'open'].map((by) => [by,
        mine.filter((k) => k.by === by).length])),
      bytesReadPerRequest: mine.reduce((t, k) => t + k.bytesRead, 0) / mine.reduce((t, k) => t + k.requests, 0),
      dataEventsPerRequest: mine.reduce((t, k) => t + k.dataEvents, 0) / mine.reduce((t, k) => t + k.requests, 0),
    },
    loop: { periods: periodsInWindow, callbacks: callbacksInWindow, busyMicros,
      busyPercent: (100 * busyMicros) / (busy.size * windowMicros) },
    serverThread: { onCpuMicros: server(0) / 1000, waitingMicros: server(1) / 1000, ran: server(2),
      voluntary: server(3), involuntary: server(4) },
    clientThreads: { onCpuMicros: clientAll(0) / 1000, waitingMicros: clientAll(1) / 1000, ran: clientAll(2),
      voluntary: clientAll(3), involuntary: clientAll(4) },
    clientReader: { onCpuMicros: clientReader(0) / 1000, waitingMicros: clientReader(1) / 1000, ran: clientReader(2),
      voluntary: clientReader(3), involuntary: clientReader(4) },
  };
}

function clientFigures(records, server, procFile, clkTck, busy, serverRun) {
  const byId = new Map(server.map((s) => [s.id, s]));
  const joined = [];
  let failed = 0;
  for (const r of records) {
    const s = byId.get(r.id);
    if (!r.ok || !s || s.aborted || r.first < 0 || s.first < 0) { failed++; continue; }
    joined.push({ r, s });
  }
  const group = (filter, f) => summary(joined.filter(filter).map(f).map((us) => us / 1000));
  const all = () => true;
  const reused = ({ s }) => s.nth > 1;
  const fresh = ({ s }) => s.nth === 1;
  const error = ({ r, s }) => (r.first - r.start) - (s.first - s.recv);
  const fromIntended = ({ r, s }) => (r.first - r.intended) - (s.first - s.recv);
  const scheduled = ({ r }) => r.intended !== undefined;
  const send = ({ r, s }) => s.recv - r.start;
  const receive = ({ r, s }) => r.first - s.first;
  const write = ({ r }) => r.written - r.start;
  const inServerSocket = ({ r, s }) => s.recv - r.written;
  const reusedWritten = (j) => reused(j) && j.r.written >= 0;
  // the server's clock alone: how soon after a response's last chunk left the server the next request on that
  // connection was in (a closed loop re-sends as the previous request ends); no client stamp in it
  const bySocketTurn = new Map(joined.map(({ s }) => [`${s.sock}/${s.nth}`, s]));
  const turnarounds = joined
    .map(({ s }) => ({ s, previous: bySocketTurn.get(`${s.sock}/${s.nth - 1}`) }))
    .filter(({ s, previous }) => s.nth > 1 && previous && previous.last >= 0)
    .map(({ s, previous }) => (s.recv - previous.last) / 1000);
  // The same turnaround in three parts, with the client's stamps: the previous response's last content chunk
  // written → the client stamped it (receive), → the client's start stamp of the next request on that connection
  // (its re-send: a closed loop decides to send when the previous response ends), → the server had it (send side).
  // A client slow to read the last chunk or to re-send has queued before its start stamp, where the send side does
  // not see it, and its request comes after the server's loop turn that wrote that chunk is over; a prompt one's
  // request waits in the server's socket for the rest of that turn (the other streams' chunks due in it).
  const byTurn = new Map(joined.map((j) => [`${j.s.sock}/${j.s.nth}`, j]));
  const resends = joined
    .map((j) => ({ j, previous: byTurn.get(`${j.s.sock}/${j.s.nth - 1}`) }))
    .filter(({ j, previous }) => j.s.nth > 1 && previous && previous.s.last >= 0 && previous.r.last >= 0)
    .map(({ j: { r, s }, previous }) => {
      // whether the start stamp came while the server was still in the loop turn that wrote the previous response's
      // last chunk (writing the other streams' chunks due in that turn): such a request waits for the turn's end
      const periods = busy.get(workerOf(s.sock));
      const k = periods ? periodIndex(periods, previous.s.last) : -1;
      return { receive: previous.r.last - previous.s.last, resend: r.start - previous.r.last, send: s.recv - r.start,
        inThatTurn: k >= 0 && r.start < periods[k * 3 + 1], known: k >= 0 };
    });
  const sendOf = (f) => summary(resends.filter((x) => x.known && f(x)).map((x) => x.send / 1000));
  const resendMean = (f) => (resends.length ? resends.reduce((sum, x) => sum + f(x), 0) / resends.length / 1000 : NaN);
  // How synchronized the client's streams are: per response, how many of this client's responses had their last
  // chunk written in the same busy period of the server (a loop turn's timer batch). A closed loop whose streams
  // started together ends them together, and their next requests all reach the server while it writes that batch.
  const lastInPeriod = joined.filter(({ s }) => s.last >= 0 && busy.has(workerOf(s.sock)))
    .map(({ s }) => `${workerOf(s.sock)}#${periodIndex(busy.get(workerOf(s.sock)), s.last)}`);
  const perPeriod = new Map();
  for (const key of lastInPeriod) perPeriod.set(key, (perPeriod.get(key) ?? 0) + 1);
  // the send side's split against the server's busy periods, per request
  const split = busy.size === 0 ? [] : joined.filter(reusedWritten).map(({ r, s }) => {
    const periods = busy.get(workerOf(s.sock)) ?? [];
    const parts = splitSpan(periods, r.written, s.recv);
    return { send: s.recv - r.start, own: r.written - r.start, ...parts,
      recvInside: insidePeriod(periods, s.recv) };
  });
  const splitGroup = (f) => summary(split.map(f).map((us) => us / 1000));
  const mean = (f) => (split.length ? split.reduce((sum, x) => sum + f(x), 0) / split.length / 1000 : NaN);
  const proc = readJsonl(procFile);
  const windowStart = Math.min(...joined.map(({ r }) => r.start));
  const windowEnd = Math.max(...joined.map(({ r }) => r.last));
  const windowS = (windowEnd - windowStart) / 1e6;
  const chunks = joined.reduce((sum, { s }) => sum + s.chunks, 0);
  const serverBusyPercent = busy.size === 0 || joined.length === 0 ? NaN : (100 * [...busy.values()]
    .reduce((sum, periods) => sum + splitSpan(periods, windowStart, windowEnd).busy, 0))
    / (busy.size * (windowEnd - windowStart));
  const work = serverRun.sockets === null ? null : serverWork(joined, windowStart, windowEnd, chunks, busy,
    serverRun.callbacks, serverRun.sockets, serverRun.proc, proc);
  const last = proc[proc.length - 1];
  // the largest VmHWM seen: a sample taken while the process exits (a zombie) has none (-1), and may be the last
  const hwms = proc.map((p) => p.hwm).filter((kb) => kb >= 0);
  return {
    requests: records.length, joined: joined.length, failed,
    error: { all: group(all, error), reused: group(reused, error), new: group(fresh, error),
      fromIntended: group(scheduled, fromIntended) },
    send: { all: group(all, send), reused: group(reused, send), new: group(fresh, send) },
    receive: { all: group(all, receive), reused: group(reused, receive), new: group(fresh, receive) },
    written: { reused: group(reusedWritten, write) },
    inServerSocket: { reused: group(reusedWritten, inServerSocket) },
    sendSplit: {
      busy: splitGroup((x) => x.busy), rest: splitGroup((x) => x.rest), lessBusy: splitGroup((x) => x.own + x.rest),
      mean: { own: mean((x) => x.own), busy: mean((x) => x.busy), rest: mean((x) => x.rest),
        send: mean((x) => x.send) },
      // own + busy + rest against the send side, per request: 0 to the floating point's rounding
      largestMismatchMicros: split.reduce((m, x) => Math.max(m, Math.abs(x.own + x.busy + x.rest - x.send)), 0),
      // the data callback that stamps a receipt is itself stamped busy: a receipt outside every period is a bad log
      receiptsInsideAPeriod: split.filter((x) => x.recvInside).length,
    },
    turnaround: summary(turnarounds),
    resend: {
      resend: summary(resends.map((x) => x.resend / 1000)),
      mean: { receive: resendMean((x) => x.receive), resend: resendMean((x) => x.resend),
        send: resendMean((x) => x.send), turnaround: resendMean((x) => x.receive + x.resend + x.send) },
      startedInThatTurn: sendOf((x) => x.inThatTurn), startedAfter: sendOf((x) => !x.inThatTurn),
    },
    lastChunksPerTurn: summary(lastInPeriod.filter((key) => !key.endsWith('#-1')).map((key) => perPeriod.get(key))),
    serverWriteMicros: summary(joined.filter(({ s }) => s.nth > 1 && s.writes > 0)
      .map(({ s }) => s.writeMicros / s.writes)),
    windowS, chunks, chunksPerS: chunks / windowS, serverBusyPercent, serverWork: work,
    cpuPercentInWindow: ((cpuAt(proc, windowEnd) - cpuAt(proc, windowStart)) / clkTck / windowS) * 100,
    cpuSecondsWhole: last ? last.cpu / clkTck : NaN,
    peakRssMb: hwms.length ? Math.max(...hwms) / 1024 : NaN,
  };
}

// ---- formatting ----
const ms = (v) => {
  if (Number.isNaN(v)) return '–';
  return Math.abs(v) < 1 ? v.toFixed(3) : Math.abs(v) < 10 ? v.toFixed(2) : v.toFixed(1);
};
// A ratio to a reference figure at or below zero says nothing (and flags a clock problem): shown as '–'. Under
// 0.01 it keeps two significant digits, so a far better figure does not print as 0.00.
const ratio = (a, b) => {
  if (Number.isNaN(a) || Number.isNaN(b) || b <= 0) return '–';
  const r = a / b;
  return Math.abs(r) < 0.01 && r !== 0 ? r.toPrecision(2) : r.toFixed(2);
};
const grouped = (v) => Math.round(v).toLocaleString('en-US');
const pair = (s) => (s.n === 0 ? '–' : `${ms(s.p50)} / ${ms(s.p99)}`);
const count = (s) => (s.n === 0 ? '–' : `${s.p50} / ${s.p99}`);
const pairUs = (s) => (s.n === 0 ? '–' : `${s.p50.toFixed(1)} / ${s.p99.toFixed(1)}`);

const rows = [];
const workRows = [];
const figures = {};

/**
 * The rows of the server's-work table for one scenario: each count per request and per 1,000 chunks (or per chunk),
 * llmperf4j's next to the reference client's, and the ratio of the first figure.
 */
function serverWorkRows(label, a, b) {
  const out = [];
  const num = (v, digits = 2) => (Number.isNaN(v) ? '–' : Math.abs(v) >= 100 ? grouped(v) : v.toFixed(digits));
  const row = (figure, f, show) => {
    const x = f(a);
    const y = f(b);
    out.push(`| ${label} | ${figure} | ${show(x)} | ${show(y)} | ${ratio(x[0], y[0])} |`);
  };
  const both = (v) => `${num(v[0])} / ${num(v[1])}`;
  const one = (v) => num(v[0]);
  const perReqK = (count) => (w) => [count(w) / w.requests, (1000 * count(w)) / w.chunks];
  const perChunk = (micros) => (w) => [micros(w) / w.chunks];
  row('requests / content chunks in the run (first start → last content)', (w) => [w.requests, w.chunks], both);
  row('\'data\' events per request (the reads that carried its bytes) / bytes per event',
    (w) => [w.perRequest.dataEvents, w.perRequest.requestBytes / w.perRequest.dataEvents], both);
  row('request bytes / of which head (request line and headers)', (w) => [w.perRequest.requestBytes,
    w.perRequest.headerBytes], both);
  row('headers per request / requests with Transfer-Encoding, Expect or Connection',
    (w) => [w.perRequest.headerCount, w.perRequest.notable], both);
  row('timer callbacks writing its chunks, per request / per 1,000 chunks', perReqK((w) => w.perRequest.batches
    * w.requests), both);
  row('socket writes, per request / per 1,000 chunks', perReqK((w) => w.perRequest.writes * w.requests), both);
  row('writes the kernel did not take whole (returned false), per request / per 1,000 chunks',
    perReqK((w) => w.perRequest.writesQueued * w.requests), both);
  row('\'drain\' events, per request / per 1,000 chunks', perReqK((w) => w.perRequest.drains * w.requests), both);
  row('most bytes Node held for the socket after a write, p50 / p99 of requests',
    (w) => [w.queuedMaxBytes.p50, w.queuedMaxBytes.p99], both);
  row('server\'s time inside its socket writes, µs per chunk', perChunk((w) => w.perRequest.writeMicros * w.requests),
    one);
  row('connections that carried its requests / opened in the run / closed in the run',
    (w) => [w.sockets.carried, w.sockets.openedInRun, w.sockets.closedInRun], (v) => v.map((x) => num(x, 0))
      .join(' / '));
  row('bytes the server read per request / \'data\' events per request, over those connections (warm-ups included)',
    (w) => [w.sockets.bytesReadPerRequest, w.sockets.dataEventsPerRequest], both);
  row('loop callbacks in the run, per request / per 1,000 chunks', perReqK((w) => w.loop.callbacks), both);
  row('busy periods (loop turns) in the run, per request / per 1,000 chunks', perReqK((w) => w.loop.periods), both);
  row('server\'s loop in its callbacks (wall clock), µs per chunk / % of the run',
    (w) => [w.loop.busyMicros / w.chunks, w.loop.busyPercent], both);
  row('server\'s loop thread on a CPU, µs per chunk / % of the run',
    (w) => [w.serverThread.onCpuMicros / w.chunks, (100 * w.serverThread.onCpuMicros) / w.windowMicros], both);
  row('server\'s loop thread runnable but waiting for a CPU, µs per chunk / % of the run',
    (w) => [w.serverThread.waitingMicros / w.chunks, (100 * w.serverThread.waitingMicros) / w.windowMicros], both);
  row('server\'s loop thread: involuntary switches (preempted) / voluntary (slept), per 1,000 chunks',
    (w) => [(1000 * w.serverThread.involuntary) / w.chunks, (1000 * w.serverThread.voluntary) / w.chunks], both);
  row('client\'s reading thread (llmperf4j-io, or Node\'s main): voluntary switches (slept) / involuntary '
    + '(preempted), per 1,000 chunks', (w) => [(1000 * w.clientReader.voluntary) / w.chunks,
    (1000 * w.clientReader.involuntary) / w.chunks], both);
  row('client\'s reading thread: on a CPU / runnable but waiting, µs per chunk',
    (w) => [w.clientReader.onCpuMicros / w.chunks, w.clientReader.waitingMicros / w.chunks], both);
  row('client\'s threads, all: voluntary / involuntary switches, per 1,000 chunks',
    (w) => [(1000 * w.clientThreads.voluntary) / w.chunks, (1000 * w.clientThreads.involuntary) / w.chunks], both);
  row('client\'s threads, all: on a CPU / runnable but waiting, µs per chunk',
    (w) => [w.clientThreads.onCpuMicros / w.chunks, w.clientThreads.waitingMicros / w.chunks], both);
  return out;
}
const scenarios = fs.readdirSync(run)
  .filter((d) => fs.existsSync(path.join(run, d, 'meta.json')) && (!only || only.includes(d)))
  .map((d) => ({ dir: path.join(run, d), meta: JSON.parse(fs.readFileSync(path.join(run, d, 'meta.json'), 'utf8')) }))
  .sort((a, b) => a.meta.order - b.meta.order);

for (const { dir, meta } of scenarios) {
  const server = readJsonl(path.join(dir, 'server.jsonl'));
  const l4jRecords = llmperf4jRecords(path.join(dir, 'l4j'));
  const refRecords = referenceRecords(path.join(dir, 'ref.jsonl'));
  const busy = busyPeriods(path.join(dir, 'server.busy.jsonl'));
  // runs older than the socket log have none of the server's work figures
  const socketLog = path.join(dir, 'server.sockets.jsonl');
  const serverRun = { callbacks: periodCallbacks(path.join(dir, 'server.busy.jsonl')),
    sockets: fs.existsSync(socketLog) ? readJsonl(socketLog) : null,
    proc: readJsonl(path.join(dir, 'server.proc.jsonl')) };
  const l4j = clientFigures(l4jRecords, server, path.join(dir, 'l4j.proc.jsonl'), meta.clkTck, busy, serverRun);
  const ref = clientFigures(refRecords, server, path.join(dir, 'ref.proc.jsonl'), meta.clkTck, busy, serverRun);
  if (meta.kind === 'open') {
    l4j.sendLag = l4jRecords.some((r) => r.intended !== undefined) ? sendLag(l4jRecords)
      : summarySendLag(path.join(dir, 'l4j'));
    ref.sendLag = sendLag(refRecords);
  }
  l4j.warmup = warmupOutcome(path.join(dir, 'l4j.out'));
  figures[meta.name] = { meta, llmperf4j: l4j, reference: ref, server: serverLoopFigures(busy) };
  if (l4j.warmup.settled === false) {
    process.stderr.write(`analyze: ${meta.name}: llmperf4j's client warm-up stopped at its time bound after `
      + `${l4j.warmup.requests} requests, before the JIT compilers settled: its run compiled inside its window `
      + '(more client CPU per chunk, a compiler thread beside the server): not a settled client\'s figures\n');
  }
  for (const [client, x] of [['llmperf4j', l4j], ['reference client', ref]]) {
    const n = x.sendSplit.busy.n;
    if (n > 0 && x.sendSplit.receiptsInsideAPeriod < n) {
      process.stderr.write(`analyze: ${meta.name}, ${client}: ${n - x.sendSplit.receiptsInsideAPeriod} of ${n} `
        + 'receipts fall outside the server\'s busy periods (its data callback is stamped): the busy log does not '
        + 'match server.jsonl, so the busy/rest split is not to be trusted\n');
    }
  }
  const label = meta.label;
  const add = (figure, a, b, r) => rows.push(`| ${label} | ${figure} | ${a} | ${b} | ${r} |`);
  if (l4j.warmup.settled === false) {
    add('client warm-up (llmperf4j\'s, before its run)', `stopped at its time bound after ${l4j.warmup.requests} `
      + 'requests, not settled: compiled inside the run', '–', '');
  }
  const p = (name, a, b, unit = 'ms', show = pair) => add(`${name}, ${unit}`, `${show(a)} (${a.n})`,
    `${show(b)} (${b.n})`, `${ratio(a.p50, b.p50)} / ${ratio(a.p99, b.p99)}`);
  if (meta.kind === 'latency') {
    p('TTFT error, all requests', l4j.error.all, ref.error.all);
    p('send side, reused connections', l4j.send.reused, ref.send.reused);
    p('start → request written (the kernel took its last byte), reused connections', l4j.written.reused,
      ref.written.reused);
    p('request written → the server had it (waiting in the server\'s socket), reused connections',
      l4j.inServerSocket.reused, ref.inServerSocket.reused);
    p('of which the server was busy (its loop running its callbacks: chunk writes, other requests\' parsing), '
      + 'reused connections', l4j.sendSplit.busy, ref.sendSplit.busy);
    p('of which the rest (its loop outside its callbacks: woken in its poll and not yet on a CPU, reading sockets), '
      + 'reused connections', l4j.sendSplit.rest, ref.sendSplit.rest);
    p('send side less the server\'s busy time (start → written + the rest), reused connections',
      l4j.sendSplit.lessBusy, ref.sendSplit.lessBusy);
    const plus = (v) => (v < 0 ? ` − ${ms(-v)}` : ` + ${ms(v)}`);
    const parts = (x) => (Number.isNaN(x.mean.send) ? '–'
      : `${ms(x.mean.own)}${plus(x.mean.busy)}${plus(x.mean.rest)} = ${ms(x.mean.send)}`);
    const resendParts = (x) => (Number.isNaN(x.turnaround) ? '–'
      : `${ms(x.receive)}${plus(x.resend)}${plus(x.send)} = ${ms(x.turnaround)}`);
    add('send side\'s parts, mean per request: start → written + busy + rest = send side, reused connections, ms',
      parts(l4j.sendSplit), parts(ref.sendSplit), ratio(l4j.sendSplit.mean.send, ref.sendSplit.mean.send));
    add('server\'s loop running its callbacks, % of this client\'s run (first start → last content)',
      Number.isNaN(l4j.serverBusyPercent) ? '–' : l4j.serverBusyPercent.toFixed(1),
      Number.isNaN(ref.serverBusyPercent) ? '–' : ref.serverBusyPercent.toFixed(1),
      ratio(l4j.serverBusyPercent, ref.serverBusyPercent));
    p('re-send turnaround, server\'s clock only: last chunk of a response written → next request on that '
      + 'connection received', l4j.turnaround, ref.turnaround);
    add('re-send turnaround\'s parts, mean per request: last chunk written → the client stamped it (receive) → '
      + 'its start stamp of the next request (re-send) → the server had it (send side), ms',
      resendParts(l4j.resend.mean), resendParts(ref.resend.mean),
      ratio(l4j.resend.mean.turnaround, ref.resend.mean.turnaround));
    p('the client\'s re-send: it stamped the previous response\'s last content → its start stamp of the next '
      + 'request on that connection', l4j.resend.resend, ref.resend.resend);
    const turnShare = (x) => {
      const a = x.resend.startedInThatTurn;
      const b = x.resend.startedAfter;
      return a.n + b.n === 0 ? '–' : `${((100 * a.n) / (a.n + b.n)).toFixed(0)} % (${a.n} of ${a.n + b.n}): `
        + `${a.n ? ms(a.p50) : '–'} / ${b.n ? ms(b.p50) : '–'}`;
    };
    add('requests whose start stamp came while the server was still in the loop turn that wrote the previous '
      + 'response\'s last chunk: share, and send side p50 of those / of the others, reused connections, ms',
      turnShare(l4j), turnShare(ref), '');
    p('responses whose last chunk the server wrote in the same loop turn as this one\'s (how synchronized the '
      + 'client\'s streams are)', l4j.lastChunksPerTurn, ref.lastChunksPerTurn, 'responses', count);
    p('server\'s time inside one socket write to this client (mean per request), reused connections',
      l4j.serverWriteMicros, ref.serverWriteMicros, 'µs', pairUs);
    p('send side, new connections', l4j.send.new, ref.send.new);
    p('receive side, reused connections', l4j.receive.reused, ref.receive.reused);
    p('receive side, new connections', l4j.receive.new, ref.receive.new);
  }
  if (meta.kind === 'open') {
    p('send lag (went out − its schedule\'s time), all requests', l4j.sendLag, ref.sendLag);
    const tail = (s) => (s.n === 0 ? '–' : `${ms(s.p999)} / ${ms(s.max)}`);
    add('send lag p99.9 / max, ms', tail(l4j.sendLag), tail(ref.sendLag),
      `${ratio(l4j.sendLag.p999, ref.sendLag.p999)} / ${ratio(l4j.sendLag.max, ref.sendLag.max)}`);
    p('TTFT error (from the actual send), all requests', l4j.error.all, ref.error.all);
    p('TTFT error from the intended send (send lag + TTFT error)', l4j.error.fromIntended, ref.error.fromIntended);
    p('send side, reused connections', l4j.send.reused, ref.send.reused);
    p('receive side, reused connections', l4j.receive.reused, ref.receive.reused);
  }
  if (meta.kind === 'ceiling') {
    add('stream ceiling, chunks/s', grouped(l4j.chunksPerS), grouped(ref.chunksPerS),
      ratio(l4j.chunksPerS, ref.chunksPerS));
    add('client CPU over the streaming window, % of one core', l4j.cpuPercentInWindow.toFixed(0),
      ref.cpuPercentInWindow.toFixed(0), ratio(l4j.cpuPercentInWindow, ref.cpuPercentInWindow));
    // a client that takes the chunks in faster spends more CPU per second on them: per chunk compares the work
    const perMillion = (x) => ((x.cpuPercentInWindow / 100) * x.windowS * 1e6) / x.chunks;
    add('client CPU per million chunks, streaming window, s', perMillion(l4j).toFixed(2),
      perMillion(ref).toFixed(2), ratio(perMillion(l4j), perMillion(ref)));
    add('client CPU, whole process (start-up, result files), s', l4j.cpuSecondsWhole.toFixed(2),
      ref.cpuSecondsWhole.toFixed(2), ratio(l4j.cpuSecondsWhole, ref.cpuSecondsWhole));
  }
  if (meta.kind === 'wide') {
    p('TTFT error, all requests', l4j.error.all, ref.error.all);
    p('send side, all requests', l4j.send.all, ref.send.all);
    p('receive side, all requests', l4j.receive.all, ref.receive.all);
  }
  if (l4j.serverWork && ref.serverWork && (meta.kind === 'latency' || meta.kind === 'ceiling')) {
    workRows.push(...serverWorkRows(label, l4j.serverWork, ref.serverWork));
  }
  if (meta.rss) {
    add('peak RSS (VmHWM), MB', l4j.peakRssMb.toFixed(1), ref.peakRssMb.toFixed(1),
      ratio(l4j.peakRssMb, ref.peakRssMb));
  }
  if (l4j.failed || ref.failed) {
    add('requests not joined (failed, or missing from the server log)', String(l4j.failed), String(ref.failed), '');
  }
}

const table = ['Latencies: p50 / p99 (requests). Ratio: llmperf4j ÷ reference client, same run.', '',
  '| scenario | figure | llmperf4j | reference client | ratio |',
  '|---|---|---|---|---|', ...rows].join('\n') + '\n'
  + (workRows.length === 0 ? '' : ['', 'What each client made the reference server do, over the client\'s run. '
    + 'Ratio: of the first figure.', '', '| scenario | figure | llmperf4j | reference client | ratio |',
  '|---|---|---|---|---|', ...workRows].join('\n') + '\n');
fs.writeFileSync(path.join(run, 'table.md'), table);
fs.writeFileSync(path.join(run, 'figures.json'), JSON.stringify(figures, null, 2) + '\n');
process.stdout.write(table);
