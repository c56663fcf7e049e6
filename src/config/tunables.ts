/**
 * The registry of tunables. Each has one environment variable (prefix `TSMPI_`), a description,
 * a default and a parser that rejects bad values with an error naming the variable and what is
 * allowed. `tsmpi info` prints this table with the effective values; CLI flags of `tsmpi run`
 * set the same variables for the ranks.
 */
import { availableParallelism } from 'node:os';
import { ErrorCode, TsmpiError } from '../errors.js';

/** How rank threads are bound to CPUs (bootstrap/cpu-binding.ts). */
export type BindSetting = 'auto' | 'core' | 'none';

/** Where a rank thread's V8 compiles (bootstrap/rank-jit.ts): off: in the background; on: functions on the rank's thread; all: running loops too. */
export type JitPlace = 'off' | 'on' | 'all';

/** What a default may depend on. */
export interface TunableContext {
  /** Ranks that share this process (worker threads); 1 for a process per rank. */
  localRanks: number;
  /** Cores of the machine. */
  cores: number;
  /** True when some peers live in other processes (reached by TCP). */
  remotePeers: boolean;
  /** Ranks that share this rank's thread (TSMPI_RANKS_PER_THREAD); 1 when it has its own. */
  threadRanks?: number;
  /** Ranks of the job on this rank's machine, in every process; absent: localRanks. */
  hostRanks?: number;
  /** True for a rank of `tsmpi sim` (its links are simulated). */
  simulated?: boolean;
}

export interface Tunable<T> {
  readonly env: string;
  readonly description: string;
  /** A printable form of the default, for `tsmpi info`. */
  readonly defaultText: string;
  readonly defaultValue: (ctx: TunableContext) => T;
  readonly parse: (text: string) => T;
  /** The value as the variable spells it, when `String(value)` would not parse back (a switch). */
  readonly format?: (value: T) => string;
}

/** A switch's parser and printer, so that `tsmpi info` prints what the variable accepts. */
function switchTunable(env: string, off: string, on: string): { parse: (text: string) => boolean; format: (value: boolean) => string } {
  return { parse: (text) => parseChoice(env, text, [off, on] as const) === on, format: (value) => (value ? on : off) };
}

const KIB = 1024;
const MIB = 1024 * 1024;

/** True when the rank's process runs more threads of ranks than the machine has cores. */
function threadsOutnumberCores(ctx: TunableContext): boolean {
  return Math.ceil(ctx.localRanks / (ctx.threadRanks ?? 1)) > ctx.cores;
}

/** Parses `4096`, `64k`, `1M`, `2G` (binary multiples). */
export function parseByteSize(env: string, text: string): number {
  const match = /^\s*(\d+(?:\.\d+)?)\s*([kKmMgG]?)[iI]?[bB]?\s*$/.exec(text);
  if (!match) {
    throw configError(env, text, 'a byte count such as 65536, 64k or 1M');
  }
  const scale = { '': 1, k: KIB, m: MIB, g: 1024 * MIB }[match[2]!.toLowerCase() as '' | 'k' | 'm' | 'g'];
  return Math.round(Number(match[1]) * scale);
}

function parseNonNegative(env: string, text: string): number {
  const value = Number(text);
  if (text.trim() === '' || !Number.isFinite(value) || value < 0) {
    throw configError(env, text, 'a number >= 0');
  }
  return value;
}

function parseStdinRank(text: string): number {
  const value = Number(text);
  if (text.trim() === '' || !Number.isInteger(value) || value < 0) throw configError('TSMPI_STDIN', text, 'a world rank (0, 1, ...) or none');
  return value;
}

function parseChoice<T extends string>(env: string, text: string, choices: readonly T[]): T {
  if ((choices as readonly string[]).includes(text)) return text as T;
  throw configError(env, text, `one of ${choices.join(', ')}`);
}

export function configError(env: string, value: string, allowed: string): TsmpiError {
  return new TsmpiError(ErrorCode.Config, `${env}=${JSON.stringify(value)} is not valid`, {
    operation: 'configuration',
    hint: `set ${env} to ${allowed}, or unset it to use the default`,
  });
}

function powerOfTwoAtLeast(n: number): number {
  let p = 1;
  while (p < n) p *= 2;
  return p;
}

