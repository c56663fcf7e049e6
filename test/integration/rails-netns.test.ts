// Multi-rail over real shaped networks: two network namespaces joined by two veth rails shaped
// with tbf at 800 and 200 Mbit/s (test/infra/rails.sh; addresses in 198.18.0.0/15), one rank in
// each. A 64 MiB message arrives intact over both rails; messages stay intact while a rail's rate
// changes mid-transfer; and when a rail is taken down mid-transfer, its segments go again on the
// other, nothing is lost or duplicated, and the rail rejoins once it is back up.
// Skipped (with the reason) where namespaces cannot be built, unless TSMPI_REQUIRE_RAILS=1.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { after, before, test } from 'node:test';
import { explain, fixture, repoRoot, tsmpi, type JobResult } from '../helpers/run-job.ts';

const script = `${repoRoot}test/infra/rails.sh`;
const check = spawnSync('bash', [script, 'check'], { encoding: 'utf8' });
const unavailable = check.status === 0 ? undefined : `network namespaces with tbf are not available here: ${(check.stdout + check.stderr).trim()}`;
const skip = unavailable !== undefined && process.env.TSMPI_REQUIRE_RAILS !== '1' ? unavailable : false;

function rails(...args: string[]): void {
  const r = spawnSync('bash', [script, ...args], { encoding: 'utf8' });
  assert.equal(r.status, 0, `rails.sh ${args.join(' ')}: ${r.stdout}${r.stderr}`);
}

before(() => {
  if (skip === false) rails('up', '800mbit', '200mbit');
});
after(() => {
  if (skip === false) rails('down');
});

interface RailsState {
  bytesSent: Record<string, number[]>;
  failures: Record<string, number[]>;
  resentSegments: number;
  duplicateBytes: number;
}

function run(sizes: number[], env: Record<string, string>, onStdout?: (text: string) => void): Promise<JobResult> {
  return tsmpi(['run', '-n', '2', '--procs', '--netns', 'tsmpiA,tsmpiB', '--rendezvous-address', '198.19.0.254', fixture('rails-transfer.ts'), ...sizes.map(String)], {
    env: { TSMPI_RAILS: 'rail0@800mbit,rail1@200mbit', ...env },
    timeoutMs: 120_000,
    ...(onStdout ? { onStdout } : {}),
  });
}

function senderState(result: JobResult): RailsState {
  const line = /rank 0 rails (.*)/.exec(result.stdout)?.[1];
  assert.ok(line, explain(result));
  return JSON.parse(line) as RailsState;
}

function intact(result: JobResult, count: number): void {
  assert.equal(result.code, 0, explain(result));
  assert.equal((result.stdout.match(/ intact/g) ?? []).length, count, explain(result));
}

const MIB = 1 << 20;

test('test/infra/rails.sh check passes where the suite requires rails', { skip: process.env.TSMPI_REQUIRE_RAILS === '1' ? false : 'not required here' }, () => {
  assert.equal(unavailable, undefined, unavailable);
});

for (const policy of ['adaptive', 'round-robin', 'q-learning', 'weighted']) {
  test(`a 64 MiB message arrives intact over rails of 800 and 200 Mbit/s (${policy})`, { skip, timeout: 150_000 }, async () => {
    const result = await run([64 * MIB], { TSMPI_RAIL_POLICY: policy });
    intact(result, 1);
    const state = senderState(result);
    const [fast = 0, slow = 0] = state.bytesSent['1'] ?? [];
    assert.equal(fast + slow, 64 * MIB, 'every segment acknowledged exactly once');
    assert.ok(fast > 0 && slow > 0, `both rails carried data: ${fast} + ${slow}`);
    // The rate-aware policies put about 4/5 on the fast rail; round-robin half.
    if (policy === 'adaptive' || policy === 'weighted') assert.ok(fast > 2.5 * slow, `${policy}: ${fast} on the fast rail, ${slow} on the slow one`);
    if (policy === 'round-robin') assert.ok(Math.abs(fast - slow) <= 2 * MIB, `round-robin: ${fast} vs ${slow}`);
    assert.equal(state.duplicateBytes, 0);
  });
}

for (const change of [
  { rail: '0', rate: '200mbit' },
  { rail: '1', rate: '50mbit' },
]) {
  test(`messages stay intact while rail ${change.rail} changes to ${change.rate} mid-transfer`, { skip, timeout: 150_000 }, async () => {
    let changed = false;
    try {
      const result = await run([64 * MIB, 64 * MIB, 16 * MIB], {}, (text) => {
        if (!changed && text.includes('message 0 of')) {
          changed = true;
          rails('rate', change.rail, change.rate);
        }
      });
      assert.ok(changed, 'the rate changed during the run');
      intact(result, 3);
      const [fast = 0, slow = 0] = senderState(result).bytesSent['1'] ?? [];
      assert.equal(fast + slow, 144 * MIB);
    } finally {
      rails('rate', change.rail, change.rail === '0' ? '800mbit' : '200mbit');
    }
  });
}

test('a rail taken down mid-transfer: its segments go again on the other, nothing lost or doubled, and it rejoins', { skip, timeout: 150_000 }, async () => {
  let wentDown = false;
  let upAgain = false;
  const ip = (state: string): void => {
    const r = spawnSync('ip', ['-n', 'tsmpiA', 'link', 'set', 'rail1', state], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
  };
  try {
    const result = await run([64 * MIB, 64 * MIB, 64 * MIB, 64 * MIB, 16 * MIB, 16 * MIB, 16 * MIB, 16 * MIB, 16 * MIB, 16 * MIB], {}, (text) => {
      if (!wentDown && text.includes('message 0 of')) {
        ip('down');
        wentDown = true;
      } else if (wentDown && !upAgain && text.includes('message 2 of')) {
        ip('up');
        upAgain = true;
      }
    });
    assert.ok(wentDown && upAgain, `the rail went down and up during the run\n${explain(result)}`);
    intact(result, 10);
    const state = senderState(result);
    assert.ok((state.failures['1']?.[1] ?? 0) >= 1, `rail 1 counted as failed: ${JSON.stringify(state)}`);
    assert.ok(state.resentSegments > 0, `segments were sent again: ${JSON.stringify(state)}`);
    const [fast = 0, slow = 0] = state.bytesSent['1'] ?? [];
    assert.equal(fast + slow, 352 * MIB, 'acknowledged bytes add up to what was sent, nothing twice');
    assert.match(result.stderr, /rail 1 to rank 1 failed \(no acknowledgement/);
    assert.match(result.stderr, /rail 1 to rank 1 is back/);
  } finally {
    ip('up');
  }
});
