// SimGrid time-independent traces: the fixture traces (current and pre-3.22 argument orders, one
// file and one file per rank), the unit reading (counts x datatype size = bytes), errors that name
// file:line, and the round trip parse(format(x)) == x over random programs.
import assert from 'node:assert/strict';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { ErrorCode, TsmpiError } from '../../src/errors.ts';
import type { Action } from '../../src/sim/replay/actions.ts';
import { formatTiTrace, loadTiTraces, parseTiTrace } from '../../src/sim/replay/ti-trace.ts';
import { checkMatched } from '../../src/sim/workloads/check.ts';

const fixtures = fileURLToPath(new URL('../fixtures/traces/', import.meta.url));

test('ti-trace: the three-rank fixture reads as SimGrid means it', async () => {
  const program = await loadTiTraces(join(fixtures, 'three-ranks.txt'));
  assert.deepEqual([...program.keys()], [0, 1, 2]);
  // bcast 5e4 of datatype 0 (MPI_DOUBLE, 8 bytes) = 4e5 bytes; everything else defaults to MPI_BYTE
  const tail: Action[] = [{ op: 'bcast', bytes: 4e5, root: 1 }, { op: 'allreduce', bytes: 5e4, flops: 5e8 }, { op: 'barrier' }, { op: 'finalize' }];
  assert.deepStrictEqual(program.get(0), [
    { op: 'init' }, { op: 'compute', flops: 1e9 }, { op: 'send', dst: 1, tag: 0, bytes: 1e6 },
    { op: 'compute', flops: 1e9 }, { op: 'recv', src: 2, tag: 2, bytes: 1e6 }, ...tail,
  ]);
  assert.deepStrictEqual(program.get(1), [
    { op: 'init' }, { op: 'irecv', src: 0, tag: 0, bytes: 1e6 }, { op: 'compute', flops: 5e8 },
    { op: 'test', src: 0, dst: 1, tag: 0 }, { op: 'compute', flops: 5e8 }, { op: 'wait', src: 0, dst: 1, tag: 0 },
    { op: 'send', dst: 2, tag: 1, bytes: 1e6 }, ...tail,
  ]);
  assert.deepStrictEqual(program.get(2), [
    { op: 'init' }, { op: 'compute', flops: 2e9 }, { op: 'irecv', src: 1, tag: 1, bytes: 1e6 }, { op: 'compute', flops: 2.5e8 },
    { op: 'wait', src: 1, dst: 2, tag: 1 }, { op: 'isend', dst: 0, tag: 2, bytes: 1e6 }, { op: 'compute', flops: 5e8 }, { op: 'waitall' }, ...tail,
  ]);
  const report = checkMatched(program);
  assert.deepEqual(report.problems, []);
  assert.equal(report.matched, 3);
  assert.equal(report.collectives, 3);
});

test('ti-trace: pre-3.22 traces (no tags, Isend, bare wait, camel case, init with an argument)', async () => {
  const program = await loadTiTraces(join(fixtures, 'legacy-three-ranks.txt'));
  // rank 0 said "init 1": its counts are doubles, 125000 x 8 = 1e6 bytes; 5e4 x 8 = 4e5
  assert.deepStrictEqual(program.get(0), [
    { op: 'init' }, { op: 'send', dst: 1, tag: 0, bytes: 1e6 }, { op: 'allreduce', bytes: 4e5, flops: 5e8 },
    { op: 'alltoall', sendBytes: 500, recvBytes: 500 }, { op: 'finalize' },
  ]);
  // the bare wait completes rank 1's last request, the Irecv from 0 with tag 0
  assert.deepStrictEqual(program.get(1)!.slice(1, 6), [
    { op: 'irecv', src: 0, tag: 0, bytes: 1e6 }, { op: 'compute', flops: 5e8 }, { op: 'wait', src: 0, dst: 1, tag: 0 },
    { op: 'isend', dst: 2, tag: 0, bytes: 1e6 }, { op: 'waitall' },
  ]);
  assert.deepEqual(checkMatched(program).problems, []);
});

