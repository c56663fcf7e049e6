/**
 * The progress engine's spin budget: a wait polls for at most the budget before it sleeps, and a
 * request's wait, which spins before it makes a promise, spends the budget once, not twice.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { allocateControlArea, ControlArea, RankState } from '../../src/transport/control-block.ts';
import { ProgressEngine, type ProgressHost } from '../../src/transport/progress.ts';

const SPIN_US = 20_000;

/** A host whose polls find nothing until `ready` is set; counts polls and the time they span. */
function countingHost(): ProgressHost & { polls: number; fullPolls: number; first: number; last: number; ready: boolean } {
  const host = {
    polls: 0,
    fullPolls: 0,
    first: -1,
    last: -1,
    ready: false,
    poll(): boolean {
      const now = performance.now();
      if (host.first < 0) host.first = now;
      host.last = now;
      host.polls++;
      return false;
    },
    pollFully(): boolean {
      host.fullPolls++;
      return false;
    },
  };
  return host;
}

/** Rank 1 wakes rank 0 of `control`'s process: true when it found rank 0 asleep. */
function wakeFromPeer(control: ControlArea): boolean {
  const peer = new ControlArea(control.i32.buffer as SharedArrayBuffer, control.slots);
  peer.wake(0);
  return peer.wokeSleeper;
}

function engineWith(host: ProgressHost): ProgressEngine {
  return new ProgressEngine(host, new ControlArea(allocateControlArea(1), 1), 0, SPIN_US, { sleepLimitMs: 50 });
}

const description = { operation: 'recv', peer: 1, tag: 0, context: 0 };

test('a wait spins for its budget, then sleeps', async () => {
  const host = countingHost();
  const engine = engineWith(host);
  let done = false;
  const waiting = engine.waitUntil(() => done, description);
  const spunMs = host.last - host.first;
  assert.ok(host.polls > 1, 'the wait polled in a loop before sleeping');
  assert.ok(spunMs >= (SPIN_US / 1000) * 0.9, `spun ${spunMs.toFixed(2)} ms of a ${SPIN_US / 1000} ms budget`);
  done = true;
  engine.kick();
  await waiting;
  engine.finish();
});

test('a wait whose caller has just spun sleeps without spinning again', async () => {
  const host = countingHost();
  const engine = engineWith(host);
  let done = false;
  engine.spinFor({ get done() { return done; } });
  const afterSpin = host.polls;
  const spunMs = host.last - host.first;
  assert.ok(spunMs >= (SPIN_US / 1000) * 0.9, `spinFor spun ${spunMs.toFixed(2)} ms`);
  const waiting = engine.waitUntil(() => done, description, true);
  assert.equal(host.polls, afterSpin, 'no second spin: the wait went to sleep at once');
  assert.equal(engine.describeWaits().length, 1, 'the wait is parked');
  done = true;
  engine.kick();
  await waiting;
  assert.equal(engine.describeWaits().length, 0);
  engine.finish();
});

test('a condition that already holds resolves at once, spun or not', async () => {
  const host = countingHost();
  const engine = engineWith(host);
  await engine.waitUntil(() => true, description, true);
  await engine.waitUntil(() => true, description);
  assert.equal(host.polls, 0);
  engine.finish();
});

test('the spin budget halves after two empty spins in a row, down to its floor, and doubles back after a short sleep', async () => {
  const host = countingHost();
  const engine = engineWith(host);
  let done = false;
  const target = { get done() { return done; } };
  assert.equal(engine.spinBudgetMicros, SPIN_US);
  engine.spinFor(target);
  assert.equal(engine.spinBudgetMicros, SPIN_US, 'one empty spin alone (a GC pause, an uneven step) keeps the budget');
  engine.spinFor(target);
  assert.equal(engine.spinBudgetMicros, SPIN_US / 2, 'two in a row: the peer is not running');
  for (let i = 0; i < 16; i++) engine.spinFor(target);
  assert.equal(engine.spinBudgetMicros, 10, 'never below the floor');
  // A sleep that a message ends well within the configured budget: spinning would have saved it.
  const waiting = engine.waitUntil(() => done, description, true);
  setTimeout(() => {
    done = true;
    engine.kick();
  }, 1);
  await waiting;
  assert.equal(engine.spinBudgetMicros, 20, 'doubled after the short sleep');
  // A spin that finds its message ends the run of misses: one more miss then keeps the budget.
  engine.spinFor({ done: true });
  done = false;
  engine.spinFor(target);
  assert.equal(engine.spinBudgetMicros, 20);
  engine.finish();
});

