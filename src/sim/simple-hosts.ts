/**
 * Identical hosts of a given speed (flop/s), no background load: the default when no platform is
 * given. Measured CPU time counts as it is (the host is taken to be as fast as this machine).
 */
import type { SimHosts } from './program-runner.js';

export function uniformHosts(count: number, flopsPerSecond: number): SimHosts {
  const names = Array.from({ length: count }, (_, i) => `host${i}`);
  return {
    count,
    names,
    cpuScale: () => 1,
    flopsTime: (_h, _t, flops) => flops / flopsPerSecond,
  };
}