/** Algorithms a collective can be forced to use; `auto` lets the selection rules decide. */
export const collectiveAlgorithms = {
  bcast: ['auto', 'binomial', 'binomial-blocking', 'scatter-allgather', 'linear', 'shared'],
  reduce: ['auto', 'binomial', 'linear'],
  allreduce: ['auto', 'recursive-doubling', 'ring', 'reduce-bcast', 'shared'],
  allgather: ['auto', 'bruck', 'ring', 'recursive-doubling', 'linear', 'shared'],
  gather: ['auto', 'binomial', 'linear'],
  scatter: ['auto', 'binomial', 'linear'],
  alltoall: ['auto', 'pairwise', 'xor-pairwise', 'bruck', 'linear', 'shared'],
  barrier: ['auto', 'shared', 'dissemination', 'linear'],
  reduceScatter: ['auto', 'ring', 'recursive-halving', 'recursive-doubling', 'reduce-scatterv', 'shared'],
} as const;

export type CollectiveName = keyof typeof collectiveAlgorithms;

function collectiveTunable<K extends CollectiveName>(name: K): Tunable<(typeof collectiveAlgorithms)[K][number]> {
  const env = `TSMPI_COLL_${name.toUpperCase()}`;
  const choices = collectiveAlgorithms[name];
  return {
    env,
    description: `Force the ${name} algorithm (${choices.join(' | ')}).`,
    defaultText: 'auto',
    defaultValue: () => 'auto',
    parse: (text) => parseChoice(env, text, choices),
  };
}

