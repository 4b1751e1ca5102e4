/**
 * Every `SYNAPSE_*` environment variable Synapse reads: its kind, its default and what it does.
 * The one list: `envSetting` reads a variable through it, the settings files' `env` block is
 * checked against it, and the table in guides/settings.md is generated from it
 * (`node scripts/gen-settings-doc.mjs`; a test fails when the guide drifts).
 */

interface Base {
  /** One line for the guide and `synapse config show`. */
  description: string;
  /** Set by Synapse for the CLI it wraps (and read by the `synapse` commands that CLI runs); not a user setting. */
  setBySynapse?: boolean;
  /** A key or password: `synapse config show` masks its value. */
  secret?: boolean;
}

/** A whole or fractional number; `unit` names what it counts in error messages. */
interface NumberVar extends Base {
  kind: 'number';
  default?: number;
  integer?: boolean;
  min?: number;
  max?: number;
  unit?: string;
}

/** A switch: anything but 0/false/no/off/disabled turns it on. */
interface FlagVar extends Base {
  kind: 'flag';
  default: boolean;
  /** Only `1` turns it on (a strict switch, as before this table existed). */
  strict?: boolean;
}

/** Free text, a path or a file; blank is unset. `defaultText` says what unset means, for the guide. */
interface TextVar extends Base {
  kind: 'text';
  defaultText: string;
}

/** A comma-separated list of web origins (`https://host[:port]`). */
interface OriginsVar extends Base {
  kind: 'origins';
}

export type EnvVarSpec = NumberVar | FlagVar | TextVar | OriginsVar;

