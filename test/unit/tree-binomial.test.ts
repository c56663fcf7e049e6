// Binomial trees and block partitions used by the collectives, checked for every size up to 70.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { blockOffsets, floorPowerOfTwo } from '../../src/comm/collectives/call.ts';
import { binomialChildren, binomialParent, ceilPowerOfTwo, hasBinomialChildren } from '../../src/comm/collectives/tree.ts';

test('binomial tree: every vrank but 0 has exactly one parent, which lists it as a child', () => {
  for (let size = 1; size <= 70; size++) {
    const seen = new Array(size).fill(0);
    for (let v = 0; v < size; v++) for (const child of binomialChildren(v, size)) {
      assert.equal(binomialParent(child).parent, v, `size ${size}: parent of ${child}`);
      seen[child]++;
    }
    assert.deepStrictEqual(seen, [0, ...new Array(size - 1).fill(1)], `size ${size}`);
    for (let v = 0; v < size; v++) assert.equal(hasBinomialChildren(v, size), binomialChildren(v, size).length > 0, `size ${size}: has vrank ${v} children`);
    assert.equal(binomialParent(0).parent, -1);
  }
});

test('binomial tree: a subtree spans [v, v + lowbit(v)) clipped to the size', () => {
  const span = (v: number, size: number): number[] => [v, ...binomialChildren(v, size).flatMap((c) => span(c, size))];
  for (let size = 1; size <= 70; size++) {
    assert.deepStrictEqual(span(0, size).sort((a, b) => a - b), Array.from({ length: size }, (_, i) => i));
    for (let v = 1; v < size; v++) {
      const members = span(v, size).sort((a, b) => a - b);
      const end = Math.min(size, v + (v & -v));
      assert.deepStrictEqual(members, Array.from({ length: end - v }, (_, i) => v + i), `size ${size} vrank ${v}`);
    }
  }
});

test('block offsets partition a length into nearly equal blocks', () => {
  assert.deepStrictEqual(blockOffsets(10, 3), [0, 4, 7, 10]);
  assert.deepStrictEqual(blockOffsets(2, 4), [0, 1, 2, 2, 2]);
  assert.deepStrictEqual(blockOffsets(0, 2), [0, 0, 0]);
  assert.equal(floorPowerOfTwo(7), 4);
  assert.equal(floorPowerOfTwo(8), 8);
  assert.equal(ceilPowerOfTwo(5), 8);
  assert.equal(ceilPowerOfTwo(1), 1);
});
