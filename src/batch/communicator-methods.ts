/**
 * `comm.exchange(...)` and `comm.conveyor(...)`: the batch calls as methods of the communicator,
 * for programs. They are built on the communicator (like the task pool), so src/comm does not
 * import them: this module adds them to the Communicator's prototype (and, by declaration
 * merging, to its type) when the public API (src/index.ts) loads.
 */
import { Communicator } from '../comm/communicator.js';
import { Conveyor, type ConveyorOptions } from './conveyor.js';
import { exchange, type ExchangeOptions, type Incoming, type Outgoing } from './exchange.js';

declare module '../comm/communicator.js' {
  interface Communicator {
    /**
     * Collective: a superstep's point-to-point messages, planned together (see {@link exchange}).
     * @example
     * ```ts
     * const got = await comm.exchange([{ dest: (comm.rank + 1) % comm.size, tag: 0, payload: halo }]);
     * ```
     */
    exchange<T = unknown>(sends: readonly Outgoing[], options?: ExchangeOptions): Promise<Incoming<T>[]>;
    /**
     * Collective: a conveyor for streams of tiny items to arbitrary ranks (aggregated per
     * destination, flushed on size, on a timer and at `close()`); see {@link Conveyor}.
     */
    conveyor(options: ConveyorOptions): Promise<Conveyor>;
  }
}

Communicator.prototype.exchange = function <T = unknown>(this: Communicator, sends: readonly Outgoing[], options: ExchangeOptions = {}): Promise<Incoming<T>[]> {
  return exchange<T>(this, sends, options);
};

Communicator.prototype.conveyor = function (this: Communicator, options: ConveyorOptions): Promise<Conveyor> {
  return Conveyor.open(this, options);
};

export { exchange, Conveyor };
