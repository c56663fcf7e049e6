/**
 * Binding rank threads to CPUs (TSMPI_BIND, `tsmpi run --bind-to`), as Open MPI binds each rank
 * to a core when the ranks fit the machine. A rank that polls while it waits needs its peer on
 * another CPU: unbound, the kernel wakes a sleeping rank on the CPU of the rank that woke it and
 * leaves it queued behind that one's polling, and one busy neighbour process can stall a rank for
 * a whole time slice (docs/guide.md, "Waiting").
 *
 * The plan is made where the threads are created (which CPU each thread gets); the thread binds
 * itself as it starts, since only it knows its own thread id (/proc/thread-self), with
 * `taskset -p -c CPU TID` (Node has no call for a thread's affinity).
 */
import { readFileSync } from 'node:fs';
import type { BindSetting } from '../config/tunables.js';

/** Parses a Linux CPU list ("0-3,6,8-9") into ascending CPU numbers; throws on anything else. */
export function parseCpuList(text: string): number[] {
  const cpus = new Set<number>();
  const trimmed = text.trim();
  if (trimmed === '') return [];
  for (const part of trimmed.split(',')) {
    const match = /^(\d+)(?:-(\d+))?$/.exec(part.trim());
    if (match === null) throw new RangeError(`not a CPU list: ${JSON.stringify(text)}`);
    const first = Number(match[1]);
    const last = match[2] === undefined ? first : Number(match[2]);
    if (last < first) throw new RangeError(`not a CPU list: ${JSON.stringify(text)} (${part} runs backwards)`);
    for (let cpu = first; cpu <= last; cpu++) cpus.add(cpu);
  }
  return [...cpus].sort((a, b) => a - b);
}

/** The shortest CPU list naming `cpus` (ranges for runs), as the kernel writes it. */
export function formatCpuList(cpus: readonly number[]): string {
  const sorted = [...new Set(cpus)].sort((a, b) => a - b);
  const parts: string[] = [];
  for (let i = 0; i < sorted.length; ) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === sorted[j]! + 1) j++;
    parts.push(i === j ? String(sorted[i]) : `${sorted[i]}-${sorted[j]}`);
    i = j + 1;
  }
  return parts.join(',');
}

/**
 * The CPUs this process may run on (its affinity: a cpuset of SLURM or a container, or the
 * launcher's own `taskset`), from /proc/self/status; empty where there is no /proc (not Linux).
 */
export function allowedCpus(status = readStatus()): number[] {
  const line = /^Cpus_allowed_list:\s*(.*)$/m.exec(status);
  return line === null ? [] : parseCpuList(line[1]!);
}

function readStatus(): string {
  try {
    return readFileSync('/proc/self/status', 'utf8');
  } catch {
    return '';
  }
}

/**
 * The CPU of each of a machine's rank threads, by the thread's place among them (0 .. threads-1),
 * or undefined to leave the threads unbound. `auto` binds when 2 or more threads fit the allowed
 * CPUs one each; `core` binds in any case (more threads than CPUs: round robin); `none` never.
 */
export function cpuForThread(setting: BindSetting, place: number, threads: number, cpus: readonly number[]): number | undefined {
  if (setting === 'none' || cpus.length === 0 || place < 0) return undefined;
  if (setting === 'auto' && (threads < 2 || threads > cpus.length)) return undefined;
  return cpus[place % cpus.length];
}
