// Issue 20: polling loops (test, testAny, testAll, testSome, getStatus, iprobe, improbe) end under `tsmpi sim` as they do in
// threads and processes: a poll runs the network events due by the rank's clock after moving it
// on by the poll's cost (SMPI's smpi/test and smpi/iprobe). A loop that can never end in the
// simulator (it waits for another rank's next call without awaiting) is an error naming the fix,
// not a livelock. And a rank's process.exitCode ends `run`, `--procs` and `sim` alike.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { explain, fixture, tsmpi, type JobResult } from '../helpers/run-job.ts';

const modes = { threads: ['run'], procs: ['run', '--procs'], sim: ['sim', '--quiet'] } as const;

function job(mode: keyof typeof modes, np: number, which: string, env: Record<string, string> = {}): Promise<JobResult> {
  return tsmpi([...modes[mode], '-n', String(np), fixture('polling.ts'), which], { env, timeoutMs: 60_000 });
}

function lines(result: JobResult, prefix: string): string[] {
  return result.stdout.split('\n').filter((line) => line.startsWith(prefix)).sort();
}

for (const mode of Object.keys(modes) as (keyof typeof modes)[]) {
  for (const np of [1, 2, 3]) {
    test(`polling loops end on ${np} rank${np > 1 ? 's' : ''} (${mode})`, { timeout: 180_000 }, async () => {
      const self = await job(mode, np, 'self');
      assert.equal(self.code, 0, explain(self));
      const ranks = Array.from({ length: np }, (_, r) => r);
      assert.deepEqual(
        lines(self, 'polling self'),
        ranks.map((r) => `polling self rank ${r}: to myself ${r} 2 3 probed from ${r} tag 4 matched 6 7 at later`),
        explain(self),
      );
      for (const which of ['ring', 'immediate']) {
        const ring = await job(mode, np, which);
        assert.equal(ring.code, 0, explain(ring));
        assert.deepEqual(lines(ring, `polling ${which}`), ranks.map((r) => `polling ${which} rank ${r}: got ${((r - 1 + np) % np) * 10} from ${(r - 1 + np) % np}`), explain(ring));
      }
    });
  }
}

// Declared compute: the rank's clock moves only by what the polls cost, not by measured CPU time.
function cost(env: Record<string, string>, cfg: string[] = []): Promise<JobResult> {
  return tsmpi(['sim', '--quiet', '--compute', 'declared', ...cfg, '-n', '1', fixture('polling.ts'), 'cost'], { env, timeoutMs: 60_000 });
}

test('a fruitless poll costs TSMPI_SIM_TEST / TSMPI_SIM_IPROBE of virtual time, growing as SMPI\'s', { timeout: 60_000 }, async () => {
  const flat = await cost({ TSMPI_SIM_TEST: '1e-3', TSMPI_SIM_IPROBE: '2e-3', TSMPI_SIM_GROW_POLLS: '0' });
  assert.equal(flat.code, 0, explain(flat));
  assert.deepEqual(lines(flat, 'polling cost'), ['polling cost rank 0: test 10000.000 us, iprobe 10000.000 us, improbe 10000.000 us'], explain(flat));
  // Growing (the default): the n-th fruitless poll in a row costs n times the cost. An improbe is
  // an iprobe that takes what it finds (SimGrid 3.32 has no MPI_Improbe), so it costs smpi/iprobe
  // and its count goes on from the iprobes'.
  const grown = await cost({});
  assert.equal(grown.code, 0, explain(grown));
  assert.deepEqual(lines(grown, 'polling cost'), ['polling cost rank 0: test 5500.000 us, iprobe 1500.000 us, improbe 4000.000 us'], explain(grown));
  // SimGrid's own keys set the same.
  const cfg = await cost({}, ['--cfg=smpi/test:1e-3', '--cfg=smpi/iprobe:2e-3', '--cfg=smpi/grow-injected-times:no']);
  assert.equal(cfg.code, 0, explain(cfg));
  assert.deepEqual(lines(cfg, 'polling cost'), ['polling cost rank 0: test 10000.000 us, iprobe 10000.000 us, improbe 10000.000 us'], explain(cfg));
});

test('a loop that never awaits, waiting for another rank, ends in threads and fails under sim naming the fix', { timeout: 120_000 }, async () => {
  const real = await job('threads', 2, 'stuck');
  assert.equal(real.code, 0, explain(real));
  assert.deepEqual(lines(real, 'polling stuck'), ['polling stuck rank 0: got late'], explain(real));
  const simulated = await job('sim', 2, 'stuck');
  assert.notEqual(simulated.code, 0, explain(simulated));
  assert.equal(simulated.signal, null, `killed, not ended: ${explain(simulated)}`);
  assert.match(simulated.stderr, /rank 0 polled \(test\) for 3600 s of virtual time without awaiting/, explain(simulated));
  assert.match(simulated.stderr, /await between polls/, explain(simulated));
});

test('process.exitCode = 3 on every rank ends run, --procs and sim with 3', { timeout: 120_000 }, async () => {
  for (const mode of Object.keys(modes) as (keyof typeof modes)[]) {
    const result = await job(mode, 2, 'exit-code');
    assert.equal(result.code, 3, `${mode}: ${explain(result)}`);
    assert.match(result.stderr, /rank \d exited with code 3/, `${mode}: ${explain(result)}`);
  }
});
