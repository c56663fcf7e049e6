// Hostfiles as smpirun reads them: host or host:N per line, blank lines skipped, rank r on slot
// r mod slots; errors name the file, the line and the platform's hosts.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { TsmpiError } from '../../src/errors.ts';
import { parseHostfile, placeByHostfile } from '../../src/sim/platform/hostfile.ts';

const hostName = fc.stringMatching(/^[a-z][a-z0-9.-]{0,11}$/);
const entry = fc.record({ name: hostName, count: fc.option(fc.integer({ min: 0, max: 5 }), { nil: undefined }), blanksAfter: fc.nat(2), pad: fc.boolean() });

test('hostfile: host and host:N lines unroll in order, blank lines and padding skipped', () => {
  fc.assert(
    fc.property(fc.array(entry, { minLength: 1, maxLength: 20 }), (entries) => {
      const expected = entries.flatMap((e) => Array<string>(e.count ?? 1).fill(e.name));
      fc.pre(expected.length > 0);
      const text = entries.map((e) => `${e.pad ? '  ' : ''}${e.name}${e.count === undefined ? '' : `:${e.count}`}${e.pad ? ' \r' : ''}\n${'\n'.repeat(e.blanksAfter)}`).join('');
      assert.deepEqual(parseHostfile(text, 'h.txt'), expected);
    }),
    { numRuns: 300 },
  );
});

test('hostfile: rank r runs on slot r mod slots', () => {
  fc.assert(
    fc.property(fc.array(fc.constantFrom('a', 'b', 'c', 'd'), { minLength: 1, maxLength: 10 }), fc.integer({ min: 1, max: 40 }), (slots, np) => {
      const ids: Record<string, number> = { a: 0, b: 1, c: 2, d: 3 };
      const placed = placeByHostfile(slots, np, (n) => ids[n], () => Object.keys(ids), 'h.txt');
      assert.equal(placed.length, np);
      placed.forEach((host, r) => assert.equal(host, ids[slots[r % slots.length]!]));
    }),
  );
});

test('hostfile: errors name the file, the line and the hosts the platform has', () => {
  assert.throws(() => parseHostfile('a\nb:x\n', 'h.txt'), (e: TsmpiError) => /h\.txt:2: "b:x" is not a host or host:count/.test(e.message) && /host:N/.test(e.hint));
  assert.throws(() => parseHostfile('\n \n', 'h.txt'), /h\.txt: no hosts/);
  assert.throws(
    () => placeByHostfile(['node-0', 'nope'], 2, (n) => (n === 'node-0' ? 0 : undefined), () => ['node-0', 'node-1', 'node-2', 'node-3', 'node-4'], 'h.txt'),
    (e: TsmpiError) => /h\.txt: host "nope" is not in the platform/.test(e.message) && /node-0, node-1, node-2, node-3, \.\.\. \(5 hosts\)/.test(e.hint),
  );
});
