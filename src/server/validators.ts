import fs from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import type { FastifyServerOptions } from 'fastify';

/** What Fastify hands a validator compiler: one part (body, params, querystring, headers) of one route. */
interface RouteSchema {
  schema: unknown;
  method: string;
  url: string;
  httpPart?: string;
}

type Validator = ((data: unknown) => unknown) & { errors?: unknown };

/** Fastify's `schemaController.compilersFactory`. */
export type SchemaCompilers = NonNullable<NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']>;

/** `validators.generated.cjs`: each route part's schema (JSON) and validator (a file of its own, loaded by `load`), by `routeKey`. */
interface Precompiled {
  routes: Record<string, [schema: string, validator: number]>;
  load(validator: number): Validator;
}

const require = createRequire(import.meta.url);
/** Fastify's own compilers, resolved through fastify (they are its dependencies, not ours). */
const fastifyRequire = createRequire(require.resolve('fastify'));

/**
 * The key of one route part in the precompiled table; scripts/emit-schemas.mjs keys the table
 * with it (from dist/, which knip does not follow).
 * @public
 */
export function routeKey(route: RouteSchema): string {
  return `${route.method} ${route.url} ${route.httpPart ?? ''}`;
}

let precompiled: Precompiled | null | undefined;

/** `validators.generated.cjs`, written by `scripts/emit-schemas.mjs` at build time; null when absent (running from src/). */
function loadPrecompiled(): Precompiled | null {
  if (precompiled === undefined) {
    const file = fileURLToPath(new URL('./validators.generated.cjs', import.meta.url));
    precompiled = fs.existsSync(file) ? (require(file) as Precompiled) : null;
  }
  return precompiled;
}

/** Compiles on the first request that needs it; Fastify reads `errors` off the function after a call. */
function compiledOnFirstUse(compile: () => Validator): Validator {
  let fn: Validator | null = null;
  const validator: Validator = (data) => {
    fn ??= compile();
    const ok = fn(data);
    validator.errors = fn.errors;
    return ok;
  };
  return validator;
}

/**
 * The agent's schema compilers, so that no schema is compiled while the agent starts. A built
 * agent takes each route's validator from the table the build wrote with Fastify's standalone
 * AJV mode (same AJV options as Fastify's default compiler), checked against the route's schema
 * as it is now; a route the table does not know (running from src/, a stale table) is compiled
 * with Fastify's default AJV compiler. Either happens on the route's first request: an agent
 * loads neither the table nor AJV nor fast-json-stringify's compiler before it is needed.
 */
export function schemaCompilers(): SchemaCompilers {
  return {
    buildValidator: (externalSchemas: unknown, ajvOptions: unknown) => {
      let ajv: ((route: RouteSchema) => Validator) | null = null;
      const withAjv = (route: RouteSchema): Validator => {
        ajv ??= (fastifyRequire('@fastify/ajv-compiler') as () => (e: unknown, o: unknown) => (r: RouteSchema) => Validator)()(externalSchemas, ajvOptions);
        return ajv(route);
      };
      return (route: RouteSchema) => {
        const schema = JSON.stringify(route.schema);
        return compiledOnFirstUse(() => {
          const table = loadPrecompiled();
          const hit = table?.routes[routeKey(route)];
          return table && hit && hit[0] === schema ? table.load(hit[1]) : withAjv(route);
        });
      };
    },
    // No route has a response schema today; should one get one, fast-json-stringify loads then.
    buildSerializer: (externalSchemas: unknown, options: unknown) =>
      (fastifyRequire('@fastify/fast-json-stringify-compiler') as () => (e: unknown, o: unknown) => unknown)()(externalSchemas, options),
  } as SchemaCompilers;
}
