// The Node flags a launcher passes on to the rank processes it starts.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { rankProcessFlags } from '../../src/bootstrap/node-flags.ts';

test('rank processes get the launcher\'s Node flags, less the inspector, evaluation, tests and watch mode', () => {
  assert.deepEqual(rankProcessFlags(['--cpu-prof', '--cpu-prof-dir', '/tmp/p', '--max-old-space-size=4096', '--trace-deopt']), ['--cpu-prof', '--cpu-prof-dir', '/tmp/p', '--max-old-space-size=4096', '--trace-deopt']);
  assert.deepEqual(rankProcessFlags(['--inspect', '--inspect-brk=9230', '--inspect-port', '9231', '--heap-prof']), ['--heap-prof']);
  assert.deepEqual(rankProcessFlags(['--watch', '--watch-path', 'src', '--test', '--test-name-pattern', 'x', '--import', 'tsx']), ['--import', 'tsx']);
  assert.deepEqual(rankProcessFlags(['-e', 'code', '--input-type=module', '--no-warnings']), ['--no-warnings']);
  assert.deepEqual(rankProcessFlags([]), []);
});
