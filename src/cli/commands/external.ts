import type { Command } from 'commander';
import { processIo, type CommandIo } from '../io.js';
import type { ExternalAgent } from '../../a2a/external-store.js';

const collect = (value: string, previous: string[] = []) => [...previous, value];

const HELP = `
External agents are A2A agents outside this machine's registry (any A2A 1.0 or 0.3 server).
Their cards live in ~/.a2a/external/<alias>.json (mode 0600: --header values may be tokens).

Examples:
  synapse external add http://127.0.0.1:9000 --alias planner
  synapse external add https://agents.example.com/recipes --header "Authorization=Bearer $TOKEN"
  synapse external list
  synapse external send planner "summarise the open issues" --wait
  synapse external send planner "long job" --stream
  synapse external remove planner

Exit codes: 0 ok · 1 bad input or the URL serves no usable card · 3 unknown alias
            5 agent unreachable or sending failed · 6 --wait/--stream timed out`;

function parseHeaders(pairs: string[] | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const pair of pairs ?? []) {
    const at = pair.indexOf('=');
    if (at <= 0) throw new Error(`--header wants K=V, got "${pair}"`);
    out[pair.slice(0, at).trim()] = pair.slice(at + 1);
  }
  return out;
}

/** Prints `text` with one trailing newline (JSON and tables alike). */
function print(io: CommandIo, text: string): void {
  io.out(text.endsWith('\n') ? text : `${text}\n`);
}

/*
 * One exported function per `synapse external` subcommand, called by commander with the parsed
 * arguments and options. The SDK client is heavy, so each loads its modules itself.
 */

/** `synapse external add <url>`: reads and checks the card, keeps it under an alias. */
export async function addExternalAgent(url: string, flags: { alias?: string; header?: string[]; json?: boolean }, io: CommandIo): Promise<void> {
  const [{ addExternal }, { ExternalStore, externalDir }, { SynapseError }] = await Promise.all([
    import('../../a2a/external-client.js'),
    import('../../a2a/external-store.js'),
    import('../../errors.js'),
  ]);
  let headers: Record<string, string>;
  try {
    headers = parseHeaders(flags.header);
  } catch (err) {
    throw new SynapseError('usage', (err as Error).message);
  }
  const agent = await addExternal(new ExternalStore(externalDir(io.env)), { url, headers, ...(flags.alias ? { alias: flags.alias } : {}) });
  if (flags.json) return print(io, JSON.stringify(summary(agent), null, 2));
  print(io, `added ${agent.alias}: ${agent.name} (A2A ${agent.protocol_version}) from ${agent.card_url}`);
}

/** `synapse external list`. */
export async function listExternalAgents(flags: { json?: boolean }, io: CommandIo): Promise<void> {
  const [{ ExternalStore, externalDir }, { renderTable, preview }] = await Promise.all([import('../../a2a/external-store.js'), import('../table.js')]);
  const agents = new ExternalStore(externalDir(io.env)).list();
  if (flags.json)
    return print(
      io,
      JSON.stringify(
        agents.map((a) => summary(a)),
        null,
        2,
      ),
    );
  if (agents.length === 0) return print(io, 'no external agents; add one with `synapse external add <url>`');
  print(
    io,
    renderTable(
      ['ALIAS', 'NAME', 'A2A', 'URL', 'DESCRIPTION'],
      agents.map((a) => [a.alias, a.name, a.protocol_version, a.url, preview(a.description, 40)]),
    ),
  );
}

/** `synapse external info <alias>`: bindings, skills, capabilities. */
export async function externalAgentInfo(alias: string, flags: { json?: boolean }, io: CommandIo): Promise<void> {
  const [{ ExternalStore, externalDir }, { storedCard }] = await Promise.all([import('../../a2a/external-store.js'), import('../../a2a/external-client.js')]);
  const agent = new ExternalStore(externalDir(io.env)).get(alias);
  if (flags.json) return print(io, JSON.stringify({ ...summary(agent), card: agent.card }, null, 2));
  const card = storedCard(agent);
  const lines = [
    `${agent.alias}: ${agent.name} (A2A ${agent.protocol_version})`,
    agent.description,
    `card: ${agent.card_url}`,
    `streaming: ${card.capabilities?.streaming ? 'yes' : 'no'}, push notifications: ${card.capabilities?.pushNotifications ? 'yes' : 'no'}`,
    'bindings (first is preferred):',
    ...card.supportedInterfaces.map((i) => `  ${i.protocolBinding} ${i.protocolVersion || '?'}  ${i.url}`),
    'skills:',
    ...(card.skills.length ? card.skills.map((s) => `  ${s.id}: ${s.name}${s.description ? ` — ${s.description}` : ''}`) : ['  (none)']),
    ...(Object.keys(agent.headers).length ? [`headers: ${Object.keys(agent.headers).join(', ')} (values hidden)`] : []),
  ];
  print(io, lines.join('\n'));
}

