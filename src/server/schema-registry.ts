import fs from 'node:fs';

type SchemaModule = typeof import('./schemas.js');

let cache: SchemaModule | null = null;

/**
 * The route schemas. Built agents read the JSON that `scripts/emit-schemas.mjs` wrote from the
 * TypeBox sources; running from source (tests), the TypeBox module is imported directly.
 */
export async function routeSchemas(): Promise<SchemaModule> {
  if (cache) return cache;
  try {
    const json = fs.readFileSync(new URL('./schemas.generated.json', import.meta.url), 'utf8');
    cache = JSON.parse(json) as SchemaModule;
  } catch {
    cache = await import('./schemas.js');
  }
  return cache;
}
