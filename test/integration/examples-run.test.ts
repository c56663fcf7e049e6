// Every example runs and prints what it should (SimGrid's examples are golden-output tests too).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { explain, tsmpi } from '../helpers/run-job.ts';

test('examples/pi.ts: the README main job prints pi to 1e-9', async () => {
  const result = await tsmpi(['run', '-n', '4', 'examples/pi.ts', '2000000']);
  assert.equal(result.code, 0, explain(result));
  const match = /pi is approximately (\d\.\d+), error (\S+)/.exec(result.stdout);
  assert.ok(match, explain(result));
  assert.ok(Math.abs(Number(match[1]) - Math.PI) < 1e-9, match[1]);
  assert.match(result.stdout, /2000000 intervals on 4 ranks in \d+\.\d+ s/);
});

test('examples/ring.ts: the README example passes the token and sums', async () => {
  const result = await tsmpi(['run', '-n', '4', 'examples/ring.ts']);
  assert.equal(result.code, 0, explain(result));
  assert.match(result.stdout, /hops 3, sum\[0\] = 6/);
  for (let r = 0; r < 4; r++) assert.match(result.stdout, new RegExp(`^${r} Float64Array\\(1\\) \\[ ${r} \\] \\{ source: ${r}, tag: 7, bytes: 8 \\}$`, 'm'));
});

test('examples/diffusion.ts: the drifting hot spot is balanced and no cell is lost', async () => {
  const result = await tsmpi(['run', '-n', '4', 'examples/diffusion.ts', '12']);
  assert.equal(result.code, 0, explain(result));
  const cells = /cells per rank at the end: (\d+) (\d+) (\d+) (\d+)/.exec(result.stdout);
  assert.ok(cells, explain(result));
  assert.equal(cells.slice(1).reduce((a, b) => a + Number(b), 0), 256);
  assert.match(result.stdout, /12 iterations balanced \(learned model\) in \d+\.\d+ s \(checksum ok\)/);
  assert.match(result.stdout, /^iteration 0: max \/ mean busy \d+\.\d\d, rank 0 holds \d+ cells$/m);
});
