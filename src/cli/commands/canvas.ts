import type { Command } from 'commander';
import type { Card } from '../../store/canvas.js';
import { SynapseError } from '../../errors.js';
import { printJson, println, processIo, type CommandIo } from '../io.js';
import { preview, renderTable } from '../table.js';
import { callerIdentity, examples, parsePositiveInt, splitList } from './store-cli.js';
import { parseJson, bodyText, shortcutBody, SHORTCUT_TYPES, type BodyFlags, type ShortcutType } from './canvas-body.js';
import { serveCanvas, canvasStatus, stopCanvas, openCanvas, restartCanvas, canvasLogs, type ServeOptions } from './canvas-serve.js';

/**
 * `synapse canvas …`: post cards for the Canvas dashboard, list and delete them, and run the
 * dashboard's server. Nothing here loads the store, the server or the card schemas until a
 * command runs.
 */

interface PostFlags {
  title?: string;
  id?: string;
  tags?: string;
  as?: string;
  json?: boolean;
}

async function author(io: CommandIo, as: string | undefined): Promise<{ agent_id: string; agent_name?: string }> {
  const who = as ?? callerIdentity(io.env);
  const { agentNameMap, findLiveAgent } = await import('../../registry/lookup.js');
  const entry = (() => {
    try {
      return findLiveAgent(who, io.env);
    } catch {
      return null; // ambiguous: keep the name as given
    }
  })();
  const id = entry?.agent_id ?? who;
  const name = entry?.name ?? agentNameMap(io.env).get(id);
  return { agent_id: id, ...(name ? { agent_name: name } : {}) };
}

async function post(type: string, body: unknown, o: PostFlags, io: CommandIo, title?: string): Promise<void> {
  const { postCard } = await import('./canvas-client.js');
  const tags = splitList(o.tags);
  const result = await postCard(io.env, {
    type,
    body,
    ...(await author(io, o.as)),
    ...(o.id !== undefined ? { id: o.id } : {}),
    ...((o.title ?? title) !== undefined ? { title: o.title ?? title } : {}),
    ...(tags.length ? { tags } : {}),
  });
  if (o.json) return printJson(io, result);
  println(
    io,
    `${result.created ? 'posted' : 'updated'} ${result.card.type} card ${result.card.id}${result.via === 'database' ? ' (no canvas server running: stored for the next start)' : ''}`,
  );
}

/** `synapse canvas <type> <body|--file F>`. */
export async function postShortcut(type: ShortcutType, arg: string | undefined, o: PostFlags & BodyFlags, io: CommandIo): Promise<void> {
  const { body, title } = await shortcutBody(type, arg, o, io);
  await post(type, body, o, io, title);
}

/** `synapse canvas post <type> <json>`. */
export async function postTyped(type: string, json: string | undefined, o: PostFlags & { file?: string }, io: CommandIo): Promise<void> {
  await post(type, parseJson(await bodyText(json, o.file, io), 'the card body'), o, io);
}

/**
 * `synapse canvas cost`: a `cost` card from `synapse history stats` (issue 20 §3): per agent, the
 * tokens its CLI recorded and their estimated cost. Posted under the id `token-cost` unless `--id`
 * says otherwise, so running it again updates the card in place.
 */
async function postCostCard(o: PostFlags & { agent?: string }, io: CommandIo): Promise<void> {
  const { readHistoryStats } = await import('./history.js');
  const stats = await readHistoryStats({ ...(o.agent ? { agent: o.agent } : {}) }, io);
  const items = stats.agents.flatMap((a) =>
    a.usage
      ? [
          {
            label:
              `${a.agent_name ?? a.agent_id}${a.usage.cache_read_tokens + a.usage.cache_write_tokens > 0 ? ` (+${a.usage.cache_read_tokens.toLocaleString('en-US')} cache read, ${a.usage.cache_write_tokens.toLocaleString('en-US')} cache write)` : ''}${a.usage.estimated_cost_usd === null ? ' (no price)' : ''}`.slice(
                0,
                200,
              ),
            input_tokens: a.usage.input_tokens,
            output_tokens: a.usage.output_tokens,
            cost: a.usage.estimated_cost_usd ?? 0,
          },
        ]
      : [],
  );
  if (items.length === 0)
    throw new SynapseError(
      'not_found',
      `no token usage in the history${o.agent ? ` of '${o.agent}'` : ''} yet: agents record it after each turn (see synapse history stats)`,
    );
  await post('cost', { currency: 'USD', items: items.slice(0, 1000) }, { ...o, id: o.id ?? 'token-cost' }, io, 'Token usage (estimated cost)');
}

