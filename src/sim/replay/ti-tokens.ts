/**
 * The small pieces of SimGrid's TI text format that the reader and the writer share: SMPI's
 * datatype ids and their sizes, SMPI's wildcard values, and number syntax.
 */

/**
 * Sizes in bytes of SMPI's predefined datatypes, by the id a TI trace writes
 * (`CREATE_MPI_DATATYPE(name, id, type)` in SimGrid's `src/smpi/mpi/smpi_datatype.cpp`; sizes for
 * LP64 Linux). Ids 0 to 6 are the ones SimGrid's replayer is tested with.
 */
export const SMPI_DATATYPE_SIZES: ReadonlyMap<number, { name: string; size: number }> = new Map([
  [0, { name: 'MPI_DOUBLE', size: 8 }],
  [1, { name: 'MPI_INT', size: 4 }],
  [2, { name: 'MPI_CHAR', size: 1 }],
  [3, { name: 'MPI_SHORT', size: 2 }],
  [4, { name: 'MPI_LONG', size: 8 }],
  [5, { name: 'MPI_FLOAT', size: 4 }],
  [6, { name: 'MPI_BYTE', size: 1 }],
  [7, { name: 'MPI_LONG_LONG', size: 8 }],
  [8, { name: 'MPI_SIGNED_CHAR', size: 1 }],
  [9, { name: 'MPI_UNSIGNED_CHAR', size: 1 }],
  [10, { name: 'MPI_UNSIGNED_SHORT', size: 2 }],
  [11, { name: 'MPI_UNSIGNED', size: 4 }],
  [12, { name: 'MPI_UNSIGNED_LONG', size: 8 }],
  [13, { name: 'MPI_UNSIGNED_LONG_LONG', size: 8 }],
  [14, { name: 'MPI_LONG_DOUBLE', size: 16 }],
  [15, { name: 'MPI_WCHAR', size: 4 }],
  [16, { name: 'MPI_C_BOOL', size: 1 }],
  [17, { name: 'MPI_INT8_T', size: 1 }],
  [18, { name: 'MPI_INT16_T', size: 2 }],
  [19, { name: 'MPI_INT32_T', size: 4 }],
  [20, { name: 'MPI_INT64_T', size: 8 }],
  [21, { name: 'MPI_UINT8_T', size: 1 }],
  [22, { name: 'MPI_UINT16_T', size: 2 }],
  [23, { name: 'MPI_UINT32_T', size: 4 }],
  [24, { name: 'MPI_UINT64_T', size: 8 }],
  [25, { name: 'MPI_C_FLOAT_COMPLEX', size: 8 }],
  [26, { name: 'MPI_C_DOUBLE_COMPLEX', size: 16 }],
  [27, { name: 'MPI_C_LONG_DOUBLE_COMPLEX', size: 32 }],
  [28, { name: 'MPI_AINT', size: 8 }],
  [29, { name: 'MPI_OFFSET', size: 8 }],
  [30, { name: 'MPI_FLOAT_INT', size: 8 }],
  [31, { name: 'MPI_LONG_INT', size: 16 }],
  [32, { name: 'MPI_DOUBLE_INT', size: 16 }],
  [33, { name: 'MPI_SHORT_INT', size: 8 }],
  [34, { name: 'MPI_2INT', size: 8 }],
  [35, { name: 'MPI_2FLOAT', size: 8 }],
  [36, { name: 'MPI_2DOUBLE', size: 16 }],
  [37, { name: 'MPI_2LONG', size: 16 }],
]);

/** The default datatype after `init` with no argument (MPI_BYTE) and with one (MPI_DOUBLE). */
export const DEFAULT_DATATYPE_SIZE = 1;
export const INIT_ARG_DATATYPE_SIZE = 8;

/** SMPI's MPI_ANY_SOURCE and MPI_ANY_TAG, as they appear in traces SMPI records. */
export const SMPI_ANY_SOURCE = -555;
export const SMPI_ANY_TAG = -444;

/** What C's strtod accepts in a trace, minus hex, inf and nan. */
const DECIMAL = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;

/** A finite decimal number, or undefined. */
export function parseDecimal(token: string): number | undefined {
  if (!DECIMAL.test(token)) return undefined;
  const value = Number(token);
  return Number.isFinite(value) ? value : undefined;
}

/** A safe integer written in plain digits (an optional sign, then 0-9 only), or undefined. */
export function parseInteger(token: string): number | undefined {
  const n = token.length;
  let i = 0;
  let negative = false;
  const c0 = token.charCodeAt(0);
  if (c0 === 43 /* + */ || c0 === 45 /* - */) { negative = c0 === 45; i = 1; }
  if (i >= n) return undefined;
  let value = 0;
  for (; i < n; i++) {
    const digit = token.charCodeAt(i) - 48;
    if (digit < 0 || digit > 9) return undefined;
    value = value * 10 + digit;
  }
  if (!Number.isSafeInteger(value)) return undefined;
  return negative && value !== 0 ? -value : value;
}

/**
 * Calls `fn` for each meaningful line of `text`: trimmed, skipping blank lines and `#` comment
 * lines, as SimGrid's reader does. Line numbers start at 1.
 */
export function forEachLine(text: string, fn: (no: number, line: string) => void): void {
  let no = 0;
  for (let pos = 0; pos <= text.length;) {
    let end = text.indexOf('\n', pos);
    if (end < 0) end = text.length;
    no++;
    const line = text.slice(pos, end).trim();
    pos = end + 1;
    if (line !== '' && line.charCodeAt(0) !== 35 /* # */) fn(no, line);
  }
}

/** The fields of a trimmed line, split at runs of spaces and tabs. */
export function tokenize(line: string): string[] {
  const out: string[] = [];
  let start = -1;
  for (let i = 0; i <= line.length; i++) {
    const c = i < line.length ? line.charCodeAt(i) : 32;
    if (c === 32 || c === 9) {
      if (start >= 0) { out.push(line.slice(start, i)); start = -1; }
    } else if (start < 0) {
      start = i;
    }
  }
  return out;
}

/** The first field of a trimmed line. */
export function firstToken(line: string): string {
  for (let i = 0; i < line.length; i++) {
    const c = line.charCodeAt(i);
    if (c === 32 || c === 9) return line.slice(0, i);
  }
  return line;
}

/** The meaningful lines of a (small) text, as fields. */
export function meaningfulLines(text: string): { no: number; tokens: string[] }[] {
  const out: { no: number; tokens: string[] }[] = [];
  forEachLine(text, (no, line) => out.push({ no, tokens: tokenize(line) }));
  return out;
}

/** A number as the writer prints it: the shortest text that reads back to the same double. */
export function formatNumber(value: number): string {
  return String(value);
}
