#!/usr/bin/env node
// Reference OpenAI-compatible SSE server for the side-by-side self-check (Node's standard library only).
// POST /v1/chat/completions and /v1/completions with "stream": true: after --ttft-ms from receipt of the whole
// request it writes one chunk per output token, each the word " word" (one Llama token), --itl-ms apart, then the
// usage chunk when stream_options.include_usage is set, then "data: [DONE]". HTTP/1.1 keep-alive, chunked
// transfer encoding, bound to 127.0.0.1 only. It is a plain socket server (no node:http) so it stamps the moment
// the request's last byte was read, not when a framework got round to it.
//
// Per request it appends one JSON line to --log: id (the X-Request-Id header), sock (connection number), nth (the
// request's number on that connection, 1 = a new connection), recv (epoch µs when it had the whole request), first
// and last (epoch µs just before writing the first and the last content chunk), chunks (content chunks written),
// writes and writeMicros (its socket writes, head included, and the time spent inside them: on loopback a write to a
// reader asleep in epoll wakes it inside the call, and the scheduler may run the reader on this core first).
// Also per request, what it cost the loop (issue 15, to compare what two clients make this server do): dataEvents and
// requestBytes (the 'data' callbacks that carried its bytes and how many: headers and body in one write or several),
// headerBytes and headerCount, notable (the Transfer-Encoding, Expect and Connection headers it had, when any),
// batches (the timer callbacks that wrote its chunks), writesQueued (writes that returned false: the kernel's
// socket buffer was full, so Node queued the rest and finishes it on a later turn) and queuedMax (the most bytes
// Node held for the socket after a write), drains ('drain' events while it streamed).
//
// With --socket-log F it appends one JSON line per connection when it closes or the server stops: sock, opened and
// closed (epoch µs; closed -1 when still open at the end), by ('client' when the client ended it, 'server', 'error',
// 'open'), requests, the first and last request's X-Request-Id (to tell which client it served), dataEvents,
// bytesRead and bytesWritten (Node's counters), drains.
//
// With --busy-log F it also stamps its event loop's busy periods (loop-busy.mjs: the start and end of each run of its
// callbacks between two waits in its poll, on the same clock as recv) and appends them to F as one JSON line when it
// stops, so a request's wait between the client's written stamp and recv can be split into time the server spent
// on its own work and the rest.
//
// With --workers N (N > 1) it runs as N processes sharing the port (node:cluster, connections handed out in turn),
// each as above, sock numbers prefixed with the worker's: the same answers with N times the intake, to see how much
// of a client's send side is this server taking in requests one at a time.
//
// Usage: node reference-server.mjs [--port 0] [--port-file F] [--log F] [--ttft-ms 50] [--itl-ms 10]
//          [--output-tokens N (default: the request's max_tokens, else 256)] [--events-per-write 1] [--workers 1]
//          [--busy-log F] [--socket-log F]
import cluster from 'node:cluster';
import net from 'node:net';
import fs from 'node:fs';
import { anchorUncertaintyMicros, nowMicros } from './clock.mjs';
import { LoopBusyLog } from './loop-busy.mjs';

