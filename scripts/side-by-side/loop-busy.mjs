// The reference server's event-loop busy periods, on the same wall clock as its receipt stamps (clock.mjs), so the
// side-by-side analysis can tell how much of a request's wait in the server's socket fell while the server was
// running its own work (writing other streams' chunks, parsing other requests) and how much while it was waiting.
//
// Each callback the server registers (timers, immediates, drain, data, connection) is wrapped by stamped(): its start
// and end are stamped; a callback that starts with the loop's idle time unchanged since the previous one's start
// (libuv counts the time its poll blocked, performance.nodeTiming.idleTime; it has not blocked in between) extends
// the previous period instead of opening one, so a loop turn (a timer batch writing every due stream's chunk, then
// the reads that were ready) is one period, Node's own code between its callbacks included. A period ends at its
// last callback's end; what the loop does outside the stamped callbacks before it blocks, and between the end of a
// blocking wait and the first callback (libuv's socket reads), is in no period. Per period three numbers: start,
// end (epoch µs) and the loop's idle time at its start (µs since the process started), so the analysis can bound
// how much of each gap the loop spent blocked in its poll; and per period the number of callbacks it ran. The cost
// is three clock reads per callback (about 50 ns each on this machine, quiet), raw performance.now() values held in
// an array and converted when written, at exit.
import { performance } from 'node:perf_hooks';
import { epochMicrosAt } from './clock.mjs';

export class LoopBusyLog {
  constructor() {
    /** start, end (performance.now() ms), idle at start (ms): three numbers per period, in order. */
    this.periods = [];
    /** Callbacks run in each period, in the same order. */
    this.counts = [];
    this.callbacks = 0;
    this.lastIdle = -1;
    this.depth = 0;
  }

  /** fn (a callback of at most one argument), stamped as busy while it runs; nested calls add nothing. */
  stamped(fn) {
    const log = this;
    return function stampedCallback(arg) {
      if (log.depth > 0) return fn.call(this, arg);
      log.begin();
      const result = fn.call(this, arg); // a throw ends the server, so no finally is needed
      log.end();
      return result;
    };
  }

  begin() {
    this.depth++;
    this.callbacks++;
    const start = performance.now();
    const idle = performance.nodeTiming.idleTime;
    if (idle !== this.lastIdle) {
      this.periods.push(start, start, idle);
      this.counts.push(0);
      this.lastIdle = idle;
    }
    this.counts[this.counts.length - 1]++;
  }

  end() {
    this.depth--;
    this.periods[this.periods.length - 2] = performance.now();
  }

  /** One JSON line for the busy log, in epoch µs; worker is the prefix of this process's connection numbers. */
  line(worker) {
    const p = this.periods;
    const out = new Array(p.length);
    for (let i = 0; i < p.length; i += 3) {
      out[i] = epochMicrosAt(p[i]);
      out[i + 1] = epochMicrosAt(p[i + 1]);
      out[i + 2] = p[i + 2] * 1000;
    }
    return JSON.stringify({ worker, fields: ['start', 'end', 'idleAtStart'], callbacks: this.callbacks,
      periods: out, callbacksPerPeriod: this.counts });
  }
}
