// Issue 12, regression: `import.meta` in a .ts program keeps its meaning per source file under
// `run`, `--procs` and `sim`, and text that only contains "import.meta.url" (strings, comments,
// templates) is left alone. The old loader replaced it as text: a double-quoted string broke
// compilation, a single-quoted one was silently changed.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { pathToFileURL } from 'node:url';
import { test } from 'node:test';
import { explain, fixture, tsmpi } from '../helpers/run-job.ts';

const program = fixture('import-meta.ts');
const where = fixture('import-meta/where.ts');
const launches: Record<string, string[]> = {
  threads: ['run', '-n', '2'],
  procs: ['run', '-n', '2', '--procs'],
  sim: ['sim', '-n', '2', '--quiet'],
};

for (const [mode, command] of Object.entries(launches)) {
  test(`import.meta under ${mode}: real expressions per file, text untouched`, { timeout: 60_000 }, async () => {
    const result = await tsmpi([...command, program]);
    assert.equal(result.code, 0, explain(result));
    const line = result.stdout.split('\n').find((l) => l.startsWith('{'));
    assert.ok(line, explain(result));
    assert.deepStrictEqual(JSON.parse(line), {
      help: 'usage: new URL(name, import.meta.url)',
      single: 'import.meta.url',
      template: 'import.meta.url is string',
      ownUrl: pathToFileURL(program).href,
      metaUrl: pathToFileURL(program).href,
      filename: program,
      dirname: dirname(program),
      whereAmI: pathToFileURL(where).href,
      dirOf: dirname(where),
      resolved: pathToFileURL(where).href,
    });
  });

  test(`a stack through a file that uses import.meta points at its line and column (${mode})`, { timeout: 60_000 }, async () => {
    const result = await tsmpi([...command, program, 'boom']);
    assert.equal(result.code, 1, explain(result));
    // The loader declares the file's import.meta object in front of line 1; columns there must not move.
    const column = readFileSync(where, 'utf8').split('\n')[0]!.indexOf("new Error('boom") + 1;
    assert.ok(result.stderr.includes(`${where}:1:${column}`), `expected ${where}:1:${column}\n${result.stderr}`);
    assert.ok(result.stderr.includes(`${program}:18:`), result.stderr);
  });
}

test('a program with its own top-level `process` runs, and import.meta.resolve still finds builtins and packages', { timeout: 60_000 }, async () => {
  const result = await tsmpi(['run', '-n', '2', fixture('own-process.ts')]);
  assert.equal(result.code, 0, explain(result));
  const lines = result.stdout.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as { rank: number });
  assert.deepEqual(lines.sort((a, b) => a.rank - b.rank), [0, 1].map((rank) => ({ rank, label: 'mine', builtin: 'node:fs', pkg: true })));
});
