/**
 * The hosts of a simulated platform as the program runner sees them: how long measured CPU time
 * and declared flops take on each host, background load included.
 */
import type { Platform } from './platform/platform.js';
import type { SimHosts } from './program-runner.js';

/** Seconds `flops` take on a host whose speed over time is `speedAt`, from `start` (piecewise-constant load). */
export function integrateFlops(speedAt: (t: number) => number, nextChange: (t: number) => number, start: number, flops: number): number {
  let t = start;
  let left = flops;
  for (let guard = 0; guard < 1_000_000; guard++) {
    const speed = speedAt(t);
    const until = nextChange(t);
    if (speed > 0) {
      const need = left / speed;
      if (t + need <= until) return t + need - start;
      left -= speed * (until - t);
    }
    if (until === Infinity) return Infinity;
    t = until;
  }
  return t - start;
}

/**
 * Hosts of `platform`. Measured CPU time is taken to come from a host of `referenceSpeed` flop/s
 * (this machine): on a host of speed s it counts `referenceSpeed / s` times as long.
 */
export function platformHosts(platform: Platform, referenceSpeed: number): SimHosts {
  const names = Array.from({ length: platform.hostCount }, (_, h) => platform.host(h).name);
  const nextChange = (h: number) => (t: number): number => {
    const load = platform.host(h).load;
    if (load === undefined) return Infinity;
    for (const step of load) if (step.time > t) return step.time;
    return Infinity;
  };
  return {
    count: platform.hostCount,
    names,
    cpuScale: (h, t) => referenceSpeed / Math.max(platform.speedAt(h, t), 1e-300),
    flopsTime: (h, t, flops) => integrateFlops((x) => platform.speedAt(h, x), nextChange(h), t, flops),
  };
}
