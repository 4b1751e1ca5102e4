import { fileURLToPath } from 'node:url';
import { readJsonFile } from '../json-file.js';
import type * as Schemas from './schemas.js';
import type * as TeamStoreSchemas from './team-store-schemas.js';
import type * as WebhookSchemas from './webhook-schemas.js';

interface SchemaModules {
  schemas: typeof Schemas;
  'team-store-schemas': typeof TeamStoreSchemas;
  'webhook-schemas': typeof WebhookSchemas;
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
  // No emitted JSON (running from src/, or dist/ built by a bare tsc): the TypeBox source gives
  // the same schemas, only slower to load. A corrupt emitted file is an error naming it.
  const emitted = readJsonFile(fileURLToPath(new URL(`./${name}.generated.json`, import.meta.url)), 'emitted schema file') as SchemaModules[K] | null;
  const mod = emitted ?? (await SOURCES[name]());
  cache.set(name, mod);
  return mod;
}
