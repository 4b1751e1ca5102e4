import { describe, expect, it } from 'vitest';
import { configuredSecrets, redactDeep, redactUrl, secretRedactor } from '../../../src/redact.js';

const redact = secretRedactor({});

describe('secret redaction (issue 21 §4)', () => {
  it.each([
    ['bearer', 'Authorization: Bearer abcDEF123456ghiJKL789', 'Authorization: Bearer [REDACTED:bearer]'],
    ['basic', 'Authorization: Basic dXNlcjpwYXNzd29yZDE=', 'Authorization: Basic [REDACTED:bearer]'],
    ['sk- key', 'key sk-proj-AbCdEf1234567890abcdef end', 'key [REDACTED:api-key] end'],
    ['anthropic key', 'sk-ant-api03-AbCdEf1234567890', '[REDACTED:api-key]'],
    ['github token', 'ghp_1234567890abcdefghijABCDEFGHIJ123456', '[REDACTED:github-token]'],
    ['github pat', 'github_pat_11ABCDEFG0123456789_abcdefghij', '[REDACTED:github-token]'],
    ['aws key', 'AKIAIOSFODNN7EXAMPLE', '[REDACTED:aws-key]'],
    ['slack', 'xoxb-123456789012-abcdefghij', '[REDACTED:slack-token]'],
    ['jwt', 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N', '[REDACTED:jwt]'],
    ['password=', 'login with password=hunter2hunter2&user=x', 'login with password=[REDACTED:secret]&user=x'],
    ['token:', 'token: tok9f8e7d6c5b4a3', 'token: [REDACTED:secret]'],
    ['json pair', '{"api_key": "abc123def456"}', '{"api_key": "[REDACTED:secret]"}'],
    [
      'private key block',
      'before\n-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA\nabc\n-----END RSA PRIVATE KEY-----\nafter',
      'before\n[REDACTED:private-key]\nafter',
    ],
    ['cut-off private key', '-----BEGIN PRIVATE KEY-----\nMIIEowIBAAKCAQEA', '[REDACTED:private-key]'],
    [
      'url password',
      'store at postgres://synapse:s3cr3t-pw@db.lan:5432/team failed',
      'store at postgres://synapse:[REDACTED:url-password]@db.lan:5432/team failed',
    ],
  ])('%s', (_kind, text, want) => {
    expect(redact(text)).toBe(want);
  });

  it('leaves ordinary prose alone', () => {
    for (const text of ['Basic authentication is off', 'the token count was 1200', 'a Bearer of news', 'Use the password field', 'sk-short', 'ghp_short'])
      expect(redact(text)).toBe(text);
  });

  it('redacts the values of the configured API keys, comma lists split, short values ignored', () => {
    const env = { ANTHROPIC_API_KEY: 'plainConfiguredValue987654', SYNAPSE_API_KEYS: 'firstkey1234,secondkey5678', GITHUB_TOKEN: 'short', HOME: '/home/x' };
    expect(configuredSecrets(env).sort()).toEqual(['firstkey1234', 'plainConfiguredValue987654', 'secondkey5678']);
    expect(secretRedactor(env)('x plainConfiguredValue987654 y secondkey5678 /home/x')).toBe('x [REDACTED:configured-key] y [REDACTED:configured-key] /home/x');
  });

  it('redacts inside objects, keeps JSON valid, and treats screen lines as one text', () => {
    const value = { a: ['-----BEGIN EC PRIVATE KEY-----', 'MHcCAQEE', '-----END EC PRIVATE KEY-----'], n: 3, nested: { s: 'password="p4ss\\"word"' } };
    const out = redactDeep(value, redact);
    expect(out.a).toEqual(['[REDACTED:private-key]']);
    expect(out.n).toBe(3);
    expect(JSON.parse(JSON.stringify(out)).nested.s).not.toContain('p4ss');
    const json = JSON.stringify({ text: 'token=abc123\\"x' });
    expect(() => JSON.parse(redact(json))).not.toThrow();
  });
});

describe('store URLs as printed (issue 22)', () => {
  it.each([
    ['postgres://synapse:s3cr3t@db.lan:5432/team', 'postgres://synapse:***@db.lan:5432/team'],
    ['postgresql://u:p%40ss@h/db?sslmode=require&password=x', 'postgresql://u:***@h/db?sslmode=require&password=***'],
    ['postgres://synapse@db.lan/team', 'postgres://synapse@db.lan/team'],
    ['sqlite:', 'sqlite:'],
    ['not a url user:pw@host', 'not a url user:pw@host'],
  ])('%s', (url, shown) => {
    expect(redactUrl(url)).toBe(shown);
  });
});