export const tunables = {
  spinMicros: {
    env: 'TSMPI_SPIN_US',
    description:
      'Most microseconds a waiting rank polls its rings before it sleeps on its doorbell. Polling makes a small message cost ~0.2 us instead of a 20-40 us wake-up; 0 sleeps at once (the fast path off). The budget adapts down to 10 us while spins find nothing (a peer without a core) and back up when sleeps turn out short.',
    defaultText: '200 if threads per process <= cores, else 10; 0 for a lone rank with remote peers (a socket is not polled). Ranks that share a thread poll between turns of the thread instead of in place',
    defaultValue: (ctx) => (ctx.localRanks === 1 && ctx.remotePeers ? 0 : threadsOutnumberCores(ctx) ? 10 : 200),
    parse: (text) => parseNonNegative('TSMPI_SPIN_US', text),
  } satisfies Tunable<number>,
  socketSpinMicros: {
    env: 'TSMPI_SOCKET_SPIN_US',
    description:
      'Most microseconds a waiting rank with TCP peers keeps its event loop turning (its sockets polled without blocking) before it sleeps until one is readable. A reply that comes meanwhile costs no wake-up: an 8-byte TCP ping-pong between two processes took 16.4 us one way on the project machine against 49.6 us for plain Node sockets (`npm run bench -- tcp`). The default turns about as long as a wake-up costs there (40-50 us), so a wait never costs more than twice what it must; the price is in a fresh process\'s first thousands of messages (a 2000-lap ring\'s first pass ~25% slower, its later passes 2x faster). 0 sleeps at once.',
    defaultText: '50 if the ranks on its machine (all processes) <= cores, else 0 (a turning loop would hold a core a sleeping rank needs)',
    defaultValue: (ctx) => (ctx.remotePeers && (ctx.hostRanks ?? ctx.localRanks) <= ctx.cores ? 50 : 0),
    parse: (text) => parseNonNegative('TSMPI_SOCKET_SPIN_US', text),
  } satisfies Tunable<number>,
  yieldSpinMicros: {
    env: 'TSMPI_YIELD_US',
    description:
      'Most microseconds a waiting rank polls with sched_yield between polls before it sleeps, when its process runs more rank threads than cores: the first 300 of them in place, the rest between turns of its event loop (its timers and other promises run). A rank it waits for that is queued on the same CPU then runs at once, where a sleep would cost both a wake-up; Open MPI\'s ranks yield so when oversubscribed. 4 ranks on 2 cores: an 8-byte barrier took ~8 us with it against ~80 us sleeping (`RANKS=4 npm run bench -- collectives`). 0: such ranks spin briefly (TSMPI_SPIN_US) and sleep. Until every rank thread of the process has started, such waits sleep instead: the ranks still starting need the CPU.',
    defaultText: '2000 if threads per process > cores and the rank has no TCP peers, else 0 (a rank with sockets turns its event loop instead, TSMPI_SOCKET_SPIN_US)',
    defaultValue: (ctx) => (!ctx.remotePeers && threadsOutnumberCores(ctx) ? 2000 : 0),
    parse: (text) => parseNonNegative('TSMPI_YIELD_US', text),
  } satisfies Tunable<number>,
  jitOnRank: {
    env: 'TSMPI_JIT_ON_RANK',
    description:
      "on: V8 optimises a rank's hot functions on the rank's own thread (no background compiler thread). When the ranks fill the machine's cores, a background compiler waits for a core while the rank runs its kernels in the interpreter (`npm run bench -- jit`). all: running loops are also replaced (on-stack replacement) on the rank's thread, which shortens a first pass through one long loop further, but V8 then refuses Node's own code cache, so every rank thread compiles Node's internals as it starts (8 rank threads on 2 cores ready ~35 ms later). off: V8's default. Set for the rank threads a process starts (a process per rank included); the simulator runs its ranks as with all (TSMPI_SIM_SERIAL_V8).",
    defaultText: 'on if the ranks on the machine (all processes) >= cores, else off',
    defaultValue: (ctx): JitPlace => ((ctx.hostRanks ?? ctx.localRanks) >= ctx.cores ? 'on' : 'off'),
    parse: (text) => parseChoice('TSMPI_JIT_ON_RANK', text, ['off', 'on', 'all'] as const),
  } satisfies Tunable<JitPlace>,
  ringBytes: {
    env: 'TSMPI_SHM_RING_BYTES',
    description:
      'Bytes of each shared-memory ring (one per ordered pair of ranks in a process; pages are touched only when used). Rounded up to a power of two.',
    defaultText: '1M for up to 16 ranks per process, 256k up to 64, else 64k',
    defaultValue: (ctx) => (ctx.localRanks <= 16 ? MIB : ctx.localRanks <= 64 ? 256 * KIB : 64 * KIB),
    parse: (text) => {
      const bytes = parseByteSize('TSMPI_SHM_RING_BYTES', text);
      if (bytes < 16 * KIB || bytes > 256 * MIB) {
        throw configError('TSMPI_SHM_RING_BYTES', text, 'a size from 16k to 256M');
      }
      return powerOfTwoAtLeast(bytes);
    },
  } satisfies Tunable<number>,
  eagerLimit: {
    env: 'TSMPI_EAGER_LIMIT',
    description:
      'Messages up to this many bytes are sent eagerly (copied into the ring at once); larger ones wait for the matching receive (rendezvous) and stream straight into its buffer.',
    defaultText: '64k (at most a quarter of the ring)',
    defaultValue: () => 64 * KIB,
    parse: (text) => parseByteSize('TSMPI_EAGER_LIMIT', text),
  } satisfies Tunable<number>,
  tcpEagerLimit: {
    env: 'TSMPI_TCP_EAGER_LIMIT',
    description:
      "Over TCP, messages up to this many bytes are sent eagerly without waiting for the receive: past 64 KiB as a matching frame and pieces the receiver copies into the posted receive as they arrive; a receiver buffers them when they arrive unexpected (an allocation and a second copy). Larger ones use the rendezvous, which lands the data straight in the posted buffer but waits a round trip for it, and for the receiver to wake if it slept: a ping-pong between two processes took 1.5-1.6x the time of raw Node sockets at 256 KiB and ~1.25x at 1 MiB that way, 1.06x and ~1.1x eagerly (`npm run bench -- tcp`). Under `tsmpi sim` the default is SMPI's 64k between simulated processes, or what a calibrated platform recorded of its machine.",
    defaultText: '1M (64k under tsmpi sim, unless its calibrated platform says otherwise)',
    defaultValue: (ctx) => (ctx.simulated === true ? 64 * 1024 : 1024 * 1024),
    parse: (text) => parseByteSize('TSMPI_TCP_EAGER_LIMIT', text),
  } satisfies Tunable<number>,
  detachLimit: {
    env: 'TSMPI_DETACH_LIMIT',
    description:
      "A send of up to this many bytes that waits for its receive (above the eager limit) is detached: its bytes are copied and the send completes at once, while the transfer still starts only when the receive is posted. SMPI's smpi/send-is-detached-thresh; `tsmpi sim --replay` sets 65535 as SimGrid does.",
    defaultText: '0 (none)',
    defaultValue: () => 0,
    parse: (text) => parseByteSize('TSMPI_DETACH_LIMIT', text),
  } satisfies Tunable<number>,
  pullFrom: {
    env: 'TSMPI_PULL_FROM',
    description:
      "A message of at least this many bytes sent from an allocMem array to a rank thread of the same process announces itself, and the receiver copies it straight out of the sender's array once a receive matches (one copy, as Open MPI's CMA): the send completes then, not before, even below the eager limit. Smaller ones, and messages from ordinary arrays, go through the ring (two copies). 2 ranks, arrays from allocMem, 64 KiB: alltoall 5.5-5.8 us with it against 6.2-9.0 without (`TSMPI_PULL_FROM=65537`). none: only messages above the eager limit.",
    defaultText: '16k if threads per process <= cores, else none below the eager limit (a thread that waits for its receiver to copy costs a context switch where rank threads outnumber the cores); above the eager limit such messages always go this way',
    defaultValue: (ctx) => (threadsOutnumberCores(ctx) ? Number.POSITIVE_INFINITY : 16 * KIB),
    // 'none' (what the default is where threads outnumber the cores) is accepted and printed.
    parse: (text) => (text.trim() === 'none' ? Number.POSITIVE_INFINITY : parseByteSize('TSMPI_PULL_FROM', text)),
    format: (bytes) => (bytes === Number.POSITIVE_INFINITY ? 'none' : String(bytes)),
  } satisfies Tunable<number>,
  chunkBytes: {
    env: 'TSMPI_CHUNK_BYTES',
    description: 'Payload bytes per frame when a large message streams through a ring.',
    defaultText: '64k (at most a quarter of the ring)',
    defaultValue: () => 64 * KIB,
    parse: (text) => {
      const bytes = parseByteSize('TSMPI_CHUNK_BYTES', text);
      if (bytes < 1024) throw configError('TSMPI_CHUNK_BYTES', text, 'a size of at least 1k');
      return bytes;
    },
  } satisfies Tunable<number>,
  hangTimeout: {
    env: 'TSMPI_HANG_TIMEOUT',
    description:
      'Seconds with no progress on any rank, while some rank waits in tsmpi (or lingers after its program returned, kept alive by a timer or socket of the program), after which the job prints what every rank waits for and exits non-zero. 0 turns it off.',
    defaultText: '0 (off)',
    defaultValue: () => 0,
    parse: (text) => parseNonNegative('TSMPI_HANG_TIMEOUT', text),
  } satisfies Tunable<number>,
  hangWarn: {
    env: 'TSMPI_HANG_WARN',
    description:
      'Seconds with no progress while every rank waits in tsmpi, after which the job prints a possible-deadlock report once and keeps running (ranks that all linger after their program returned: after at most 10 s). 0 turns it off.',
    defaultText: '60',
    defaultValue: () => 60,
    parse: (text) => parseNonNegative('TSMPI_HANG_WARN', text),
  } satisfies Tunable<number>,
  stdin: {
    env: 'TSMPI_STDIN',
    description:
      "The world rank whose process.stdin is the launcher's stdin, as mpirun's --stdin (rank 0 by default); `none`: no rank's. It is read only as that rank reads it (a chunk each time its stream asks), so a job that never reads stdin leaves it to whoever reads it next. Threads, --procs, --ranks-per-proc and srun (whose own --input decides what a task gets); not over ssh (--hostfile, -H), where the rank's stdin is empty. Other ranks' stdin is empty.",
    defaultText: '0',
    defaultValue: () => 0,
    parse: (text) => (text === 'none' ? -1 : parseStdinRank(text)),
    format: (rank: number) => (rank < 0 ? 'none' : String(rank)),
  } satisfies Tunable<number>,
  hostTimeout: {
    env: 'TSMPI_HOST_TIMEOUT',
    description:
      "Seconds a job's process (under tsmpi run with processes or hosts, or srun) may go unheard by its launcher, or its launcher by it, before its host counts as lost (a link down, a stopped machine): the launcher ends the job naming the host, the process ends its ranks. Both sides speak every second. 0 turns it off.",
    defaultText: '30',
    defaultValue: () => 30,
    parse: (text) => parseNonNegative('TSMPI_HOST_TIMEOUT', text),
  } satisfies Tunable<number>,
  memoryBalance: {
    env: 'TSMPI_MEMORY_BALANCE',
    description:
      "Where a process's communication buffers live (seed 5's memory_balance): private (the rings leading to each rank in that rank's own buffer) or shared (one node-shared arena for every ring of the process).",
    defaultText: 'private',
    defaultValue: () => 'private',
    parse: (text) => parseChoice('TSMPI_MEMORY_BALANCE', text, ['private', 'shared'] as const),
  } satisfies Tunable<'private' | 'shared'>,
  tcpConnect: {
    env: 'TSMPI_TCP_CONNECT',
    description: 'When ranks in different processes open their TCP connections: lazy (on the first message to a peer) or eager (all at init).',
    defaultText: 'lazy',
    defaultValue: () => 'lazy',
    parse: (text) => parseChoice('TSMPI_TCP_CONNECT', text, ['lazy', 'eager'] as const),
  } satisfies Tunable<'lazy' | 'eager'>,
  tcpReadBuffer: {
    env: 'TSMPI_TCP_READ_BUFFER',
    description:
      "How a rank reads the connections its peers opened: reused (into one 64 KiB buffer per thread, nothing allocated per read) or fresh (a new Buffer per read, as a Node socket does). Two processes on 2 cores, `npm run bench -- tcp`: a 1 MiB ping-pong 0.92-0.99x raw Node sockets reused against 1.23x fresh, 64 KiB streams 3.3-3.5 GB/s against 2.1. With 4 processes on 2 cores, a loop of 64 KiB alltoalls ran 13-27% slower reused, for a cause not found (docs/guide.md, \"Where ranks run\").",
    defaultText: 'reused if the ranks on its machine (all processes) <= cores, else fresh',
    defaultValue: (ctx): 'reused' | 'fresh' => ((ctx.hostRanks ?? ctx.localRanks) <= ctx.cores ? 'reused' : 'fresh'),
    parse: (text) => parseChoice('TSMPI_TCP_READ_BUFFER', text, ['reused', 'fresh'] as const),
  } satisfies Tunable<'reused' | 'fresh'>,
  tcpAddress: {
    env: 'TSMPI_TCP_ADDRESS',
    description:
      "The address ranks listen on and connect from: an IPv4 address or an interface name of this node. Listeners bind to it alone, never to every interface.",
    defaultText: "127.0.0.1 under tsmpi run --procs; under SLURM the node's first non-loopback IPv4 address",
    defaultValue: () => '',
    parse: (text) => text.trim(),
  } satisfies Tunable<string>,
  rails: {
    env: 'TSMPI_RAILS',
    description:
      'The rails (networks) of this node for multi-rail TCP: interface names or IPv4 addresses, each with an optional rate, e.g. rail0@800mbit,rail1@200mbit. The first carries control frames (put the lowest-latency one first). Two or more turn multi-rail scheduling on between processes.',
    defaultText: "'' (one TCP connection per peer, on TSMPI_TCP_ADDRESS)",
    defaultValue: () => '',
    parse: (text) => text.trim(),
  } satisfies Tunable<string>,
  railPolicy: {
    env: 'TSMPI_RAIL_POLICY',
    description:
      'How message segments are spread over the rails: adaptive (earliest completion with rates learnt online), weighted (static rate weights, UCX/ob1-like), q-learning (patent CN101833479 as written), round-robin (the patent baseline).',
    defaultText: 'adaptive',
    defaultValue: () => 'adaptive',
    parse: (text) => parseChoice('TSMPI_RAIL_POLICY', text, ['adaptive', 'weighted', 'q-learning', 'round-robin'] as const),
  } satisfies Tunable<'adaptive' | 'weighted' | 'q-learning' | 'round-robin'>,
  segMax: {
    env: 'TSMPI_SEG_MAX',
    description: 'Largest segment a multi-rail message is cut into (the patent allows 1M to 64M; adaptive cuts smaller segments for smaller messages).',
    defaultText: '1M (bench rails: best efficiency at 4:1 among 256k..4M)',
    defaultValue: () => MIB,
    parse: (text) => {
      const bytes = parseByteSize('TSMPI_SEG_MAX', text);
      if (bytes < 4 * KIB || bytes > 64 * MIB) throw configError('TSMPI_SEG_MAX', text, 'a size from 4k to 64M');
      return bytes;
    },
  } satisfies Tunable<number>,
  railMinSplit: {
    env: 'TSMPI_RAIL_MIN_SPLIT',
    description: 'Messages smaller than this stay whole on the first (control) rail; larger ones are cut into segments across the rails.',
    defaultText: '128k',
    defaultValue: () => 128 * KIB,
    parse: (text) => parseByteSize('TSMPI_RAIL_MIN_SPLIT', text),
  } satisfies Tunable<number>,
  railAckTimeout: {
    env: 'TSMPI_RAIL_ACK_TIMEOUT',
    description: 'Seconds a rail may hold segments without an acknowledgement before it counts as failed: it leaves the set, its segments go again on the others, and it is retried later.',
    defaultText: '1',
    defaultValue: () => 1,
    parse: (text) => {
      const value = parseNonNegative('TSMPI_RAIL_ACK_TIMEOUT', text);
      if (value < 0.01) throw configError('TSMPI_RAIL_ACK_TIMEOUT', text, 'a number of seconds >= 0.01');
      return value;
    },
  } satisfies Tunable<number>,
  batchPlanner: {
    env: 'TSMPI_BATCH_PLANNER',
    description:
      'How comm.exchange() plans a superstep: direct (one message each), reorder (node distance, then pair weight), aggregate (fixed 64 KiB buffers per peer), pipelined (the paper: reorder, then windows growing by 1.5 + log2(degree)), adaptive (windows sized from the measured per-message cost and bandwidth).',
    defaultText: 'pipelined',
    defaultValue: () => 'pipelined',
    parse: (text) => parseChoice('TSMPI_BATCH_PLANNER', text, ['direct', 'reorder', 'aggregate', 'pipelined', 'adaptive'] as const),
  } satisfies Tunable<'direct' | 'reorder' | 'aggregate' | 'pipelined' | 'adaptive'>,
  poolMode: {
    env: 'TSMPI_POOL',
    description:
      'How TaskPool runs when its options do not say: central (the master hands tasks out and computes too, seed 4) or stealing (tasks dealt to every rank; an idle rank asks two random victims for half of their queues).',
    defaultText: 'central',
    defaultValue: () => 'central',
    parse: (text) => parseChoice('TSMPI_POOL', text, ['central', 'stealing'] as const),
  } satisfies Tunable<'central' | 'stealing'>,
  bind: {
    env: 'TSMPI_BIND',
    description:
      "Bind each rank thread to a CPU of those the process may use, in the ranks' order on their machine, as Open MPI binds ranks to cores. Unbound, a woken rank waits on the CPU of the rank that woke it while another CPU idles, and one busy process beside the job stalls a polling rank for whole time slices: on the project machine a 2-rank 8-byte ping-pong beside one busy process took 109 us one way unbound and 1.18 us bound, 0.65-0.71 us alone (`npm run bench -- noisy`, one run). `core` binds even when the threads outnumber the CPUs (round robin); `none` leaves placement to the kernel.",
    defaultText: 'auto: bind when 2 or more rank threads on the machine fit its allowed CPUs one each, else none',
    defaultValue: () => 'auto',
    parse: (text) => parseChoice('TSMPI_BIND', text, ['auto', 'core', 'none'] as const),
  } satisfies Tunable<BindSetting>,
  ranksPerThread: {
    env: 'TSMPI_RANKS_PER_THREAD',
    description:
      "Ranks that share one worker thread, taking turns at every wait as coroutines (AMPI's virtual ranks): a message between them costs a turn of the thread, not a thread wake-up. For more ranks than cores. The ranks of a thread share its globals and the modules the program imports from node_modules (each rank has its own instance of the program's own code); they must not block (a busy loop or a synchronous wait holds every rank of the thread).",
    defaultText: '1',
    defaultValue: () => 1,
    parse: (text) => {
      const value = parseNonNegative('TSMPI_RANKS_PER_THREAD', text);
      if (!Number.isInteger(value) || value < 1) throw configError('TSMPI_RANKS_PER_THREAD', text, 'a whole number of ranks >= 1');
      return value;
    },
  } satisfies Tunable<number>,
  sleepLimitMs: {
    env: 'TSMPI_SLEEP_MAX_MS',
    description:
      'Longest a waiting rank sleeps before it polls again by itself: a safety net only, every real wake-up comes from the doorbell (tests set it huge to prove no wake-up is lost).',
    defaultText: '1000',
    defaultValue: () => 1000,
    parse: (text) => {
      const value = parseNonNegative('TSMPI_SLEEP_MAX_MS', text);
      if (value < 1) throw configError('TSMPI_SLEEP_MAX_MS', text, 'a number of milliseconds >= 1');
      return value;
    },
  } satisfies Tunable<number>,
  simTestCost: {
    env: 'TSMPI_SIM_TEST',
    description:
      "Virtual seconds a test (test, testAny, testAll, testSome, getStatus) costs a rank under tsmpi sim, times the number of fruitless polls in a row while TSMPI_SIM_GROW_POLLS is 1: SMPI's smpi/test. A polling loop thus moves the rank's clock on until what it waits for has arrived.",
    defaultText: "1e-4 (SMPI's default); on a calibrated --platform, the measured test()",
    defaultValue: () => 1e-4,
    parse: (text) => parseNonNegative('TSMPI_SIM_TEST', text),
  } satisfies Tunable<number>,
  simIprobeCost: {
    env: 'TSMPI_SIM_IPROBE',
    description: "Virtual seconds an iprobe costs a rank under tsmpi sim, grown as TSMPI_SIM_TEST: SMPI's smpi/iprobe.",
    defaultText: "1e-4 (SMPI's default); on a calibrated --platform, the measured iprobe()",
    defaultValue: () => 1e-4,
    parse: (text) => parseNonNegative('TSMPI_SIM_IPROBE', text),
  } satisfies Tunable<number>,
  simGrowPolls: {
    env: 'TSMPI_SIM_GROW_POLLS',
    description:
      "1: under tsmpi sim the n-th fruitless poll in a row costs n times TSMPI_SIM_TEST (or TSMPI_SIM_IPROBE), and a poll that finds something resets n, as SMPI's smpi/grow-injected-times; 0: every poll costs the same.",
    defaultText: '1 (on); 0 on a calibrated --platform',
    defaultValue: () => true,
    ...switchTunable('TSMPI_SIM_GROW_POLLS', '0', '1'),
  } satisfies Tunable<boolean>,
  simRankRuntimes: {
    env: 'TSMPI_SIM_RANK_RUNTIMES',
    description:
      "Under tsmpi sim, each rank of a program gets its own copy of tsmpi's runtime, as each rank's isolate has in a real run, so that each pays its own JIT warm-up in its measured compute; off: one copy for all ranks (the first rank to run a code path warms it up for all). A copy costs ~2 MB and its warm-up.",
    defaultText: 'auto: on for a program on a calibrated --platform with up to 64 ranks, else off',
    defaultValue: () => 'auto' as const,
    parse: (text) => parseChoice('TSMPI_SIM_RANK_RUNTIMES', text, ['auto', 'on', 'off'] as const),
  } satisfies Tunable<'auto' | 'on' | 'off'>,
  simContext: {
    env: 'TSMPI_SIM_CONTEXT',
    description:
      "How tsmpi sim knows whose code runs (init(), wtime(), process.env, a rank's timers): running, the rank whose turn it is (the simulator runs one rank at a time, until its code stops); async, each async flow's own rank (AsyncLocalStorage), for a program whose code runs for a rank outside that rank's turns (callbacks of real timers or I/O). AsyncLocalStorage's promise hooks tax every promise of the run, and that counts as the ranks' compute.",
    defaultText: 'running',
    defaultValue: () => 'running' as const,
    parse: (text) => parseChoice('TSMPI_SIM_CONTEXT', text, ['running', 'async'] as const),
  } satisfies Tunable<'running' | 'async'>,
  simSerialV8: {
    env: 'TSMPI_SIM_SERIAL_V8',
    description:
      "tsmpi sim runs V8 single-threaded (--single-threaded: no background compiler or GC threads), so that the compiling and collecting a rank causes count in its measured compute, as they take cores from the ranks when the ranks fill a host's cores; the command restarts itself with the flag when needed, and with the young generation of the ranks it hosts (--max-semi-space-size 16 MiB per rank, up to 64 MiB, unless given).",
    defaultText: 'auto: on for a program on a calibrated --platform whose busiest host has at least as many ranks as cores, else off',
    defaultValue: () => 'auto' as const,
    parse: (text) => parseChoice('TSMPI_SIM_SERIAL_V8', text, ['auto', 'on', 'off'] as const),
  } satisfies Tunable<'auto' | 'on' | 'off'>,
  check: {
    env: 'TSMPI_CHECK',
    description:
      "1: before every collective the ranks agree that they call the same one with the same root, op, element kind and count (one small allreduce of a signature, as MPICH's collective checking does), and fail naming the argument and the ranks that differ; `tsmpi run --check`. 0: no check (mismatched lengths and kinds of typed arrays are still found as the data arrives).",
    defaultText: '0 (off)',
    defaultValue: () => false,
    ...switchTunable('TSMPI_CHECK', '0', '1'),
  } satisfies Tunable<boolean>,
  trace: {
    env: 'TSMPI_TRACE',
    description:
      'Write a timeline of the run to this file (Chrome trace JSON, opens in Perfetto): a slice per communication call, the rounds of collectives, arrows from each send to its receive. `tsmpi run --trace FILE` and `tsmpi sim --trace FILE` set it. Empty: no timeline (the hooks cost one test each).',
    defaultText: "'' (off)",
    defaultValue: () => '',
    parse: (text) => text,
  } satisfies Tunable<string>,
  profile: {
    env: 'TSMPI_PROFILE',
    description:
      "Profile the run (mpiP's summary): per call and rank its count, time and bytes, the program's call sites by time, the communication matrix and each collective's imbalance, printed at the end. 1: print it; a file path: print it and write it there as JSON. `tsmpi run --profile` / `--profile-json FILE` and `tsmpi sim --profile` set it.",
    defaultText: "'' (off)",
    defaultValue: () => '',
    parse: (text) => text,
  } satisfies Tunable<string>,
  traceChunk: {
    env: 'TSMPI_TRACE_CHUNK',
    description: "Events a rank keeps in memory before it hands them to its process to write out (each event 33 bytes).",
    defaultText: '65536',
    defaultValue: () => 65536,
    parse: (text) => Math.max(16, Math.floor(parseNonNegative('TSMPI_TRACE_CHUNK', text))),
  } satisfies Tunable<number>,
  traceLimit: {
    env: 'TSMPI_TRACE_LIMIT',
    description: "Most events recorded per rank; later ones are counted as dropped (the file's metadata says how many).",
    defaultText: '4000000',
    defaultValue: () => 4_000_000,
    parse: (text) => Math.floor(parseNonNegative('TSMPI_TRACE_LIMIT', text)),
  } satisfies Tunable<number>,
  sourceMaps: {
    env: 'TSMPI_SOURCE_MAPS',
    description:
      'Enable source maps inside the ranks, so stacks a program prints itself name .ts lines. Off by default: it costs every worker thread the parsing of every map at start-up (the launcher maps the stacks of failing ranks anyway).',
    defaultText: '0 (off)',
    defaultValue: () => false,
    ...switchTunable('TSMPI_SOURCE_MAPS', '0', '1'),
  } satisfies Tunable<boolean>,
  collRules: {
    env: 'TSMPI_COLL_RULES',
    description:
      "Decision rules for collectives not forced by TSMPI_COLL_<NAME>: tsmpi (the runtime's own, Open MPI's coll/tuned shape) or simgrid (SimGrid 3.32's default selector and algorithms, message for message, for comparing with SMPI).",
    defaultText: 'tsmpi',
    defaultValue: () => 'tsmpi',
    parse: (text) => parseChoice('TSMPI_COLL_RULES', text, ['tsmpi', 'simgrid'] as const),
  } satisfies Tunable<'tsmpi' | 'simgrid'>,
  sharedBarrierRanks: {
    env: 'TSMPI_SHARED_BARRIER_RANKS',
    description:
      "World size from which a barrier of ranks that are all threads of one process counts arrivals in shared memory instead of sending messages (TSMPI_COLL_BARRIER=shared forces it at any size; 0: only when forced). `npm run bench -- barrier` on 2 cores, shared over dissemination, a thread per rank: 4 ranks 0.85x, 8 0.94x, 16 1.04x, 32 0.42x, 64 0.40x; ranks sharing 2 threads: 4 1.14x, 8 0.80x, 16 0.93x, 32 0.78x, 64 0.92x.",
    defaultText: '4 x cores',
    defaultValue: (ctx) => 4 * ctx.cores,
    parse: (text) => parseNonNegative('TSMPI_SHARED_BARRIER_RANKS', text),
  } satisfies Tunable<number>,
  collBcast: collectiveTunable('bcast'),
  collReduce: collectiveTunable('reduce'),
  collAllreduce: collectiveTunable('allreduce'),
  collAllgather: collectiveTunable('allgather'),
  collGather: collectiveTunable('gather'),
  collScatter: collectiveTunable('scatter'),
  collAlltoall: collectiveTunable('alltoall'),
  collBarrier: collectiveTunable('barrier'),
  collReduceScatter: collectiveTunable('reduceScatter'),
} as const;

