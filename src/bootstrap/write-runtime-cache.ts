/**
 * Writes the runtime's code cache under this process's V8 flags (runtime-cache.ts starts it):
 *   node [FLAGS] dist/bootstrap/write-runtime-cache.js SCRIPT OUT
 */
import { writeScriptCache } from './cached-script.js';
import { warmUpRuntime } from './runtime-cache.js';

const [scriptPath, out] = process.argv.slice(2);
if (scriptPath === undefined || out === undefined) {
  process.stderr.write('usage: write-runtime-cache.js SCRIPT OUT\n');
  process.exit(2);
}
await writeScriptCache(scriptPath, warmUpRuntime, out);