test('a spin goes on past its budget while its polls move something, and misses as before once they stop; not when the ranks outnumber the cores', () => {
  // Polls report progress for `movingMs`, then nothing; the target never completes.
  const movingHost = (movingMs: number): ProgressHost & { polls: number; first: number; last: number } => {
    const host = {
      polls: 0,
      first: -1,
      last: -1,
      poll(): boolean {
        const now = performance.now();
        if (host.first < 0) host.first = now;
        host.last = now;
        host.polls++;
        return now - host.first < movingMs;
      },
      pollFully: (): boolean => false,
    };
    return host;
  };
  const budgetMs = SPIN_US / 1000;
  const target = { done: false };
  const host = movingHost(3 * budgetMs);
  const engine = engineWith(host);
  engine.spinFor(target);
  const spunMs = host.last - host.first;
  assert.ok(spunMs >= 3 * budgetMs, `spun ${spunMs.toFixed(1)} ms: on while polls moved something (3 budgets)`);
  // Not the 64 budgets a spin may go on for: it stopped once a budget passed with nothing moving.
  assert.ok(spunMs < 30 * budgetMs, `spun ${spunMs.toFixed(1)} ms: stopped after they stopped`);
  engine.spinFor(target);
  assert.equal(engine.spinBudgetMicros, SPIN_US / 2, 'both spins ended with nothing moving: two misses');
  engine.finish();

  // With more rank threads than cores a spin holds a core another rank needs: one budget only.
  const crowded = movingHost(60 * budgetMs);
  const oversubscribed = new ProgressEngine(crowded, new ControlArea(allocateControlArea(1), 1), 0, SPIN_US, { sleepLimitMs: 50, handOff: true });
  oversubscribed.spinFor(target);
  const crowdedMs = crowded.last - crowded.first;
  assert.ok(crowdedMs < 30 * budgetMs, `spun ${crowdedMs.toFixed(1)} ms with progress but oversubscribed: one budget, not the 60 that moved`);
  oversubscribed.finish();
});

test('a rank that shares its thread polls between turns of the thread, never in place, and sees what a thread-mate did without a doorbell', { timeout: 20_000 }, async () => {
  const host = countingHost();
  // No spin in place; a minute of polling between turns; a sleep would last an hour (nothing
  // rings the doorbell): the wait ends only if the rank polls at the thread's later turns.
  const engine = new ProgressEngine(host, new ControlArea(allocateControlArea(1), 1), 0, 0, { sleepLimitMs: 3_600_000, yieldMicros: 60_000_000 });
  let done = false;
  const polled = host.polls;
  const waiting = engine.waitUntil(() => done, description);
  assert.equal(host.polls, polled + 1, 'one look, no spin in place: the thread-mates must run');
  // A thread-mate's turn: it completes what the rank waits for, rings no doorbell.
  setImmediate(() => setImmediate(() => (done = true)));
  await waiting;
  assert.equal(engine.timeoutWakeups, 0);
  assert.ok(host.fullPolls >= 2, 'polled again at the following turns');
  engine.finish();
});

