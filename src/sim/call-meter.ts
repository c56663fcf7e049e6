/**
 * Stops a simulated rank's CPU meter inside tsmpi calls. On a calibrated machine the runtime's
 * own cost per message is what the calibration measured (the frame costs); the simulator running
 * the same calls on its simulated transport must not count them a second time as the program's
 * compute. The communicator's and requests' public calls are wrapped once per thread (as call
 * tracing wraps them); the wrappers do nothing unless a metered world is running.
 */
import { Communicator } from '../comm/communicator.js';
import { Request } from '../comm/request.js';
import { CartCommunicator } from '../comm/topology/cart-communicator.js';
import { DistGraphCommunicator } from '../comm/topology/dist-graph-communicator.js';
import { communicationCalls } from '../trace/call-tracing.js';
import type { SimRank, SimWorld } from './world.js';

type Method = (this: unknown, ...args: unknown[]) => unknown;

let metered: SimWorld | null = null;
let installed = false;

function isPromise(value: unknown): value is Promise<unknown> {
  return typeof value === 'object' && value !== null && typeof (value as { then?: unknown }).then === 'function';
}

function wrap(proto: Record<string, Method>, names: readonly string[]): void {
  for (const name of names) {
    if (!Object.prototype.hasOwnProperty.call(proto, name)) continue;
    const original = proto[name];
    if (typeof original !== 'function') continue;
    proto[name] = function (this: unknown, ...args: unknown[]): unknown {
      const world = metered;
      const rank = world?.enterCall() ?? null;
      if (rank === null) return original.apply(this, args);
      let result: unknown;
      try {
        result = original.apply(this, args);
      } catch (error) {
        world!.leaveCall(rank);
        throw error;
      }
      // A blocking call's work continues until its promise settles (after its waits).
      if (isPromise(result)) settle(world!, rank, result);
      else world!.leaveCall(rank);
      return result;
    };
  }
}

function settle(world: SimWorld, rank: SimRank, promise: Promise<unknown>): void {
  const leave = (): void => world.leaveCall(rank);
  promise.then(leave, leave);
}

/** Meters the calls of `world`'s ranks until the returned function is called. */
export function meterCalls(world: SimWorld): () => void {
  if (!installed) {
    installed = true;
    const calls = communicationCalls();
    const proto = Communicator.prototype as unknown as Record<string, Method>;
    wrap(proto, [...calls.blocking, ...calls.posts]);
    for (const topology of [CartCommunicator.prototype, DistGraphCommunicator.prototype]) wrap(topology as unknown as Record<string, Method>, calls.topology);
    wrap(Request.prototype as unknown as Record<string, Method>, ['wait', 'test']);
  }
  metered = world;
  return () => {
    if (metered === world) metered = null;
  };
}
