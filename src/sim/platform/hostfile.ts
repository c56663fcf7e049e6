/**
 * Hostfiles as smpirun reads them: one platform host name per line, `name:N` for N ranks on that
 * host (smpirun unrolls it into N lines), blank lines skipped; rank r runs on entry r modulo the
 * number of entries. So a SimGrid command line (`smpirun -np 16 -platform P.xml -hostfile H`)
 * translates one to one (`tsmpi sim -n 16 --platform P.xml --hostfile H`).
 */
import { ErrorCode, TsmpiError } from '../../errors.js';

/** The host name of each slot, in order (a `name:N` line gives N slots). */
export function parseHostfile(text: string, source: string): string[] {
  const slots: string[] = [];
  const lines = text.split(/\r?\n/);
  lines.forEach((raw, i) => {
    const line = raw.trim();
    if (line === '') return;
    // smpirun splits at the last colon: the count is what follows it.
    const colon = line.lastIndexOf(':');
    if (colon < 0) {
      slots.push(line);
      return;
    }
    const name = line.slice(0, colon).trim();
    const countText = line.slice(colon + 1).trim();
    const count = /^\d+$/.test(countText) ? Number(countText) : NaN;
    if (name === '' || !Number.isSafeInteger(count)) {
      throw new TsmpiError(ErrorCode.Config, `${source}:${i + 1}: "${line}" is not a host or host:count`, {
        operation: 'read hostfile',
        hint: 'write one platform host per line, or host:N for N ranks on it (e.g. node-0.simgrid.org:4)',
      });
    }
    for (let k = 0; k < count; k++) slots.push(name);
  });
  if (slots.length === 0) {
    throw new TsmpiError(ErrorCode.Config, `${source}: no hosts`, { operation: 'read hostfile', hint: 'list one platform host per line (host:N for N ranks on it)' });
  }
  return slots;
}

/** Host index of each of `np` ranks: rank r on slot r mod slots, as smpirun places them. */
export function placeByHostfile(slots: readonly string[], np: number, hostByName: (name: string) => number | undefined, platformHosts: () => readonly string[], source: string): number[] {
  const ids = new Map<string, number>();
  for (const name of slots) {
    if (ids.has(name)) continue;
    const id = hostByName(name);
    if (id === undefined) {
      const known = platformHosts();
      const shown = known.slice(0, 4).join(', ') + (known.length > 4 ? `, ... (${known.length} hosts)` : '');
      throw new TsmpiError(ErrorCode.Config, `${source}: host "${name}" is not in the platform`, { operation: 'read hostfile', hint: `the platform's hosts are ${shown}` });
    }
    ids.set(name, id);
  }
  return Array.from({ length: np }, (_, r) => ids.get(slots[r % slots.length]!)!);
}
