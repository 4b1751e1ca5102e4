import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { isPidAlive } from '../../../src/registry/liveness.js';
import { environ } from '../../support/proc.js';
import { freePort, ROOT, runCli, tempHome, waitFor } from '../../support/synapse.js';

/**
 * `synapse canvas open | restart | logs`: the dashboard started in the background, as the
 * original's commands do, on a real port with a temporary home; every server is stopped after.
 */

const homes: Array<ReturnType<typeof tempHome>> = [];
afterEach(async () => {
  for (const h of homes.splice(0)) {
    await runCli(['canvas', 'stop'], { env: h.env });
    h.cleanup();
  }
});

const alive = isPidAlive;
const CERT_FILE = path.join(ROOT, 'test', 'fixtures', 'tls', 'cert.pem');

describe('synapse canvas open, restart and logs', () => {
  it('open starts it in the background (SYNAPSE_CANVAS_PORT, SYNAPSE_CANVAS_DB_PATH), a second open finds it, restart keeps the port, logs prints its log', async () => {
    const h = tempHome();
    homes.push(h);
    const port = await freePort();
    const db = path.join(h.home, 'elsewhere', 'cards.db');
    const env = { ...h.env, SYNAPSE_CANVAS_PORT: String(port), SYNAPSE_CANVAS_DB_PATH: db, NODE_EXTRA_CA_CERTS: CERT_FILE };
    fs.mkdirSync(path.dirname(db), { recursive: true });

    const first = await runCli(['canvas', 'open', '--json'], { env });
    expect(first.code, first.stderr).toBe(0);
    const opened = JSON.parse(first.stdout) as { url: string; port: number; pid: number; started: boolean; log: string };
    expect(opened).toMatchObject({ url: `http://127.0.0.1:${port}`, port, started: true });
    expect(alive(opened.pid)).toBe(true);
    // Its node starts without NODE_EXTRA_CA_CERTS, which waits under SYNAPSE_EXTRA_CA (src/extra-ca-certs.ts).
    const started = environ(opened.pid);
    expect([started.NODE_EXTRA_CA_CERTS, started.SYNAPSE_EXTRA_CA]).toEqual([undefined, CERT_FILE]);
    expect((await fetch(`${opened.url}/`)).status).toBe(200);

    // A card posted now lands in the database SYNAPSE_CANVAS_DB_PATH names.
    const posted = await runCli(['canvas', 'markdown', '# from the test', '--as', 'tester'], { env });
    expect(posted.code, posted.stderr).toBe(0);
    expect(fs.existsSync(db)).toBe(true);
    expect(fs.existsSync(path.join(h.env.SYNAPSE_HOME!, 'canvas.db'))).toBe(false);

    const second = await runCli(['canvas', 'open', '--json'], { env });
    expect(second.code, second.stderr).toBe(0);
    expect(JSON.parse(second.stdout)).toMatchObject({ pid: opened.pid, started: false });

    const restarted = await runCli(['canvas', 'restart', '--json'], { env });
    expect(restarted.code, restarted.stderr).toBe(0);
    const again = JSON.parse(restarted.stdout) as { port: number; pid: number; restarted: boolean; previous_pid: number };
    expect(again).toMatchObject({ port, restarted: true, previous_pid: opened.pid });
    expect(again.pid).not.toBe(opened.pid);
    await waitFor(() => !alive(opened.pid), 10_000, 'the old server to exit');
    expect((await fetch(`http://127.0.0.1:${port}/`)).status).toBe(200);

    const logs = await runCli(['canvas', 'logs', '-n', '5'], { env });
    expect(logs.code, logs.stderr).toBe(0);
    expect(logs.stdout).toContain(`Canvas: http://127.0.0.1:${port}`);
    expect(fs.statSync(opened.log).mode & 0o777).toBe(0o600);

    const stopped = await runCli(['canvas', 'stop', '--json'], { env });
    expect(JSON.parse(stopped.stdout)).toMatchObject({ stopped: true, pid: again.pid });
  });

  it('when the port is taken, open fails with the reason from the server log and leaves nothing running', async () => {
    const h = tempHome();
    homes.push(h);
    const blocker = net.createServer();
    await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', r));
    const port = (blocker.address() as net.AddressInfo).port;
    try {
      const r = await runCli(['canvas', 'open', '--port', String(port), '--no-browser'], { env: h.env });
      expect(r.code).not.toBe(0);
      expect(r.stderr).toContain('the canvas server exited');
      expect(r.stderr).toContain(`cannot listen on 127.0.0.1:${port}`);
      const status = await runCli(['canvas', 'status', '--json'], { env: h.env });
      expect(JSON.parse(status.stdout)).toEqual({ running: false });
    } finally {
      blocker.close();
    }
  });

  it('logs says where the log would be when there is none; a bad --lines or SYNAPSE_CANVAS_PORT is refused', async () => {
    const h = tempHome();
    homes.push(h);
    const none = await runCli(['canvas', 'logs'], { env: h.env });
    expect(none.code).toBe(0);
    expect(none.stdout).toContain(`No log file at ${path.join(h.env.SYNAPSE_HOME!, 'logs', 'canvas.log')}`);
    const lines = await runCli(['canvas', 'logs', '-n', 'lots'], { env: h.env });
    expect(lines.code).not.toBe(0);
    expect(lines.stderr).toContain('--lines must be a whole number');
    const port = await runCli(['canvas', 'open', '--no-browser'], { env: { ...h.env, SYNAPSE_CANVAS_PORT: '99999' } });
    expect(port.code).not.toBe(0);
    expect(port.stderr).toContain('SYNAPSE_CANVAS_PORT must be a whole number from 1 to 65535');
  });
});
