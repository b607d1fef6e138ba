// Wall-clock time in epoch microseconds with sub-microsecond resolution, comparable with Java's Instant.now().
// Date.now() has millisecond resolution; performance.now() is monotonic (CLOCK_MONOTONIC, slewed by NTP like the
// wall clock, so their difference only moves on a clock step). The offset between them is read at a millisecond
// boundary of Date.now(), so it is exact to the cost of one loop turn (well under a microsecond), instead of trusting
// performance.timeOrigin, which Node takes once at start-up.
import { performance } from 'node:perf_hooks';

function boundaryOffsetMicros() {
  const d0 = Date.now();
  let before;
  let d;
  do {
    before = performance.now();
    d = Date.now();
  } while (d === d0);
  // Date.now() turned to d between the previous turn and this one: the boundary is at `before`, to one turn.
  return d * 1000 - before * 1000;
}

function anchor() {
  const offsets = [boundaryOffsetMicros(), boundaryOffsetMicros(), boundaryOffsetMicros()].sort((a, b) => a - b);
  return offsets[1];
}

const offsetMicros = anchor();

/** Now, in microseconds since the epoch (a double: about 0.25 µs of resolution at today's epoch). */
export function nowMicros() {
  return offsetMicros + performance.now() * 1000;
}

/** How far performance.timeOrigin is from the anchored clock, in microseconds (for the log, as a sanity check). */
export function timeOriginSkewMicros() {
  return performance.timeOrigin * 1000 - offsetMicros;
}
