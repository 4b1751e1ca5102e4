// Regenerates the tables of guides/settings.md from the settings schema (src/config/keys.ts and
// env-vars.ts, built to dist/). Run after `npm run build`; test/unit/config/settings-doc.test.ts
// fails when the guide and the schema drift.
import fs from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';

const guide = fileURLToPath(new URL('../guides/settings.md', import.meta.url));
const { withDocTables } = await import(pathToFileURL(fileURLToPath(new URL('../dist/config/settings-doc.js', import.meta.url))).href);
fs.writeFileSync(guide, withDocTables(fs.readFileSync(guide, 'utf8')));
console.log(`updated ${guide}`);