test('ti-trace: the description-file layout gives the i-th file to rank i', async () => {
  const program = await loadTiTraces(join(fixtures, 'split', 'description'));
  assert.deepEqual([...program.keys()], [0, 1]);
  assert.deepStrictEqual(program.get(0)![1], { op: 'send', dst: 1, tag: 0, bytes: 1e6 });
  assert.deepStrictEqual(program.get(1)![4], { op: 'wait', src: 1, dst: 0, tag: 0 });
  assert.deepEqual(checkMatched(program).problems, []);
});

test('ti-trace: lines of several ranks may interleave in any order', () => {
  const text = '1 init\n0 init\n1 recv 0 0 10\n0 send 1 0 10\n0 finalize\n1 finalize\n';
  const program = parseTiTrace(text, 'mixed.txt');
  assert.deepStrictEqual(program.get(0), [{ op: 'init' }, { op: 'send', dst: 1, tag: 0, bytes: 10 }, { op: 'finalize' }]);
  assert.deepStrictEqual(program.get(1), [{ op: 'init' }, { op: 'recv', src: 0, tag: 0, bytes: 10 }, { op: 'finalize' }]);
});

test('ti-trace: wildcards, unknown sizes and the v-collectives', () => {
  const text = [
    '0 irecv -555 -444 0', '1 recv -1 3 -1', '0 wait -555 0 -444',
    // rank 1 names datatypes: sends doubles (8 bytes), receives ints (4 bytes)
    '0 alltoallv 10 0 10 5 0 5', '1 alltoallv 30 5 25 30 10 20 0 1',
    // two values after the counts: SimGrid takes the first (3 = short, 2 bytes) for both sides
    '0 allgatherv 7 7 9 3 0', '1 allgatherv 9 7 9',
    '0 gatherv 1 1 2 1', '1 gatherv 2 1 2 1',
    '0 reducescatter 4 4 100 5', '1 reducescatter 4 4 100',
  ].join('\n');
  const p = parseTiTrace(text, 'wild.txt');
  assert.deepStrictEqual(p.get(0), [
    { op: 'irecv', src: -1, tag: -1, bytes: 0 },
    { op: 'wait', src: -1, dst: 0, tag: -1 },
    { op: 'alltoallv', sendBytes: [0, 10], recvBytes: [0, 5] },
    { op: 'allgatherv', sendBytes: 14, recvBytes: [14, 18] },
    { op: 'gatherv', sendBytes: 1, recvBytes: [1, 2], root: 1 },
    { op: 'reducescatter', recvBytes: [16, 16], flops: 100, elementBytes: 4 }, // datatype 5 = float, 4 bytes
  ]);
  assert.deepStrictEqual(p.get(1), [
    { op: 'recv', src: -1, tag: 3, bytes: 0 }, // count -1: size unknown
    { op: 'alltoallv', sendBytes: [40, 200], recvBytes: [40, 80] },
    { op: 'allgatherv', sendBytes: 9, recvBytes: [7, 9] },
    { op: 'gatherv', sendBytes: 2, recvBytes: [1, 2], root: 1 },
    { op: 'reducescatter', recvBytes: [4, 4], flops: 100 },
  ]);
});

