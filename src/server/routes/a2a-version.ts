import type { FastifyRequest } from 'fastify';

export function header(req: FastifyRequest, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/**
 * The `A2A-Version` header as Major.Minor ("1", "1.0" and "1.0.2" are all 1.0); null when the
 * client sent none, which A2A reads as 0.3.
 */
export function requestedVersion(req: FastifyRequest): string | null {
  const raw = header(req, 'a2a-version')?.trim();
  if (!raw) return null;
  const m = /^(\d+)(?:\.(\d+))?(?:\.\d+)?$/.exec(raw);
  if (!m) return raw;
  return `${Number(m[1])}.${Number(m[2] ?? 0)}`;
}
