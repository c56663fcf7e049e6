// `node --cpu-prof tsmpi run --procs ...` profiles every rank, as it does for rank threads: the
// launcher's Node flags reach the rank processes (and, from them, their rank threads).
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { cli, repoRoot } from '../helpers/run-job.ts';

test('the launcher\'s --cpu-prof reaches each rank process and rank thread', { timeout: 120_000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'tsmpi-prof-'));
  try {
    // 3 ranks, 2 per process: the launcher, 2 rank processes, 3 rank threads.
    const { stdout, stderr } = await promisify(execFile)(process.execPath, ['--cpu-prof', `--cpu-prof-dir=${dir}`, cli, 'run', '-n', '3', '--ranks-per-proc', '2', join(repoRoot, 'examples/pi.ts'), '1000000'], { env: { ...process.env, TSMPI_HANG_WARN: '0' } });
    const files = readdirSync(dir).filter((f) => f.endsWith('.cpuprofile'));
    const pids = new Set(files.map((f) => f.split('.')[3]));
    // CPU.<date>.<time>.<pid>.<thread id>.<sequence>.cpuprofile: thread 0 is a process's main thread.
    const threads = files.filter((f) => f.split('.')[4] !== '0');
    assert.equal(pids.size, 3, `${files.join('\n')}\n${stdout}${stderr}`);
    assert.equal(threads.length, 3, files.join('\n'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