/** `synapse canvas post-raw <json>`: a whole card, `{type, body, title?, id?, tags?}`. */
export async function postRaw(json: string | undefined, o: { file?: string; as?: string; json?: boolean }, io: CommandIo): Promise<void> {
  const raw = parseJson(await bodyText(json, o.file, io), 'the card');
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    throw new SynapseError('invalid_input', 'post-raw takes a JSON object {type, body, title?, id?, tags?}');
  const c = raw as { type?: unknown; body?: unknown; title?: unknown; id?: unknown; tags?: unknown };
  if (typeof c.type !== 'string') throw new SynapseError('invalid_input', 'the card needs a "type" string');
  if (c.title !== undefined && typeof c.title !== 'string') throw new SynapseError('invalid_input', '"title" must be a string');
  if (c.id !== undefined && typeof c.id !== 'string') throw new SynapseError('invalid_input', '"id" must be a string');
  if (c.tags !== undefined && !(Array.isArray(c.tags) && c.tags.every((t) => typeof t === 'string')))
    throw new SynapseError('invalid_input', '"tags" must be an array of strings');
  await post(
    c.type,
    c.body,
    { ...o, ...(c.title !== undefined ? { title: c.title } : {}), ...(c.id !== undefined ? { id: c.id } : {}), ...(c.tags ? { tags: c.tags.join(',') } : {}) },
    io,
  );
}

export async function listCanvas(
  o: { mine?: boolean; search?: string; type?: string; agent?: string; limit: string; json?: boolean },
  io: CommandIo,
): Promise<void> {
  const { listCards } = await import('./canvas-client.js');
  const agent = o.mine ? (await author(io, undefined)).agent_id : o.agent;
  const cards: Card[] = await listCards(io.env, {
    limit: parsePositiveInt(o.limit, '--limit', 1000),
    ...(agent ? { agent } : {}),
    ...(o.type ? { type: o.type } : {}),
    ...(o.search ? { search: o.search } : {}),
  });
  if (o.json) return printJson(io, cards);
  if (cards.length === 0) return println(io, 'No cards. Post one with: synapse canvas markdown "# Hello"');
  println(
    io,
    renderTable(
      ['ID', 'TYPE', 'TITLE', 'AUTHOR', 'UPDATED'],
      cards.map((c) => [c.id, c.type, preview(c.title || '-', 40), c.agent_name ?? c.agent_id, c.updated_at]),
    ),
  );
}

export async function deleteCanvasCard(id: string, o: { json?: boolean }, io: CommandIo): Promise<void> {
  const { deleteCard } = await import('./canvas-client.js');
  const card = await deleteCard(io.env, id);
  if (o.json) return printJson(io, card);
  println(io, `deleted ${card.type} card ${card.id}`);
}

export async function clearCanvas(o: { agent?: string; json?: boolean }, io: CommandIo): Promise<void> {
  const { clearCards } = await import('./canvas-client.js');
  const deleted = await clearCards(io.env, o.agent);
  if (o.json) return printJson(io, { deleted });
  println(io, `deleted ${deleted} card(s)${o.agent ? ` of ${o.agent}` : ''}`);
}

const COMMON = (cmd: Command) =>
  cmd
    .option('--title <title>', 'the card title')
    .option('--id <id>', 'card id: posting again with the same id updates that card in place')
    .option('--tags <tags>', 'comma-separated tags')
    .option('--as <agent>', 'author (default: $SYNAPSE_AGENT_ID, else your user name)')
    .option('--json', 'print the stored card as JSON');

