/**
 * Send modes and communicator creation against Open MPI in its default configuration, in the
 * same invocation: one-way latency of send, ssend, bsend, rsend and mprobe + recv at 8 B and
 * 256 KiB on 2 thread ranks (shared memory; Open MPI's vader), then microseconds per creation +
 * free of dup, idup, split, create, createGroup and splitType on 2 and 4 ranks.
 *   npm run bench -- modes [--procs] [--with-openmpi]      (REPS, RANKS=2,4)
 * tsmpi's `send` row is the baseline its other modes are read against (the ratios printed after
 * the table); the Open MPI columns compare each mode with the same mode there.
 */
import { compare, sizeLabel } from './lib/compare.ts';
import { openMpi, tsmpiRun, wantsOpenMpi, type Record } from './lib/jobs.ts';
import { median, param, writeResults } from './lib/report.ts';

const reps = param('REPS', 3, 'interleaved repetitions');
const rankCounts = (process.env.RANKS ?? '2,4').split(',').map(Number);
console.log(`# RANKS=${rankCounts.join(',')}${process.env.RANKS ? '' : ' (default)'}: rank counts for the creation figures (2 cores: 4 oversubscribes both sides)`);
const sizes = [8, 256 << 10];
const procs = process.argv.includes('--procs');
const runArgs = procs ? ['--procs'] : [];
const mpi = openMpi(wantsOpenMpi(process.argv));
const MODES = ['send', 'ssend', 'bsend', 'rsend', 'mprobe'];
const CREATIONS = ['dup', 'idup', 'split', 'create', 'createGroup', 'splitType'];
const pick = (bench: string, bytes?: number) => (records: Record[]) => records.find((r) => r.bench === bench && (bytes === undefined || r.bytes === bytes))?.us as number | undefined;
const mca = procs ? ['--mca', 'pml', 'ob1', '--mca', 'btl', 'tcp,self'] : undefined;

const ours: Record[][] = [];
compare({
  name: procs ? 'modes-procs' : 'modes',
  title: `Send modes, one-way latency, 2 ranks${procs ? ' as processes (TCP)' : ''}`,
  unit: 'us',
  better: 'lower',
  reps,
  figures: MODES.flatMap((mode) => sizes.map((b) => ({ label: `${mode} ${sizeLabel(b)}`, pick: pick(mode, b) }))),
  runTsmpi: () => {
    const records = tsmpiRun(2, 'bench/ranks/modes.ts', sizes, {}, runArgs);
    ours.push(records);
    return records;
  },
  peers: mpi ? [{ name: `Open MPI${procs ? ' (btl tcp)' : ''}`, run: () => mpi.run(2, 'modes', sizes.map(String), mca) }] : [],
  extra: { peerVersion: mpi?.version, procs },
});

// Each mode against tsmpi's own standard send, rep by rep.
const relative: { [mode: string]: number[] } = {};
for (const records of ours) {
  for (const mode of MODES.slice(1)) {
    for (const bytes of sizes) {
      const a = pick(mode, bytes)(records);
      const base = pick('send', bytes)(records);
      if (a !== undefined && base !== undefined) (relative[`${mode} ${sizeLabel(bytes)}`] ??= []).push(a / base);
    }
  }
}
console.log('\ntsmpi, each mode / its standard send (median of reps):');
for (const [label, values] of Object.entries(relative)) console.log(`  ${label}: ${median(values).toFixed(2)}x`);
writeResults(procs ? 'modes-relative-procs' : 'modes-relative', { relative });

for (const np of rankCounts) {
  compare({
    name: `modes-creation-${np}${procs ? '-procs' : ''}`,
    title: `Communicator creation + free, ${np} ranks${procs ? ' as processes (TCP)' : ''}`,
    unit: 'us',
    better: 'lower',
    reps,
    figures: CREATIONS.map((c) => ({ label: c, pick: pick(c) })),
    runTsmpi: () => tsmpiRun(np, 'bench/ranks/modes.ts', [], {}, runArgs),
    peers: mpi ? [{ name: `Open MPI${procs ? ' (btl tcp)' : ''}`, run: () => mpi.run(np, 'modes', [], mca) }] : [],
    extra: { peerVersion: mpi?.version, procs, ranks: np },
  });
}