test('ti-trace: lines as SimGrid 3.32\'s tracer writes them (waitall n, sendRecv, -333, exponents, trailing spaces)', () => {
  const text = [
    '0 init', '0 compute 1.23457e+06', '0 isend 1 0 65536 6', '0 irecv 1 1 65536 6', '0 waitall 2',
    '0 sendRecv 4194304 1 4194304 1 6 6', '0 irecv -333 5 2097152 6', '0 wait -333 0 5', '0 bcast 131072 0 0 ',
    '0 reduce 131072 0 0 0 ', '0 allreduce 8 0 0 ', '0 alltoall 32768 32768 0 0', '0 finalize',
    '1 init', '1 sendRecv 10 0 20 -555', '1 finalize',
  ].join('\n');
  const p = parseTiTrace(`${text}\n`, 'traced.txt');
  assert.deepStrictEqual(p.get(0), [
    { op: 'init' }, { op: 'compute', flops: 1.23457e6 }, { op: 'isend', dst: 1, tag: 0, bytes: 65536 }, { op: 'irecv', src: 1, tag: 1, bytes: 65536 },
    { op: 'waitall' }, { op: 'sendrecv', sendBytes: 4194304, dst: 1, recvBytes: 4194304, src: 1 },
    { op: 'irecv', src: -1, tag: 5, bytes: 2097152 }, { op: 'wait', src: -1, dst: 0, tag: 5 },
    { op: 'bcast', bytes: 131072 * 8, root: 0 }, { op: 'reduce', bytes: 131072 * 8, flops: 0, root: 0 }, { op: 'allreduce', bytes: 64, flops: 0 },
    { op: 'alltoall', sendBytes: 262144, recvBytes: 262144 }, { op: 'finalize' },
  ]);
  // no datatype after a bare init: MPI_BYTE; any negative source is MPI_ANY_SOURCE
  assert.deepStrictEqual(p.get(1), [{ op: 'init' }, { op: 'sendrecv', sendBytes: 10, dst: 0, recvBytes: 20, src: -1 }, { op: 'finalize' }]);
  assert.throws(() => parseTiTrace('0 waitall x\n', 'w.txt'), /w\.txt:1: waitall: request count must be an integer >= 0, got "x"/);
  assert.throws(() => parseTiTrace('0 sendRecv 1 1 1\n1 init\n', 'w.txt'), /w\.txt:1: sendrecv takes <sendcount> <dst> <recvcount> <src>/);
});

test('ti-trace: actions the tracer writes but no replayer replays are refused by name', () => {
  for (const [line, name] of [['0 Ssend 1 0 10 6', 'Ssend'], ['0 ISsend 1 0 10 6', 'ISsend'], ['0 bsend 1 0 10', 'bsend'], ['0 Start', 'Start'], ['0 testany 3', 'testany'], ['0 waitAny 3', 'waitAny']] as const) {
    const err = parseError(`0 init\n${line}\n`);
    assert.match(err.message, new RegExp(`bad\\.txt:2: ${name} is written by SimGrid's tracer but replayed neither`), line);
    assert.match(err.hint, /instead/);
  }
});

test('ti-trace: a per-rank file with lines of other ranks: skipped with one warning; index files may have blank lines', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'tsmpi-ti-'));
  await writeFile(join(dir, 'r0.txt'), '0 init\n1 send 0 0 5\n0 recv 1 0 5\n1 finalize\n0 finalize\n');
  await writeFile(join(dir, 'r1.txt'), '1 init\n1 send 0 0 5\n1 finalize\n');
  await writeFile(join(dir, 'index'), '\nr0.txt\n\n  \nr1.txt\n\n');
  const warnings: string[] = [];
  const program = await loadTiTraces(join(dir, 'index'), { warn: (w) => warnings.push(w) });
  assert.deepStrictEqual(program.get(0), [{ op: 'init' }, { op: 'recv', src: 1, tag: 0, bytes: 5 }, { op: 'finalize' }]);
  assert.deepStrictEqual(program.get(1), [{ op: 'init' }, { op: 'send', dst: 0, tag: 0, bytes: 5 }, { op: 'finalize' }]);
  assert.equal(warnings.length, 1);
  assert.match(warnings[0]!, /r0\.txt: 2 lines of other ranks skipped \(the first at line 2\): this file is rank 0's/);
});

/** Parses text and returns the TsmpiError it throws. */
function parseError(text: string, source = 'bad.txt'): TsmpiError {
  try {
    parseTiTrace(text, source);
  } catch (err) {
    assert.ok(err instanceof TsmpiError, String(err));
    return err;
  }
  assert.fail(`no error for ${JSON.stringify(text)}`);
}

