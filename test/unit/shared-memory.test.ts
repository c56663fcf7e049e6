// Each thread's registry of shared allocations (allocMem's memory): the other threads are told of
// an allocation, of its freeing, and of its collection once the program drops it, so that no
// thread keeps another's memory alive for ever. The other threads are stood in for by a second
// channel of the same name in this thread (a BroadcastChannel delivers to every other instance).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { BroadcastChannel } from 'node:worker_threads';
import { allocateShared, freeShared, sharedAllocation, sharedAllocationCounts, sharedReference } from '../../src/transport/shared-memory.ts';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const turns = async (n: number): Promise<void> => {
  for (let i = 0; i < n; i++) await new Promise<void>((resolve) => setTimeout(resolve, 5));
};

test('shared allocations: announced, referenced, freed once, and forgotten when collected', async () => {
  const heard: { key?: number; buffer?: SharedArrayBuffer; freed?: boolean }[] = [];
  const other = new BroadcastChannel(`tsmpi-shared-memory:${process.pid}`);
  other.onmessage = (event: unknown) => heard.push((event as { data: (typeof heard)[number] }).data);
  try {
    const kept = new Float64Array(allocateShared(64));
    const reference = sharedReference(new Uint8Array(kept.buffer, 8, 16));
    assert.ok(reference !== undefined);
    assert.equal(reference.byteOffset, 8);
    assert.equal(sharedAllocation(reference.key), kept.buffer);
    assert.equal(sharedReference(new Uint8Array(64)), undefined, 'an ordinary array has no reference');

    (() => {
      for (let i = 0; i < 5; i++) allocateShared(1024); // dropped at once
    })();
    await turns(2);
    const announced = heard.filter((m) => m.buffer !== undefined).map((m) => m.key!);
    assert.equal(announced.length, 6);
    assert.ok(announced.includes(reference.key));

    for (let i = 0; i < 10 && sharedAllocationCounts().own > 1; i++) {
      gc();
      await turns(2);
    }
    assert.equal(sharedAllocationCounts().own, 1, 'the dropped allocations were not forgotten');
    const freed = heard.filter((m) => m.freed === true).map((m) => m.key!);
    assert.deepEqual(freed.sort(), announced.filter((k) => k !== reference.key).sort());

    assert.equal(freeShared(kept.buffer), true);
    assert.equal(freeShared(kept.buffer), false, 'freed twice');
    assert.equal(freeShared(new ArrayBuffer(8)), false);
    await turns(2);
    assert.ok(heard.some((m) => m.freed === true && m.key === reference.key));
    assert.equal(sharedReference(new Uint8Array(kept.buffer)), undefined, 'a freed allocation has no reference');
    assert.equal(sharedAllocationCounts().own, 0);
  } finally {
    other.close();
  }
});
