/**
 * sched_yield for a JavaScript thread: hands the CPU to another runnable thread, if any.
 *
 * Node has no such call, but its WASI implementation forwards `sched_yield` to the system call.
 * A WASI instance runs its calls only once started on a module that exports memory, so a module of
 * 72 bytes (one import, one page of memory, nothing else) is instantiated for it. Ranks that
 * outnumber the cores poll and yield between polls, as Open MPI's do when oversubscribed: the
 * rank they wait for, queued on the same CPU, runs at once, where a sleep would cost both a
 * wake-up (20-40 us on these VMs).
 */
import { createRequire } from 'node:module';

/** A module importing wasi_snapshot_preview1.sched_yield and exporting one page of memory. */
function yieldModuleBytes(): Uint8Array {
  const name = (text: string): number[] => [text.length, ...new TextEncoder().encode(text)];
  const importSection = [1, ...name('wasi_snapshot_preview1'), ...name('sched_yield'), 0x00, 0];
  const exportSection = [1, ...name('memory'), 0x02, 0];
  return new Uint8Array([
    0x00, 0x61, 0x73, 0x6d, 1, 0, 0, 0,
    1, 5, 1, 0x60, 0, 1, 0x7f, // type 0: () -> i32
    2, importSection.length, ...importSection,
    5, 3, 1, 0, 1, // memory: min 1 page
    7, exportSection.length, ...exportSection,
  ]);
}

/** The part of the WebAssembly global used here (the project's lib settings carry no WebAssembly types). */
interface WebAssemblyGlobal {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: Record<string, object>) => object;
}

let yieldCall: (() => number) | null | undefined;

/**
 * The thread's sched_yield, or undefined where WASI is not available. Node prints an experimental
 * warning as the WASI module loads; a rank's output should not carry it, so it is held back here.
 */
export function processorYield(): (() => number) | undefined {
  if (yieldCall !== undefined) return yieldCall ?? undefined;
  const emitWarning = process.emitWarning;
  try {
    process.emitWarning = (() => {}) as typeof process.emitWarning;
    // Loaded here, not imported: the module warns as it loads.
    const { WASI } = (typeof require === 'function' ? require('node:wasi') : createRequire(import.meta.url)('node:wasi')) as typeof import('node:wasi');
    const wasi = new WASI({ version: 'preview1' });
    const wasm = (globalThis as unknown as { WebAssembly: WebAssemblyGlobal }).WebAssembly;
    const instance = new wasm.Instance(new wasm.Module(yieldModuleBytes()), {
      wasi_snapshot_preview1: wasi.wasiImport,
    });
    wasi.initialize(instance);
    const call = wasi.wasiImport.sched_yield as () => number;
    yieldCall = call() === 0 ? call : null;
  } catch {
    yieldCall = null;
  } finally {
    process.emitWarning = emitWarning;
  }
  return yieldCall ?? undefined;
}
