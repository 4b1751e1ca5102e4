// Preload for tests that ask which modules a process has loaded:
//   NODE_OPTIONS=--import=<this file's URL> MODULE_TRACE_DIR=<dir> synapse …
// appends the path of every module each process loads, as it loads, to <dir>/<pid>.txt, one a
// line: ES modules through a loader hook, CommonJS through require (which in Node 20 does not
// pass the loader hooks). A file per process, because NODE_OPTIONS reaches every node process
// the command starts. Nothing in the product knows about it; the processes are the real ones.
import fs from 'node:fs';
import path from 'node:path';
import { createRequire, register } from 'node:module';
import { fileURLToPath } from 'node:url';

const dir = process.env.MODULE_TRACE_DIR;
if (dir) {
  const file = path.join(dir, `${process.pid}.txt`);
  register('./module-trace-hooks.mjs', import.meta.url, { data: { file } });
  const Module = createRequire(import.meta.url)('node:module');
  const load = Module._load;
  Module._load = function traced(request, parent, isMain) {
    const exports = load.call(this, request, parent, isMain);
    let where;
    try {
      where = Module._resolveFilename(request, parent, isMain);
    } catch {
      where = request; // resolved by a loader we do not know: its request is the best name
    }
    fs.appendFileSync(file, `${where.startsWith('file:') ? fileURLToPath(where) : where}\n`);
    return exports;
  };
}
