// The world's shared memory under `tsmpi sim`: ranks placed in one simulated process take the
// shared barrier, broadcast slots and staging regions as rank threads do (no messages), with exact
// results, and each collective releases its ranks at the last arrival in virtual time, whatever
// order the simulator ran them in. Ranks placed in processes of their own send messages.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { explain, fixture, tsmpi } from '../helpers/run-job.ts';

const dir = mkdtempSync(join(tmpdir(), 'tsmpi-sim-shared-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const NP = 8;
const PLATFORM = 'examples/platforms/cluster.json';
const simulate = (name: string, extra: string[], env: Record<string, string> = {}) =>
  tsmpi(['sim', '-n', String(NP), '--ranks-per-host', String(NP), '--compute', 'declared', '--platform', PLATFORM, '--json', join(dir, `${name}.json`), ...extra, fixture('sim-shared.ts')], { env });
const messagesOf = (name: string): number => (JSON.parse(readFileSync(join(dir, `${name}.json`), 'utf8')) as { perRank: { messages: number }[] }).perRank.reduce((n, r) => n + r.messages, 0);

/** Each rank's virtual time after `what`, by rank. */
function timesOf(stdout: string, what: string): number[] {
  const times: number[] = [];
  for (const line of stdout.split('\n')) {
    const m = new RegExp(`^(\\d+) ${what} ([\\d.]+)$`).exec(line);
    if (m) times[Number(m[1])] = Number(m[2]);
  }
  return times;
}

test('ranks in one simulated process: barrier, bcast and small collectives go through shared memory, exact, released at the last arrival in virtual time', { timeout: 120_000 }, async () => {
  const result = await simulate('shared', []);
  assert.equal(result.code, 0, explain(result));
  for (const what of ['bcast', 'allreduce', 'allgatherv', 'reduceScatterBlock']) {
    assert.equal(result.stdout.split('\n').filter((l) => l.endsWith(` ok ${what}`)).length, NP, `${what}\n${explain(result)}`);
  }
  assert.equal(messagesOf('shared'), 0, explain(result));
  const barrier = timesOf(result.stdout, 'barrier');
  const bcast = timesOf(result.stdout, 'bcast');
  const allreduce = timesOf(result.stdout, 'allreduce');
  for (const times of [barrier, bcast, allreduce]) assert.equal(times.filter((t) => t !== undefined).length, NP, explain(result));
  // Rank 0 runs first in the simulator's thread but arrives last in virtual time: every rank
  // leaves the barrier when it arrives, the earliest-running included.
  assert.deepEqual(new Set(barrier).size, 1, `barrier ${barrier.join(' ')}`);
  // The root computed 3 ms (alone on the cores) before publishing: no reader has the data sooner.
  assert.deepEqual(new Set(bcast).size, 1, `bcast ${bcast.join(' ')}`);
  assert.ok(bcast[0]! >= barrier[0]! + 3e-3 - 1e-9, `bcast ${bcast[0]} after barrier ${barrier[0]}`);
  assert.deepEqual(new Set(allreduce).size, 1, `allreduce ${allreduce.join(' ')}`);
  assert.ok(allreduce[0]! >= bcast[0]! + 2e-3 - 1e-9, `allreduce ${allreduce[0]} after bcast ${bcast[0]}`);
});

test('the same program with the message algorithms forced, or one process per rank, sends messages and gets the same results', { timeout: 120_000 }, async () => {
  const forced = await simulate('forced', [], { TSMPI_COLL_BARRIER: 'dissemination', TSMPI_COLL_BCAST: 'binomial', TSMPI_COLL_ALLREDUCE: 'recursive-doubling' });
  assert.equal(forced.code, 0, explain(forced));
  assert.ok(messagesOf('forced') > 0, explain(forced));
  const procs = await simulate('procs', ['--procs']);
  assert.equal(procs.code, 0, explain(procs));
  assert.ok(messagesOf('procs') > 0, explain(procs));
  for (const result of [forced, procs]) {
    for (const what of ['bcast', 'allreduce', 'allgatherv', 'reduceScatterBlock']) {
      assert.equal(result.stdout.split('\n').filter((l) => l.endsWith(` ok ${what}`)).length, NP, `${what}\n${explain(result)}`);
    }
  }
});

test('nonblocking staged collectives waited on at once complete under the simulator: alltoallv and allgatherv, exact, no messages', { timeout: 120_000 }, async () => {
  // A wait looks at its condition once per event here: a nonblocking call whose staged step
  // finished after the call's schedule was looked at in the same pass once waited for ever. The
  // compute is measured (the default), as a user's run has it: the ranks' order then varies.
  const env = { TSMPI_COLL_ALLTOALL: 'shared', TSMPI_COLL_ALLGATHER: 'shared', TSMPI_COLL_ALLREDUCE: 'shared' };
  for (const name of ['staged-exchanges.ts', 'staged-gathers.ts']) {
    const json = join(dir, `${name}.json`);
    const result = await tsmpi(['sim', '-n', '4', '--ranks-per-host', '4', '--platform', PLATFORM, '--json', json, fixture(name)], { env, timeoutMs: 100_000 });
    assert.equal(result.code, 0, explain(result));
    assert.equal(result.stdout.split('\n').filter((l) => / ok$/.test(l)).length, 4, explain(result));
  }
  // In `only` mode every call is staged: nothing goes as a message.
  const only = await tsmpi(['sim', '-n', '4', '--ranks-per-host', '4', '--platform', PLATFORM, '--json', join(dir, 'only.json'), fixture('staged-exchanges.ts'), 'only'], { env, timeoutMs: 100_000 });
  assert.equal(only.code, 0, explain(only));
  assert.equal(messagesOf('only'), 0, explain(only));
});
