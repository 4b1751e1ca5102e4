// The original Python Synapse 0.35's commands and variables, checked against this build: prints
// (or, with --write, puts into guides/original-parity.md between its markers) a checklist of
// each and whether `synapse` has it. Run after `npm run build`; test/unit/cli/parity.test.ts
// fails when the guide and the build drift. The lists come from the original's synapse/cli.py
// (argparse parsers) and synapse/settings.py at v0.35.0.
import fs from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';

const dist = (p) => pathToFileURL(fileURLToPath(new URL(`../dist/${p}`, import.meta.url))).href;
const { buildProgram } = await import(dist('cli/program.js'));
const { ENV_VARS } = await import(dist('config/env-vars.js'));

export const ORIGINAL_COMMANDS =
  `agents;agents add;agents delete;agents list;agents roles;agents roles create;agents set;agents show;agents unset;approve;auth;auth generate-key;auth setup;broadcast;canvas;canvas briefing;canvas clear;canvas delete;canvas link;canvas list;canvas logs;canvas open;canvas plan;canvas post;canvas post-raw;canvas restart;canvas serve;canvas status;canvas stop;cleanup;config;config show;dialog-respond;doctor;evolve;external;external add;external info;external list;external remove;external send;file-safety;file-safety cleanup;file-safety cleanup-locks;file-safety debug;file-safety history;file-safety lock;file-safety locks;file-safety recent;file-safety record;file-safety status;file-safety unlock;graph;harness;harness create;harness diff;harness disable;harness enable;harness install;harness list;harness remove;harness status;harness use;history;history cleanup;history export;history list;history search;history show;history stats;init;instinct;instinct list;instinct promote;instinct status;instructions;instructions files;instructions send;instructions show;interrupt;jump;kill;learn;list;logs;mcp;mcp serve;memory;memory delete;memory list;memory save;memory search;memory show;memory stats;merge;multiagent;multiagent init;multiagent list;multiagent run;multiagent show;multiagent status;multiagent stop;reject;rename;reply;reset;send;send-keys;session;session delete;session import;session list;session publish;session restore;session save;session sessions;session show;set-summary;skills;skills add;skills apply;skills create;skills delete;skills deploy;skills import;skills list;skills move;skills set;skills set list;skills set show;skills show;spawn;start;status;stop;team;team start;trace;waiting-debug;waiting-debug collect;waiting-debug report;watchdog;watchdog check;wiki;wiki ingest;wiki init;wiki lint;wiki query;wiki refresh;wiki status;workflow;workflow create;workflow delete;workflow list;workflow run;workflow show;workflow status;workflow sync;worktree;worktree prune`.split(
    ';',
  );

export const ORIGINAL_VARIABLES =
  `SYNAPSE_ADMIN_KEY SYNAPSE_AGENT_SAVE_PROMPT_ENABLED SYNAPSE_ALLOW_LOCALHOST SYNAPSE_API_KEYS SYNAPSE_AUTH_ENABLED SYNAPSE_CANVAS_DB_PATH SYNAPSE_CANVAS_PORT SYNAPSE_EXTERNAL_REGISTRY_DIR SYNAPSE_FILE_SAFETY_DB_PATH SYNAPSE_FILE_SAFETY_ENABLED SYNAPSE_FILE_SAFETY_RETENTION_DAYS SYNAPSE_HISTORY_DB_PATH SYNAPSE_HISTORY_ENABLED SYNAPSE_INSTINCT_DB_PATH SYNAPSE_LEARNING_MODE_ENABLED SYNAPSE_LEARNING_MODE_TRANSLATION SYNAPSE_LOG_FILE SYNAPSE_LOG_LEVEL SYNAPSE_LONG_MESSAGE_DIR SYNAPSE_LONG_MESSAGE_THRESHOLD SYNAPSE_LONG_MESSAGE_TTL SYNAPSE_OBSERVATION_DB_PATH SYNAPSE_OBSERVATION_ENABLED SYNAPSE_PROACTIVE_MODE_ENABLED SYNAPSE_REGISTRY_DIR SYNAPSE_REPLY_TARGET_DIR SYNAPSE_REPLY_TARGET_TTL_SECONDS SYNAPSE_SEND_MESSAGE_THRESHOLD SYNAPSE_SHARED_MEMORY_DB_PATH SYNAPSE_SHARED_MEMORY_ENABLED SYNAPSE_SKILLS_DIR SYNAPSE_USE_HTTPS SYNAPSE_WEBHOOK_MAX_RETRIES SYNAPSE_WEBHOOK_SECRET SYNAPSE_WEBHOOK_TIMEOUT SYNAPSE_WIKI_ENABLED SYNAPSE_WORKFLOW_RUNS_DB_PATH`.split(
    ' ',
  );

/** Every command path of this build (`file-safety lock`, `skills set list` …). */
function ourCommands() {
  const out = new Set();
  const walk = (cmd, prefix) => {
    for (const c of cmd.commands) {
      const names = [c.name(), ...c.aliases()];
      for (const n of names) {
        const p = prefix ? `${prefix} ${n}` : n;
        out.add(p);
        walk(c, p);
      }
    }
  };
  walk(buildProgram(), '');
  return out;
}

export function checklist() {
  const ours = ourCommands();
  const vars = new Set(Object.keys(ENV_VARS));
  const row = (name, present) => `| \`${name}\` | ${present ? '✓' : '✗'} |`;
  const cmds = ORIGINAL_COMMANDS.map((c) => row(`synapse ${c}`, ours.has(c)));
  const vs = ORIGINAL_VARIABLES.map((v) => row(v, vars.has(v)));
  const count = (list, has) => `${list.filter(has).length} of ${list.length}`;
  return [
    `Commands: ${count(ORIGINAL_COMMANDS, (c) => ours.has(c))} present. Variables: ${count(ORIGINAL_VARIABLES, (v) => vars.has(v))} present.`,
    '',
    "| the original's command | here |",
    '| --- | --- |',
    ...cmds,
    '',
    "| the original's variable | here |",
    '| --- | --- |',
    ...vs,
  ].join('\n');
}

const START = '<!-- parity:start (generated by scripts/parity.mjs) -->';
const END = '<!-- parity:end -->';

export function withChecklist(guide) {
  const a = guide.indexOf(START);
  const b = guide.indexOf(END);
  if (a < 0 || b < a) throw new Error('guides/original-parity.md has no parity markers');
  return `${guide.slice(0, a + START.length)}\n${checklist()}\n${guide.slice(b)}`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const guide = fileURLToPath(new URL('../guides/original-parity.md', import.meta.url));
  if (process.argv.includes('--write')) {
    fs.writeFileSync(guide, withChecklist(fs.readFileSync(guide, 'utf8')));
    console.log(`updated ${guide}`);
  } else console.log(checklist());
}