const SHORTCUT_HELP: Record<ShortcutType, [string, string[]]> = {
  mermaid: ['a Mermaid diagram', ['synapse canvas mermaid "graph TD; A-->B" --title Flow', 'synapse canvas mermaid --file arch.mmd']],
  markdown: ['Markdown (sanitised when shown)', ['synapse canvas markdown "# Status\\n- parser done" --title Status']],
  table: [
    'a table: JSON {headers, rows}, or a .csv file',
    ['synapse canvas table \'{"headers":["file","lines"],"rows":[["a.ts",120]]}\'', 'synapse canvas table --file results.csv'],
  ],
  chart: [
    'a Chart.js chart: {type, labels, datasets:[{label, data}]}',
    ['synapse canvas chart \'{"type":"bar","labels":["a","b"],"datasets":[{"label":"ms","data":[3,5]}]}\''],
  ],
  code: ['highlighted code (--lang, or from the file name)', ['synapse canvas code --file src/parser.ts', 'synapse canvas code "print(1)" --lang python']],
  html: ['HTML in a sandboxed frame (sanitised, no scripts)', ['synapse canvas html "<h2>Report</h2><p>All green</p>"']],
  diff: ['a side-by-side diff: unified diff text, or JSON {before, after}', ['git diff | synapse canvas diff - --title "Parser change"']],
  image: ['an image: a .png/.jpg/.gif/.webp/.svg file or an http(s) URL', ['synapse canvas image screenshot.png --title "Login page"']],
  link: ['a link; its page title and description are read when it answers', ['synapse canvas link https://example.com/spec']],
  briefing: ['a briefing: JSON {summary, sections:[{title, content}]}', ['synapse canvas briefing --file briefing.json']],
  plan: [
    'a plan: JSON {steps:[{id, title, depends_on}]}; accept it with synapse tasks accept-plan',
    ['synapse canvas plan --file plan.json --id release-plan'],
  ],
};

