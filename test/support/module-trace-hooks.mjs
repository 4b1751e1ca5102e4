// Loader hooks of module-trace.mjs (they run on the loader thread): every ES module loaded.
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';

let file = null;

export function initialize(data) {
  file = data.file;
}

export async function load(url, context, nextLoad) {
  const result = await nextLoad(url, context);
  if (file) fs.appendFileSync(file, `${url.startsWith('file:') ? fileURLToPath(url) : url}\n`);
  return result;
}
