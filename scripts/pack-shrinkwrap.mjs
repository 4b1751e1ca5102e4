// `npm pack` / `npm publish` ship the dependency tree this repository is tested with: prepack copies
// package-lock.json to npm-shrinkwrap.json (which npm packs and honours when the tarball is
// installed, unlike package-lock.json), postpack (`--remove`) deletes the copy again. Without it an
// install resolves every range afresh and can pick versions that need a newer Node than 20.
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../', import.meta.url));
const shrinkwrap = `${root}npm-shrinkwrap.json`;
if (process.argv.includes('--remove')) fs.rmSync(shrinkwrap, { force: true });
else fs.copyFileSync(`${root}package-lock.json`, shrinkwrap);
