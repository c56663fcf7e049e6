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

/** The classes whose calls are metered, from one copy of the runtime. */
interface RuntimeClasses {
  Communicator: { prototype: object };
  CartCommunicator: { prototype: object };
  DistGraphCommunicator: { prototype: object };
  Request: { prototype: object };
}

function wrapRuntime(runtime: RuntimeClasses): void {
  const calls = communicationCalls();
  wrap(runtime.Communicator.prototype as Record<string, Method>, [...calls.blocking, ...calls.posts]);
  for (const topology of [runtime.CartCommunicator.prototype, runtime.DistGraphCommunicator.prototype]) wrap(topology as Record<string, Method>, calls.topology);
  wrap(runtime.Request.prototype as Record<string, Method>, ['wait', 'test']);
}

/**
 * The runtime a program's `import 'tsmpi'` loads (the package's own entry, dist/tsmpi.js): a copy
 * of the classes apart from this module's whenever the simulator runs from its bundle or from
 * source. Wrapping only this module's copy left every program's calls unmetered: the simulator's
 * own handling of each call counted as the rank's computing. Undefined where the package cannot
 * be resolved (not built).
 */
async function programRuntime(): Promise<RuntimeClasses | undefined> {
  const entry = 'tsmpi';
  try {
    return (await import(entry)) as RuntimeClasses;
  } catch {
    return undefined;
  }
}

/** Wraps the calls of both copies of the runtime, once per thread (before the first metered run). */
export async function installCallMeter(): Promise<void> {
  if (installed) return;
  installed = true;
  wrapRuntime({ Communicator, CartCommunicator, DistGraphCommunicator, Request });
  const program = await programRuntime();
  if (program !== undefined && program.Communicator !== Communicator) wrapRuntime(program);
}

/** Meters the calls of `world`'s ranks until the returned function is called (after installCallMeter). */
export function meterCalls(world: SimWorld): () => void {
  if (!installed) throw new Error('meterCalls before installCallMeter');
  metered = world;
  return () => {
    if (metered === world) metered = null;
  };
}
