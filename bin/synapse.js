#!/usr/bin/env -S NODE_EXTRA_CA_CERTS= SYNAPSE_EXTRA_CA=${NODE_EXTRA_CA_CERTS} node --max-semi-space-size=1 --v8-pool-size=1
// A small young generation keeps a long-lived agent's idle RSS ~20 MiB lower (bench/delivery), one
// V8 worker thread ~1 MiB lower (bench/footprint); the flags are AGENT_NODE_FLAGS of
// dist/runtime/launch.js, which background agents are started with. NODE_EXTRA_CA_CERTS waits
// under another name: node would read that file before anything runs (~30-40 ms, ~2 MiB), and
// synapse puts it back at once and reads it only before it opens a TLS connection
// (src/extra-ca-certs.ts). The line stays within 127 bytes, all Linux before 5.1 reads of it.
'use strict';
// The heap took its young generation's size when it was made, and keeps it. Now the flag goes
// back to its default: V8 takes Node's built-in code cache only under default V8 flags, so under
// the flag every built-in module would be compiled from source (3× the time: ~8 ms of each start).
// This file is CommonJS (bin/package.json) because an ES module has made node load its ES module
// loader, compiled from source, before its first line runs. For the same reason the setter is
// node:v8's own binding, not node:v8, which would first load the stream modules, compiled from
// source (~4 ms); node marks that access deprecated (DEP0111), so its warning is not printed.
// Under `--no-deprecation` (NODE_OPTIONS) node has made process.noDeprecation read-only, and true.
function v8Flags() {
  if (typeof process.binding !== 'function') return require('node:v8');
  const quiet = process.noDeprecation === true;
  try {
    if (!quiet) process.noDeprecation = true;
    return process.binding('v8');
  } catch {
    return require('node:v8');
  } finally {
    if (!quiet) process.noDeprecation = false;
  }
}
v8Flags().setFlagsFromString('--max-semi-space-size=0');
// The bin runs the compiled CLI's bundle (dist/bundle/, scripts/bundle.mjs): start-up reads a few
// files instead of hundreds, and needs no transpiler.
import('../dist/bundle/main.js')
  .then((m) => m.main(process.argv))
  .catch((err) => {
    process.stderr.write(`synapse: ${err?.stack ?? err}\n`);
    process.exit(1);
  });