const args = parseArgs(process.argv.slice(2), {
  port: '0', 'port-file': '', log: '', 'ttft-ms': '50', 'itl-ms': '10', 'output-tokens': '', 'events-per-write': '1',
  workers: '1', 'busy-log': '', 'socket-log': '',
});
const workers = Math.max(1, Number(args.workers));
const primaryOnly = workers > 1 && cluster.isPrimary; // hands out connections, serves and logs none
if (primaryOnly) {
  // The primary only hands out connections; it writes the port file once the first worker listens, and on
  // SIGTERM or SIGINT stops every worker and exits when each has written its log.
  let listening = false;
  cluster.on('listening', (worker, address) => {
    if (listening) return;
    listening = true;
    if (args['port-file']) fs.writeFileSync(args['port-file'], String(address.port));
  });
  for (let i = 0; i < workers; i++) cluster.fork();
  let alive = workers;
  cluster.on('exit', () => {
    if (--alive === 0) process.exit(0);
  });
  const stopAll = () => Object.values(cluster.workers).forEach((w) => w.process.kill('SIGTERM'));
  process.on('SIGTERM', stopAll);
  process.on('SIGINT', stopAll);
}
const inWorker = workers > 1 && cluster.isWorker;
const sockPrefix = inWorker ? `${cluster.worker.id}-` : '';
const ttftMs = Number(args['ttft-ms']);
const itlMs = Number(args['itl-ms']);
const fixedTokens = args['output-tokens'] === '' ? null : Number(args['output-tokens']);
const perWrite = Math.max(1, Number(args['events-per-write']));
const logFd = args.log && !primaryOnly ? fs.openSync(args.log, 'a') : null;
const busyLog = args['busy-log'] && !primaryOnly ? new LoopBusyLog() : null;
const socketLines = args['socket-log'] && !primaryOnly ? [] : null;
/** The socket log line makers of the connections still open, for the socket log at exit. */
const openSockets = new Set();
/** A callback the loop runs, stamped into the busy log when there is one. */
const stamped = busyLog ? (fn) => busyLog.stamped(fn) : (fn) => fn;

const HEAD = Buffer.from('HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\n'
  + 'Connection: keep-alive\r\nTransfer-Encoding: chunked\r\n\r\n');
const HEADER_END = Buffer.from('\r\n\r\n');
let sockets = 0;
let responses = 0;
const created = Math.floor(Date.now() / 1000);

function parseArgs(argv, defaults) {
  const out = { ...defaults };
  for (let i = 0; i < argv.length; i++) {
    const key = argv[i].replace(/^--/, '');
    if (!(key in defaults) || i + 1 >= argv.length) fail(`unknown or incomplete flag ${argv[i]}`);
    out[key] = argv[++i];
  }
  return out;
}

function fail(message) {
  process.stderr.write(`reference-server: ${message}\n`);
  process.exit(2);
}

/** One HTTP chunk (chunked transfer encoding) holding the given SSE payload. */
function httpChunk(payload) {
  const body = Buffer.isBuffer(payload) ? payload : Buffer.from(payload);
  return Buffer.concat([Buffer.from(body.length.toString(16) + '\r\n'), body, Buffer.from('\r\n')]);
}

function sse(object) {
  return 'data: ' + JSON.stringify(object) + '\n\n';
}

/** The SSE events of one response: a content event, its last (with finish_reason), the usage event. */
function events(chat, id, model, tokens, promptTokens, withUsage) {
  const object = chat ? 'chat.completion.chunk' : 'text_completion';
  const choice = (finish) => chat
    ? { index: 0, delta: { content: ' word' }, logprobs: null, finish_reason: finish }
    : { index: 0, text: ' word', logprobs: null, finish_reason: finish };
  const frame = (choices, extra) => ({ id, object, created, model, choices, ...extra });
  const usage = { prompt_tokens: promptTokens, completion_tokens: tokens, total_tokens: promptTokens + tokens };
  return {
    content: sse(frame([choice(null)])),
    last: sse(frame([choice('length')])),
    tail: (withUsage ? sse(frame([], { usage })) : '') + 'data: [DONE]\n\n',
  };
}

// Log lines are kept in memory and written when the server stops: a synchronous file write on the event loop right
// after a response's last chunk would delay the receipt stamp of the next request on that connection, and a fast
// client's next request comes exactly then.
const logLines = [];
function log(entry) {
  if (logFd !== null) logLines.push(JSON.stringify(entry));
}

