// tsmpi's version is written once in package.json and once in src/version-number.ts (which the
// runtime bundle reads without a file): they must agree.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { MPI_STANDARD_VERSION, TSMPI_VERSION } from '../../src/version-number.ts';

test('the version in src/version-number.ts is package.json\'s', () => {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  assert.equal(TSMPI_VERSION, pkg.version);
});

test('the MPI standard version is a [major, minor] pair of integers', () => {
  assert.equal(MPI_STANDARD_VERSION.length, 2);
  assert.ok(MPI_STANDARD_VERSION.every((n) => Number.isInteger(n) && n >= 0) && MPI_STANDARD_VERSION[0] >= 1);
});
