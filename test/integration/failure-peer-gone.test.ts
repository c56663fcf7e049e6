// Issue 22: a wait that can never complete is noticed at once. A rank that ends (returns, or
// calls finalize()) is announced to every other (by its process, the launcher between
// processes, the simulator); once everything it sent has arrived (a GOODBYE frame follows its
// last one, or its socket closes, or its ring has been read), a receive or probe from it, a send
// to it, or a collective that needs it fails naming the waiting rank, the call and the rank that
// ended. What it sent before ending is still received. A call after a rank's own finalize() is
// an error that says so. Threads, processes, both mixed, and the simulator.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { explain, fixture, tsmpi } from '../helpers/run-job.ts';

const modes = { threads: ['run'], procs: ['run', '--procs'], mixed: ['run', '--ranks-per-proc', '2'], sim: ['sim', '--quiet'] } as const;

const failing: Record<string, RegExp> = {
  exit: /rank 0, recv: recv from rank 1, tag 5, on world: world rank 1 exited \(code 0\), so this can never complete/,
  finalize: /rank 0, recv: recv from rank 1, tag 5, on world: world rank 1 finalized, so this can never complete/,
  after: /rank 1, send: this rank called finalize\(\): it communicates no more \(send on world\)/,
  'send-to-gone': /rank 0, send: send to rank 1, tag 4, on world: world rank 1 exited \(code 0\)/,
  probe: /rank 0, probe: probe from rank 1, tag 6, on world: world rank 1 exited \(code 0\)/,
  barrier: /rank [02], barrier: barrier from rank 1 on world: world rank 1 exited \(code 0\)/,
};

for (const mode of Object.keys(modes) as (keyof typeof modes)[]) {
  test(`a wait for a rank that ended fails at once, naming both (${mode})`, { timeout: 240_000 }, async () => {
    for (const [which, says] of Object.entries(failing)) {
      // No --hang-timeout: the job must end by itself, long before the 60 s hang report.
      const result = await tsmpi([...modes[mode], '-n', '3', fixture('peer-gone.ts'), which], { timeoutMs: 30_000 });
      assert.equal(result.signal, null, `${which}: the job did not end by itself\n${explain(result)}`);
      assert.equal(result.code, 1, `${which}: ${explain(result)}`);
      assert.match(result.stderr, says, `${which}: ${explain(result)}`);
      assert.doesNotMatch(result.stderr, /waited \d+ s without progress/, which);
    }
  });

  test(`what a rank sent before it ended is received in full (${mode})`, { timeout: 120_000 }, async () => {
    for (const which of ['delivered', 'delivered-finalize']) {
      const result = await tsmpi([...modes[mode], '-n', '3', fixture('peer-gone.ts'), which], { timeoutMs: 30_000 });
      assert.equal(result.code, 0, `${which}: ${explain(result)}`);
      assert.match(result.stdout, /rank 0 received first, 131072 doubles of 1\.5, \{"last":true\}/, `${which}: ${explain(result)}`);
    }
  });
}
