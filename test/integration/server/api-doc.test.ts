import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempHome } from '../../support/synapse.js';
import { appRoutes as registeredRoutes, type Route } from './test-app.js';

/**
 * guides/api.md promises every route of the agent's app. The routes are listed from the real app
 * (its onRoute hook), so a route added later fails here until the guide names it, and a route
 * the guide names that the app does not serve fails too.
 */

const API_MD = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../guides/api.md');

/** `:id` → `{id}`; the trailing-slash twins of the A2A routes are one route. */
const docPath = (url: string) => url.replace(/:([A-Za-z]+)/g, '{$1}').replace(/(.)\/$/, '$1');

/** Every route as the guide writes it: `METHOD /path`; a route served for every method is `ANY`. */
function asDocumented(routes: Route[]): string[] {
  const methods = new Map<string, Set<string>>();
  for (const r of routes) {
    if (r.method === 'HEAD') continue; // Fastify answers HEAD for every GET
    const url = docPath(r.url);
    methods.set(url, (methods.get(url) ?? new Set()).add(r.method));
  }
  const out: string[] = [];
  for (const [url, ms] of methods) {
    if (ms.has('TRACE') && ms.has('OPTIONS')) out.push(`ANY ${url}`);
    else for (const m of ms) out.push(`${m} ${url}`);
  }
  return out.sort();
}

/** The inline code spans of the guide that name a route: `GET /x`, `GET|DELETE /x/{id}`, `ANY /x/*`. */
function documentedRoutes(markdown: string): string[] {
  const out = new Set<string>();
  for (const m of markdown.matchAll(/`((?:[A-Z]+\|)*[A-Z]+) (\/[^`\s]*)`/g)) {
    const url = m[2]!.replace(/\?.*$/, '');
    for (const method of m[1]!.split('|')) out.add(`${method} ${url}`);
  }
  return [...out].sort();
}

/** Does a documented path (with `{x}` placeholders, or concrete like `tasks/{id}:cancel`) fall under a route pattern? */
function served(doc: string, routes: string[]): boolean {
  const [method, url] = doc.split(' ') as [string, string];
  return routes.some((r) => {
    const [rm, ru] = r.split(' ') as [string, string];
    if (rm !== method || ru.endsWith('/*') !== url.endsWith('/*')) return false;
    const pattern = new RegExp(`^${ru.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\\{[A-Za-z]+\\\}|\{[A-Za-z]+\}/g, '[^/]+')}$`);
    return pattern.test(url.replace(/\{[A-Za-z]+\}/g, 'x'));
  });
}

describe('guides/api.md names every route of the agent app', () => {
  const t = tempHome();
  let registered: Route[] = [];

  beforeAll(async () => {
    registered = await registeredRoutes(t.home, t.env, 18_200);
  });
  afterAll(() => t.cleanup());

  it('documents each registered route with its method and path', () => {
    const routes = asDocumented(registered);
    expect(routes.length).toBeGreaterThan(50);
    expect(routes).toContain('POST /tasks/send');
    expect(routes).toContain('ANY /a2a/rest/v1/*');
    const documented = new Set(documentedRoutes(fs.readFileSync(API_MD, 'utf8')));
    expect(routes.filter((r) => !documented.has(r))).toEqual([]);
  });

  it('names no route the app does not serve', () => {
    const routes = asDocumented(registered);
    const stale = documentedRoutes(fs.readFileSync(API_MD, 'utf8')).filter((d) => !(d.startsWith('ANY ') ? routes.includes(d) : served(d, routes)));
    expect(stale).toEqual([]);
  });

  it('would notice a missing route (the check itself works)', () => {
    const routes = asDocumented(registered);
    const withoutSend = fs.readFileSync(API_MD, 'utf8').replaceAll('`POST /tasks/send`', 'POST /tasks/send');
    expect(routes.filter((r) => !new Set(documentedRoutes(withoutSend)).has(r))).toEqual(['POST /tasks/send']);
    expect(served('POST /a2a/rest/v1/tasks/{id}:cancel', routes)).toBe(true);
    expect(served('GET /no/such/route', routes)).toBe(false);
  });
});
