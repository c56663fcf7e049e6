// The core semantics over TCP: the p2p and collectives suites with one process per rank
// (--procs) and with several worker-thread ranks per process (--ranks-per-proc: shared memory
// inside, TCP across). Plus failure and security across processes.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CCO_SUITE_LINES, P2P_SUITE_LINES, explain, fixture, tsmpi } from '../helpers/run-job.ts';

const CCO_LINES = CCO_SUITE_LINES;
const count = (stdout: string, prefix: string): number => stdout.split('\n').filter((l) => l.startsWith(prefix)).length;

for (const [np, mode] of [[2, ['--procs']], [3, ['--procs']], [4, ['--ranks-per-proc', '2']]] as const) {
  test(`p2p semantics over TCP: ${np} ranks, ${mode.join(' ')}`, { timeout: 300_000 }, async () => {
    const result = await tsmpi(['run', '-n', String(np), ...mode, fixture('p2p-suite.ts')], { timeoutMs: 280_000 });
    assert.equal(result.code, 0, explain(result));
    assert.equal(count(result.stdout, 'p2p ok '), P2P_SUITE_LINES, explain(result));
  });
}

test('p2p semantics over TCP with pipelined eager messages (TSMPI_TCP_EAGER_LIMIT=8M)', { timeout: 300_000 }, async () => {
  // Every large message of the suite (up to 3 MiB) then goes eagerly in several frames, expected
  // or not: the unexpected ones are buffered and matched while still arriving.
  const result = await tsmpi(['run', '-n', '3', '--procs', fixture('p2p-suite.ts')], { env: { TSMPI_TCP_EAGER_LIMIT: '8M' }, timeoutMs: 280_000 });
  assert.equal(result.code, 0, explain(result));
  assert.equal(count(result.stdout, 'p2p ok '), P2P_SUITE_LINES, explain(result));
});

for (const [np, mode] of [[3, ['--procs']], [5, ['--ranks-per-proc', '2']]] as const) {
  test(`collectives over TCP: ${np} ranks, ${mode.join(' ')}`, { timeout: 300_000 }, async () => {
    const result = await tsmpi(['run', '-n', String(np), ...mode, fixture('cco-suite.ts')], { timeoutMs: 280_000 });
    assert.equal(result.code, 0, explain(result));
    assert.equal(count(result.stdout, 'cco ok '), CCO_LINES, explain(result));
  });
}

test('a rank that fails in one process ends the whole --procs job, naming it', { timeout: 60_000 }, async () => {
  const result = await tsmpi(['run', '-n', '3', '--procs', fixture('fail-throw.ts'), '1', 'throw'], { timeoutMs: 30_000 });
  assert.equal(result.signal, null, explain(result));
  assert.notEqual(result.code, 0, explain(result));
  assert.match(result.stderr, /tsmpi: rank 1 failed:\n.*deliberate failure on rank 1/);
  assert.match(result.stderr, /process 1 \(rank 1\) (reported a failed rank \(exit code 1\)|exited with code 1); stopping the others/);
  assert.equal(result.code, 1, explain(result));
});

test('a send to a rank whose process has ended fails (TSMPI_ERR_PEER_GONE) instead of waiting for ever', { timeout: 60_000 }, async () => {
  const result = await tsmpi(['run', '-n', '2', '--procs', fixture('send-after-exit.ts')], { timeoutMs: 30_000 });
  assert.equal(result.signal, null, `the job did not end\n${explain(result)}`);
  assert.equal(result.code, 0, explain(result));
  // PEER_GONE once the launcher said rank 1 exited; TRANSPORT when its closed socket came first.
  assert.match(result.stdout, /send failed: TSMPI_ERR_(PEER_GONE|TRANSPORT)/);
});

test('a stranger without the job secret is refused while the job completes', { timeout: 60_000 }, async () => {
  const result = await tsmpi(['run', '-n', '3', '--procs', fixture('stranger.ts')]);
  assert.equal(result.code, 0, explain(result));
  assert.match(result.stdout, /job completed, sum 6/);
  assert.match(result.stderr, /tsmpi: rank 1 refused a connection from 127\.0\.0\.1:\d+: not a tsmpi connection \(bad magic\)/);
});

