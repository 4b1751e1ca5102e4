#!/usr/bin/env node
// The bin runs the compiled CLI so start-up needs no transpiler.
import('../dist/cli/main.js').then((m) => m.main(process.argv)).catch((err) => {
  process.stderr.write(`synapse: ${err?.stack ?? err}\n`);
  process.exit(1);
});
