// Hostfiles and -H lists as Open MPI 4.1's mpirun reads them, and the mapping of ranks to hosts
// (--map-by slot|node, --oversubscribe, max_slots), then to processes.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { TsmpiError } from '../../src/errors.ts';
import { parseHostfile, parseHostList } from '../../src/bootstrap/mpirun-hosts.ts';
import { mapRanks, placeProcesses, type HostSlots } from '../../src/bootstrap/rank-mapping.ts';

const hostName = fc.stringMatching(/^[a-z][a-z0-9.-]{0,11}$/);

test('hostfile: host slots=N lines, comments, blanks, user@host and max_slots', () => {
  const text = '# the cluster\n\nnode1 slots=4   # the big one\n  root@node2 slots=2 max_slots=3\n198.18.64.3 cpus=1\r\nnode4 max-slots=2\n';
  assert.deepEqual(parseHostfile(text, 'hf'), [
    { name: 'node1', target: 'node1', slots: 4, maxSlots: undefined, origin: 'hf:3' },
    { name: 'node2', target: 'root@node2', slots: 2, maxSlots: 3, origin: 'hf:4' },
    { name: '198.18.64.3', target: '198.18.64.3', slots: 1, maxSlots: undefined, origin: 'hf:5' },
    { name: 'node4', target: 'node4', slots: undefined, maxSlots: 2, origin: 'hf:6' },
  ]);
});

test('hostfile: a host on one line without slots has its cores (undefined); on k such lines, k slots', () => {
  fc.assert(
    fc.property(fc.array(fc.record({ name: fc.constantFrom('a', 'b', 'c'), pad: fc.boolean(), comment: fc.boolean() }), { minLength: 1, maxLength: 12 }), (lines) => {
      const text = lines.map((l) => `${l.pad ? '  ' : ''}${l.name}${l.comment ? ' # x' : ''}`).join('\n');
      const hosts = parseHostfile(text, 'f');
      const order = [...new Set(lines.map((l) => l.name))];
      assert.deepEqual(hosts.map((h) => h.name), order);
      for (const h of hosts) {
        const k = lines.filter((l) => l.name === h.name).length;
        assert.equal(h.slots, k === 1 ? undefined : k);
      }
    }),
    { numRuns: 300 },
  );
});

test('hostfile: errors name the file and line', () => {
  const cases: [string, RegExp][] = [
    ['a slots=2\na slots=3\n', /f:1: host a is on 2 lines \(f:1, f:2\) and its slots are given/],
    ['a\nb slots=x\n', /f:2: slots=x is not a whole number >= 0/],
    ['a slot=2\n', /f:1: "slot=2" is not slots=N or max_slots=N/],
    ['a slots=4 max_slots=2\n', /f:1: max_slots=2 is below slots=4/],
    ['# nothing\n\n', /f: names no host/],
    ['no/such slots=1\n', /f:1: "no\/such" is not a host name or address/],
  ];
  for (const [text, message] of cases) {
    assert.throws(() => parseHostfile(text, 'f'), (e: unknown) => e instanceof TsmpiError && e.code === 'TSMPI_ERR_ARG' && message.test(e.message), text);
  }
});

test('-H: host[:N], N = 1 when absent, a host named again adds its slots, order of first mention', () => {
  fc.assert(
    fc.property(fc.array(fc.record({ name: hostName, n: fc.option(fc.integer({ min: 1, max: 9 }), { nil: undefined }) }), { minLength: 1, maxLength: 10 }), (entries) => {
      const hosts = parseHostList(entries.map((e) => (e.n === undefined ? e.name : `${e.name}:${e.n}`)).join(','));
      assert.deepEqual(hosts.map((h) => h.name), [...new Set(entries.map((e) => e.name))]);
      for (const h of hosts) assert.equal(h.slots, entries.filter((e) => e.name === h.name).reduce((s, e) => s + (e.n ?? 1), 0));
    }),
    { numRuns: 300 },
  );
  assert.throws(() => parseHostList('a:0'), /-H: "a:0": slots must be a whole number >= 1/);
  assert.throws(() => parseHostList('a,,b'), /has an empty entry/);
  assert.deepEqual(parseHostList('me@a:2')[0], { name: 'a', target: 'me@a', slots: 2, maxSlots: undefined, origin: '-H' });
});