test('--procs and --ranks-per-proc conflict with a clear error', async () => {
  const result = await tsmpi(['run', '-n', '2', '--procs', '--ranks-per-proc', '2', fixture('plain.mjs')]);
  assert.equal(result.code, 2);
  assert.match(result.stderr, /--procs and --ranks-per-proc conflict/);
});

for (const [connect, atInit] of [['lazy', 0], ['eager', 4]] as const) {
  test(`TSMPI_TCP_CONNECT=${connect}: ${atInit} links at init`, { timeout: 60_000 }, async () => {
    const result = await tsmpi(['run', '-n', '4', '--procs', fixture('links.ts')], { env: { TSMPI_TCP_CONNECT: connect } });
    assert.equal(result.code, 0, explain(result));
    const lines = result.stdout.trim().split('\n').map((l) => JSON.parse(l) as { rank: number; atInit: number; afterRing: number });
    assert.equal(lines.length, 4);
    for (const l of lines) {
      assert.equal(l.atInit, atInit, `rank ${l.rank}`);
      // Lazy: only the right neighbour (what comes from the left arrives on the left's own link).
      assert.equal(l.afterRing, connect === 'lazy' ? 1 : 4, `rank ${l.rank}`);
    }
  });
}

test('unexpected eager messages over TCP keep their bytes (frames assembled across socket chunks)', { timeout: 60_000 }, async () => {
  const result = await tsmpi(['run', '-n', '2', '--procs', fixture('unexpected-eager.ts')], { timeoutMs: 50_000 });
  assert.equal(result.code, 0, explain(result));
  assert.match(result.stdout, /unexpected eager ok/);
});

test('an eager send over TCP from the sender\'s memory completes only once the socket let go of it', { timeout: 60_000 }, async () => {
  const result = await tsmpi(['run', '-n', '2', '--procs', fixture('borrowed-eager.ts')], { timeoutMs: 50_000 });
  assert.equal(result.code, 0, explain(result));
  assert.match(result.stdout, /borrowed eager ok/);
});

for (const mode of [[], ['--procs']] as const) {
  test(`a detached send completes before its receive and keeps its bytes (TSMPI_DETACH_LIMIT${mode.length > 0 ? ', --procs' : ', threads'})`, { timeout: 60_000 }, async () => {
    const env = { TSMPI_EAGER_LIMIT: '1024', TSMPI_TCP_EAGER_LIMIT: '1024', TSMPI_DETACH_LIMIT: '1M' };
    const result = await tsmpi(['run', '-n', '2', ...mode, fixture('detached-send.ts')], { timeoutMs: 50_000, env });
    assert.equal(result.code, 0, explain(result));
    assert.match(result.stdout, /detached send ok/);
    // Without it the send waits for a receive that comes only after the send: the job hangs.
    const hung = await tsmpi(['run', '-n', '2', '--hang-timeout', '3', ...mode, fixture('detached-send.ts')], { timeoutMs: 50_000, env: { ...env, TSMPI_DETACH_LIMIT: '0' } });
    assert.equal(hung.code, 124, explain(hung));
  });
}

test('over TCP a blocking send up to 1 MiB completes before its receive is posted (the default eager limit); 2 MiB, or 512 KiB under TSMPI_TCP_EAGER_LIMIT=64k, waits for it', { timeout: 120_000 }, async () => {
  const cases: [number, Record<string, string>, string][] = [
    [512 * 1024, {}, 'eager'],
    [1024 * 1024, {}, 'eager'],
    [2 * 1024 * 1024, {}, 'rendezvous'],
    [512 * 1024, { TSMPI_TCP_EAGER_LIMIT: '64k' }, 'rendezvous'],
  ];
  for (const [bytes, env, expected] of cases) {
    const result = await tsmpi(['run', '-n', '2', '--procs', fixture('tcp-eager-default.ts'), String(bytes)], { env });
    assert.equal(result.code, 0, explain(result));
    assert.deepEqual(result.stdout.trim().split('\n'), [expected, 'ok'], `${bytes} B ${JSON.stringify(env)}\n${explain(result)}`);
  }
});

