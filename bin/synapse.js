#!/usr/bin/env -S node --max-semi-space-size=1 --v8-pool-size=1 --expose-gc
// A small young generation keeps a long-lived agent's idle RSS ~20 MiB lower (bench/delivery), one
// V8 worker thread ~1 MiB lower (bench/footprint), and `gc()` lets an agent hand back the heap a
// burst of work grew once it is idle again (src/runtime/idle-gc.ts); the flags are AGENT_NODE_FLAGS of
// dist/runtime/launch.js, which background agents are started with.
// The bin runs the compiled CLI's bundle (dist/bundle/, scripts/bundle.mjs): start-up reads a few
// files instead of hundreds, and needs no transpiler.
import('../dist/bundle/main.js')
  .then((m) => m.main(process.argv))
  .catch((err) => {
    process.stderr.write(`synapse: ${err?.stack ?? err}\n`);
    process.exit(1);
  });