/** Streams one response on the socket; calls done() after its last byte is handed to the socket. */
function respond(socket, request, recv, done) {
  let body;
  try {
    body = JSON.parse(request.body.toString('utf8') || '{}');
  } catch {
    return error(socket, 400, 'the body is not JSON', done);
  }
  const chat = request.path.endsWith('/chat/completions');
  if (body.stream !== true) return error(socket, 400, 'this server only streams ("stream": true)', done);
  const tokens = Math.max(1, fixedTokens ?? (Number.isInteger(body.max_tokens) ? body.max_tokens : 256));
  const prompt = chat ? (body.messages ?? []).map((m) => String(m.content ?? '')).join(' ') : String(body.prompt ?? '');
  const promptTokens = prompt.split(/\s+/).filter(Boolean).length;
  const id = (chat ? 'chatcmpl-' : 'cmpl-') + sockPrefix + (++responses);
  const ev = events(chat, id, String(body.model ?? 'reference'), tokens, promptTokens,
    body.stream_options?.include_usage === true);
  const fullBatch = httpChunk(ev.content.repeat(perWrite));
  const entry = { id: request.headers['x-request-id'] ?? null, sock: socket.sockId, nth: socket.requests,
    recv, first: -1, last: -1, chunks: 0, writes: 0, writeMicros: 0, ...request.intake, batches: 0,
    writesQueued: 0, queuedMax: 0, drains: 0 };
  const drainsBefore = socket.drains;
  const timedWrite = (bytes) => {
    const before = nowMicros();
    const flowing = socket.write(bytes);
    entry.writeMicros += nowMicros() - before;
    entry.writes++;
    if (!flowing) entry.writesQueued++;
    if (socket.writableLength > entry.queuedMax) entry.queuedMax = socket.writableLength;
    return flowing;
  };
  timedWrite(HEAD);
  let written = 0;

  const writeBatch = () => {
    if (socket.destroyed) return finish(false);
    entry.batches++;
    const n = Math.min(perWrite, tokens - written);
    const lastBatch = written + n === tokens;
    let payload;
    if (n === perWrite && !lastBatch) {
      payload = fullBatch;
    } else {
      payload = httpChunk(ev.content.repeat(lastBatch ? n - 1 : n) + (lastBatch ? ev.last + ev.tail : ''));
    }
    const t = nowMicros();
    if (written === 0) entry.first = t;
    if (lastBatch) entry.last = t;
    written += n;
    entry.chunks = written;
    const flowing = timedWrite(lastBatch ? Buffer.concat([payload, Buffer.from('0\r\n\r\n')]) : payload);
    if (lastBatch) return finish(true);
    if (itlMs > 0) setTimeout(nextBatch, itlMs);
    else if (flowing) setImmediate(nextBatch);
    else socket.once('drain', nextBatch);
  };
  const nextBatch = stamped(writeBatch);
  const finish = (complete) => {
    if (!complete) entry.aborted = true;
    entry.drains = socket.drains - drainsBefore; // the last write's drain, if any, comes after: not counted
    log(entry);
    done();
  };
  const delay = ttftMs - (nowMicros() - recv) / 1000;
  if (delay > 0) setTimeout(nextBatch, delay);
  else setImmediate(nextBatch);
}

function error(socket, status, message, done) {
  const body = JSON.stringify({ error: { message, type: 'invalid_request_error' } });
  const reason = status === 404 ? 'Not Found' : 'Bad Request';
  socket.write(`HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json\r\n`
    + `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: keep-alive\r\n\r\n${body}`);
  done();
}

