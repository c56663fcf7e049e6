/**
 * The names hang reports and errors give communicators. Contexts are numbers on the wire; a
 * person knows the communicator: `world`, `self`, `split of world (color 1)`, `dup of world`, or
 * a name the program gave (`comm.name = 'rows'`). Each communicator registers its two contexts
 * (point-to-point, and collectives at context + 1) with a label it shares, so renaming it renames
 * what reports say.
 */
import type { RequestDescription } from './request.js';

/** A communicator's name and group (world rank of each of its ranks), shared with the registry. */
export interface CommunicatorLabel {
  name: string;
  readonly group: Int32Array;
}

export class ContextNames {
  private readonly labels = new Map<number, CommunicatorLabel>();

  /** Registers a communicator's point-to-point context (its collectives use context + 1). */
  register(context: number, label: CommunicatorLabel): void {
    this.labels.set(context, label);
  }

  /** Forgets a freed communicator's contexts. */
  unregister(context: number): void {
    this.labels.delete(context);
  }

  /** The communicator of a context (point-to-point or collective), if one registered it here. */
  labelOf(context: number): { label: CommunicatorLabel; collective: boolean } | undefined {
    const p2p = this.labels.get(context);
    if (p2p !== undefined) return { label: p2p, collective: false };
    const collective = this.labels.get(context - 1);
    return collective === undefined ? undefined : { label: collective, collective: true };
  }
}

/**
 * What a rank waits for, for people: `recv from rank 1 (world rank 2), tag 5, on split of world
 * (color 0)`; a collective's internal tag is left out (`barrier from rank 0 on world`).
 */
export function describeWait(d: RequestDescription, names?: ContextNames): string {
  if (d.context < 0) return d.operation; // not on a communicator: sleep, finalize
  const sending = /send/i.test(d.operation);
  const known = names?.labelOf(d.context);
  const world = known !== undefined && d.peer >= 0 ? known.label.group[d.peer] : undefined;
  const peer = d.peer < 0 ? 'any source' : `rank ${d.peer}${world !== undefined && world !== d.peer ? ` (world rank ${world})` : ''}`;
  const where = known === undefined ? `context ${d.context}` : `on ${known.label.name}`;
  if (known?.collective) return `${d.operation} ${sending ? 'to' : 'from'} ${peer} ${where}`;
  const tag = d.tag < 0 ? 'any tag' : `tag ${d.tag}`;
  return `${d.operation} ${sending ? 'to' : 'from'} ${peer}, ${tag}, ${where}`;
}
