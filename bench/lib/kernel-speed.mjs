// The machine's compute speed now: the dependent multiply-add chain `tsmpi calibrate` times for
// `--compute measured` (2 flops a step), run alone in a fresh process, the median of 5 runs of
// ~5 ms after one that compiles it. The CPU this machine lends moves from one minute to the next
// (the pi example on 2 rank threads read 0.140-0.190 s within one row of the predict bench).
// Prints a JSON line.   node kernel-speed.mjs
function chain(steps, x) {
  for (let i = 0; i < steps; i++) x = x * 0.9999999 + 1e-7;
  return x;
}
const steps = 2_000_000;
const speeds = [];
let x = 1;
for (let run = 0; run < 6; run++) {
  const t0 = performance.now();
  x = chain(steps, x);
  const ms = performance.now() - t0;
  if (run > 0 && ms > 0) speeds.push((2 * steps) / (ms / 1e3));
}
speeds.sort((a, b) => a - b);
console.log(JSON.stringify({ bench: 'kernel-speed', gflops: speeds[speeds.length >> 1] / 1e9, check: x > 0 }));
