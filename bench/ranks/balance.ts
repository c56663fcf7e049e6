// Rank program of `bench balance`. One JSON line from rank 0.
//   makespan METHOD PROFILE FACTOR ITERATIONS TASKS_PER_RANK SEED MEAN_MS
//     METHOD: static | central | stealing | diffusion-last | diffusion-learned
//     PROFILE: fixed (ranks P-2 and P-1 slowed FACTOR times throughout) | drift (rank P-2 slowed
//     on even iterations, rank P-1 on odd ones) | none
//   overhead N          N tiny tasks through a central pool: tasks per second
// With TSMPI_BENCH_SIMULATED=1 (under `tsmpi sim --compute declared`), a task declares cost x 1e9
// flops instead of waiting: the platform's host speeds and loads make the slow ranks.
//
// A task's cost is a timed wait (Atomics.wait) of cost x slowdown: the rank is occupied and uses
// no CPU, so 8 ranks on 2 cores have the capacities the profile gives them. Two ideals: the
// nominal one, sum over iterations of (sum of costs) / (sum of 1/slowdown), and the measured one,
// which takes each task's cost as the time its wait really took divided by the rank's slowdown
// (a wait overshoots by 0.1-0.5 ms on a busy 2-core machine, for every method alike).
import { init, Op, TaskPool, DiffusionBalancer, wtime, type PoolMode } from 'tsmpi';
import { Rng } from '../../src/rng.ts';

const comm = await init();
const [what = 'makespan', ...args] = process.argv.slice(2);
const pause = new Int32Array(new SharedArrayBuffer(4));
const busy = (seconds: number): void => void Atomics.wait(pause, 0, 0, seconds * 1000);
const report = (record: Record<string, unknown>): void => {
  if (comm.rank === 0) console.log(JSON.stringify(record));
};

