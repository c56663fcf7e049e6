// On-demand initialisation (seed 5) as pure functions: who is a member, the new ranks, the
// compacted job lists, and every error a mapping file can carry.
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import fc from 'fast-check';
import { compact, parseMappingFile, participation, ruleFromEnv, whyNotMember } from '../../src/bootstrap/participation.ts';
import { ErrorCode, TsmpiError } from '../../src/errors.ts';

test('participation: cg_per_process = k keeps ids % k == 0 as ranks id / k', () => {
  const part = participation({ kind: 'stride', k: 4 }, 10);
  assert.deepStrictEqual(part.members, [0, 4, 8]);
  assert.deepStrictEqual(Array.from(part.rankOf), [0, -1, -1, -1, 1, -1, -1, -1, 2, -1]);
  assert.deepStrictEqual(compact(['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j'], part), ['a', 'e', 'i']);
  assert.equal(whyNotMember(part, 5), 'TSMPI_CG_PER_PROCESS=4: resource id 5 % 4 != 0');
  fc.assert(
    fc.property(fc.integer({ min: 1, max: 300 }), fc.integer({ min: 1, max: 20 }), (n, k) => {
      const p = participation(k === 1 ? { kind: 'all' } : { kind: 'stride', k }, n);
      assert.equal(p.members.length, Math.ceil(n / k));
      p.members.forEach((id, rank) => assert.ok(id % k === 0 && id / k === rank));
    }),
  );
});

test('participation: k = 1 and the identity mapping equal plain init', () => {
  const plain = participation({ kind: 'all' }, 7);
  assert.deepStrictEqual(participation(ruleFromEnv({ TSMPI_CG_PER_PROCESS: '1' }, 7), 7).members, plain.members);
  assert.deepStrictEqual(participation({ kind: 'mapping', ids: [0, 1, 2, 3, 4, 5, 6], source: 'm' }, 7).rankOf, plain.rankOf);
});

test('participation: a mapping file permutes ranks by line order', () => {
  const ids = parseMappingFile('# new rank 0 is resource 5\n5\n\n2  # comment\n0\n', 'map.txt', 8);
  assert.deepStrictEqual(ids, [5, 2, 0]);
  const part = participation({ kind: 'mapping', ids, source: 'map.txt' }, 8);
  assert.equal(part.rankOf[5], 0);
  assert.equal(part.rankOf[2], 1);
  assert.equal(part.rankOf[0], 2);
  assert.equal(part.rankOf[1], -1);
  assert.match(whyNotMember(part, 1), /does not list resource id 1/);
});

const bad: [string, string, RegExp][] = [
  ['duplicate', '1\n2\n1\n', /map\.txt:3: resource id 1 is listed twice \(first on line 1\)/],
  ['unknown id', '1\n9\n', /map\.txt:2: resource id 9 is not in this job of 4 processes/],
  ['not an id', '1\nfoo\n', /map\.txt:2: "foo" is not a resource id/],
  ['negative', '-1\n', /map\.txt:1: "-1" is not a resource id/],
  ['empty', '# nothing\n\n', /map\.txt lists no resource ids/],
];
for (const [what, text, message] of bad) {
  test(`participation: a mapping file with a ${what} is refused`, () => {
    assert.throws(() => parseMappingFile(text, 'map.txt', 4), (e: unknown) => e instanceof TsmpiError && e.code === ErrorCode.Config && message.test(e.message) && e.hint.length > 0);
  });
}

test('participation: the rule comes from the environment, with errors that name the variable', () => {
  const dir = mkdtempSync(join(tmpdir(), 'tsmpi-map-'));
  const file = join(dir, 'map.txt');
  writeFileSync(file, '3\n1\n');
  assert.deepStrictEqual(ruleFromEnv({ TSMPI_MAPPING_FILE: file }, 4), { kind: 'mapping', ids: [3, 1], source: file });
  assert.deepStrictEqual(ruleFromEnv({ TSMPI_CG_PER_PROCESS: '3' }, 4), { kind: 'stride', k: 3 });
  assert.deepStrictEqual(ruleFromEnv({}, 4), { kind: 'all' });
  const refused = (env: NodeJS.ProcessEnv, pattern: RegExp): void =>
    assert.throws(() => ruleFromEnv(env, 4), (e: unknown) => e instanceof TsmpiError && e.code === ErrorCode.Config && pattern.test(e.message));
  refused({ TSMPI_CG_PER_PROCESS: '0' }, /TSMPI_CG_PER_PROCESS="0" is not valid/);
  refused({ TSMPI_CG_PER_PROCESS: 'two' }, /TSMPI_CG_PER_PROCESS="two" is not valid/);
  refused({ TSMPI_MAPPING_FILE: join(dir, 'missing.txt') }, /TSMPI_MAPPING_FILE=.*missing\.txt cannot be read \(ENOENT\)/);
  refused({ TSMPI_MAPPING_FILE: file, TSMPI_CG_PER_PROCESS: '2' }, /both set/);
});
