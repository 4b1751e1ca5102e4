// Preloaded (NODE_OPTIONS=--import) into every node process of a test agent; only the echo agent
// (the program behind the PTY) acts: it appends every byte its terminal hands it to
// PTY_INPUT_LOG, before any decoding, so a test can assert on exactly what reached the PTY.
import fs from 'node:fs';

const log = process.env.PTY_INPUT_LOG;
if (log && /echo-agent\.js$/.test(process.argv[1] ?? '')) {
  const stdin = process.stdin;
  const push = stdin.push.bind(stdin);
  stdin.push = (chunk, encoding) => {
    if (chunk) fs.appendFileSync(log, Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk, encoding));
    return push(chunk, encoding);
  };
}
