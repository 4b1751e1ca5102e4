import fs from 'node:fs';

interface SchemaModules {
  schemas: typeof import('./schemas.js');
  'team-store-schemas': typeof import('./team-store-schemas.js');
  'webhook-schemas': typeof import('./webhook-schemas.js');
}

const cache = new Map<string, unknown>();

/**
 * Route schemas. Built agents read the JSON that `scripts/emit-schemas.mjs` wrote from the
 * TypeBox sources (TypeBox itself costs ~115 ms and ~20 MiB to import); running from source
 * (tests), the TypeBox module is imported directly.
 */
export async function loadSchemas<K extends keyof SchemaModules>(name: K): Promise<SchemaModules[K]> {
  const hit = cache.get(name);
  if (hit) return hit as SchemaModules[K];
  let mod: SchemaModules[K];
  try {
    mod = JSON.parse(fs.readFileSync(new URL(`./${name}.generated.json`, import.meta.url), 'utf8')) as SchemaModules[K];
  } catch {
    mod = (await import(`./${name}.js`)) as SchemaModules[K];
  }
  cache.set(name, mod);
  return mod;
}
