/**
 * The compute kernel `tsmpi calibrate` times for `--compute measured`: a dependent multiply-add
 * chain, 2 flops a step, no memory traffic. The predict bench times the same code to follow the
 * machine's speed between runs (bench/lib/kernel-speed.mjs), so both read one instrument.
 */

/** The chain's last value, kept where the compiler cannot drop the loop that made it. */
export let chainResult = 1;

/**
 * Flop/s of `runs` runs of `steps` steps each, after one more that compiles the loop (not
 * counted), timed with `seconds` (the rank's clock in the probe, which the simulator makes
 * virtual); runs that read no time are left out.
 */
export function chainFlops(seconds: () => number, steps: number, runs: number): number[] {
  const speeds: number[] = [];
  let x = chainResult;
  for (let run = 0; run <= runs; run++) {
    const t0 = seconds();
    for (let i = 0; i < steps; i++) x = x * 0.9999999 + 1e-7;
    const t = seconds() - t0;
    if (run > 0 && t > 0) speeds.push((2 * steps) / t);
  }
  chainResult = x;
  return speeds;
}
