// Whole-stack simulations with answers known in closed form: programs replayed through the
// runtime's own communicator and protocols, on platforms simple enough to reason about.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { init } from '../../src/bootstrap/init.ts';
import { FRAME_HEADER_BYTES } from '../../src/transport/link.ts';
import { crossbar } from '../../src/sim/platform/topologies.ts';
import { simulate } from '../../src/sim/simulate.ts';
import { buildWorkload } from '../../src/sim/workloads/registry.ts';
import type { Action } from '../../src/sim/replay/actions.ts';

const close = (actual: number, expected: number, what: string): void => {
  assert.ok(Math.abs(actual - expected) <= 1e-9 * expected, `${what}: ${actual} s, expected ${expected} s`);
};

test("a periodic 2-D stencil's makespan on a crossbar is steps x (2 latencies + 4 halos / bandwidth + compute)", async () => {
  const latency = 2e-6;
  const bandwidth = 1.25e9;
  const speed = 1e9;
  const bytes = 16_384; // eager: every halo leaves at once
  const flops = 1e6;
  const steps = 5;
  const program = buildWorkload('stencil2d', [`steps=${steps}`, `bytes=${bytes}`, `flops=${flops}`, 'periodic=true'], 16, 1);
  const result = await simulate({ program, platform: crossbar({ hosts: 16, speed, bandwidth, latency }), network: 'flow' });
  // Each rank's up and down links carry its 4 halos at a quarter of the bandwidth each.
  const exchange = 2 * latency + (4 * (bytes + FRAME_HEADER_BYTES)) / bandwidth;
  close(result.makespan, steps * (exchange + flops / speed), 'makespan');
  for (const r of result.ranks) close(r.end, result.makespan, `rank end`);
});

test('one rendezvous message costs its handshake (two latencies) plus latency + size / bandwidth', async () => {
  const latency = 5e-6;
  const bandwidth = 1e9;
  const bytes = 1_000_000; // above the 64 KiB eager limit: request to send, clear to send, data
  const program = new Map<number, Action[]>([
    [0, [{ op: 'send', dst: 1, tag: 0, bytes }]],
    [1, [{ op: 'recv', src: 0, tag: 0, bytes }]],
  ]);
  const result = await simulate({ program, platform: crossbar({ hosts: 2, speed: 1e9, bandwidth, latency }), network: 'flow' });
  const route = 2 * latency;
  const control = FRAME_HEADER_BYTES / bandwidth; // RTS and CTS: header-only frames
  close(result.makespan, 2 * (route + control) + route + (bytes + FRAME_HEADER_BYTES) / bandwidth, 'makespan');
  // The sender's send completes when its data has arrived, as the receive does.
  close(result.ranks[0]!.end, result.makespan, 'sender end');
});

/** n ranks each send one message of `bytes` to rank 0 (incast onto one host), on a crossbar. */
function incast(n: number, bytes: number, latency: number, bandwidth: number, network: 'flow' | 'delay'): Promise<{ makespan: number }> {
  const program = new Map<number, Action[]>();
  program.set(0, Array.from({ length: n }, (_, i): Action => ({ op: 'irecv', src: i + 1, tag: 0, bytes })).concat([{ op: 'waitall' }]));
  for (let i = 1; i <= n; i++) program.set(i, [{ op: 'send', dst: 0, tag: 0, bytes }]);
  return simulate({ program, platform: crossbar({ hosts: n + 1, speed: 1e9, bandwidth, latency }), network });
}

test('n senders into one host share its down link fairly: the last byte lands at n x size / bandwidth', async () => {
  const result = await incast(6, 50_000, 1e-6, 1e9, 'flow');
  close(result.makespan, 2 * 1e-6 + (6 * (50_000 + FRAME_HEADER_BYTES)) / 1e9, 'makespan');
});

test('the delay model ignores contention: the same n senders finish after one message time', async () => {
  const result = await incast(6, 50_000, 1e-6, 1e9, 'delay');
  close(result.makespan, 2 * 1e-6 + (50_000 + FRAME_HEADER_BYTES) / 1e9, 'makespan');
});

test('message overhead: a rank pays o per message sent to another host, the local cost to its own', { timeout: 60_000 }, async () => {
  const run = async (perHost: number): Promise<number> =>
    (
      await simulate({
        np: 2,
        ranksPerHost: perHost,
        platform: crossbar({ hosts: 2, speed: 1e9, bandwidth: 1e12, latency: 0 }),
        computeMode: 'declared',
        messageOverhead: 1e-3,
        localMessageOverhead: 1e-4,
        program: {
          name: 'overhead',
          run: async (rank) => {
            const comm = await init();
            if (rank === 0) for (let i = 0; i < 10; i++) await comm.send(i, 1, 0);
            else for (let i = 0; i < 10; i++) await comm.recv(0, 0);
          },
        },
      })
    ).makespan;
  // Ten eager messages of 8 bytes, no latency, (nearly) infinite bandwidth: 10 x o.
  assert.ok(Math.abs((await run(1)) - 10e-3) < 1e-6, 'between hosts');
  assert.ok(Math.abs((await run(2)) - 10e-4) < 1e-6, 'on one host');
});
