import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { registryDir } from '../../config/paths.js';
import { listProfiles } from '../../profiles/index.js';
import { resolveCommand } from '../../runtime/terminal.js';
import { cliVersion } from '../installed-cli.js';
import { renderTable } from '../table.js';
import { ExitRequest } from '../exit.js';
import type { CommandIo } from '../io.js';

interface Check {
  check: string;
  ok: boolean;
  /** A failed hard check makes doctor exit 1; soft ones only warn. */
  hard: boolean;
  detail: string;
  fix?: string;
}

function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = net.createServer();
    srv.once('error', () => resolve(false));
    srv.listen({ port, host: '127.0.0.1', exclusive: true }, () => srv.close(() => resolve(true)));
  });
}

/** `synapse doctor`: what is installed, what is free, what to fix. */
export async function doctorCommand(flags: { json?: boolean }, io: CommandIo): Promise<void> {
  const checks: Check[] = [];
  const major = Number(process.versions.node.split('.')[0]);
  checks.push({
    check: 'node',
    ok: major >= 20,
    hard: true,
    detail: `v${process.versions.node}`,
    ...(major >= 20 ? {} : { fix: 'install Node.js 20 or newer' }),
  });

  for (const p of listProfiles()) {
    if (p.id === 'echo') continue;
    const bin = resolveCommand(p.command, io.env.PATH);
    const v = bin ? await cliVersion(bin) : null;
    checks.push({
      check: `${p.id} CLI`,
      ok: bin !== null,
      hard: false,
      detail: bin ? `${bin}${v ? ` (${v})` : ''}` : `"${p.command}" not on PATH`,
      ...(bin ? {} : { fix: `install it to use \`synapse ${p.id}\`` }),
    });
    let free = 0;
    for (let port = p.ports.first; port <= p.ports.last; port++) if (await portFree(port)) free++;
    const size = p.ports.last - p.ports.first + 1;
    checks.push({
      check: `${p.id} ports ${p.ports.first}-${p.ports.last}`,
      ok: free > 0,
      hard: false,
      detail: `${free} of ${size} free`,
      ...(free > 0 ? {} : { fix: `stop an agent (synapse list) or set SYNAPSE_PORT_RANGE_${p.id.toUpperCase()}` }),
    });
  }

  const dir = registryDir(io.env);
  let writable = true;
  try {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    const probe = path.join(dir, `.doctor-${process.pid}`);
    fs.writeFileSync(probe, '');
    fs.rmSync(probe);
  } catch {
    writable = false;
  }
  checks.push({ check: 'registry', ok: writable, hard: true, detail: dir, ...(writable ? {} : { fix: `make ${dir} writable, or set SYNAPSE_REGISTRY_DIR` }) });

  // Codex's sandbox blocks network by default; the codex profile passes the override itself.
  const codex = listProfiles().find((p) => p.id === 'codex');
  const override = codex?.args.find((a) => a.includes('network_access=true'));
  checks.push({
    check: 'codex network',
    ok: override !== undefined,
    hard: false,
    detail: override ? `synapse codex passes -c ${override} so the agent can reach its peers on 127.0.0.1` : 'no network override',
  });

  if (flags.json) io.out(`${JSON.stringify(checks, null, 2)}\n`);
  else
    io.out(
      `${renderTable(
        ['CHECK', 'OK', 'DETAIL', 'FIX'],
        checks.map((c) => [c.check, c.ok ? 'ok' : c.hard ? 'FAIL' : 'warn', c.detail, c.fix ?? '']),
      )}\n`,
    );
  if (checks.some((c) => c.hard && !c.ok)) throw new ExitRequest(1);
}
