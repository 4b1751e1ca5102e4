import fs from 'node:fs';

interface SchemaModules {
  schemas: typeof import('./schemas.js');
  'team-store-schemas': typeof import('./team-store-schemas.js');
  'webhook-schemas': typeof import('./webhook-schemas.js');
}

/** The TypeBox sources, each a literal import so bundlers and Vite can see what is loaded. */
const SOURCES: { [K in keyof SchemaModules]: () => Promise<SchemaModules[K]> } = {
  schemas: () => import('./schemas.js'),
  'team-store-schemas': () => import('./team-store-schemas.js'),
  'webhook-schemas': () => import('./webhook-schemas.js'),
};

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
    // No emitted JSON (running from src/, or dist/ built by a bare tsc): the TypeBox source
    // gives the same schemas, only slower to load.
    mod = await SOURCES[name]();
  }
  cache.set(name, mod);
  return mod;
}
