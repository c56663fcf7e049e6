// Rank threads bound to CPUs (TSMPI_BIND, --bind-to), read back from the kernel by each rank.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { test } from 'node:test';
import { allowedCpus, formatCpuList } from '../../src/bootstrap/cpu-binding.ts';
import { explain, fixture, tsmpi } from '../helpers/run-job.ts';

interface Report {
  rank: number;
  thread: string;
  process: string;
  spinMicros: number;
}

const cpus = allowedCpus();
const skip = !existsSync('/proc/thread-self') || cpus.length < 2 ? 'needs Linux and 2 CPUs' : false;
const all = formatCpuList(cpus);

async function reports(args: string[], env: Record<string, string> = {}, prefix: string[] = []): Promise<Report[]> {
  const result = await tsmpi([...prefix, 'run', ...args, fixture('cpu-report.ts')], { env });
  assert.equal(result.code, 0, explain(result));
  return result.stdout.trim().split('\n').map((line) => JSON.parse(line) as Report).sort((a, b) => a.rank - b.rank);
}

test('by default 2 thread ranks are bound to the first two allowed CPUs, one each, with the runtime defaults of unbound ranks', { skip }, async () => {
  const bound = await reports(['-n', '2']);
  assert.deepEqual(bound.map((r) => r.thread), [String(cpus[0]), String(cpus[1])]);
  assert.ok(bound.every((r) => r.process === all), 'the process itself stays on every CPU');
  const unbound = await reports(['-n', '2'], { TSMPI_BIND: 'none' });
  assert.deepEqual(unbound.map((r) => r.thread), [all, all]);
  // A bound thread sees one CPU in os.availableParallelism(); its runtime must still count the
  // process's CPUs (2 ranks on 2 cores spin as long as unbound ones).
  assert.deepEqual(bound.map((r) => r.spinMicros), unbound.map((r) => r.spinMicros));
});

test('more rank threads than CPUs stay unbound by default; --bind-to core binds them round robin', { skip }, async () => {
  const n = cpus.length + 1;
  const auto = await reports(['-n', String(n)]);
  assert.deepEqual(auto.map((r) => r.thread), Array(n).fill(all));
  const core = await reports(['--bind-to', 'core', '-n', String(n)]);
  assert.deepEqual(core.map((r) => r.thread), Array.from({ length: n }, (_, i) => String(cpus[i % cpus.length])));
});

test('processes on one machine bind by the ranks\' places on it (--procs)', { skip }, async () => {
  const bound = await reports(['--procs', '-n', '2']);
  assert.deepEqual(bound.map((r) => r.thread), [String(cpus[0]), String(cpus[1])]);
});

test('ranks that share a thread share its CPU (--ranks-per-thread 2)', { skip }, async () => {
  const bound = await reports(['--ranks-per-thread', '2', '-n', '4']);
  assert.deepEqual(bound.map((r) => r.thread), [String(cpus[0]), String(cpus[0]), String(cpus[1]), String(cpus[1])]);
});

test('a launcher confined to one CPU (taskset) leaves its 2 ranks there, unbound', { skip: skip || (existsSync('/usr/bin/taskset') ? false : 'needs taskset') }, async () => {
  const last = String(cpus.at(-1));
  const { spawnSync } = await import('node:child_process');
  const { cli } = await import('../helpers/run-job.ts');
  const result = spawnSync('taskset', ['-c', last, process.execPath, cli, 'run', '-n', '2', fixture('cpu-report.ts')], { encoding: 'utf8', env: { ...process.env, TSMPI_HANG_WARN: '0' }, timeout: 120_000 });
  assert.equal(result.status, 0, result.stderr);
  const lines = result.stdout.trim().split('\n').map((line) => JSON.parse(line) as Report);
  assert.deepEqual(lines.map((r) => r.thread), [last, last]);
});

test('--bind-to takes core, none or auto, and names itself otherwise', async () => {
  const result = await tsmpi(['run', '--bind-to', 'socket', '-n', '2', fixture('cpu-report.ts')]);
  assert.equal(result.code, 2);
  assert.match(result.stderr, /--bind-to socket is not a binding tsmpi knows.*--bind-to core/s);
});
