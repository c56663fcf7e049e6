/**
 * Latency and bandwidth factors that depend on the message size, as SimGrid's SMPI network model
 * takes them (`smpi/lat-factor`, `smpi/bw-factor`): a list of `threshold:value` pairs separated by
 * `;`, e.g. `65472:0.940694;15424:0.697866;0:0.812084`. The pairs are sorted by threshold; a
 * size s takes 1 when s is at most the smallest threshold, otherwise the value of the largest
 * threshold below s (a size in (t_k, t_k+1] takes the value of t_k). A single number is a
 * factor for every size.
 */

export interface SizeFactor {
  /** The factor for a message of `bytes` bytes on the wire. */
  at(bytes: number): number;
  /** As written in a configuration (`0.97`, or `t:v;t:v`). */
  readonly text: string;
}

/** SMPI's default `smpi/bw-factor` (SimGrid 3.32). */
export const SMPI_BW_FACTOR = '65472:0.940694;15424:0.697866;9376:0.58729;5776:1.08739;3484:0.77493;1426:0.608902;732:0.341987;257:0.338112;0:0.812084';
/** SMPI's default `smpi/lat-factor` (SimGrid 3.32). */
export const SMPI_LAT_FACTOR = '65472:11.6436;15424:3.48845;9376:2.59299;5776:2.18796;3484:1.88101;1426:1.61075;732:1.9503;257:1.95341;0:2.01467';

/** A factor for every size. */
export function constantFactor(value: number): SizeFactor {
  if (!(value >= 0 && value < Infinity)) throw new RangeError(`a factor must be a finite number >= 0, got ${value}`);
  return { at: () => value, text: String(value) };
}

/**
 * Parses `t:v;t:v;...` (or one number). Throws a RangeError naming `what` and the bad entry.
 */
export function parseSizeFactor(text: string, what: string): SizeFactor {
  const trimmed = text.trim();
  if (/^[0-9.eE+-]+$/.test(trimmed)) {
    const value = Number(trimmed);
    if (!(value >= 0 && value < Infinity)) throw new RangeError(`${what}: ${JSON.stringify(text)} is not a factor`);
    return { at: () => value, text: trimmed };
  }
  const thresholds: number[] = [];
  const values: number[] = [];
  const entries = trimmed
    .split(';')
    .map((e) => e.trim())
    .filter((e) => e !== '');
  if (entries.length === 0) throw new RangeError(`${what}: ${JSON.stringify(text)} lists no threshold:value pair`);
  const pairs = entries.map((entry) => {
    const parts = entry.split(':');
    const threshold = Number(parts[0]);
    const value = Number(parts[1]);
    if (parts.length !== 2 || !Number.isInteger(threshold) || threshold < 0 || !(value >= 0 && value < Infinity)) {
      throw new RangeError(`${what}: ${JSON.stringify(entry)} is not threshold:value (a size in bytes, a factor)`);
    }
    return { threshold, value };
  });
  pairs.sort((a, b) => a.threshold - b.threshold);
  for (const p of pairs) {
    thresholds.push(p.threshold);
    values.push(p.value);
  }
  return {
    at(bytes: number): number {
      // Few entries (SMPI has 9): a linear scan beats a binary search's branches.
      let current = 1;
      for (let i = 0; i < thresholds.length; i++) {
        if (bytes <= thresholds[i]!) return current;
        current = values[i]!;
      }
      return current;
    },
    text: trimmed,
  };
}
