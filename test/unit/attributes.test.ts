// Attribute caching (src/comm/attributes.ts) without a job: what set, get, delete, copy and
// clear do with each key's callbacks, and which keys they refuse.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AttributeStore, createKeyval, freeKeyval, KEYVAL_INVALID } from '../../src/comm/attributes.ts';
import { TsmpiError } from '../../src/errors.ts';

type Obj = { name: string };
const a: Obj = { name: 'a' };
const b: Obj = { name: 'b' };

test('set replaces a value after deleting the old one; delete and clear run the delete callback in set order', () => {
  const deleted: string[] = [];
  const k1 = createKeyval<Obj>('thing', false, (o, k, v) => deleted.push(`${o.name}:${k === k1 ? 'k1' : 'k2'}:${String(v)}`));
  const k2 = createKeyval<Obj>('thing', false, (o, _k, v) => deleted.push(`${o.name}:k2:${String(v)}`));
  const store = new AttributeStore<Obj>('thing');
  assert.equal(store.get(k1), undefined);
  store.set(a, k1, 1);
  store.set(a, k1, 2);
  assert.deepEqual(deleted, ['a:k1:1']);
  assert.equal(store.get(k1), 2);
  store.set(a, k2, 'x');
  store.clear(a);
  assert.deepEqual(deleted, ['a:k1:1', 'a:k1:2', 'a:k2:x']);
  assert.equal(store.get(k1), undefined);
  store.delete(a, k1); // nothing set: no callback
  assert.equal(deleted.length, 3);
});

test('copy: true copies the value, false nothing, a function its result (undefined: nothing; a promise: awaited)', async () => {
  const same = createKeyval<Obj>('thing', true);
  const none = createKeyval<Obj>('thing', false);
  const doubled = createKeyval<Obj>('thing', (o, _k, v) => (o === a ? (v as number) * 2 : undefined));
  const skipped = createKeyval<Obj>('thing', () => undefined);
  const later = createKeyval<Obj>('thing', async (_o, _k, v) => `${String(v)} later`);
  const source = new AttributeStore<Obj>('thing');
  const value = { big: true };
  source.set(a, same, value);
  source.set(a, none, 'n');
  source.set(a, doubled, 21);
  source.set(a, skipped, 's');
  source.set(a, later, 'copied');
  const target = new AttributeStore<Obj>('thing');
  const pending = source.copyInto(a, target);
  assert.ok(pending instanceof Promise);
  await pending;
  assert.equal(target.get(same), value);
  assert.equal(target.get(none), undefined);
  assert.equal(target.get(doubled), 42);
  assert.equal(target.get(skipped), undefined);
  assert.equal(target.get(later), 'copied later');
  assert.equal(new AttributeStore<Obj>('thing').copyInto(b, new AttributeStore<Obj>('thing')), undefined);
});

test('a freed key takes no new attribute but reads and deletes what it has; a key of another kind is refused', () => {
  const deleted: unknown[] = [];
  const key = createKeyval<Obj>('thing', false, (_o, _k, v) => deleted.push(v));
  const store = new AttributeStore<Obj>('thing');
  store.set(a, key, 'kept');
  assert.equal(freeKeyval('thing', key), KEYVAL_INVALID);
  assert.throws(() => freeKeyval('thing', key), TsmpiError);
  assert.throws(() => store.set(a, key, 'new'), TsmpiError);
  assert.equal(store.get(key), 'kept');
  store.delete(a, key);
  assert.deepEqual(deleted, ['kept']);
  const other = createKeyval('other');
  assert.throws(() => store.set(a, other, 1), TsmpiError);
  assert.throws(() => store.get(12345), TsmpiError);
  assert.throws(() => createKeyval('thing', 'yes' as unknown as boolean), TsmpiError);
});
