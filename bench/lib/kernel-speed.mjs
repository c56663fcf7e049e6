// The machine's compute speed now: the calibration's own kernel (src/calibrate/kernel-chain.ts, a
// dependent multiply-add chain, 2 flops a step), run alone in a fresh process, the median of 5 runs
// of ~5 ms after one that compiles it. The CPU this machine lends moves from one minute to the next
// (the pi example on 2 rank threads read 0.140-0.190 s within one row of the predict bench).
// Prints a JSON line.   node kernel-speed.mjs   (after `npm run build`)
import { chainFlops, chainResult } from '../../dist/calibrate/kernel-chain.js';

const speeds = chainFlops(() => performance.now() / 1000, 2_000_000, 5).sort((a, b) => a - b);
console.log(JSON.stringify({ bench: 'kernel-speed', gflops: speeds[speeds.length >> 1] / 1e9, check: chainResult > 0 }));
