import { getProfile, listProfiles, reservedRanges } from '../../profiles/index.js';
import { resolveCommand } from '../../runtime/terminal.js';
import { SynapseError } from '../../errors.js';
import { cliVersion } from '../installed-cli.js';
import { renderTable } from '../table.js';

interface Flags {
  name?: string | undefined;
  role?: string | undefined;
  port?: number | undefined;
  host?: string | undefined;
  headless?: boolean | undefined;
  json?: boolean | undefined;
  autoApprove?: boolean | undefined;
}

/** The CLI args: `--auto-approve` becomes the CLI's own flag, then the user's `-- args`. */
function cliArgsFor(profile: ReturnType<typeof getProfile>, cliArgs: string[], autoApprove: boolean | undefined): string[] {
  if (!autoApprove) return cliArgs;
  if (!profile.autoApproveArgs) throw new SynapseError('usage', `the ${profile.id} profile has no auto-approve flag`);
  return [...profile.autoApproveArgs, ...cliArgs];
}

function checkInstalled(command: string): void {
  if (!resolveCommand(command, process.env.PATH)) {
    throw new SynapseError('command_not_found', `"${command}" is not on PATH. Install it first (or fix PATH), then run synapse again.`);
  }
}

/** `synapse <profile>`: runs until the CLI exits; returns its exit code. */
export async function runForeground(profileName: string, cliArgs: string[], flags: Flags): Promise<number> {
  const profile = getProfile(profileName);
  checkInstalled(profile.command);
  const headless = flags.headless === true || !process.stdin.isTTY || !process.stdout.isTTY;
  // A setting that does not parse stops here, before a port is bound or the CLI spawned.
  (await import('../../runtime/agent-settings.js')).agentSettings(process.env);
  const { startAgent } = await import('../../runtime/agent.js');
  const agent = await startAgent({
    profile,
    headless,
    cliArgs: cliArgsFor(profile, cliArgs, flags.autoApprove),
    cwd: process.cwd(),
    env: process.env,
    ...(flags.name ? { name: flags.name } : {}),
    ...(flags.role ? { role: flags.role } : {}),
    ...(flags.port !== undefined ? { port: flags.port } : {}),
    ...(flags.host ? { host: flags.host } : {}),
  });
  if (headless) process.stdout.write(`${agent.agentId} ready for HTTP on ${agent.endpoint}\n`);
  return agent.exited;
}

/** `synapse start`: validates here (so errors reach this terminal), then detaches. */
export async function startBackground(profileName: string, cliArgs: string[], flags: Flags): Promise<void> {
  const profile = getProfile(profileName);
  checkInstalled(profile.command);
  const args: string[] = [profile.id];
  if (flags.name) args.push('--name', flags.name);
  if (flags.role) args.push('--role', flags.role);
  if (flags.port !== undefined) args.push('--port', String(flags.port));
  if (flags.host) args.push('--host', flags.host);
  if (flags.autoApprove) {
    cliArgsFor(profile, [], true);
    args.push('--auto-approve');
  }
  if (cliArgs.length) args.push('--', ...cliArgs);
  (await import('../../runtime/agent-settings.js')).agentSettings(process.env);
  const { launchBackground } = await import('../../runtime/launch.js');
  const { entry, logFile } = await launchBackground({ profileArgs: args, env: process.env, cwd: process.cwd() });
  if (flags.json) process.stdout.write(`${JSON.stringify(entry, null, 2)}\n`);
  else process.stdout.write(`started ${entry.agent_id}${entry.name ? ` (${entry.name})` : ''} on ${entry.endpoint}, pid ${entry.pid}\nlog: ${logFile}\n`);
}

/** `synapse profiles`: every reserved range, the profile on it, whether its CLI is installed (and which version). */
export async function listProfilesCommand(flags: { json?: boolean }): Promise<void> {
  const shipped = listProfiles();
  const rows = await Promise.all(
    reservedRanges().map(async (r) => {
      const p = shipped.find((s) => s.id === r.id);
      const bin = p && p.id !== 'echo' ? resolveCommand(p.command, process.env.PATH) : null;
      const builtIn = p?.id === 'echo';
      return {
        id: r.id,
        aliases: p?.aliases ?? [],
        ports: `${r.first}-${r.last}`,
        command: p ? (builtIn ? 'built-in' : p.command) : null,
        available: r.available,
        installed: builtIn || bin !== null,
        version: builtIn ? null : bin ? await cliVersion(bin, 5000) : null,
        verified_live: p ? (p.verified ?? 'live') === 'live' : false,
      };
    }),
  );
  if (flags.json) {
    process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
    return;
  }
  const status = (r: (typeof rows)[number]) => (!r.available ? 'range reserved' : r.command === 'built-in' ? 'built-in' : r.installed ? `installed${r.version ? ` (${r.version})` : ''}` : 'not installed');
  process.stdout.write(
    `${renderTable(
      ['PROFILE', 'ALIASES', 'PORTS', 'COMMAND', 'STATUS', 'RULES'],
      rows.map((r) => [r.id, r.aliases.join(',') || '-', r.ports, r.command ?? '-', status(r), !r.available ? '-' : r.verified_live ? 'verified live' : 'not verified live']),
    )}\n`,
  );
}