// eslint-disable-next-line max-lines-per-function -- commander declarations, no logic
export function registerCanvasCommands(program: Command): void {
  const canvas = program
    .command('canvas')
    .description('The Canvas web dashboard: cards agents post (~/.synapse/canvas.db), the agents, the task board, and a message box');
  examples(canvas, ['synapse canvas serve', 'synapse canvas markdown "# Hello from $SYNAPSE_AGENT_ID"', 'synapse canvas list --type plan']);

  examples(
    canvas
      .command('serve')
      .description('Run the dashboard on 127.0.0.1 (foreground; Ctrl-C stops it)')
      .option('--port <port>', 'port to listen on (default: SYNAPSE_CANVAS_PORT, else 3000)')
      .option('--no-open', 'do not open a browser')
      .option('--json', 'print {url, port, pid} as JSON once listening'),
    ['synapse canvas serve', 'synapse canvas serve --port 3100 --no-open'],
  ).action((o: ServeOptions) => serveCanvas(o, processIo()));
  examples(
    canvas
      .command('open')
      .description('Open the dashboard in the browser, starting it in the background when it is not running (log: ~/.synapse/logs/canvas.log)')
      .option('--port <port>', 'port for a new server (default: SYNAPSE_CANVAS_PORT, else 3000)')
      .option('--no-browser', 'only make sure it runs and print the URL')
      .option('--json', 'print {url, port, pid, started, log} as JSON'),
    ['synapse canvas open', 'synapse canvas open --port 3100 --no-browser --json'],
  ).action((o: { port?: string; json?: boolean; browser?: boolean }) => openCanvas(o, processIo()));
  examples(
    canvas
      .command('restart')
      .description('Stop the running dashboard and start it again in the background (same port unless --port)')
      .option('--port <port>', 'port for the new server')
      .option('--no-open', 'do not open a browser')
      .option('--json', 'print {url, port, pid, restarted, previous_pid} as JSON'),
    ['synapse canvas restart', 'synapse canvas restart --no-open --json'],
  ).action((o: { port?: string; json?: boolean; open?: boolean }) => restartCanvas(o, processIo()));
  examples(
    canvas
      .command('logs')
      .description("Print the last lines of the background dashboard's log (~/.synapse/logs/canvas.log)")
      .option('-n, --lines <n>', 'how many lines', '50')
      .option('-f, --follow', 'keep printing what is appended (Ctrl-C stops)'),
    ['synapse canvas logs', 'synapse canvas logs -f -n 200'],
  ).action((o: { lines?: string; follow?: boolean }) => canvasLogs(o, processIo()));
  examples(canvas.command('status').description('Is the dashboard running, and where').option('--json', 'print as JSON'), [
    'synapse canvas status --json',
  ]).action((o: { json?: boolean }) => canvasStatus(o, processIo()));
  examples(canvas.command('stop').description('Stop the running dashboard').option('--json', 'print as JSON'), ['synapse canvas stop']).action(
    (o: { json?: boolean }) => stopCanvas(o, processIo()),
  );

  for (const type of SHORTCUT_TYPES) {
    const [what, lines] = SHORTCUT_HELP[type];
    const cmd = COMMON(
      canvas
        .command(type)
        .description(`Post ${what}`)
        .argument(type === 'link' ? '<url>' : type === 'image' ? '[file-or-url]' : '[body]', type === 'link' ? 'the page' : 'the body; - reads stdin'),
    );
    if (type !== 'image' && type !== 'link') cmd.option('--file <file>', 'read the body from this file');
    if (type === 'code') cmd.option('--lang <language>', 'language for highlighting (typescript, python …)');
    if (type === 'link') cmd.option('--no-fetch', 'do not read the page title and description');
    examples(cmd, lines).action((arg: string | undefined, o: PostFlags & BodyFlags) => postShortcut(type, arg, o, processIo()));
  }

  examples(
    COMMON(
      canvas
        .command('post')
        .description('Post a card of any type with a JSON body (progress, terminal, dependency-graph, cost, comparison, dashboard, steps, slides …)')
        .argument('<type>', 'card type')
        .argument('[json]', 'the body as JSON; - reads stdin')
        .option('--file <file>', 'read the JSON body from this file'),
    ),
    [
      'synapse canvas post progress \'{"value":3,"max":5,"label":"migrations"}\' --id migrate',
      'synapse canvas post terminal "\\"\\u001b[32mok\\u001b[0m 12 tests\\""',
      'synapse canvas post steps \'{"steps":[{"title":"build","status":"done"},{"title":"test","status":"active"}]}\'',
    ],
  ).action((type: string, json: string | undefined, o: PostFlags & { file?: string }) => postTyped(type, json, o, processIo()));

  examples(
    COMMON(
      canvas
        .command('cost')
        .description('Post a cost card from `synapse history stats`: tokens per agent and their estimated cost (settings `pricing`)')
        .option('--agent <agent>', 'only this agent (id, name or type)'),
    ),
    ['synapse canvas cost', 'synapse canvas cost --agent claude --id claude-cost'],
  ).action((o: PostFlags & { agent?: string }) => postCostCard(o, processIo()));

  examples(
    canvas
      .command('post-raw')
      .description('Post a whole card as JSON: {type, body, title?, id?, tags?}')
      .argument('[json]', 'the card; - reads stdin')
      .option('--file <file>', 'read the card from this file')
      .option('--as <agent>', 'author (default: $SYNAPSE_AGENT_ID, else your user name)')
      .option('--json', 'print the stored card as JSON'),
    ['synapse canvas post-raw \'{"type":"markdown","title":"Note","body":"**done**"}\''],
  ).action((json: string | undefined, o: { file?: string; as?: string; json?: boolean }) => postRaw(json, o, processIo()));

  examples(
    canvas
      .command('list')
      .description('List cards, most recently updated first')
      .option('--mine', 'only cards I posted')
      .option('--agent <agent>', 'only cards of this agent (id or name)')
      .option('--type <type>', 'only cards of this type')
      .option('--search <words>', 'full-text search over titles and bodies')
      .option('--limit <n>', 'at most this many', '50')
      .option('--json', 'print as JSON'),
    ['synapse canvas list --mine', 'synapse canvas list --type plan --json', 'synapse canvas list --search parser'],
  ).action((o: { mine?: boolean; search?: string; type?: string; agent?: string; limit: string; json?: boolean }) => listCanvas(o, processIo()));

  examples(canvas.command('delete').description('Delete one card').argument('<id>').option('--json', 'print the deleted card as JSON'), [
    'synapse canvas delete 1f2e3d4c',
  ]).action((id: string, o: { json?: boolean }) => deleteCanvasCard(id, o, processIo()));

  examples(
    canvas
      .command('clear')
      .description('Delete every card, or every card of one agent')
      .option('--agent <agent>', "only this agent's cards")
      .option('--json', 'print as JSON'),
    ['synapse canvas clear --agent alice'],
  ).action((o: { agent?: string; json?: boolean }) => clearCanvas(o, processIo()));
}
