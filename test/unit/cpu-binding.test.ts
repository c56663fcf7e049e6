// CPU lists as the kernel writes them, and which CPU each rank thread is bound to.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import fc from 'fast-check';
import { allowedCpus, cpuForThread, formatCpuList, parseCpuList } from '../../src/bootstrap/cpu-binding.ts';

test('CPU lists: the kernel\'s forms parse, bad ones are refused', () => {
  assert.deepEqual(parseCpuList('0'), [0]);
  assert.deepEqual(parseCpuList('0-3'), [0, 1, 2, 3]);
  assert.deepEqual(parseCpuList('0-1,4,6-7\n'), [0, 1, 4, 6, 7]);
  assert.deepEqual(parseCpuList('5,1,3-3'), [1, 3, 5]);
  assert.deepEqual(parseCpuList(''), []);
  for (const bad of ['a', '1-', '-1', '3-1', '1,,2', '1 2']) assert.throws(() => parseCpuList(bad), RangeError, bad);
});

test('CPU lists: format then parse gives the set back, in order, with runs as ranges (property)', () => {
  fc.assert(
    fc.property(fc.uniqueArray(fc.integer({ min: 0, max: 300 }), { maxLength: 60 }), (cpus) => {
      const text = formatCpuList(cpus);
      assert.deepEqual(parseCpuList(text), [...cpus].sort((a, b) => a - b));
      // The shortest form: no two parts could merge.
      const parts = text === '' ? [] : text.split(',').map((p) => p.split('-').map(Number));
      for (let i = 1; i < parts.length; i++) assert.ok(parts[i]![0]! > parts[i - 1]!.at(-1)! + 1, text);
    }),
  );
});

test('the allowed CPUs come from Cpus_allowed_list; none without /proc', () => {
  assert.deepEqual(allowedCpus('Name:\tnode\nCpus_allowed:\tf\nCpus_allowed_list:\t0-2,5\nMems_allowed:\t1\n'), [0, 1, 2, 5]);
  assert.deepEqual(allowedCpus(''), []);
  let status = '';
  try {
    status = readFileSync('/proc/self/status', 'utf8');
  } catch {
    return;
  }
  assert.ok(allowedCpus(status).length >= 1);
});

test('auto binds 2 or more threads that fit the CPUs, one each, in order; core always; none never', () => {
  const cpus = [2, 3, 6, 7];
  assert.deepEqual([0, 1, 2, 3].map((p) => cpuForThread('auto', p, 4, cpus)), [2, 3, 6, 7]);
  assert.deepEqual([0, 1].map((p) => cpuForThread('auto', p, 2, cpus)), [2, 3]);
  assert.equal(cpuForThread('auto', 0, 1, cpus), undefined, 'a lone rank thread stays free');
  assert.equal(cpuForThread('auto', 0, 5, cpus), undefined, 'more threads than CPUs: the kernel places them');
  assert.deepEqual([0, 1, 2, 3, 4].map((p) => cpuForThread('core', p, 5, cpus)), [2, 3, 6, 7, 2], 'core: round robin');
  assert.equal(cpuForThread('none', 0, 2, cpus), undefined);
  assert.equal(cpuForThread('core', 0, 2, []), undefined, 'no CPU list (not Linux): unbound');
  assert.equal(cpuForThread('core', -1, 2, cpus), undefined, 'a thread without a place (not a member)');
});
