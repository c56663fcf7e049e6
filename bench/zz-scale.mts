import { simulate } from '../src/sim/simulate.ts';
import { fatTree } from '../src/sim/platform/topologies.ts';
import { buildWorkload } from '../src/sim/workloads/registry.ts';
const ranks = Number(process.argv[2] ?? 256);
const pattern = process.argv[3] ?? 'all-to-all';
const down = ranks === 256 ? [16, 16] : [32, 32];
const platform = fatTree({ shape: { levels: 2, down, up: [1, down[0]], count: [1, 1] } as never, hostBandwidth: 1.25e9, latency: 1e-6, speed: 1e9, rails: [{ bandwidth: 1.25e9, latency: 1e-6 }, { bandwidth: 3.125e8, latency: 2e-6 }], source: 'scale' });
const params = pattern === 'all-to-all' ? ['ranks=' + ranks, 'steps=1', 'bytes=262144', 'flops=0', 'p2p=' + (process.argv[5] ?? 'true')] : ['px=' + Math.sqrt(ranks), 'py=' + Math.sqrt(ranks), 'steps=4', 'bytes=4194304', 'flops=1e6'];
for (const policy of (process.argv[4] ?? 'adaptive').split(',')) {
  const t0 = performance.now();
  const program = buildWorkload(pattern, params, ranks, 1);
  const r = await simulate({ program, platform, network: 'flow', env: { ...process.env, TSMPI_RAIL_POLICY: policy } });
  console.log(pattern, ranks, policy, r.makespan.toFixed(4), r.events, ((performance.now() - t0) / 1000).toFixed(1) + ' s');
}
