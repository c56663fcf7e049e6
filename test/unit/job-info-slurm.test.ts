// The job manager's resource list from SLURM's variables (as srun sets them).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { launcherJobInfo, processIndexes, slurmJobInfo, threadJobInfo } from '../../src/bootstrap/job-info.ts';
import { ErrorCode, TsmpiError } from '../../src/errors.ts';

test('job info: SLURM step variables give size, resource id, nodes and the block layout', () => {
  const job = slurmJobInfo({
    SLURM_PROCID: '5',
    SLURM_NTASKS: '7',
    SLURM_STEP_NUM_TASKS: '7',
    SLURM_STEP_NODELIST: 'n[01-03]',
    SLURM_STEP_TASKS_PER_NODE: '3,2(x2)',
    SLURM_JOB_NODELIST: 'n[01-09]',
    SLURM_JOB_ID: '42',
    SLURM_STEP_ID: '0',
  })!;
  assert.equal(job.launcher, 'slurm');
  assert.equal(job.size, 7);
  assert.equal(job.first, 5);
  assert.equal(job.count, 1);
  assert.deepStrictEqual(job.nodes, ['n01', 'n02', 'n03'], 'the step list, not the allocation');
  assert.deepStrictEqual(job.nodeOfRank, [0, 0, 0, 1, 1, 2, 2]);
  assert.deepStrictEqual(job.localRankOf, [0, 1, 2, 0, 1, 0, 1]);
  assert.equal(job.jobId, '42.0');
});

test('job info: not a SLURM step without SLURM_PROCID', () => {
  assert.equal(slurmJobInfo({ SLURM_JOB_ID: '1' }), undefined);
});

test('job info: inconsistent SLURM variables are refused', () => {
  const refused = (env: NodeJS.ProcessEnv, pattern: RegExp): void =>
    assert.throws(() => slurmJobInfo(env), (e: unknown) => e instanceof TsmpiError && e.code === ErrorCode.Init && pattern.test(e.message));
  refused({ SLURM_PROCID: '4', SLURM_NTASKS: '4', SLURM_STEP_NODELIST: 'a', SLURM_STEP_TASKS_PER_NODE: '4' }, /SLURM_PROCID=4 is not below/);
  refused({ SLURM_PROCID: '0', SLURM_NTASKS: '4', SLURM_STEP_NODELIST: 'a,b', SLURM_STEP_TASKS_PER_NODE: '2' }, /do not describe 4 tasks/);
  refused({ SLURM_PROCID: 'x', SLURM_NTASKS: '4' }, /SLURM_PROCID="x" is not a task number/);
});

test('job info: tsmpi run --procs variables', () => {
  const job = launcherJobInfo({ TSMPI_LAUNCHER: 'processes', TSMPI_SIZE: '8', TSMPI_PROC_FIRST: '4', TSMPI_PROC_COUNT: '2', TSMPI_JOB_ID: 'j' })!;
  assert.equal(job.size, 8);
  assert.equal(job.first, 4);
  assert.equal(job.count, 2);
  assert.equal(launcherJobInfo({}), undefined);
});

test('job info: the process of every task, by node and pid (pids repeat across nodes)', () => {
  const job = { ...threadJobInfo(5, 'j'), nodeOfRank: [0, 0, 1, 1, 0], pids: [7, 7, 7, 8, 9] };
  assert.deepEqual(processIndexes(job), [0, 0, 1, 2, 3]);
  assert.deepEqual(processIndexes(threadJobInfo(3, 'j')), [0, 0, 0]);
  assert.deepEqual(processIndexes({ ...job, pids: [7, 0, 7, 8, 9] }), [], 'a pid not known yet');
});
