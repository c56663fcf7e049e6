// TSMPI_JIT_ON_RANK: rank threads compile in place when the job's ranks on the machine fill its
// cores (counted over every process of the machine), take the runtime's code cache under every
// setting, and the choice changes no result.
import assert from 'node:assert/strict';
import { availableParallelism } from 'node:os';
import { test } from 'node:test';
import { fixture, repoRoot, tsmpi } from '../helpers/run-job.ts';
import { join } from 'node:path';

const cores = availableParallelism();

interface Report {
  rank: number;
  jitOnRank: string;
  cache: string;
}

async function reports(args: string[], env: Record<string, string> = {}): Promise<Report[]> {
  const result = await tsmpi(['run', ...args, fixture('jit-report.ts')], { env });
  assert.equal(result.code, 0, result.stderr);
  return result.stdout.trim().split('\n').map((l) => JSON.parse(l) as Report).sort((a, b) => a.rank - b.rank);
}

async function report(args: string[], env: Record<string, string> = {}): Promise<string[]> {
  return (await reports(args, env)).map((r) => r.jitOnRank);
}

test('ranks that fill the cores compile in place, in threads and in processes; fewer do not', { timeout: 120_000 }, async () => {
  assert.deepEqual(await report(['-n', String(cores)]), Array(cores).fill('on'));
  assert.deepEqual(await report(['-n', String(cores + 1)]), Array(cores + 1).fill('on'));
  // One rank per process: the machine's ranks count, not the process's one.
  assert.deepEqual(await report(['--procs', '-n', String(cores)]), Array(cores).fill('on'));
  if (cores > 1) {
    assert.deepEqual(await report(['-n', '1']), ['off']);
    assert.deepEqual(await report(['--procs', '-n', String(cores - 1)]), Array(cores - 1).fill('off'));
  }
});

test('TSMPI_JIT_ON_RANK overrides the choice either way', { timeout: 120_000 }, async () => {
  assert.deepEqual(await report(['-n', String(cores)], { TSMPI_JIT_ON_RANK: 'off' }), Array(cores).fill('off'));
  assert.deepEqual(await report(['-n', '1'], { TSMPI_JIT_ON_RANK: 'on' }), ['on']);
  assert.deepEqual(await report(['-n', '1'], { TSMPI_JIT_ON_RANK: 'all' }), ['all']);
  const bad = await tsmpi(['run', '-n', '1', fixture('jit-report.ts')], { env: { TSMPI_JIT_ON_RANK: 'yes' } });
  assert.notEqual(bad.code, 0);
  assert.match(bad.stderr, /TSMPI_JIT_ON_RANK="yes" is not valid[\s\S]*off, on, all/);
});

test('rank threads take the runtime code cache made under the V8 flags they run with, threads and processes', { timeout: 120_000 }, async () => {
  // V8 refuses a cache made under other flags: --no-concurrent-osr (all) is one it checks.
  for (const setting of ['off', 'on', 'all']) {
    for (const mode of [[], ['--procs']]) {
      const got = await reports([...mode, '-n', '2'], { TSMPI_JIT_ON_RANK: setting });
      assert.deepEqual(got.map((r) => [r.jitOnRank, r.cache]), [[setting, 'used'], [setting, 'used']], `${setting} ${mode.join(' ')}`);
    }
  }
});

test('compiling in place or in the background gives the same heat stencil, bit for bit', { timeout: 180_000 }, async () => {
  const heat = join(repoRoot, 'examples/heat.ts');
  const outputs: string[] = [];
  for (const setting of ['on', 'all', 'off']) {
    for (const mode of [[], ['--procs']]) {
      const result = await tsmpi(['run', ...mode, '-n', '2', heat, '64', '64', '300'], { env: { TSMPI_JIT_ON_RANK: setting } });
      assert.equal(result.code, 0, result.stderr);
      outputs.push(result.stdout.split('\n').find((l) => l.startsWith('heat 64x64'))!);
    }
  }
  assert.match(outputs[0]!, /checksum/);
  for (const o of outputs) assert.equal(o, outputs[0]);
});
