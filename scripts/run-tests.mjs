#!/usr/bin/env node
// Runs the test suite with Node's test runner (TypeScript through tsx).
//   node scripts/run-tests.mjs            every test
//   node scripts/run-tests.mjs p2p cco    only files whose name starts with one of the prefixes
// Test files are named by family (mpi4py style): test/<dir>/<family>-<what>.test.ts.
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';

function collect(dir) {
  const out = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) {
      if (name !== 'fixtures' && name !== 'helpers') out.push(...collect(path));
    } else if (name.endsWith('.test.ts')) {
      out.push(path);
    }
  }
  return out;
}

const prefixes = process.argv.slice(2);
const files = collect('test')
  .filter((f) => prefixes.length === 0 || prefixes.some((p) => basename(f).startsWith(p)))
  .sort();
if (files.length === 0) {
  console.error(`no test files match ${prefixes.join(', ')}`);
  process.exit(1);
}
const result = spawnSync(process.execPath, ['--import', 'tsx', '--test', '--test-reporter=spec', ...files], { stdio: 'inherit' });
process.exit(result.status ?? 1);
