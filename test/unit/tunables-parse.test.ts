// Every tunable parses its documented forms and rejects the rest with an error naming the variable.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ErrorCode, TsmpiError } from '../../src/errors.ts';
import { readSettings, tunables, type Tunable } from '../../src/config/tunables.ts';
import { parseSimRails } from '../../src/rails/rail-config.ts';

test('tunables: defaults depend on ranks per process and cores', () => {
  assert.equal(readSettings({}, { localRanks: 2, cores: 2 }).spinMicros, 200);
  assert.equal(readSettings({}, { localRanks: 8, cores: 2 }).spinMicros, 10);
  // The event loop turns for a rank with TCP peers only while the machine's ranks fit its cores.
  assert.equal(readSettings({}, { localRanks: 1, cores: 2, remotePeers: true, hostRanks: 2 }).socketSpinMicros, 50);
  assert.equal(readSettings({}, { localRanks: 1, cores: 2, remotePeers: true, hostRanks: 4 }).socketSpinMicros, 0);
  assert.equal(readSettings({}, { localRanks: 2, cores: 2, remotePeers: false }).socketSpinMicros, 0);
  assert.equal(readSettings({}, { localRanks: 4, cores: 2, remotePeers: true }).socketSpinMicros, 0, 'without hostRanks, the process\'s own ranks count');
  // Yielding between polls only for rank threads that outnumber the cores, and without sockets.
  assert.equal(readSettings({}, { localRanks: 4, cores: 2, remotePeers: false }).yieldSpinMicros, 2000);
  assert.equal(readSettings({}, { localRanks: 2, cores: 2 }).jitOnRank, 'on', 'ranks that fill the cores compile in place');
  assert.equal(readSettings({}, { localRanks: 1, cores: 2 }).jitOnRank, 'off');
  assert.equal(readSettings({}, { localRanks: 1, cores: 2, remotePeers: true, hostRanks: 2 }).jitOnRank, 'on', "the machine's ranks count");
  assert.equal(readSettings({}, { localRanks: 1, cores: 4, remotePeers: true, hostRanks: 3 }).jitOnRank, 'off');
  assert.equal(readSettings({}, { localRanks: 2, cores: 2, remotePeers: false }).yieldSpinMicros, 0);
  assert.equal(readSettings({}, { localRanks: 4, cores: 2, remotePeers: true }).yieldSpinMicros, 0);
  assert.equal(readSettings({}, { localRanks: 4, cores: 2, remotePeers: false, threadRanks: 2 }).yieldSpinMicros, 0);
  assert.equal(readSettings({}, { localRanks: 8, cores: 2 }).ringBytes, 1 << 20);
  assert.equal(readSettings({}, { localRanks: 64, cores: 2 }).ringBytes, 256 << 10);
  assert.equal(readSettings({}, { localRanks: 128, cores: 2 }).ringBytes, 64 << 10);
});

const valid: [string, string, string, unknown][] = [
  ['TSMPI_SPIN_US', '0', 'spinMicros', 0],
  ['TSMPI_SPIN_US', '12.5', 'spinMicros', 12.5],
  ['TSMPI_SOCKET_SPIN_US', '0', 'socketSpinMicros', 0],
  ['TSMPI_SOCKET_SPIN_US', '300', 'socketSpinMicros', 300],
  ['TSMPI_YIELD_US', '0', 'yieldSpinMicros', 0],
  ['TSMPI_YIELD_US', '250', 'yieldSpinMicros', 250],
  ['TSMPI_JIT_ON_RANK', 'on', 'jitOnRank', 'on'],
  ['TSMPI_JIT_ON_RANK', 'all', 'jitOnRank', 'all'],
  ['TSMPI_JIT_ON_RANK', 'off', 'jitOnRank', 'off'],
  ['TSMPI_SHM_RING_BYTES', '64k', 'ringBytes', 65536],
  ['TSMPI_SHM_RING_BYTES', '100000', 'ringBytes', 131072],
  ['TSMPI_SHM_RING_BYTES', '2MiB', 'ringBytes', 2097152],
  ['TSMPI_EAGER_LIMIT', '4096', 'eagerLimit', 4096],
  ['TSMPI_CHUNK_BYTES', '32k', 'chunkBytes', 32768],
  ['TSMPI_HANG_TIMEOUT', '2.5', 'hangTimeout', 2.5],
  ['TSMPI_COLL_ALLREDUCE', 'ring', 'collAllreduce', 'ring'],
  ['TSMPI_COLL_RULES', 'simgrid', 'collRules', 'simgrid'],
  ['TSMPI_COLL_ALLTOALL', 'bruck', 'collAlltoall', 'bruck'],
];

for (const [env, text, name, value] of valid) {
  test(`tunables: ${env}=${text} reads as ${String(value)}`, () => {
    assert.equal(readSettings({ [env]: text })[name as keyof ReturnType<typeof readSettings>], value);
  });
}

