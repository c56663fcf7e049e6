// `tsmpi sim --hostfile` places ranks as smpirun does: rank r on line r (host:N for N ranks),
// round robin past the end, -n from the file when not given; a trace replays with it unchanged.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { explain, repoRoot, tsmpi } from '../helpers/run-job.ts';

const dir = mkdtempSync(join(tmpdir(), 'tsmpi-sim-hostfile-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const platform = join(repoRoot, 'examples/platforms/cluster.xml');
const program = join(dir, 'nodes.ts');
writeFileSync(program, `import { init } from 'tsmpi';\nconst comm = await init();\nif (comm.rank === 0) console.log('nodes ' + Array.from({ length: comm.size }, (_, r) => comm.nodeOf(r)).join(','));\n`);

test('sim --hostfile: host:N lines and plain lines, -n from the file', { timeout: 60_000 }, async () => {
  const hostfile = join(dir, 'hosts');
  writeFileSync(hostfile, 'node-3:2\n\nnode-1\nnode-0:1\n');
  const result = await tsmpi(['sim', '--quiet', '--platform', platform, '--hostfile', hostfile, program]);
  assert.equal(result.code, 0, explain(result));
  assert.match(result.stdout, /^nodes 3,3,1,0$/m);
});

test('sim --hostfile: more ranks than lines go round again', { timeout: 60_000 }, async () => {
  const hostfile = join(dir, 'two');
  writeFileSync(hostfile, 'node-2\nnode-0\n');
  const result = await tsmpi(['sim', '-n', '5', '--quiet', '--platform', platform, '--hostfile', hostfile, program]);
  assert.equal(result.code, 0, explain(result));
  assert.match(result.stdout, /^nodes 2,0,2,0,2$/m);
});

test('sim --hostfile: a host the platform lacks is refused, naming its hosts', { timeout: 60_000 }, async () => {
  const hostfile = join(dir, 'bad');
  writeFileSync(hostfile, 'node-0\nnode-9\n');
  const result = await tsmpi(['sim', '--quiet', '--platform', platform, '--hostfile', hostfile, program]);
  assert.notEqual(result.code, 0);
  assert.match(result.stderr, /host "node-9" is not in the platform/);
  assert.match(result.stderr, /node-0, node-1, node-2, node-3/);
});