test('an event-driven delivery settles its waiter without waking the sleep loop; the next wait joins it', async () => {
  const host = countingHost();
  const control = new ControlArea(allocateControlArea(1), 1);
  const engine = new ProgressEngine(host, control, 0, 0, { sleepLimitMs: 1000 });
  let first = false;
  const waiting = engine.waitUntil(() => first, description, true);
  // The loop looks, announces its sleep and parks on the doorbell.
  await new Promise((resolve) => setImmediate(resolve));
  const bell = control.doorbell(0);
  const parkedPolls = host.fullPolls;
  first = true;
  engine.progressed(); // a socket's frame, from its own event
  await waiting;
  assert.equal(control.doorbell(0), bell, 'nobody rang the doorbell to end the parked loop');
  let second = false;
  const next = engine.waitUntil(() => second, description, true);
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(host.fullPolls, parkedPolls, 'the parked loop was not woken, and no second loop started');
  second = true;
  engine.progressed();
  await next;
  assert.equal(control.doorbell(0), bell);
  engine.finish();
});

test('a rank that woke a sleeping rank sleeps at once on its next wait, handing its core over; the wait after spins again', { timeout: 10_000 }, async () => {
  const host = countingHost();
  const control = new ControlArea(allocateControlArea(2), 2);
  const engine = new ProgressEngine(host, control, 0, SPIN_US, { sleepLimitMs: 50, handOff: true });
  control.wake(1);
  assert.equal(control.wokeSleeper, false, 'rank 1 was awake: nothing to hand over');
  control.setSleeping(1, true);
  control.wake(1);
  assert.equal(control.wokeSleeper, true);
  let done = false;
  const waiting = engine.waitUntil(() => done, description);
  const polls = host.polls;
  const taken = !control.wokeSleeper;
  done = true;
  engine.kick();
  await waiting;
  assert.ok(polls <= 2, `no spin after waking a sleeper (${polls} polls)`);
  assert.ok(taken, 'the hand-off is used once');
  host.polls = 0;
  host.first = -1;
  let later = false;
  const spinning = engine.waitUntil(() => later, description);
  assert.ok(host.last - host.first >= (SPIN_US / 1000) * 0.9, 'the next wait spins its budget');
  later = true;
  engine.kick();
  await spinning;
  engine.finish();
});

test('a rank that sleeps in blocking slices still runs its timers between them, and sees what another thread sends', { timeout: 10_000 }, async () => {
  const host = countingHost();
  const control = new ControlArea(allocateControlArea(1), 1);
  const engine = new ProgressEngine(host, control, 0, 0, { syncSleepMs: 2 });
  // An unbounded blocking wait would never let this timer run.
  let fired = false;
  const byTimer = engine.waitUntil(() => fired, description, true);
  setTimeout(() => (fired = true), 20);
  await byTimer;
  // Another thread publishes a word (an unused one of the block) and rings the doorbell.
  const flag = control.doorbellIndex(0) + 1;
  const { Worker } = await import('node:worker_threads');
  const seen = engine.waitUntil(() => Atomics.load(control.i32, flag) === 1, description, true);
  const worker = new Worker(
    "const { workerData: d } = require('node:worker_threads'); const i32 = new Int32Array(d.sab); Atomics.store(i32, d.flag, 1); Atomics.add(i32, d.bell, 1); Atomics.notify(i32, d.bell);",
    { eval: true, workerData: { sab: control.i32.buffer, bell: control.doorbellIndex(0), flag } },
  );
  await seen;
  await worker.terminate();
  engine.finish();
});

test('ranks that fit the cores spin even after waking a sleeper: two such ranks must not settle into waking each other', { timeout: 10_000 }, async () => {
  const host = countingHost();
  const control = new ControlArea(allocateControlArea(2), 2);
  const engine = new ProgressEngine(host, control, 0, SPIN_US, { sleepLimitMs: 50 });
  control.setSleeping(1, true);
  control.wake(1);
  let done = false;
  const waiting = engine.waitUntil(() => done, description);
  const spunMs = host.last - host.first;
  done = true;
  engine.kick();
  await waiting;
  assert.ok(spunMs >= (SPIN_US / 1000) * 0.9, `spun ${spunMs.toFixed(2)} ms of ${SPIN_US / 1000}`);
  engine.finish();
});

