import { init } from 'tsmpi';
const comm = await init();
if (comm.rank !== 0) await comm.bcastInto(new Float64Array(4), 0);
console.log(`rank ${comm.rank} done`);
