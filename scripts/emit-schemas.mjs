// Build step: evaluates the TypeBox schema modules once and writes them as plain JSON Schema,
// so agents load schemas with JSON.parse instead of importing TypeBox at start-up
// (measured here: TypeBox costs ~115 ms and ~20 MiB per agent process).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const dist = fileURLToPath(new URL('../dist/', import.meta.url));
// Each module's exports named *Schema become <module>.generated.json beside it.
const modules = ['server/schemas.js', 'server/team-store-schemas.js', 'server/webhook-schemas.js'];
let count = 0;
for (const rel of modules) {
  const file = path.join(dist, rel);
  if (!fs.existsSync(file)) continue;
  const mod = await import(pathToFileURL(file).href);
  const out = {};
  for (const [name, schema] of Object.entries(mod)) {
    if (name.endsWith('Schema')) out[name] = JSON.parse(JSON.stringify(schema));
  }
  count += Object.keys(out).length;
  fs.writeFileSync(file.replace(/\.js$/, '.generated.json'), `${JSON.stringify(out)}\n`);
}
console.log(`emitted ${count} JSON schemas`);