test('ti-trace: errors name file:line, say what is wrong and what to write', () => {
  const cases: [string, RegExp, RegExp][] = [
    ['0 init\n\n# comment\n0 sendd 1 0 5\n', /bad\.txt:4: unknown action "sendd"/, /isend/],
    ['0 init\nx send 1 0 5\n', /bad\.txt:2: a line must start with a rank/, /<rank> <action>/],
    ['0 init\n0\n', /bad\.txt:2: rank 0 has no action/, /<rank> <action>/],
    ['0 send 1 0 5\n1 recv 0 0 5\n0 send 7 0 5\n', /bad\.txt:3: send: destination 7 is not a rank of this 2-rank trace/, /ranks are 0\.\.1/],
    ['0 send 1 x 5\n1 init\n', /bad\.txt:1: send: tag must be an integer, got "x"/, /argument 2/],
    ['0 compute lots\n', /bad\.txt:1: compute: flops must be a non-negative number, got "lots"/, /e\.g\. 1e6/],
    ['0 compute 1 2\n', /bad\.txt:1: compute takes <flops>, got 2 arguments/, /0 compute <flops>/],
    ['0 bcast 10 0 99\n', /bad\.txt:1: bcast: unknown datatype id "99"/, /0 double/],
    ['0 init\n0 wait\n', /bad\.txt:2: wait not preceded by any isend or irecv/, /outstanding request/],
    ['0 allgatherv 1 1\n1 allgatherv 1 1\n', /bad\.txt:1: allgatherv takes <sendcount> <2 recvcounts>/, /allgatherv/],
    ['0 alltoallv 2 1 1 2 1 1 0\n1 init\n', /bad\.txt:1: alltoallv: one datatype given/, /both/],
    ['0 scan 10 10\n', /bad\.txt:1: unknown action "scan"/, /reducescatter/],
  ];
  for (const [text, message, hint] of cases) {
    const err = parseError(text);
    assert.equal(err.code, ErrorCode.Config);
    assert.match(err.message, message);
    assert.match(err.hint, hint);
  }
  assert.throws(() => parseTiTrace('0 send 5 0 1\n', 'w.txt', { worldSize: 2 }), /w\.txt:1: send: destination 5 is not a rank of this 2-rank trace/);
  assert.throws(() => parseTiTrace('3 init\n', 'w.txt', { worldSize: 2 }), /w\.txt:1: rank 3 is outside the 2-rank world/);
});

test('ti-trace: description-file errors name the description line', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'tsmpi-ti-'));
  await writeFile(join(dir, 'r0.txt'), '0 init\n0 finalize\n');
  await writeFile(join(dir, 'r1.txt'), '0 init\n');
  await writeFile(join(dir, 'missing'), 'r0.txt\nnope.txt\n');
  await writeFile(join(dir, 'wrong-rank'), 'r0.txt\nr1.txt\n');
  await writeFile(join(dir, 'jobs'), 'job0 traces.txt 32 0\n');
  await writeFile(join(dir, 'empty'), '# nothing\n\n');
  await assert.rejects(loadTiTraces(join(dir, 'missing')), (e: TsmpiError) => e.code === ErrorCode.Config && /missing:2: cannot read .*nope\.txt, the trace of rank 1/.test(e.message));
  await assert.rejects(loadTiTraces(join(dir, 'wrong-rank')), /wrong-rank:2: .*r1\.txt has no line for rank 1/);
  await assert.rejects(loadTiTraces(join(dir, 'jobs')), /replay_multiple job line/);
  await assert.rejects(loadTiTraces(join(dir, 'empty')), /no trace lines/);
  await assert.rejects(loadTiTraces(join(dir, 'absent')), /cannot read trace/);
});

// ---- round trip ---------------------------------------------------------------------------

const amount = fc.double({ min: 0, max: 1e15, noNaN: true, noDefaultInfinity: true }).map((v) => (v === 0 ? 0 : v));
const tag = fc.nat({ max: 40000 });