if (what === 'overhead') {
  const n = Number(args[0] ?? 100_000);
  const pool = await TaskPool.open(comm, { add: (x: number) => x + 1 }, { mode: (args[1] ?? 'central') as PoolMode });
  if (pool.isMaster) {
    const start = performance.now();
    const results = await pool.map('add', Array.from({ length: n }, (_, i) => i));
    const seconds = (performance.now() - start) / 1000;
    if (results[n - 1] !== n) throw new Error('wrong result');
    report({ bench: 'overhead', tasks: n, seconds, tasksPerSecond: n / seconds, usPerTask: (seconds / n) * 1e6 });
  }
  await pool.close();
} else {
  const [method = 'static', profile = 'fixed', factorText = '3', iterText = '10', perRankText = '32', seedText = '1', meanText = '5'] = args;
  const factor = Number(factorText);
  const iterations = Number(iterText);
  const count = Number(perRankText) * comm.size;
  const rng = new Rng(`balance:${seedText}`);
  // Lognormal costs, mean MEAN_MS, coefficient of variation 0.5 (the anchors' B1 workload).
  const sigma = Math.sqrt(Math.log(1 + 0.5 ** 2));
  const mu = Math.log(Number(meanText) / 1000) - (sigma * sigma) / 2;
  const costs = Array.from({ length: count }, () => {
    const z = Math.sqrt(-2 * Math.log(1 - rng.next())) * Math.cos(2 * Math.PI * rng.next());
    return Math.exp(mu + sigma * z);
  });
  const slowdown = (rank: number, iteration: number): number => {
    if (profile === 'fixed') return rank >= comm.size - 2 ? factor : 1;
    if (profile === 'drift') return rank === comm.size - 2 + (iteration % 2) ? factor : 1;
    return 1;
  };
  let ideal = 0;
  const total = costs.reduce((a, b) => a + b, 0);
  for (let it = 0; it < iterations; it++) {
    let capacity = 0;
    for (let r = 0; r < comm.size; r++) capacity += 1 / slowdown(r, it);
    ideal += total / capacity;
  }
  // Unit-speed seconds of the work this rank really did (its waits over its slowdown).
  let work = 0;
  const simulated = process.env.TSMPI_BENCH_SIMULATED === '1';
  const run = async (task: number, iteration: number): Promise<void> => {
    if (simulated) {
      await comm.computeFlops(costs[task]! * 1e9);
      work += costs[task]!;
      return;
    }
    const factor = slowdown(comm.rank, iteration);
    const began = performance.now();
    busy(costs[task]! * factor);
    work += (performance.now() - began) / 1000 / factor;
  };

  let tasksRun = 0;
  let busyIdleByRank = '';
  let gossip: { advertisers: number; coverage: number; maxMessages: number } | undefined;
  // Per iteration, the time rebalance() took here: its minimum over the ranks is the balancing cost
  // (the last rank to arrive waits for nobody; the others' extra is the imbalance it corrects).
  const rebalanceSeconds = new Float64Array(iterations);
  let migrated = 0;
  // Set-up outside the timed region, the same for every method: the value codec loaded (its first
  // use costs each rank ~15 ms), the pool opened (a one-time collective).
  await comm.allgather({ warm: [comm.rank] });
  const pool = method === 'central' || method === 'stealing'
    ? await TaskPool.open(comm, {
        work: async ([task, iteration]: [number, number]) => {
          await run(task, iteration);
          tasksRun++;
        },
      }, { mode: method })
    : undefined;
  await comm.barrier();
  const start = wtime();
  let end: number | undefined;
  if (method === 'static') {
    for (let it = 0; it < iterations; it++) {
      for (let t = comm.rank; t < count; t += comm.size) {
        await run(t, it);
        tasksRun++;
      }
      await comm.barrier();
    }
  } else if (pool !== undefined) {
    if (pool.isMaster) {
      for (let it = 0; it < iterations; it++) await pool.map('work', Array.from({ length: count }, (_, t): [number, number] => [t, it]));
      // The pool's makespan ends with its last result at the master; closing it is teardown.
      end = wtime();
    }
    const stats = await pool.close();
    if (pool.isMaster) busyIdleByRank = stats.idleSecondsByRank.map((x, r) => `${(stats.busySecondsByRank[r] ?? 0).toFixed(3)}+${(x ?? 0).toFixed(3)}`).join(' ');
  } else if (method === 'diffusion-last' || method === 'diffusion-learned') {
    const balancer = new DiffusionBalancer<number>(comm, { cost: (t: number) => costs[t]!, model: method === 'diffusion-last' ? 'last' : 'learned', seed: Number(seedText) });
    let queue: number[] = [];
    for (let t = comm.rank; t < count; t += comm.size) queue.push(t);
    for (let it = 0; it < iterations; it++) {
      const began = wtime();
      for (const t of queue) await run(t, it);
      tasksRun += queue.length;
      const busySeconds = wtime() - began;
      const step = await balancer.rebalance(queue, busySeconds);
      queue = step.queue;
      migrated += step.sent;
      rebalanceSeconds[it] = wtime() - began - busySeconds;
      if (simulated && !step.balanced && gossip === undefined) {
        // The first gossip: how many ranks advertised, how much of it every rank heard, messages.
        const [advertisers, known] = await comm.allreduce([step.advertised ? 1 : 0, step.receiversKnown], Op.sum);
        const maxMessages = await comm.allreduce(step.gossipMessages, Op.max);
        gossip = { advertisers: advertisers!, coverage: known! / (advertisers! * comm.size), maxMessages };
      }
    }
    await comm.barrier();
  } else {
    throw new Error(`unknown method ${method}`);
  }
  const makespan = (end ?? wtime()) - start;
  const tasksByRank = await comm.gather(tasksRun, 0);
  const fastest = await comm.reduce(rebalanceSeconds, Op.min, 0);
  const balance = fastest?.reduce((a, b) => a + b, 0);
  const moved = await comm.reduce(migrated, Op.sum, 0);
  const totalWork = await comm.reduce(work, Op.sum, 0);
  // Each iteration's share of the measured work is its share of the nominal work (the same tasks).
  const measuredIdeal = ((totalWork ?? 0) / total / iterations) * ideal;
  report({ bench: 'makespan', method, profile, factor, iterations, tasks: count, makespan, ideal, measuredIdeal, ratio: makespan / measuredIdeal, nominalRatio: makespan / ideal, balanceSeconds: balance, migrated: moved, tasksByRank: tasksByRank?.join(' '), busyIdleByRank, ...gossip });
}
