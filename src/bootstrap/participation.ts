/**
 * On-demand initialisation of the communication environment (docs/techniques.md §5): only some of the job manager's processes set up communication.
 *
 * - `TSMPI_CG_PER_PROCESS=k`: resource ids with id % k == 0 are members; member id s becomes rank
 *   s / k and the world has ceil(n / k) ranks (the seed's tasksize / k, rounded up when k does
 *   not divide n). Every per-process list of the job info is compacted to every k-th entry.
 * - `TSMPI_MAPPING_FILE=path`: one resource id per line; the i-th id (blank lines and `#`
 *   comments skipped) becomes rank i, so any permutation remaps ranks. A missing file, a line that
 *   is not an id, a duplicate or an id outside the job is an error naming the file and line.
 * - neither, or k = 1, or a mapping of every id in order: everybody, as plain init.
 *
 * Non-members get a handle that says so and hold no rings, sockets or per-peer tables. These are
 * pure functions of the job size and the rule, so every process computes the same answer alone
 * (no agreement, no bootstrap messages: the seed's point).
 */
import { readFileSync } from 'node:fs';
import { ErrorCode, TsmpiError } from '../errors.js';

export type ParticipationRule = { kind: 'all' } | { kind: 'stride'; k: number } | { kind: 'mapping'; ids: readonly number[]; source: string };

/** Who communicates: `members[newRank]` is the resource id of new rank `newRank`. */
export interface Participation {
  readonly rule: ParticipationRule;
  readonly members: readonly number[];
  /** New rank of every resource id; -1 for non-members. */
  readonly rankOf: Int32Array;
}

function ruleError(message: string, hint: string): TsmpiError {
  return new TsmpiError(ErrorCode.Config, message, { operation: 'init', hint });
}

/** Parses a mapping file's text (`source` names it in errors). */
export function parseMappingFile(text: string, source: string, size: number): number[] {
  const ids: number[] = [];
  const lineOf = new Map<number, number>();
  const lines = text.split(/\r?\n/);
  lines.forEach((raw, index) => {
    const line = raw.replace(/#.*/, '').trim();
    if (line === '') return;
    const where = `${source}:${index + 1}`;
    if (!/^\d+$/.test(line)) throw ruleError(`${where}: "${raw.trim()}" is not a resource id`, 'write one resource id (a non-negative integer) per line; # starts a comment');
    const id = Number(line);
    if (id >= size) throw ruleError(`${where}: resource id ${id} is not in this job of ${size} processes`, `use ids from 0 to ${size - 1}`);
    const first = lineOf.get(id);
    if (first !== undefined) throw ruleError(`${where}: resource id ${id} is listed twice (first on line ${first})`, 'list each resource id at most once');
    lineOf.set(id, index + 1);
    ids.push(id);
  });
  if (ids.length === 0) throw ruleError(`${source} lists no resource ids`, 'list at least one resource id, one per line');
  return ids;
}

/** Reads the rule from the environment (TSMPI_CG_PER_PROCESS, TSMPI_MAPPING_FILE). */
export function ruleFromEnv(env: NodeJS.ProcessEnv, size: number): ParticipationRule {
  const k = env.TSMPI_CG_PER_PROCESS;
  const file = env.TSMPI_MAPPING_FILE;
  if (k !== undefined && k !== '' && file !== undefined && file !== '') {
    throw ruleError('TSMPI_CG_PER_PROCESS and TSMPI_MAPPING_FILE are both set', 'set one of them');
  }
  if (file !== undefined && file !== '') {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (cause) {
      throw new TsmpiError(ErrorCode.Config, `TSMPI_MAPPING_FILE=${file} cannot be read (${(cause as NodeJS.ErrnoException).code ?? String(cause)})`, {
        operation: 'init',
        hint: 'point TSMPI_MAPPING_FILE at a readable file with one resource id per line',
        cause,
      });
    }
    return { kind: 'mapping', ids: parseMappingFile(text, file, size), source: file };
  }
  if (k !== undefined && k !== '') {
    const value = Number(k);
    if (!Number.isInteger(value) || value < 1) throw ruleError(`TSMPI_CG_PER_PROCESS=${JSON.stringify(k)} is not valid`, 'set TSMPI_CG_PER_PROCESS to a whole number >= 1');
    return value === 1 ? { kind: 'all' } : { kind: 'stride', k: value };
  }
  return { kind: 'all' };
}

/** Applies a rule to a job of `size` processes. */
export function participation(rule: ParticipationRule, size: number): Participation {
  let members: number[];
  if (rule.kind === 'all') members = Array.from({ length: size }, (_, i) => i);
  else if (rule.kind === 'stride') members = Array.from({ length: Math.ceil(size / rule.k) }, (_, i) => i * rule.k);
  else members = [...rule.ids];
  const rankOf = new Int32Array(size).fill(-1);
  members.forEach((id, rank) => {
    rankOf[id] = rank;
  });
  return { rule, members, rankOf };
}

/** Compacts a per-process list (in resource order) to the members, in new-rank order. */
export function compact<T>(list: readonly T[], part: Participation): T[] {
  return part.members.map((id) => list[id]!);
}

/** Says why a resource id is not a member, for the non-member handle and errors. */
export function whyNotMember(part: Participation, id: number): string {
  const rule = part.rule;
  if (rule.kind === 'stride') return `TSMPI_CG_PER_PROCESS=${rule.k}: resource id ${id} % ${rule.k} != 0`;
  if (rule.kind === 'mapping') return `TSMPI_MAPPING_FILE=${rule.source} does not list resource id ${id}`;
  return 'every process is a member';
}
