/**
 * glibc malloc settings for the rank processes a launcher starts. By default glibc serves blocks
 * of 128 KiB and more with their own mmap and hands freed memory back to the system, so every
 * large message's fresh buffer is zeroed page by page through page faults again: 0.3-2 ms per
 * MiB on these VMs. Keeping freed memory in the heap makes that ~0.1 ms; MPI runtimes tune the
 * allocator the same way for the same reason (no trimming, no mmap for message buffers). Over TCP
 * a 1 MiB put + flush went from ~12 ms to ~2.7 ms (`npm run bench -- rma --procs`). A value the
 * user set wins.
 */
const ALLOCATOR_DEFAULTS: Readonly<Record<string, string>> = {
  // Blocks below 64 MiB come from the heap, not from a mapping of their own.
  MALLOC_MMAP_THRESHOLD_: String(64 << 20),
  // Free memory at the top of the heap goes back to the system only beyond 256 MiB.
  MALLOC_TRIM_THRESHOLD_: String(256 << 20),
};

/** `env` with the allocator defaults added where it does not set them. */
export function withAllocatorDefaults(env: Record<string, string | undefined>): Record<string, string | undefined> {
  const out = { ...env };
  for (const [name, value] of Object.entries(ALLOCATOR_DEFAULTS)) if (out[name] === undefined) out[name] = value;
  return out;
}
