import { spawn } from 'node:child_process';
import fs from 'node:fs';
import https from 'node:https';
import path from 'node:path';
import { BIN, ROOT, freePort, stopGroup, waitFor } from '../../support/synapse.js';

const FIXTURES = path.join(ROOT, 'test', 'fixtures', 'tls');

/** The committed test certificates (test/fixtures/tls/README.md). */
export const CERTS = {
  first: { cert: path.join(FIXTURES, 'cert.pem'), key: path.join(FIXTURES, 'key.pem') },
  peer: { cert: path.join(FIXTURES, 'peer-cert.pem'), key: path.join(FIXTURES, 'peer-key.pem') },
};

export interface HttpsResult {
  status: number;
  body: any;
}

/** One https request trusting `ca` (a PEM file); JSON in and out. */
export function httpsJson(url: string, opts: { ca: string; method?: string; body?: unknown }): Promise<HttpsResult> {
  return new Promise((resolve, reject) => {
    const payload = opts.body === undefined ? undefined : JSON.stringify(opts.body);
    const req = https.request(
      url,
      {
        method: opts.method ?? (payload ? 'POST' : 'GET'),
        ca: fs.readFileSync(opts.ca, 'utf8'),
        headers: payload ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } : {},
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => {
          let body: unknown = text;
          try {
            body = JSON.parse(text);
          } catch {
            // keep the text
          }
          resolve({ status: res.statusCode ?? 0, body });
        });
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

export interface TlsAgent {
  port: number;
  endpoint: string;
  output: () => string;
  stop: () => Promise<void>;
}

/** `synapse echo --headless` serving over TLS with `certs`; resolves once it takes messages. */
export async function startTlsAgent(name: string, certs: { cert: string; key: string }, env: NodeJS.ProcessEnv): Promise<TlsAgent> {
  const port = await freePort();
  const agentEnv = { ...env, SYNAPSE_USE_HTTPS: '1', SYNAPSE_TLS_CERT: certs.cert, SYNAPSE_TLS_KEY: certs.key };
  const child = spawn(process.execPath, [BIN, 'echo', '--headless', '--port', String(port), '--name', name], {
    env: agentEnv,
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  const endpoint = `https://127.0.0.1:${port}`;
  const stop = () => stopGroup(child);
  try {
    await waitFor(
      async () => {
        if (child.exitCode !== null) throw new Error(`agent exited early (${child.exitCode}):\n${out}`);
        const res = await httpsJson(`${endpoint}/status`, { ca: certs.cert }).catch(() => null);
        return res?.status === 200 && res.body.ready_for_messages === true;
      },
      15_000,
      `${name} to take messages over https`,
    );
  } catch (err) {
    await stop();
    throw err;
  }
  return { port, endpoint, output: () => out, stop };
}
