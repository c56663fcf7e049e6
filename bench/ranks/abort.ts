/**
 * Abort bench rank program: after a first barrier, rank F writes the wall-clock time (ms since the
 * epoch) to a file and fails as asked while the others wait in a second barrier; the bench times
 * how long the launcher takes to end the job after that instant.
 *   tsmpi run -n N bench/ranks/abort.ts <failing-rank> <throw|exit3|abort5> <stamp-file>
 */
import { writeFileSync } from 'node:fs';
import { abort, init } from 'tsmpi';

const comm = await init();
const failing = Number(process.argv[2] ?? 1);
const how = process.argv[3] ?? 'exit3';
const stamp = process.argv[4] ?? '/dev/null';
await comm.barrier();
if (comm.rank === failing) {
  // The harness compares instants across processes: wall-clock time, not the rank's clock.
  writeFileSync(stamp, `${performance.timeOrigin + performance.now()}\n`);
  if (how === 'abort5') abort(5, 'bench');
  if (how === 'exit3') process.exit(3);
  throw new Error('bench failure');
}
await comm.barrier();
