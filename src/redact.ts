/**
 * Secrets never reach what Synapse keeps (issue 21 §4): history, memory, webhook records, trace
 * files, the agent's finished tasks. Text that looks like a credential is replaced by a marker
 * that says what was there, `[REDACTED:bearer]`. The live delivery into the CLI is not redacted.
 */

const MARK = (kind: string) => `[REDACTED:${kind}]`;

/** Patterns of well-known credential shapes, most specific first. */
const SHAPES: ReadonlyArray<{ kind: string; re: RegExp; keep?: string }> = [
  { kind: 'private-key', re: /-----BEGIN ((?:[A-Z0-9]+ )*)PRIVATE KEY-----[\s\S]*?(?:-----END \1PRIVATE KEY-----|$)/g },
  // `Authorization: Bearer …`, `Basic …`: the scheme stays, the credential goes. A credential has
  // a digit somewhere, so "Basic authentication" stays prose.
  { kind: 'bearer', re: /\b(Bearer|Basic)(\s+)(?=[A-Za-z\-._~+/]*[0-9])[A-Za-z0-9\-._~+/]{8,}=*/g, keep: '$1$2' },
  { kind: 'api-key', re: /\bsk-[A-Za-z0-9_-]{16,}/g },
  { kind: 'github-token', re: /\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{20,}|\bgithub_pat_[A-Za-z0-9_]{20,}/g },
  { kind: 'aws-key', re: /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g },
  { kind: 'google-key', re: /\bAIza[0-9A-Za-z_-]{35}/g },
  { kind: 'slack-token', re: /\bxox[abposr]-[A-Za-z0-9-]{10,}/g },
  // `postgres://user:password@host`: the user and host stay, the password goes.
  { kind: 'url-password', re: /\b([a-z][a-z0-9+.-]*:\/\/[^\s:/@"'<>]*:)(?!\[REDACTED)[^\s@/"'<>]+(?=@)/gi, keep: '$1' },
  { kind: 'jwt', re: /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g },
  // `password=…`, `token: …`, `"api_key": "…"`: the name stays, the value goes. The value never
  // takes a quote or a backslash, so JSON text stays JSON.
  {
    kind: 'secret',
    re: /\b((?:pass(?:word|wd)?|pwd|secret|token|api[_-]?key|access[_-]?key|access[_-]?token|auth[_-]?token|client[_-]?secret|private[_-]?key)"?\s*[:=]\s*"?)(?!\[REDACTED)[^\s"'&,;\\<>]{3,}/gi,
    keep: '$1',
  },
];

/** Variables whose values are credentials: the configured API keys (ours and the CLIs'). */
const SECRET_VAR = /(?:^|_)(?:API_KEYS?|ADMIN_KEY|TOKEN|SECRET|PASSWORD|ACCESS_KEY(?:_ID)?|SECRET_ACCESS_KEY)$/;
/** Shorter values would redact ordinary words. */
const MIN_VALUE = 8;

export type Redactor = (text: string) => string;

/** The configured secret values in `env` (comma lists split), longest first. */
export function configuredSecrets(env: NodeJS.ProcessEnv): string[] {
  const values = new Set<string>();
  for (const [name, value] of Object.entries(env)) {
    if (!value || !SECRET_VAR.test(name)) continue;
    for (const v of name.endsWith('_KEYS') ? value.split(',') : [value]) if (v.trim().length >= MIN_VALUE) values.add(v.trim());
  }
  return [...values].sort((a, b) => b.length - a.length);
}

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** A redactor for this environment: the configured values, then the shapes. */
export function secretRedactor(env: NodeJS.ProcessEnv): Redactor {
  const configured = configuredSecrets(env);
  const exact = configured.length ? new RegExp(configured.map(escapeRe).join('|'), 'g') : null;
  return (text) => {
    if (!text) return text;
    let out = exact ? text.replace(exact, MARK('configured-key')) : text;
    for (const s of SHAPES) out = out.replace(s.re, s.keep ? `${s.keep}${MARK(s.kind)}` : MARK(s.kind));
    return out;
  };
}

/**
 * A connection URL as it may be printed or logged: the password (if any) replaced by `***`.
 * Text that does not parse as a URL goes through the password shape instead.
 */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    for (const key of ['password', 'sslpassword', 'sslkey']) if (u.searchParams.has(key)) u.searchParams.set(key, '***');
    return u.toString();
  } catch {
    return url.replace(/(:\/\/[^\s:/@]*:)[^\s@/]+@/g, '$1***@');
  }
}

/** Every string inside `value` (objects and arrays walked) redacted; other values as they are. */
export function redactDeep<T>(value: T, redact: Redactor): T {
  if (typeof value === 'string') return redact(value) as T;
  // Lines of a screen: a secret can span them (a private key block), so they are redacted as one text.
  if (Array.isArray(value) && value.length > 0 && value.every((v) => typeof v === 'string')) return redact(value.join('\n')).split('\n') as T;
  if (Array.isArray(value)) return (value as unknown[]).map((v) => redactDeep(v, redact)) as T;
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = redactDeep(v, redact);
    return out as T;
  }
  return value;
}
