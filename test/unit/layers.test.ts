// The layering rules, read off the source (issue 13): layers point down, and above the link time
// comes from the rank's clock. Everything above the link runs unchanged in the simulator only if
// no file there reads the wall clock or sets a real timer, and rails and transports are below
// the protocol only if they import nothing of it.
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const src = fileURLToPath(new URL('../../src/', import.meta.url));

function files(dir: string): string[] {
  return readdirSync(join(src, dir)).flatMap((name) => {
    const path = join(src, dir, name);
    if (statSync(path).isDirectory()) return files(join(dir, name));
    return name.endsWith('.ts') ? [path] : [];
  });
}

/** The code without its comments and string contents (a comment may name setTimeout). */
function code(path: string): string {
  return readFileSync(path, 'utf8')
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/(^|[^:])\/\/.*$/gm, '$1')
    .replace(/'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*"/g, "''");
}

/** Layers above the link: they take time and timers from the rank's clock (comm.clock, Progress.clock). */
const ABOVE_THE_LINK = ['comm', 'batch', 'balance', 'policy', 'rails', 'trace'];
const WALL_CLOCK = /\b(performance\.now|Date\.now|setTimeout|setInterval|setImmediate)\b/;

test('above the link, no file reads the wall clock or sets a real timer', () => {
  const offenders: string[] = [];
  for (const dir of ABOVE_THE_LINK) {
    for (const path of files(dir)) {
      const lines = code(path).split('\n');
      lines.forEach((line, i) => {
        const found = WALL_CLOCK.exec(line);
        if (found) offenders.push(`${relative(src, path)}:${i + 1}: ${found[1]}`);
      });
    }
  }
  assert.deepEqual(offenders, [], 'use the rank\'s clock (comm.clock, comm.sleep, Progress.clock) instead');
});

/** Imports of the files under `dir` (module specifiers, relative ones resolved to src folders). */
function importsOf(dir: string): { file: string; target: string }[] {
  const out: { file: string; target: string }[] = [];
  for (const path of files(dir)) {
    const text = readFileSync(path, 'utf8');
    for (const m of text.matchAll(/^\s*(?:import|export)\s[^;]*?from\s+'([^']+)'/gm)) {
      const spec = m[1]!;
      if (!spec.startsWith('.')) continue;
      const target = relative(src, join(path, '..', spec));
      out.push({ file: relative(src, path), target });
    }
  }
  return out;
}

const RULES: { dir: string; never: string[]; why: string }[] = [
  { dir: 'transport', never: ['comm/', 'rails/', 'batch/', 'balance/', 'sim/', 'bootstrap/'], why: 'links know nothing of the protocol above them' },
  { dir: 'rails', never: ['comm/', 'batch/', 'balance/', 'sim/', 'bootstrap/'], why: 'a multi-rail link is a link: the protocol sees it only through the Link contract' },
  { dir: 'comm', never: ['rails/', 'batch/', 'balance/', 'sim/', 'bootstrap/'], why: 'the protocol sees rails only as a Link; batch and balance are built on the communicator' },
  { dir: 'policy', never: ['comm/', 'transport/', 'rails/', 'batch/', 'balance/', 'sim/', 'bootstrap/'], why: 'policies are pure' },
  { dir: 'batch', never: ['balance/', 'sim/', 'bootstrap/', 'rails/'], why: 'batch is built on the communicator' },
  { dir: 'trace', never: ['transport/', 'rails/', 'batch/', 'balance/', 'sim/', 'bootstrap/'], why: 'the timeline records calls and messages; launchers and the simulator write it' },
];

for (const rule of RULES) {
  test(`src/${rule.dir} imports none of ${rule.never.join(', ')} (${rule.why})`, () => {
    const bad = importsOf(rule.dir).filter(({ target }) => rule.never.some((n) => target.startsWith(n)));
    assert.deepEqual(bad, []);
  });
}
