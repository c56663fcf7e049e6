/**
 * Binomial trees over ranks relative to a root (vrank = (rank - root + p) mod p). The subtree of
 * vrank v spans [v, v + lowbit(v)); v's parent is v - lowbit(v); its children are v + m for the
 * powers of two m below lowbit(v) (below the tree's span for the root).
 */

/** Smallest power of two >= n. */
export function ceilPowerOfTwo(n: number): number {
  let m = 1;
  while (m < n) m *= 2;
  return m;
}

/** Parent of `vrank` and the size of its subtree span (`mask` = lowest set bit); root: -1, 0. */
export function binomialParent(vrank: number): { parent: number; mask: number } {
  if (vrank === 0) return { parent: -1, mask: 0 };
  const mask = vrank & -vrank;
  return { parent: vrank - mask, mask };
}

/** Whether `vrank` has children in a tree of `size` ranks (as binomialChildren, allocating nothing). */
export function hasBinomialChildren(vrank: number, size: number): boolean {
  // The smallest child is vrank + 1, and only an even vrank (or the root) has one.
  return vrank + 1 < size && (vrank & 1) === 0;
}

/** Children of `vrank` in a tree of `size` ranks, largest subtree first. */
export function binomialChildren(vrank: number, size: number): number[] {
  const { parent, mask } = binomialParent(vrank);
  const children: number[] = [];
  for (let m = (parent < 0 ? ceilPowerOfTwo(size) : mask) / 2; m >= 1; m /= 2) if (vrank + m < size) children.push(vrank + m);
  return children;
}