export type TunableName = keyof typeof tunables;
export type Settings = { [K in TunableName]: ReturnType<(typeof tunables)[K]['parse']> };

/** Reads every tunable from `env`, falling back to the defaults for `ctx`. */
export function readSettings(env: NodeJS.ProcessEnv, ctx: Partial<TunableContext> = {}): Settings {
  const full: TunableContext = { localRanks: ctx.localRanks ?? 1, cores: ctx.cores ?? availableParallelism(), remotePeers: ctx.remotePeers ?? false, threadRanks: ctx.threadRanks ?? 1, ...(ctx.hostRanks !== undefined ? { hostRanks: ctx.hostRanks } : {}), ...(ctx.simulated === true ? { simulated: true } : {}) };
  const out: Record<string, unknown> = {};
  for (const [name, tunable] of Object.entries(tunables) as [TunableName, Tunable<unknown>][]) {
    const text = env[tunable.env];
    out[name] = text === undefined || text === '' ? tunable.defaultValue(full) : tunable.parse(text);
  }
  // A copy: V8 keeps an object filled by computed keys in dictionary mode, where every read of a
  // setting on a hot path (the collectives' rules, the progress loop) is a hash lookup; the
  // spread copy has fast, fixed-offset properties.
  return { ...out } as Settings;
}