const invalid: [string, string][] = [
  ['TSMPI_SPIN_US', '-1'],
  ['TSMPI_SPIN_US', 'fast'],
  ['TSMPI_SOCKET_SPIN_US', '-3'],
  ['TSMPI_SHM_RING_BYTES', '1k'],
  ['TSMPI_SHM_RING_BYTES', '1G'],
  ['TSMPI_SHM_RING_BYTES', 'lots'],
  ['TSMPI_EAGER_LIMIT', '-5'],
  ['TSMPI_CHUNK_BYTES', '10'],
  ['TSMPI_HANG_TIMEOUT', 'never'],
  ['TSMPI_COLL_BCAST', 'magic'],
  ['TSMPI_COLL_RULES', 'openmpi'],
  ['TSMPI_STDIN', 'first'],
  ['TSMPI_STDIN', '-1'],
  ['TSMPI_STDIN', '1.5'],
];

for (const [env, text] of invalid) {
  test(`tunables: ${env}=${text} is refused with a hint`, () => {
    assert.throws(
      () => readSettings({ [env]: text }),
      (e: unknown) => e instanceof TsmpiError && e.code === ErrorCode.Config && e.message.includes(env) && e.message.includes(JSON.stringify(text)) && e.hint.startsWith(`set ${env} to`),
    );
  });
}

test('tunables: every tunable has a TSMPI_ variable, a description and a default text', () => {
  for (const [name, t] of Object.entries(tunables)) {
    assert.match(t.env, /^TSMPI_[A-Z][A-Z0-9_]*$/, name);
    assert.ok(t.description.length > 20, name);
    assert.ok(t.defaultText.length > 0, name);
  }
});

test('tunables: the value tsmpi info prints is one the variable accepts, and reads back the same', () => {
  const contexts = [{ localRanks: 1, cores: 2 }, { localRanks: 8, cores: 2 }, { localRanks: 1, cores: 2, remotePeers: true, hostRanks: 2 }];
  for (const ctx of contexts) {
    const settings = readSettings({}, ctx) as Record<string, unknown>;
    for (const [name, t] of Object.entries(tunables) as [string, Tunable<unknown>][]) {
      const value = settings[name];
      const printed = t.format?.(value) ?? String(value);
      if (printed === '') continue; // an empty variable means the default
      assert.deepEqual(t.parse(printed), value, `${t.env}=${printed}`);
    }
  }
  // Switches print the words their variables take, not true/false.
  assert.equal(tunables.sourceMaps.format(true), '1');
  assert.equal(tunables.check.format(false), '0');
});

test('TSMPI_RAILS under the simulator: platform rails by name or index, rates as in a real run', () => {

  assert.deepEqual(parseSimRails('', 2, [1e8, 2.5e7]), [{ rail: 0, rate: 1e8 }, { rail: 1, rate: 2.5e7 }]);
  assert.deepEqual(parseSimRails('rail1@200mbit,0', 2), [{ rail: 1, rate: 2.5e7 }, { rail: 0, rate: 0 }]);
  assert.throws(() => parseSimRails('rail2', 2), /"rail2" is not a rail of the simulated platform \(it has 2: rail0, rail1\)/);
  assert.throws(() => parseSimRails('eth0', 2), /"eth0" is not a rail/);
  assert.throws(() => parseSimRails('rail0,0', 2), /lists rail0 twice/);
  assert.throws(() => parseSimRails('rail0@fast', 2), /rate "fast" is not valid/);
});

test('the TCP eager limit defaults to 1 MiB in a real run and to 64 KiB under the simulator, and a given value wins in both', () => {
  assert.equal(readSettings({}, { localRanks: 1, cores: 2, remotePeers: true }).tcpEagerLimit, 1024 * 1024);
  assert.equal(readSettings({}, { localRanks: 1, cores: 2, remotePeers: true, simulated: true }).tcpEagerLimit, 64 * 1024);
  for (const simulated of [false, true]) assert.equal(readSettings({ TSMPI_TCP_EAGER_LIMIT: '256k' }, { simulated }).tcpEagerLimit, 256 * 1024);
  // Shared memory's eager limit is the same in both.
  assert.equal(readSettings({}, { simulated: true }).eagerLimit, readSettings({}).eagerLimit);
});

test('TCP reads go into a reused buffer while the machine\'s ranks fit its cores, into fresh ones past that; a given value wins; a bad one is named', () => {
  assert.equal(readSettings({}, { localRanks: 1, cores: 2, remotePeers: true, hostRanks: 2 }).tcpReadBuffer, 'reused');
  assert.equal(readSettings({}, { localRanks: 1, cores: 2, remotePeers: true, hostRanks: 4 }).tcpReadBuffer, 'fresh');
  assert.equal(readSettings({}, { localRanks: 4, cores: 2, remotePeers: true }).tcpReadBuffer, 'fresh', "without hostRanks, the process's own ranks count");
  assert.equal(readSettings({ TSMPI_TCP_READ_BUFFER: 'reused' }, { localRanks: 1, cores: 2, remotePeers: true, hostRanks: 8 }).tcpReadBuffer, 'reused');
  assert.equal(readSettings({ TSMPI_TCP_READ_BUFFER: 'fresh' }, { localRanks: 1, cores: 2, remotePeers: true, hostRanks: 2 }).tcpReadBuffer, 'fresh');
  assert.throws(() => readSettings({ TSMPI_TCP_READ_BUFFER: 'big' }), /TSMPI_TCP_READ_BUFFER/);
});
