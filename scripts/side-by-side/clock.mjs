// Wall-clock time in epoch microseconds with sub-microsecond resolution, comparable with Java's Instant.now() in
// another process. Date.now() has millisecond resolution; performance.now() is monotonic (CLOCK_MONOTONIC, slewed by
// NTP like the wall clock, so their difference only moves on a clock step). Their offset is read where Date.now()
// turns to the next millisecond: the turn lies between the last call that returned the old value and the first that
// returned the new one, so a pair of calls a few microseconds apart pins it to a few microseconds. Pairs that a
// descheduled thread spread wider are dropped (on a loaded machine they would put the offset up to 1 ms early).
// performance.timeOrigin, which Node takes once at start-up, is not trusted: it was 66 µs off in a test.
import { performance } from 'node:perf_hooks';

const SAMPLES = 5;
const MAX_TRIES = 200;
const GOOD_ENOUGH_MICROS = 5;

/** One turn of Date.now(): { offset (epoch µs minus performance.now() µs), width (its uncertainty, µs) }. */
function turn() {
  let previousBefore = performance.now();
  let previous = Date.now();
  for (;;) {
    const before = performance.now();
    const d = Date.now();
    const after = performance.now();
    if (d !== previous) {
      // The turn to d is between the previous call (after previousBefore) and this one (before after).
      const width = (after - previousBefore) * 1000;
      const valid = d === previous + 1;
      return { offset: d * 1000 - ((previousBefore + after) / 2) * 1000, width: valid ? width : Infinity };
    }
    previous = d;
    previousBefore = before;
  }
}

function anchor() {
  const good = [];
  let best = { offset: NaN, width: Infinity };
  for (let i = 0; i < MAX_TRIES && good.length < SAMPLES; i++) {
    const t = turn();
    if (t.width < best.width) best = t;
    if (t.width <= GOOD_ENOUGH_MICROS) good.push(t);
  }
  if (good.length === 0) return best;
  good.sort((a, b) => a.offset - b.offset);
  return good[Math.floor(good.length / 2)];
}

const anchored = anchor();

/** Now, in microseconds since the epoch (a double: about 0.25 µs of resolution at today's epoch). */
export function nowMicros() {
  return anchored.offset + performance.now() * 1000;
}

/** A performance.now() reading (ms) as nowMicros() would have given it: for stamps taken raw and converted later. */
export function epochMicrosAt(performanceNowMs) {
  return anchored.offset + performanceNowMs * 1000;
}

/** The anchor's uncertainty in microseconds (the width of the Date.now() turn it was read at). */
export function anchorUncertaintyMicros() {
  return anchored.width;
}

/** How far performance.timeOrigin is from the anchored clock, in microseconds (for the log, as a sanity check). */
export function timeOriginSkewMicros() {
  return performance.timeOrigin * 1000 - anchored.offset;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  process.stdout.write(`anchor uncertainty ${anchorUncertaintyMicros().toFixed(2)} µs, `
    + `timeOrigin ${timeOriginSkewMicros().toFixed(1)} µs from it\n`);
}