function actionArb(n: number): fc.Arbitrary<Action> {
  const rank = fc.integer({ min: 0, max: n - 1 });
  const source = fc.oneof(rank, fc.constant(-1));
  const anyTag = fc.oneof(tag, fc.constant(-1));
  const counts = fc.array(fc.nat({ max: 1e9 }), { minLength: n, maxLength: n });
  const arbs: fc.Arbitrary<Action>[] = [
    fc.constantFrom<Action>({ op: 'init' }, { op: 'finalize' }, { op: 'waitall' }, { op: 'barrier' }, { op: 'comm_split' }, { op: 'comm_dup' }),
    fc.record({ op: fc.constant('comm_size' as const), size: fc.integer({ min: 1, max: 4096 }) }),
    fc.record({ op: fc.constant('location' as const), file: fc.stringMatching(/^[A-Za-z0-9_./-]{1,12}$/), line: fc.nat() }),
    fc.record({ op: fc.constant('compute' as const), flops: amount }),
    fc.record({ op: fc.constant('sleep' as const), seconds: amount }),
    fc.record({ op: fc.constantFrom('send' as const, 'isend' as const), dst: rank, tag, bytes: amount }),
    fc.record({ op: fc.constantFrom('recv' as const, 'irecv' as const), src: source, tag: anyTag, bytes: amount }),
    fc.record({ op: fc.constantFrom('wait' as const, 'test' as const), src: source, dst: rank, tag: anyTag }),
    fc.record({ op: fc.constant('sendrecv' as const), sendBytes: amount, dst: rank, recvBytes: amount, src: source }),
    fc.record({ op: fc.constant('bcast' as const), bytes: amount, root: rank }),
    fc.record({ op: fc.constant('reduce' as const), bytes: amount, flops: amount, root: rank }),
    fc.record({ op: fc.constant('allreduce' as const), bytes: amount, flops: amount }),
    fc.record({ op: fc.constantFrom('alltoall' as const, 'allgather' as const), sendBytes: amount, recvBytes: amount }),
    fc.record({ op: fc.constantFrom('gather' as const, 'scatter' as const), sendBytes: amount, recvBytes: amount, root: rank }),
    fc.record({ op: fc.constant('gatherv' as const), sendBytes: amount, recvBytes: counts, root: rank }),
    fc.record({ op: fc.constant('allgatherv' as const), sendBytes: amount, recvBytes: counts }),
    fc.record({ op: fc.constant('scatterv' as const), sendBytes: counts, recvBytes: amount, root: rank }),
    fc.record({ op: fc.constant('alltoallv' as const), sendBytes: counts, recvBytes: counts }),
    fc.record({ op: fc.constant('reducescatter' as const), recvBytes: counts, flops: amount }),
  ];
  return fc.oneof(...arbs).map((a) => ({ ...a }) as Action); // plain objects: fc.record builds null-prototype ones
}

const programArb = fc.integer({ min: 1, max: 5 }).chain((n) =>
  fc.array(fc.array(actionArb(n), { maxLength: 12 }), { minLength: n, maxLength: n }).map((lists) => ({ n, program: new Map(lists.map((l, r) => [r, l])) })));

test('ti-trace: parse(format(x)) == x for random programs', () => {
  fc.assert(fc.property(programArb, ({ n, program }) => {
    const text = formatTiTrace(program);
    // a rank with no action leaves no line, so the world size comes from outside, as -np gives it to SimGrid
    assert.deepStrictEqual(parseTiTrace(text, 'roundtrip.txt', { worldSize: n }), program);
  }), { numRuns: 300 });
});

test('ti-trace: the writer emits SimGrid\'s current forms and refuses what SimGrid cannot read', () => {
  const text = formatTiTrace(new Map<number, Action[]>([
    [0, [{ op: 'init' }, { op: 'irecv', src: -1, tag: -1, bytes: 8 }, { op: 'wait', src: -1, dst: 0, tag: -1 }, { op: 'alltoallv', sendBytes: [1, 2], recvBytes: [3, 4] }]],
    [1, [{ op: 'isend', dst: 0, tag: 7, bytes: 1e21 }]],
  ]));
  assert.match(text, /^0 irecv -555 -444 8$/m);
  assert.match(text, /^0 wait -555 0 -444$/m);
  assert.match(text, /^0 alltoallv 3 1 2 7 3 4$/m);
  assert.match(text, /^1 isend 0 7 1e\+21$/m);
  assert.throws(() => formatTiTrace(new Map([[0, [{ op: 'send', dst: 0, tag: 1.5, bytes: 1 } as Action]]])), /rank 0 action 0 \(send\): tag cannot be written/);
  assert.throws(() => formatTiTrace(new Map([[0, [{ op: 'gatherv', sendBytes: 1, recvBytes: [1, 2], root: 0 } as Action]]])), /one per rank of 1/);
});