/** Parses requests off the socket's bytes (Content-Length bodies; no pipelining needed, but queued if it comes). */
function onConnection(socket) {
  socket.setNoDelay(true);
  socket.sockId = sockPrefix + (++sockets);
  socket.requests = 0;
  socket.drains = 0;
  const opened = nowMicros();
  let dataEvents = 0; // on this connection
  let firstId = null;
  let lastId = null;
  let endedBy = 'open';
  // the 'data' callbacks of the request being read: from the first byte after the previous request was whole
  let intakeEvents = 0;
  let pending = Buffer.alloc(0);
  const queue = [];
  let busy = false;

  const next = () => {
    if (busy || queue.length === 0) return;
    busy = true;
    const { request, recv } = queue.shift();
    socket.requests++;
    const done = () => {
      busy = false;
      if (request.close) {
        endedBy = 'server';
        socket.end();
      } else {
        next();
      }
    };
    if (request.method === 'GET' && request.path.endsWith('/models')) {
      const body = JSON.stringify({ object: 'list', data: [{ id: 'reference', object: 'model' }] });
      socket.write(`HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`
        + body);
      return done();
    }
    if (request.method !== 'POST' || !/\/(chat\/)?completions$/.test(request.path)) {
      return error(socket, 404, `no route ${request.method} ${request.path}`, done);
    }
    respond(socket, request, recv, done);
  };

  socket.on('data', stamped((data) => {
    const recv = nowMicros();
    dataEvents++;
    intakeEvents++;
    pending = pending.length === 0 ? data : Buffer.concat([pending, data]);
    for (;;) {
      const end = pending.indexOf(HEADER_END);
      if (end < 0) return;
      const lines = pending.subarray(0, end).toString('latin1').split('\r\n');
      const [method, target] = lines[0].split(' ');
      const headers = {};
      for (const line of lines.slice(1)) {
        const colon = line.indexOf(':');
        if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
      }
      if (headers['transfer-encoding']) {
        endedBy = 'server';
        socket.end('HTTP/1.1 411 Length Required\r\nContent-Length: 0\r\nConnection: close\r\n\r\n');
        return;
      }
      const length = Number(headers['content-length'] ?? 0);
      if (pending.length < end + 4 + length) return; // the body is still coming: stamp when it is whole
      const body = pending.subarray(end + 4, end + 4 + length);
      pending = pending.subarray(end + 4 + length);
      const close = (headers.connection ?? '').toLowerCase() === 'close';
      const intake = { dataEvents: intakeEvents, requestBytes: end + 4 + length, headerBytes: end + 4,
        headerCount: lines.length - 1 };
      const notable = ['transfer-encoding', 'expect', 'connection'].filter((h) => h in headers);
      if (notable.length > 0) intake.notable = Object.fromEntries(notable.map((h) => [h, headers[h]]));
      // a 'data' event that also carried the next request's first bytes counts for both
      intakeEvents = pending.length > 0 ? 1 : 0;
      firstId ??= headers['x-request-id'] ?? null;
      lastId = headers['x-request-id'] ?? null;
      queue.push({ request: { method, path: target.split('?')[0], headers, body, close, intake }, recv });
      next();
    }
  }));
  // unstamped: they run on the loop too, but once per connection or per queued write
  socket.on('drain', () => socket.drains++);
  socket.on('end', () => {
    if (endedBy === 'open') endedBy = 'client';
  });
  socket.on('error', () => {
    if (endedBy === 'open') endedBy = 'error';
  });
  const line = (closed) => JSON.stringify({ sock: socket.sockId, opened, closed, by: endedBy,
    requests: socket.requests, firstId, lastId, dataEvents, bytesRead: socket.bytesRead,
    bytesWritten: socket.bytesWritten, drains: socket.drains });
  if (socketLines !== null) {
    openSockets.add(line);
    socket.on('close', () => {
      openSockets.delete(line);
      socketLines.push(line(nowMicros()));
    });
  }
}

if (!primaryOnly) serve();

function serve() {
  const server = net.createServer(stamped(onConnection));
  // A backlog above the largest connect storm (1,024 streams at once; Node's default is 511), so no SYN waits for a
  // retransmission; the kernel caps it at net.core.somaxconn.
  server.listen({ port: Number(args.port), host: '127.0.0.1', backlog: 4096 }, () => {
    const port = server.address().port;
    if (args['port-file'] && !inWorker) fs.writeFileSync(args['port-file'], String(port));
    process.stderr.write(`reference-server: listening on 127.0.0.1:${port}, ttft ${ttftMs} ms, itl ${itlMs} ms, `
      + `${perWrite} event(s) per write, wall clock anchored to ${anchorUncertaintyMicros().toFixed(1)} µs\n`);
  });
  const stop = () => {
    if (logFd !== null) {
      if (logLines.length > 0) fs.writeSync(logFd, logLines.join('\n') + '\n');
      fs.closeSync(logFd);
    }
    if (busyLog) fs.appendFileSync(args['busy-log'], busyLog.line(sockPrefix) + '\n');
    if (socketLines !== null) {
      for (const line of openSockets) socketLines.push(line(-1));
      if (socketLines.length > 0) fs.appendFileSync(args['socket-log'], socketLines.join('\n') + '\n');
    }
    process.exit(0);
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}