const hostsArb = fc.array(fc.record({ slots: fc.integer({ min: 0, max: 5 }), cap: fc.option(fc.integer({ min: 0, max: 4 }), { nil: undefined }) }), { minLength: 1, maxLength: 6 }).map((list) =>
  list.map((h, i): HostSlots => ({ name: `h${i}`, slots: h.slots, maxSlots: h.cap === undefined ? undefined : h.slots + h.cap })),
);

test('map-by: every rank gets a host; slots are respected unless oversubscribing, max_slots always', () => {
  fc.assert(
    fc.property(hostsArb, fc.integer({ min: 1, max: 30 }), fc.constantFrom('slot' as const, 'node' as const), fc.boolean(), (hosts, np, mapBy, over) => {
      const total = hosts.reduce((s, h) => s + h.slots, 0);
      const room = hosts.reduce((s, h) => s + (h.maxSlots ?? Infinity), 0);
      if ((np > total && !over) || np > room) {
        assert.throws(() => mapRanks(hosts, np, mapBy, over), TsmpiError);
        return;
      }
      const map = mapRanks(hosts, np, mapBy, over);
      assert.equal(map.length, np);
      const counts = hosts.map((_, i) => map.filter((h) => h === i).length);
      counts.forEach((c, i) => {
        if (np <= total) assert.ok(c <= hosts[i]!.slots, `host ${i}: ${c} > ${hosts[i]!.slots} slots`);
        assert.ok(c <= (hosts[i]!.maxSlots ?? Infinity));
      });
      if (np <= total && mapBy === 'slot') {
        // Fill in order: a host gets ranks only once every earlier host is full.
        counts.forEach((c, i) => {
          if (c > 0) for (let j = 0; j < i; j++) assert.equal(counts[j], hosts[j]!.slots);
        });
      }
      if (mapBy === 'slot') {
        // Consecutive ranks share a host: each host's ranks are one block.
        for (let r = 1; r < np; r++) if (map[r] !== map[r - 1]) assert.ok(!map.slice(0, r).includes(map[r]!), `host ${map[r]} reappears at rank ${r}`);
      }
    }),
    { numRuns: 500 },
  );
});

test('map-by node deals ranks one per host in turn; map-by slot fills a host first', () => {
  const hosts: HostSlots[] = ['a', 'b', 'c'].map((name) => ({ name, slots: 2, maxSlots: undefined }));
  assert.deepEqual(mapRanks(hosts, 6, 'node', false), [0, 1, 2, 0, 1, 2]);
  assert.deepEqual(mapRanks(hosts, 5, 'slot', false), [0, 0, 1, 1, 2]);
  assert.deepEqual(mapRanks([{ name: 'a', slots: 1, maxSlots: undefined }, { name: 'b', slots: 3, maxSlots: undefined }], 4, 'node', false), [0, 1, 1, 1]);
  assert.deepEqual(mapRanks(hosts, 8, 'slot', true), [0, 0, 0, 1, 1, 1, 2, 2]);
  assert.throws(() => mapRanks(hosts, 7, 'slot', false), /7 ranks asked for, but the hosts have 6 slots \(a: 2, b: 2, c: 2\)/);
});

test('processes: runs of consecutive ranks on one host, at most K each', () => {
  fc.assert(
    fc.property(fc.array(fc.integer({ min: 0, max: 3 }), { minLength: 1, maxLength: 40 }), fc.option(fc.integer({ min: 1, max: 5 }), { nil: undefined }), (map, k) => {
      const procs = placeProcesses(map, k);
      let next = 0;
      for (const p of procs) {
        assert.equal(p.first, next);
        assert.ok(p.count >= 1 && p.count <= (k ?? Infinity));
        for (let r = p.first; r < p.first + p.count; r++) assert.equal(map[r], p.host);
        next += p.count;
      }
      assert.equal(next, map.length);
      // Maximal: two neighbouring processes on one host only when the first is full.
      for (let i = 1; i < procs.length; i++) if (procs[i]!.host === procs[i - 1]!.host) assert.equal(procs[i - 1]!.count, k);
    }),
    { numRuns: 300 },
  );
});