test('with more rank threads than cores a wait yields between polls, in place for 0.3 ms, then between turns of the event loop, then sleeps; a waker does not skip it', { timeout: 10_000 }, async () => {
  // A long budget: the turning phase must outlast a late timer on a loaded machine.
  const YIELD_US = 200_000;
  const host = countingHost();
  const control = new ControlArea(allocateControlArea(2), 2);
  const engine = new ProgressEngine(host, control, 0, 10, { sleepLimitMs: 50, handOff: true, yieldSpinMicros: YIELD_US });
  // The process's other rank has started too (until then waits sleep: the next test).
  control.setState(1, RankState.Running);
  // The condition holds at its 50th look (the first before any poll): the wait ends there, without sleeping.
  let looks = 0;
  await engine.waitUntil(() => ++looks >= 50, description);
  assert.equal(host.polls, 49);
  assert.equal(host.fullPolls, 0, 'no sleep loop');
  // A rank that has just woken a sleeper still yields in place (handing its core over is what the
  // yield does) rather than sleeping at once.
  control.setSleeping(1, true);
  control.wake(1);
  host.polls = 0;
  host.first = -1;
  let done = false;
  const bell = control.doorbell(0);
  // The in-place part runs inside the call, before it returns its promise.
  const called = performance.now();
  const waiting = engine.waitUntil(() => done, description);
  const inPlaceMs = performance.now() - called;
  assert.ok(host.polls > 1, 'polled in place');
  assert.ok(inPlaceMs >= 0.3 && inPlaceMs < 150, `yielded ${inPlaceMs.toFixed(2)} ms in place: 0.3 ms, not the 10 us spin nor the whole budget`);
  // Then the event loop turns (this timer runs) and each turn polls: what the timer did is seen
  // without a doorbell or a sleep (which only the 50 ms limit would end: timeoutWakeups).
  const turnPolls = host.fullPolls;
  setTimeout(() => (done = true), 5);
  await waiting;
  assert.ok(host.fullPolls > turnPolls + 1, 'polled at each turn');
  assert.equal(control.doorbell(0), bell, 'nobody rang');
  assert.equal(engine.timeoutWakeups, 0);
  // A wait that outlasts the whole budget sleeps: a peer's wake finds it asleep.
  let late = false;
  const sleeping = engine.waitUntil(() => late, description);
  await new Promise((resolve) => setTimeout(resolve, 250));
  late = true;
  assert.equal(wakeFromPeer(control), true, 'asleep once the 200 ms had passed');
  await sleeping;
  engine.finish();
});

test('a rank that would yield sleeps instead while another rank of its process is still starting, and yields once all have started', { timeout: 10_000 }, async () => {
  const host = countingHost();
  const control = new ControlArea(allocateControlArea(2), 2);
  // No spin budget: a wait that does not yield polls once in place, one that yields polls between its yields.
  const engine = new ProgressEngine(host, control, 0, 0, { sleepLimitMs: 50, handOff: true, yieldSpinMicros: 200_000 });
  assert.equal(control.allStarted(), false, 'rank 1 has not started');
  // A wait while rank 1 starts: one poll, then the sleep loop, no yielding in place.
  let done = false;
  const starting = engine.waitUntil(() => done, description);
  assert.equal(host.polls, 1, 'polled once in place, not between yields');
  await new Promise((resolve) => setTimeout(resolve, 20));
  // Asleep (a yielding wait would still be turning within its 200 ms): a peer's wake finds it so.
  done = true;
  assert.equal(wakeFromPeer(control), true, 'asleep while rank 1 was starting');
  await starting;
  // Rank 1 starts: the next wait yields in place again.
  control.setState(1, RankState.Running);
  assert.equal(control.allStarted(), true);
  let ready = false;
  host.polls = 0;
  const t0 = performance.now();
  const yielding = engine.waitUntil(() => ready, description);
  const yieldedMs = performance.now() - t0;
  assert.ok(yieldedMs >= 0.3, `yielded ${yieldedMs.toFixed(3)} ms in place once all had started`);
  assert.ok(host.polls > 1, 'polled between yields');
  ready = true;
  await yielding;
  engine.finish();
});