/** `synapse external remove <alias>`. */
export async function removeExternalAgent(alias: string, flags: { json?: boolean }, io: CommandIo): Promise<void> {
  const { ExternalStore, externalDir } = await import('../../a2a/external-store.js');
  const agent = new ExternalStore(externalDir(io.env)).remove(alias);
  if (flags.json) return print(io, JSON.stringify(summary(agent), null, 2));
  print(io, `removed ${agent.alias}`);
}

export interface ExternalSendFlags {
  wait?: boolean;
  stream?: boolean;
  /** Seconds, as typed (commander's default is '300'). */
  timeout: string;
  json?: boolean;
}

/** `synapse external send <alias> <message>`: returns at once, or waits / streams with a timeout. */
export async function sendToExternalAgent(alias: string, message: string, flags: ExternalSendFlags, io: CommandIo): Promise<void> {
  const [{ ExternalStore, externalDir }, { sendExternal }, { SynapseError }] = await Promise.all([
    import('../../a2a/external-store.js'),
    import('../../a2a/external-client.js'),
    import('../../errors.js'),
  ]);
  const seconds = Number(flags.timeout);
  if (!Number.isFinite(seconds) || seconds <= 0) throw new SynapseError('usage', `--timeout wants seconds > 0, got "${flags.timeout}"`);
  const agent = new ExternalStore(externalDir(io.env)).get(alias);
  const mode = flags.stream ? 'stream' : flags.wait ? 'wait' : 'return';
  const result = await sendExternal(agent, message, {
    mode,
    ...(mode === 'return' ? {} : { timeoutMs: seconds * 1000 }),
    ...(mode === 'stream' && !flags.json
      ? { onEvent: (n) => io.err(`[${n.kind}${n.state ? ` ${n.state}` : ''}]${n.kind === 'artifact' ? '' : n.text ? ` ${n.text}` : ''}\n`) }
      : {}),
  });
  if (flags.json) return print(io, JSON.stringify(result, null, 2));
  if (mode === 'return') return print(io, `sent to ${agent.alias} via ${result.via}: task ${result.task_id ?? '-'} ${result.state ?? ''}`.trimEnd());
  print(io, result.text || `(no answer text; task ${result.task_id ?? '-'} is ${result.state ?? 'unknown'})`);
}

/** `synapse external …`: declarations only; the functions above do the work. */
export function registerExternalCommands(program: Command): void {
  const external = program.command('external').description('Remote A2A agents: add by URL, list, inspect, send').addHelpText('after', HELP);

  external
    .command('add')
    .description('Read and check the agent card at <url> (A2A 1.0 or 0.3) and keep it under an alias')
    .argument('<url>', 'the agent base URL (its card is <url>/.well-known/agent-card.json) or the card URL itself')
    .option('--alias <alias>', 'name to use it by (default: from the card name)')
    .option('--header <K=V>', 'send this header with every request (repeatable)', collect)
    .option('--json', 'print the stored record')
    .action((url: string, flags: { alias?: string; header?: string[]; json?: boolean }) => addExternalAgent(url, flags, processIo()));

  external
    .command('list')
    .description('List the external agents')
    .option('--json', 'print JSON')
    .action((flags: { json?: boolean }) => listExternalAgents(flags, processIo()));

  external
    .command('info')
    .description('Show one external agent: bindings, skills, capabilities')
    .argument('<alias>')
    .option('--json', 'print the stored record with its card')
    .action((alias: string, flags: { json?: boolean }) => externalAgentInfo(alias, flags, processIo()));

  external
    .command('remove')
    .description('Forget an external agent')
    .argument('<alias>')
    .option('--json', 'print the removed record')
    .action((alias: string, flags: { json?: boolean }) => removeExternalAgent(alias, flags, processIo()));

  external
    .command('send')
    .description('Send a message to an external agent over the best binding its card offers')
    .argument('<alias>')
    .argument('<message>')
    .option('--wait', 'block until the task is done (or needs input) and print the answer')
    .option('--stream', 'stream status and artifact events, then print the answer')
    .option('--timeout <seconds>', 'with --wait/--stream: give up after this long (exit 6)', '300')
    .option('--json', 'print {via, task_id, context_id, state, text}')
    .action((alias: string, message: string, flags: ExternalSendFlags) => sendToExternalAgent(alias, message, flags, processIo()));
}

/** What `external list/info` show of a stored agent: everything but the header values (secrets). */
type Summary = Omit<ExternalAgent, 'headers' | 'card'> & { header_names: string[] };

function summary(a: ExternalAgent): Summary {
  return {
    alias: a.alias,
    name: a.name,
    description: a.description,
    url: a.url,
    card_url: a.card_url,
    protocol_version: a.protocol_version,
    header_names: Object.keys(a.headers),
    added_at: a.added_at,
    updated_at: a.updated_at,
  };
}
