/** A byte count as people write it: `0 B`, `512 B`, `64 KiB`, `16 MiB` (exact units above 1 KiB and 1 MiB). */
export function sizeLabel(bytes: number): string {
  return bytes >= 1 << 20 ? `${bytes / (1 << 20)} MiB` : bytes >= 1024 ? `${bytes / 1024} KiB` : `${bytes} B`;
}
