import type { SuggestConfig } from '../../config/suggest.js';

/**
 * `analyze_task`: whether a task is worth splitting across a team, and how, from the triggers
 * and roles of `.synapse/suggest.yaml`. Pure: the files it touches are given.
 */
export interface TaskInput {
  prompt: string;
  files: string[];
}

interface FiredTrigger {
  trigger: string;
  detail: string;
}

interface SuggestedAgent {
  role: string;
  profile: string | null;
  name: string;
  task: string;
  /** The command that starts it. */
  start: string;
}

export interface Analysis {
  split: boolean;
  fired: FiredTrigger[];
  team: SuggestedAgent[];
  summary: string;
}

const SOURCE = /\.(ts|tsx|js|jsx|mjs|cjs|py|go|rs|java|kt|rb|php|cs|c|cc|cpp|h|swift)$/i;
const TEST = /(^|\/)(tests?|__tests__|spec)\/|[._-](test|spec)\.[^/]+$|_test\.go$|(^|\/)test_[^/]+\.py$/i;

/** `src/a/b.ts` → `src`; a file at the root is its own "." directory. */
function topDir(file: string): string {
  const parts = file.replace(/^\.\//, '').split('/');
  return parts.length > 1 ? parts[0]! : '.';
}

function fire(config: SuggestConfig['triggers'], input: TaskInput): FiredTrigger[] {
  const fired: FiredTrigger[] = [];
  const dirs = [...new Set(input.files.map(topDir))];
  if (config.file_count !== undefined && input.files.length > config.file_count)
    fired.push({ trigger: 'file_count', detail: `${input.files.length} files (more than ${config.file_count})` });
  if (config.directories !== undefined && dirs.length >= config.directories)
    fired.push({ trigger: 'directories', detail: `${dirs.length} top-level directories: ${dirs.join(', ')}` });
  if (config.missing_tests) {
    const sources = input.files.filter((f) => SOURCE.test(f) && !TEST.test(f));
    if (sources.length > 0 && !input.files.some((f) => TEST.test(f)))
      fired.push({ trigger: 'missing_tests', detail: `${sources.length} source file(s) change and no test file does` });
  }
  if (config.prompt_chars !== undefined && input.prompt.length > config.prompt_chars)
    fired.push({ trigger: 'prompt_chars', detail: `the task is ${input.prompt.length} characters (more than ${config.prompt_chars})` });
  const words = (config.keywords ?? []).filter((k) => new RegExp(`\\b${k.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\b`, 'i').test(input.prompt));
  if (words.length > 0) fired.push({ trigger: 'keywords', detail: `keywords: ${words.join(', ')}` });
  return fired;
}

const quote = (s: string) => `"${s.replace(/["\\$`]/g, '\\$&')}"`;

function agent(role: SuggestConfig['team'][number], name: string, task: string): SuggestedAgent {
  const profile = role.profile ?? null;
  return { role: role.role, profile, name, task, start: `synapse start ${profile ?? '<profile>'} --name ${name} --role ${quote(task)}` };
}

export function analyzeTask(config: SuggestConfig, input: TaskInput): Analysis {
  const fired = fire(config.triggers, input);
  const names = new Set(fired.map((f) => f.trigger));
  const dirs = [...new Set(input.files.map(topDir))];
  const fileList = input.files.length ? input.files.slice(0, 10).join(', ') + (input.files.length > 10 ? ', …' : '') : 'the changed code';
  const team: SuggestedAgent[] = [];
  for (const role of config.team) {
    if (!role.when.some((w) => names.has(w))) continue;
    const fill = (dir: string) => role.task.replace(/\{\{\s*directory\s*\}\}/g, dir).replace(/\{\{\s*files\s*\}\}/g, fileList);
    if (role.per === 'directory' && dirs.length > 1) {
      for (const dir of dirs.slice(0, role.max ?? dirs.length)) team.push(agent(role, `${role.role}-${dir === '.' ? 'root' : dir}`, fill(dir)));
    } else {
      team.push(agent(role, role.role, fill(dirs.length === 1 ? dirs[0]! : 'the project')));
    }
  }
  const split = team.length > 1;
  const summary = split
    ? `Split it: ${team.length} agents (${team.map((a) => a.name).join(', ')}), because ${fired.map((f) => f.detail).join('; ')}.`
    : fired.length
      ? `One agent can do it (${fired.map((f) => f.detail).join('; ')}), with ${team[0]?.role ?? 'no'} help.`
      : 'One agent can do it: no trigger of suggest.yaml fired.';
  return { split, fired, team, summary };
}