export const ENV_VARS = {
  SYNAPSE_HOME: { kind: 'text', defaultText: '~/.synapse', description: 'Per-user state: logs, agent task databases, exit records, user settings.' },
  SYNAPSE_REGISTRY_DIR: {
    kind: 'text',
    defaultText: '~/.a2a/registry',
    description: 'The registry of running agents (one JSON file each), shared with the original Synapse.',
  },
  SYNAPSE_LOG_DIR: { kind: 'text', defaultText: '$SYNAPSE_HOME/logs', description: "Where each agent's log file is written." },
  SYNAPSE_LOG_FILE: { kind: 'text', defaultText: '(set by synapse start)', description: 'The log file of a headless (background) agent.' },
  SYNAPSE_STATE_DIR: { kind: 'text', defaultText: '$SYNAPSE_HOME/agents', description: "Each agent's SQLite file of tasks and inbox." },
  SYNAPSE_REPLY_TARGET_DIR: { kind: 'text', defaultText: '~/.a2a/reply', description: "Each agent's stack of senders awaiting an answer." },
  SYNAPSE_MESSAGE_DIR: {
    kind: 'text',
    defaultText: '(see SYNAPSE_LONG_MESSAGE_DIR)',
    description: 'The older name of SYNAPSE_LONG_MESSAGE_DIR, still read when that is unset.',
  },
  SYNAPSE_EXTERNAL_DIR: { kind: 'text', defaultText: '~/.a2a/external', description: 'Registered external A2A agents.' },
  SYNAPSE_EXTERNAL_REGISTRY_DIR: {
    kind: 'text',
    defaultText: '(see SYNAPSE_EXTERNAL_DIR)',
    description: "The original's name for SYNAPSE_EXTERNAL_DIR, read when that is unset.",
  },
  SYNAPSE_PROJECT_DIR: {
    kind: 'text',
    defaultText: '(the working directory)',
    description: 'The project whose .synapse/ holds the task board, file safety and memory.',
  },
  SYNAPSE_SKILLS_DIR: { kind: 'text', defaultText: '$SYNAPSE_HOME/skills', description: 'The central skill store (the "synapse" skill scope).' },
  SYNAPSE_PORT_RANGE_: {
    kind: 'text',
    defaultText: "(the profile's range)",
    description: 'SYNAPSE_PORT_RANGE_<TYPE>=first-last: the port range of one profile, e.g. SYNAPSE_PORT_RANGE_CLAUDE=8200-8209.',
  },
  SYNAPSE_LONG_MESSAGE_THRESHOLD: {
    kind: 'number',
    default: 200,
    integer: true,
    min: 1,
    unit: 'characters',
    description: 'Characters above which a message is handed to the CLI as a file.',
  },
  SYNAPSE_SEND_MESSAGE_THRESHOLD: {
    kind: 'number',
    default: 102400,
    integer: true,
    min: 0,
    unit: 'bytes',
    description: 'Largest file `synapse send --attach` accepts, in bytes.',
  },
  SYNAPSE_REPLY_GRACE: {
    kind: 'number',
    default: 5,
    min: 0,
    unit: 'seconds',
    description: 'Seconds an idle agent has to reply before its screen output completes the task.',
  },
  SYNAPSE_WEBHOOK_TIMEOUT: { kind: 'number', default: 10, min: 0.001, unit: 'seconds', description: 'Seconds one webhook call may take.' },
  SYNAPSE_WEBHOOK_MAX_RETRIES: { kind: 'number', default: 3, integer: true, min: 0, unit: 'retries', description: 'Retries of a failed webhook call.' },
  SYNAPSE_WEBHOOK_SECRET: { kind: 'text', defaultText: '(none)', description: 'Signs the calls of every webhook that has no secret of its own (HMAC-SHA256).' },
  SYNAPSE_CORS_ORIGINS: {
    kind: 'origins',
    description: 'Web origins allowed to call an agent besides its own (comma-separated, e.g. https://dash.example.com).',
  },
  SYNAPSE_FILE_SAFETY_ENABLED: { kind: 'flag', default: true, description: 'File locks and change records (synapse file-safety).' },
  SYNAPSE_FILE_SAFETY_RETENTION_DAYS: {
    kind: 'number',
    default: 30,
    min: 0,
    unit: 'days',
    description: 'File-safety change records older than this (and stale locks) are purged by each agent soon after it starts and then daily.',
  },
  SYNAPSE_FILE_SAFETY_DB_PATH: { kind: 'text', defaultText: '.synapse/file_safety.db', description: 'The file-safety database, relative to the project.' },
  SYNAPSE_SHARED_MEMORY_ENABLED: { kind: 'flag', default: true, description: 'The shared memory (synapse memory).' },
  SYNAPSE_SHARED_MEMORY_DB_PATH: {
    kind: 'text',
    defaultText: '.synapse/memory.db',
    description: "The shared-memory database, relative to the project (the original's name).",
  },
  SYNAPSE_CANVAS_PORT: { kind: 'text', defaultText: '3000', description: "The Canvas dashboard's port when --port is not given (the original's name)." },
  SYNAPSE_CANVAS_DB_PATH: { kind: 'text', defaultText: '$SYNAPSE_HOME/canvas.db', description: "The Canvas dashboard's card database (the original's name)." },
  SYNAPSE_STORE_URL: {
    kind: 'text',
    defaultText: 'sqlite: (the files under .synapse/)',
    secret: true,
    description:
      'The shared store: `sqlite:` (the project files) or `postgres://user:password@host:5432/db` for a team across machines (the task board and shared memory so far; guides/teams-across-machines.md). Overrides settings `store.url`.',
  },
  SYNAPSE_HISTORY_DB_PATH: { kind: 'text', defaultText: '$SYNAPSE_HOME/history/history.db', description: "The history database (the original's name)." },
  SYNAPSE_LOG_LEVEL: {
    kind: 'text',
    defaultText: 'info',
    description: "The agent log's level: trace, debug, info, warn, error, fatal or silent (the original's name).",
  },
  SYNAPSE_HISTORY_ENABLED: { kind: 'flag', default: true, description: 'Recording of finished tasks in the history.' },
  SYNAPSE_SKIP_STARTUP_INSTRUCTION: { kind: 'flag', default: false, strict: true, description: 'Set to 1: the wrapped CLI gets no start-up instruction.' },
  SYNAPSE_LEARNING_MODE_ENABLED: {
    kind: 'flag',
    default: false,
    description: 'Appends learning.md to the start-up instruction (explain what you do and why).',
  },
  SYNAPSE_LEARNING_MODE_TRANSLATION: {
    kind: 'flag',
    default: false,
    description: 'With learning mode: the agent also restates requests in English and answers in the user language.',
  },
  SYNAPSE_PROACTIVE_MODE_ENABLED: {
    kind: 'flag',
    default: false,
    description: 'Appends proactive.md to the start-up instruction (use the board, memory and peers unasked).',
  },
  SYNAPSE_TRUST_PROJECT_HOOKS: {
    kind: 'flag',
    default: false,
    strict: true,
    description: 'Set to 1 (environment or user settings only): trust the env and hooks of every project without asking (see `synapse trust`).',
  },
  SYNAPSE_SCREEN_TRACE: { kind: 'text', defaultText: '(off)', description: 'A file to append every screen reading and delivery step to (diagnosis).' },
  SYNAPSE_AGENT_ID: {
    kind: 'text',
    defaultText: '(set by synapse)',
    setBySynapse: true,
    description: 'The agent a command runs as (send, reply, claim, memory save); set for the wrapped CLI.',
  },
  SYNAPSE_AGENT_NAME: { kind: 'text', defaultText: '(none)', description: 'A name to act as when SYNAPSE_AGENT_ID is unset.' },
  SYNAPSE_AGENT_TYPE: { kind: 'text', defaultText: '(set by synapse)', setBySynapse: true, description: 'The profile of the wrapped CLI; set for it.' },
  SYNAPSE_EXTRA_CA: {
    kind: 'text',
    defaultText: '(set by bin/synapse.js)',
    setBySynapse: true,
    description:
      "NODE_EXTRA_CA_CERTS, held aside while a synapse process's node starts (node would read the file first); put back at once, and read before the first TLS connection.",
  },
  SYNAPSE_HOOK: {
    kind: 'text',
    defaultText: '(set by synapse)',
    setBySynapse: true,
    description: 'For a settings hook: which one runs (on_idle, on_task_completed).',
  },
  SYNAPSE_TASK_ID: {
    kind: 'text',
    defaultText: '(set by synapse)',
    setBySynapse: true,
    description: 'For hooks.on_task_completed: the task about to complete.',
  },
  SYNAPSE_PORT: {
    kind: 'number',
    integer: true,
    min: 1,
    max: 65535,
    setBySynapse: true,
    description: "The wrapping agent's HTTP port; set for the wrapped CLI.",
  },
  // issue 15 §1-§3 (auth): binding, API keys, Host check.
  SYNAPSE_HOST: {
    kind: 'text',
    defaultText: '127.0.0.1',
    description: 'The address an agent binds (`--host` wins); anything but loopback exposes it to the network: turn auth on.',
  },
  // issue 22 §2-§3: discovery across hosts through the PostgreSQL store.
  SYNAPSE_HOST_NAME: {
    kind: 'text',
    defaultText: "this machine's host name",
    description:
      'The name this host goes by in a PostgreSQL store (its registry table, the host of file locks and history rows) and the HOST column of `synapse list` and `synapse history` (tests, machines with unhelpful names).',
  },
  SYNAPSE_ADVERTISE_HOST: {
    kind: 'text',
    defaultText: '(the --host address)',
    description: "The address other hosts reach an agent at, when it differs from the address it binds (a wildcard bind, NAT): the agent's endpoint uses it.",
  },
  SYNAPSE_HEARTBEAT_MS: {
    kind: 'number',
    default: 10000,
    integer: true,
    min: 100,
    max: 60000,
    unit: 'ms',
    description: "How often an agent rewrites its registry entry; in a PostgreSQL store's registry table a row silent for 3 heartbeats is expired.",
  },
  SYNAPSE_ALLOWED_HOSTS: {
    kind: 'text',
    defaultText: '(none)',
    description: "Host names besides the agent's own addresses that a request's Host header may name (comma-separated, e.g. box.lan).",
  },
  SYNAPSE_AUTH_ENABLED: {
    kind: 'flag',
    default: false,
    description: 'Requests and gRPC calls need an API key (X-API-Key or Authorization: Bearer; gRPC: in the metadata); the agent cards stay public.',
  },
  SYNAPSE_API_KEYS: {
    kind: 'text',
    defaultText: '(none)',
    secret: true,
    description: 'API keys an agent accepts (comma-separated); `synapse` commands send the first one to agents.',
  },
  SYNAPSE_ADMIN_KEY: {
    kind: 'text',
    defaultText: '(none)',
    secret: true,
    description: 'The key for admin routes (shutdown, webhooks, external agents); `synapse stop` and `kill` send it.',
  },
  SYNAPSE_ALLOW_LOCALHOST: {
    kind: 'flag',
    default: true,
    description: 'With auth on, loopback callers pass without a key; false: they need one too (a per-user key file makes that automatic).',
  },
  // issue 15 §5: limits of one agent (src/config/limits.ts; guides/http-api.md, "Limits").
  SYNAPSE_MAX_BODY_BYTES: {
    kind: 'number',
    default: 1048576,
    integer: true,
    min: 1024,
    unit: 'bytes',
    description: 'Largest HTTP request body (and gRPC message) an agent reads; a larger one is refused with 413.',
  },
  SYNAPSE_MAX_MESSAGE_CHARS: {
    kind: 'number',
    default: 200000,
    integer: true,
    min: 1,
    unit: 'characters',
    description: 'Most characters of text one message may carry (all its text parts together); more is refused with 413.',
  },
  SYNAPSE_MAX_MESSAGE_PARTS: {
    kind: 'number',
    default: 32,
    integer: true,
    min: 1,
    unit: 'parts',
    description: 'Most parts (text, files, data) one message may have; more is refused with 413.',
  },
  SYNAPSE_MAX_QUEUED_PER_SENDER: {
    kind: 'number',
    default: 100,
    integer: true,
    min: 1,
    unit: 'messages',
    description: "Messages one sender may have waiting in an agent's inbox; the next is refused with 429 and Retry-After.",
  },
  // issue 21 §2: messages for agents that are not running.
  SYNAPSE_QUEUE_TTL: {
    kind: 'number',
    default: 86400,
    min: 1,
    unit: 'seconds',
    description:
      'A message `synapse send` left for an agent that was not running (`--queue`) expires after this many seconds undelivered; its sender gets a note.',
  },
  SYNAPSE_KILL_TIMEOUT: {
    kind: 'number',
    default: 30,
    min: 0,
    unit: 'seconds',
    description:
      '`synapse kill`: how long to wait for an agent to exit after asking it to shut down, before SIGTERM and SIGKILL (`-t` overrides; `-f` kills at once).',
  },
  SYNAPSE_SCROLLBACK_LINES: {
    kind: 'number',
    default: 2000,
    integer: true,
    min: 100,
    max: 100000,
    unit: 'rows',
    description:
      "Rows of the wrapped CLI's scrollback an agent keeps for status and replies, as text (the terminal emulator holds only the last 200 as cells); an answer read from the screen that is longer keeps its last rows.",
  },
  SYNAPSE_IDLE_GC_MS: {
    kind: 'number',
    default: 15000,
    integer: true,
    min: 0,
    max: 3600000,
    unit: 'ms',
    description:
      "How long an agent waits with no task in flight, after one or after its start-up, before one full garbage collection hands back the memory the work grew and drops the bytecode of code that ran once; from 1 s of quiet until then, V8's own full collections drop it too (0: none of this).",
  },
  SYNAPSE_OPTIMIZE_AFTER_KB: {
    kind: 'number',
    default: 256,
    integer: true,
    min: 0,
    max: 1048576,
    unit: 'KiB',
    description:
      "How much output an agent's CLI writes before the agent turns on V8's optimizing and baseline compilers, which it holds off from the start (start-up code runs once; compiling it kept ~5 MiB more resident); 0: both on from the start.",
  },
  SYNAPSE_MAX_SSE_STREAMS: {
    kind: 'number',
    default: 64,
    integer: true,
    min: 1,
    unit: 'streams',
    description: 'Event streams (SSE) open on one agent at a time; one more is refused with 429.',
  },
  SYNAPSE_MAX_WEBHOOKS: {
    kind: 'number',
    default: 20,
    integer: true,
    min: 0,
    unit: 'webhooks',
    description: 'Webhooks one agent keeps; registering one more URL is refused with 409.',
  },
  // issue 16, panes and saved agents (team helper)
  SYNAPSE_AGENT_SAVE_PROMPT_ENABLED: {
    kind: 'flag',
    default: true,
    description: 'On exit of an interactive named agent, ask "Save this agent definition for reuse? [y/N]" (false: never ask).',
  },
  // issue 21 §6: helpers end by themselves (leases) and a depth guard on spawning.
  SYNAPSE_MAX_SPAWN_DEPTH: {
    kind: 'number',
    default: 2,
    integer: true,
    min: 0,
    unit: 'levels',
    description:
      'How deep agents may spawn agents: one started by a person is depth 0, one it spawns depth 1 …; `synapse spawn` (and POST /spawn, /team/start) refuses to start one deeper than this.',
  },
  SYNAPSE_SPAWN_DEPTH: {
    kind: 'number',
    integer: true,
    min: 0,
    setBySynapse: true,
    description: 'The depth of an agent spawned by an agent (its registry entry says `spawn_depth` too); set for it and its CLI.',
  },
  // issue 16, sessions
  SYNAPSE_RESUME_TIMEOUT: {
    kind: 'number',
    default: 10,
    min: 0.1,
    max: 600,
    unit: 'seconds',
    description: '`synapse session restore --resume`: seconds a resumed CLI may take to reach READY before it is stopped and started fresh.',
  },
  // Issue 15 §4 TLS and §6 data at rest.
  SYNAPSE_USE_HTTPS: {
    kind: 'flag',
    default: false,
    description: 'Serve the agent (HTTP and gRPC) over TLS with SYNAPSE_TLS_CERT/SYNAPSE_TLS_KEY; its registry endpoint becomes https://.',
  },
  SYNAPSE_TLS_CERT: {
    kind: 'text',
    defaultText: '(none)',
    description: "With SYNAPSE_USE_HTTPS: the agent's certificate (PEM file); it must name the address the agent binds.",
  },
  SYNAPSE_TLS_KEY: { kind: 'text', defaultText: '(none)', description: "With SYNAPSE_USE_HTTPS: the certificate's private key (PEM file)." },
  SYNAPSE_TLS_CA: {
    kind: 'text',
    defaultText: "(the system's CAs)",
    description: 'A PEM file of certificates to trust for https peers besides the system CAs, e.g. a self-signed peer certificate.',
  },
  SYNAPSE_LONG_MESSAGE_DIR: {
    kind: 'text',
    defaultText: '$TMPDIR/synapse-<uid>/messages',
    description: 'Where long messages handed to a CLI as a file are written (0600 files, 0700 dir).',
  },
  SYNAPSE_LONG_MESSAGE_TTL: {
    kind: 'number',
    default: 3600,
    min: 1,
    unit: 'seconds',
    description: 'A long-message file is removed this long after it was written.',
  },
} as const satisfies Record<string, EnvVarSpec>;

export type EnvVarName = keyof typeof ENV_VARS;

/** The spec of a variable, `SYNAPSE_PORT_RANGE_CLAUDE` included; undefined for an unknown name. */
export function envVarSpec(name: string): EnvVarSpec | undefined {
  if (name.startsWith('SYNAPSE_PORT_RANGE_') && name.length > 'SYNAPSE_PORT_RANGE_'.length) return ENV_VARS.SYNAPSE_PORT_RANGE_;
  return name === 'SYNAPSE_PORT_RANGE_' ? undefined : (ENV_VARS as Record<string, EnvVarSpec>)[name];
}
