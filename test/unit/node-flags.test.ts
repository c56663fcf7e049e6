// The Node flags a launcher passes on to the rank processes it starts.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { rankProcessFlags } from '../../src/bootstrap/node-flags.ts';
import { jitFlags, jitV8Flags } from '../../src/bootstrap/rank-jit.ts';

test('rank processes get the launcher\'s Node flags, less the inspector, evaluation, tests and watch mode', () => {
  assert.deepEqual(rankProcessFlags(['--cpu-prof', '--cpu-prof-dir', '/tmp/p', '--max-old-space-size=4096', '--trace-deopt']), ['--cpu-prof', '--cpu-prof-dir', '/tmp/p', '--max-old-space-size=4096', '--trace-deopt']);
  assert.deepEqual(rankProcessFlags(['--inspect', '--inspect-brk=9230', '--inspect-port', '9231', '--heap-prof']), ['--heap-prof']);
  assert.deepEqual(rankProcessFlags(['--watch', '--watch-path', 'src', '--test', '--test-name-pattern', 'x', '--import', 'tsx']), ['--import', 'tsx']);
  assert.deepEqual(rankProcessFlags(['-e', 'code', '--input-type=module', '--no-warnings']), ['--no-warnings']);
  assert.deepEqual(rankProcessFlags([]), []);
});

test('in-place compiling turns V8\'s background compiling off, or back on, less what the user gave Node', () => {
  assert.deepEqual(jitFlags('all', []), ['--no-concurrent-recompilation', '--no-concurrent-osr']);
  assert.deepEqual(jitFlags('on', []), ['--no-concurrent-recompilation', '--concurrent-osr']);
  assert.deepEqual(jitFlags('off', []), ['--concurrent-recompilation', '--concurrent-osr']);
  assert.deepEqual(jitFlags('all', ['--concurrent_osr', '--cpu-prof']), ['--no-concurrent-recompilation']);
  assert.deepEqual(jitFlags('off', ['--no-concurrent-recompilation']), ['--concurrent-osr']);
  assert.deepEqual(jitFlags('all', ['--no-concurrent-osr', '--concurrent-recompilation']), []);
  // What a code cache must be made under: the flags that differ from V8's defaults.
  assert.deepEqual(jitV8Flags('off'), []);
  assert.deepEqual(jitV8Flags('on'), ['--no-concurrent-recompilation']);
  assert.deepEqual(jitV8Flags('all'), ['--no-concurrent-recompilation', '--no-concurrent-osr']);
});
