#!/usr/bin/env -S NODE_EXTRA_CA_CERTS= SYNAPSE_EXTRA_CA=${NODE_EXTRA_CA_CERTS} node --max-semi-space-size=1 --v8-pool-size=1
// A small young generation keeps a long-lived agent's idle RSS ~20 MiB lower (bench/delivery), one
// V8 worker thread ~1 MiB lower (bench/footprint); the flags are AGENT_NODE_FLAGS of
// dist/runtime/launch.js, which background agents are started with. NODE_EXTRA_CA_CERTS waits
// under another name: node would read that file before anything runs (~30-40 ms, ~2 MiB), and
// synapse puts it back at once and reads it only before it opens a TLS connection
// (src/extra-ca-certs.ts). The line stays within 127 bytes, all Linux before 5.1 reads of it.
// The bin runs the compiled CLI's bundle (dist/bundle/, scripts/bundle.mjs): start-up reads a few
// files instead of hundreds, and needs no transpiler.
import('../dist/bundle/main.js')
  .then((m) => m.main(process.argv))
  .catch((err) => {
    process.stderr.write(`synapse: ${err?.stack ?? err}\n`);
    process.exit(1);
  });
