#!/usr/bin/env node
// Minimal streaming client, the yardstick of the side-by-side self-check (Node's standard library only): a closed
// loop of --streams concurrent streams over a keep-alive agent with as many sockets, --requests in all; or, with
// --rate, an open loop: --requests arrivals of a seeded Poisson process at --rate per second, each sent when its time
// comes (the timers a minimal Node client would use: setTimeout, then every arrival that is due), however many are in
// flight, over a keep-alive agent that opens sockets as needed. One wall-clock stamp per request just before the
// request is written, one just after the kernel took its last byte, one per arrival of response bytes; it sends its
// own X-Request-Id and writes one JSON line per request to --out: id, start, written (-1 when the write did not
// complete at once), first and last (epoch µs of the arrivals that held the first and the last content chunk), chunks
// (content chunks), status, error, and in an open loop intended (epoch µs when the schedule wanted it sent).
// With --preconnect N (a closed loop) it opens N connections before the first request and hands them to the agent as
// its first sockets, as llmperf4j opens one per stream before its clock starts: the first wave then goes out at once
// on open connections instead of spreading over a connect storm, and the streams keep that phase to the end.
//
// Usage: node reference-client.mjs --url http://127.0.0.1:PORT/v1/chat/completions --streams 32 --requests 128
//          [--rate 200 [--seed 1]] [--preconnect 0] [--max-tokens 256] [--prompt-words 64] [--out F]
//          [--id-prefix ref-]
import http from 'node:http';
import net from 'node:net';
import fs from 'node:fs';
import { nowMicros } from './clock.mjs';

const defaults = { url: '', streams: '1', requests: '1', rate: '0', seed: '1', preconnect: '0', 'max-tokens': '256',
  'prompt-words': '64', out: '', 'id-prefix': 'ref-' };
const args = { ...defaults };
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i += 2) {
  const key = argv[i].replace(/^--/, '');
  if (!(key in defaults) || i + 1 >= argv.length) {
    process.stderr.write(`reference-client: unknown or incomplete flag ${argv[i]}\n`);
    process.exit(2);
  }
  args[key] = argv[i + 1];
}
if (!args.url) {
  process.stderr.write('reference-client: --url is required\n');
  process.exit(2);
}
const url = new URL(args.url);
const streams = Number(args.streams);
const total = Number(args.requests);
const rate = Number(args.rate);
if (!(rate >= 0)) {
  process.stderr.write(`reference-client: --rate ${args.rate} is not a rate (requests per second, 0 = closed loop)\n`);
  process.exit(2);
}
const preconnect = Number(args.preconnect);
if (!(Number.isInteger(preconnect) && preconnect >= 0) || (preconnect > 0 && rate > 0)) {
  process.stderr.write(`reference-client: --preconnect ${args.preconnect} is not a number of connections for a `
    + 'closed loop (0 = none; not with --rate)\n');
  process.exit(2);
}
const chat = url.pathname.endsWith('/chat/completions');
const agent = rate > 0 ? new http.Agent({ keepAlive: true, maxFreeSockets: 1024 })
  : new http.Agent({ keepAlive: true, maxSockets: streams, maxFreeSockets: streams });
/** Connections opened before the first request: the agent takes them as its first sockets, then opens its own. */
const opened = [];
if (preconnect > 0) {
  const connectOne = () => new Promise((resolve, reject) => {
    const socket = net.connect({ host: url.hostname, port: Number(url.port), noDelay: true }, () => resolve(socket));
    socket.once('error', reject);
  });
  try {
    opened.push(...await Promise.all(Array.from({ length: preconnect }, connectOne)));
  } catch (e) {
    process.stderr.write(`reference-client: could not open the ${preconnect} connections to ${url.host}: ${e.message}\n`);
    process.exit(1);
  }
  const createConnection = agent.createConnection.bind(agent);
  agent.createConnection = (options, callback) => opened.pop() ?? createConnection(options, callback);
}
const words = ['time', 'light', 'river', 'stone', 'green', 'house', 'music', 'paper'];
const prompt = Array.from({ length: Number(args['prompt-words']) }, (_, i) => words[i % words.length]).join(' ');
const payload = { model: 'reference', max_tokens: Number(args['max-tokens']), stream: true,
  stream_options: { include_usage: true } };
if (chat) payload.messages = [{ role: 'user', content: prompt }];
else payload.prompt = prompt;
const body = Buffer.from(JSON.stringify(payload));
const records = [];
let issued = 0;

