/**
 * The keys of the settings files: `SETTING_KEYS` says, per key, its type (in words, for errors
 * and the guide), default, overriding variable and what it does. The file's shape is the TypeBox
 * schema in schema.ts; the `env` block holds the `SYNAPSE_*` variables of env-vars.ts. No
 * TypeBox here: every command reads the settings, and TypeBox costs ~150 ms to import.
 */

export const APPROVAL_MODES = ['required', 'auto'] as const;
export const FLOWS = ['auto', 'roundtrip', 'oneway'] as const;
/** Every column `synapse list` can show (settings `list.columns` picks and orders them). */
export const LIST_COLUMNS = [
  'ID',
  'HOST',
  'NAME',
  'TYPE',
  'ROLE',
  'STATUS',
  'CURRENT',
  'PORT',
  'TRANSPORT',
  'EDITING_FILE',
  'WORKING_DIR',
  'SKILL_SET',
] as const;

export type ApprovalMode = (typeof APPROVAL_MODES)[number];
export type Flow = (typeof FLOWS)[number];
export type ListColumn = (typeof LIST_COLUMNS)[number];

/** The printed table's columns while `list.columns` is not set (the table as it always was). */
export const TABLE_COLUMNS: readonly ListColumn[] = ['ID', 'NAME', 'TYPE', 'ROLE', 'STATUS', 'CURRENT', 'PORT', 'EDITING_FILE', 'WORKING_DIR'];
/** The live monitor's columns while `list.columns` is not set. */
export const MONITOR_COLUMNS: readonly ListColumn[] = [
  'ID',
  'NAME',
  'TYPE',
  'ROLE',
  'STATUS',
  'CURRENT',
  'TRANSPORT',
  'WORKING_DIR',
  'SKILL_SET',
  'EDITING_FILE',
];
export type HookEvent = 'on_idle' | 'on_task_completed';

/** A duration as `synapse spawn --keep-idle` takes it: `600` (seconds), `90s`, `10m`, `1h30m`; `0` = none. */
export const DURATION_PATTERN = '^(\\d+(\\.\\d+)?|(\\d+(\\.\\d+)?(ms|s|m|h|d|w))+)$';

/** A key of the settings files other than an `env.SYNAPSE_*` one. */
export interface SettingKey {
  key: string;
  /** The expected type in words, as errors and the guide say it. */
  type: string;
  default: unknown;
  /** The variable that overrides every file, if any. */
  env?: string;
  description: string;
}

const quoted = (values: readonly string[]) => values.map((v) => `"${v}"`).join(' | ');

export const SETTING_KEYS: readonly SettingKey[] = [
  {
    key: 'approvalMode',
    type: quoted(APPROVAL_MODES),
    default: 'auto',
    env: 'SYNAPSE_APPROVAL_MODE',
    description: '"required": `synapse <profile>` on a terminal asks "Proceed? [Y/n/s(skip)]" before the CLI starts.',
  },
  {
    key: 'a2a.flow',
    type: quoted(FLOWS),
    default: 'auto',
    env: 'SYNAPSE_A2A_FLOW',
    description: 'Whether `synapse send` waits for the answer: "roundtrip" always, "oneway" never, "auto" as the flags say.',
  },
  {
    key: 'list.columns',
    type: `array of ${quoted(LIST_COLUMNS)}`,
    default: [...TABLE_COLUMNS],
    env: 'SYNAPSE_LIST_COLUMNS',
    description:
      'The columns of `synapse list`, in order (the variable: comma-separated): the printed table and the live monitor alike. ' +
      `Unset, the table shows the default and the monitor ${MONITOR_COLUMNS.join(', ')}.`,
  },
  {
    key: 'instructions.default',
    type: 'string (a .md file in .synapse/, or the text itself)',
    default: 'default.md',
    description: 'The start-up instruction every agent gets; {{agent_id}} {{port}} {{endpoint}} {{name}} {{role}} are filled in.',
  },
  {
    key: 'instructions.<profile>',
    type: 'string (a .md file in .synapse/, or the text itself)',
    default: '(instructions.default; gemini: gemini.md)',
    description: 'The start-up instruction of one profile (claude, codex, gemini, opencode, copilot, echo) instead of the default.',
  },
  {
    key: 'spawn.keepIdle',
    type: 'string (a duration: 600, 90s, 10m, 1h30m; 0 = none)',
    default: '(none)',
    description: 'The lease of an agent `synapse spawn` (or POST /spawn) starts: it ends by itself after this long READY with no task (`--keep-idle` wins).',
  },
  {
    key: 'spawn.keepTurns',
    type: 'integer (0 = none)',
    default: '(none)',
    description: 'The lease of an agent `synapse spawn` (or POST /spawn) starts: it ends by itself after this many answered tasks (`--keep-turns` wins).',
  },
  {
    key: 'resume_flags.<profile>',
    type: 'array of strings (CLI flags)',
    default: "(the profile's: claude --continue --resume -c -r; codex resume; gemini --resume -r; …)",
    description:
      "The arguments that mean the CLI resumes a conversation, so the start-up instruction is skipped; `--flag=value` counts too. The original's key; `resumeFlags` is accepted as well.",
  },
  {
    key: 'pricing.<model>',
    type: '{input, output, cacheRead?, cacheWrite?} (US dollars per million tokens)',
    default: '(estimates for well-known Claude, GPT and Gemini models: src/config/pricing.ts)',
    description:
      'The price of a model (or of every model whose name starts with the key) for the estimated cost in `synapse history stats`; cache prices default to the input price.',
  },
  {
    key: 'store.url',
    type: 'string (sqlite: or postgres://user:password@host:port/database)',
    default: 'sqlite:',
    env: 'SYNAPSE_STORE_URL',
    description:
      'Where the shared store lives: `sqlite:` (the files under .synapse/) or a PostgreSQL database a team across machines shares (the task board and shared memory so far). Project/local: only once trusted (synapse trust).',
  },
  {
    key: 'hooks.on_idle',
    type: 'string (a shell command)',
    default: '',
    description: 'Run when the agent turns idle; a non-zero exit keeps it from being reported READY. Project/local: only once trusted (synapse trust).',
  },
  {
    key: 'hooks.on_task_completed',
    type: 'string (a shell command)',
    default: '',
    description: 'Run before a task completes; a non-zero exit fails the task with the output. Project/local: only once trusted (synapse trust).',
  },
];

export function settingKey(key: string): SettingKey | undefined {
  if (key.startsWith('instructions.') && key !== 'instructions.default') return SETTING_KEYS.find((k) => k.key === 'instructions.<profile>');
  if (key.startsWith('pricing.')) return SETTING_KEYS.find((k) => k.key === 'pricing.<model>');
  if (key.startsWith('resume_flags.') || key.startsWith('resumeFlags.')) return SETTING_KEYS.find((k) => k.key === 'resume_flags.<profile>');
  return SETTING_KEYS.find((k) => k.key === key);
}