/** Content of one SSE data payload, or '' (role-only deltas, usage, [DONE]). */
function contentOf(data) {
  if (data === '[DONE]') return '';
  const choice = JSON.parse(data).choices?.[0];
  if (!choice) return '';
  return (chat ? choice.delta?.content : choice.text) ?? '';
}

function one(id, intended) {
  return new Promise((resolve) => {
    const record = { id, start: 0, written: -1, first: -1, last: -1, chunks: 0, status: 0, error: null };
    if (intended !== undefined) record.intended = intended;
    let settled = false;
    const finish = (error) => {
      if (settled) return;
      settled = true;
      if (error && !record.error) record.error = String(error.message ?? error);
      records.push(record);
      resolve();
    };
    const req = http.request({
      agent, method: 'POST', host: url.hostname, port: url.port, path: url.pathname,
      headers: { 'Content-Type': 'application/json', 'Content-Length': body.length, 'X-Request-Id': id },
    }, (res) => {
      record.status = res.statusCode;
      res.setEncoding('utf8');
      let buffered = '';
      res.on('data', (text) => {
        const t = nowMicros();
        buffered += text;
        let end;
        while ((end = buffered.indexOf('\n\n')) >= 0) {
          const event = buffered.slice(0, end);
          buffered = buffered.slice(end + 2);
          for (const line of event.split('\n')) {
            if (!line.startsWith('data:')) continue;
            try {
              if (contentOf(line.slice(5).trim()) === '') continue;
            } catch (e) {
              record.error = `bad chunk: ${e.message}`;
              continue;
            }
            if (record.first < 0) record.first = t;
            record.last = t;
            record.chunks++;
          }
        }
      });
      res.on('end', () => finish(res.statusCode === 200 ? null : `HTTP ${res.statusCode}`));
      res.on('error', finish);
    });
    req.on('error', finish);
    // The request goes out when the agent hands it its socket (a tick after end()): 'socket' is emitted just before
    // that flush, in the same tick, so a nextTick from it runs just after the write. Stamped only when the kernel
    // took every byte then (nothing left in the stream's or libuv's queue), else it would be an early stamp.
    req.on('socket', (socket) => process.nextTick(() => {
      if (socket.writableLength === 0 && (socket._handle?.writeQueueSize ?? 1) === 0) record.written = nowMicros();
    }));
    record.start = nowMicros();
    req.end(body);
  });
}

async function stream() {
  while (issued < total) {
    const id = args['id-prefix'] + (++issued);
    await one(id);
  }
}

/** Seeded uniform numbers in [0, 1) (mulberry32): the same schedule on every run. */
function uniforms(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6D2B79F5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The open loop: Poisson arrivals at `rate`, each sent at its time however many are in flight. */
function openLoop() {
  const next = uniforms(Number(args.seed));
  const offsets = [0]; // µs from the first arrival
  while (offsets.length < total) offsets.push(offsets[offsets.length - 1] - (Math.log(1 - next()) / rate) * 1e6);
  const zero = nowMicros() + 100_000;
  const inFlight = [];
  let i = 0;
  return new Promise((resolve) => {
    const tick = () => {
      const now = nowMicros();
      for (; i < total && zero + offsets[i] <= now; i++) {
        inFlight.push(one(args['id-prefix'] + (i + 1), zero + offsets[i]));
      }
      if (i < total) setTimeout(tick, (zero + offsets[i] - nowMicros()) / 1000);
      else Promise.all(inFlight).then(resolve);
    };
    setTimeout(tick, (zero - nowMicros()) / 1000);
  });
}

const began = nowMicros();
if (rate > 0) await openLoop();
else await Promise.all(Array.from({ length: Math.min(streams, total) }, stream));
const seconds = (nowMicros() - began) / 1e6;
const lines = records.map((r) => JSON.stringify(r)).join('\n') + '\n';
if (args.out) fs.writeFileSync(args.out, lines);
else process.stdout.write(lines);
const failed = records.filter((r) => r.error).length;
const chunks = records.reduce((sum, r) => sum + r.chunks, 0);
process.stderr.write(`reference-client: ${records.length} requests (${failed} failed), ${chunks} chunks `
  + `in ${seconds.toFixed(2)} s\n`);
agent.destroy();
process.exitCode = failed > 0 ? 1 : 0;
