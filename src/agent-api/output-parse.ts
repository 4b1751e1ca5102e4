import { taskError, type Artifact, type TaskError } from './task.js';
import { nodeCrypto } from '../require-cjs.js';

/**
 * What a turn's text says besides the answer (issue 20 §4): fenced code blocks become their own
 * artifacts with their language, files the CLI reports as written become a `files` artifact, and
 * known error shapes (command not found, permission denied, a non-zero exit, a stack trace)
 * become a structured `error`. The answer text itself is kept whole in the `response` artifact;
 * the artifacts made here say `derived_from: "response"` in their metadata, so the answer shown
 * to a sender stays the same.
 */

export interface CodeBlock {
  language: string;
  code: string;
}

export interface FileReport {
  path: string;
  action: 'created' | 'modified' | 'deleted';
}

export function codeBlocks(text: string): CodeBlock[] {
  const out: CodeBlock[] = [];
  // ```lang\n…\n``` (an indented fence too; the closing fence on its own line).
  for (const m of text.matchAll(/^[ \t]*```[ \t]*([\w+#.-]*)[^\n]*\n([\s\S]*?)\n[ \t]*```[ \t]*$/gm))
    out.push({ language: (m[1] ?? '').toLowerCase() || 'text', code: m[2] ?? '' });
  return out;
}

const EXT = 'py|js|mjs|cjs|ts|tsx|jsx|json|ya?ml|md|txt|html|css|scss|sh|go|rs|java|kt|c|cc|cpp|h|hpp|rb|php|swift|toml|sql|xml|csv|lock';
const PATH = `[\\w./@~+-]+\\.(?:${EXT})(?![\\w])`;
/** How each CLI reports a write, on its own line of the transcript, then the original's prose forms. */
const FILE_SHAPES: ReadonlyArray<{ re: RegExp; action: FileReport['action'] | ((verb: string) => FileReport['action']) }> = [
  // Claude Code: `● Write(src/a.ts)`, `● Update(src/a.ts)`, `● Edit(src/a.ts)`.
  { re: /^[\s●⏺]*(Write|Update|Edit|MultiEdit)\(([^)\n]+)\)/gm, action: (v) => (v === 'Write' ? 'created' : 'modified') },
  // Codex: `• Added src/a.ts (+3 -0)`, `• Edited src/a.ts (+1 -1)`, `• Deleted src/a.ts`.
  {
    re: /^[\s•└]*(Added|Edited|Deleted)\s+(\S+)(?:\s+\(\+\d+\s+-\d+\))?\s*$/gm,
    action: (v) => (v === 'Added' ? 'created' : v === 'Deleted' ? 'deleted' : 'modified'),
  },
  // Gemini CLI: `✓  WriteFile Writing to src/a.ts`, `✓  Edit src/a.ts: …`.
  { re: /^[\s│✓✔]*(WriteFile) Writing to (\S+)/gm, action: 'created' },
  { re: /^[\s│✓✔]*(Edit|Replace) (\S+?):/gm, action: 'modified' },
  // Prose (the original's patterns): created/wrote/saved `path`, modified/updated `path`, deleted `path`.
  { re: new RegExp(`\\b(created|wrote|saved|generated)\\s+(?:file\\s+)?[\`"']?(${PATH})[\`"']?`, 'gi'), action: 'created' },
  { re: new RegExp(`\\b(modified|updated|changed|edited)\\s+(?:file\\s+)?[\`"']?(${PATH})[\`"']?`, 'gi'), action: 'modified' },
  { re: new RegExp(`\\b(deleted|removed)\\s+(?:file\\s+)?[\`"']?(${PATH})[\`"']?`, 'gi'), action: 'deleted' },
];

export function fileReports(text: string): FileReport[] {
  const seen = new Map<string, FileReport>();
  for (const shape of FILE_SHAPES)
    for (const m of text.matchAll(shape.re)) {
      const path = (m[2] ?? '').trim().replace(/[.,;:]+$/, '');
      if (!path || seen.has(path)) continue;
      seen.set(path, { path, action: typeof shape.action === 'function' ? shape.action(m[1] ?? '') : shape.action });
    }
  return [...seen.values()];
}

/** The line around a match, for the error's `data.excerpt`. */
function lineAt(text: string, index: number): string {
  const start = text.lastIndexOf('\n', index) + 1;
  const end = text.indexOf('\n', index);
  return text.slice(start, end < 0 ? undefined : end).trim();
}

const ERROR_SHAPES: ReadonlyArray<{
  code: string;
  re: RegExp;
  message: (m: RegExpMatchArray) => string;
  data?: (m: RegExpMatchArray) => Record<string, unknown>;
}> = [
  {
    code: 'STACK_TRACE',
    // Python's traceback; a JavaScript error with two or more `at …:line:col` frames; Java; Go.
    re: /Traceback \(most recent call last\):|^\s*\w*(?:Error|Exception)\b[^\n]*\n(?:\s+at [^\n]+:\d+(?::\d+)?\)?\n){2,}|Exception in thread "[^"]*"|^panic: [^\n]+\n+goroutine \d+/m,
    message: () => 'the output shows a stack trace',
  },
  {
    code: 'COMMAND_NOT_FOUND',
    re: /(?:([\w./+-]+): (?:line \d+: )?)?command not found(?::\s*([\w./+-]+))?/i,
    message: (m) => `a command was not found${commandOf(m) ? `: ${commandOf(m)}` : ''}`,
    data: (m) => ({ command: commandOf(m) }),
  },
  { code: 'PERMISSION_DENIED', re: /\bpermission denied\b|\bEACCES\b|\bEPERM\b/i, message: () => 'the output shows a permission denied' },
  {
    code: 'NONZERO_EXIT',
    // Claude Code `Error: Exit code 2`, `exited with code 1`, `exit status 1`, Codex `✗ exited 1`.
    re: /\b(?:exit code|exited with (?:code|status)|exit status|returned non-zero exit status|exited)[:\s]+([1-9]\d{0,2})\b/i,
    message: (m) => `a command exited with code ${m[1]}`,
    data: (m) => ({ exit_code: Number(m[1]) }),
  },
];

function commandOf(m: RegExpMatchArray): string | null {
  // bash: `foo: command not found` or `bash: line 1: foo: command not found`; zsh: `command not found: foo`.
  const before = m[1] && !/^(?:bash|sh|zsh|\/bin\/\w+)$/.test(m[1]) ? m[1] : null;
  return m[2] ?? before ?? null;
}

/**
 * The first known error shape in `text` (a stack trace first: it explains the others), or null.
 * Only shapes a CLI prints for a failure count; "error" in prose does not.
 */
export function detectError(text: string): TaskError | null {
  for (const shape of ERROR_SHAPES) {
    const m = text.match(shape.re);
    if (!m || m.index === undefined) continue;
    return taskError(shape.code, shape.message(m), { excerpt: lineAt(text, m.index), ...(shape.data?.(m) ?? {}) });
  }
  return null;
}

/** The artifacts a turn's answer adds beside its `response` artifact: one per code block, one `files`. */
export function derivedArtifacts(answer: string, transcript: string): Artifact[] {
  const out: Artifact[] = codeBlocks(answer).map((b) => ({
    artifact_id: nodeCrypto().randomUUID(),
    name: 'code',
    parts: [{ type: 'text', text: b.code }],
    metadata: { language: b.language, derived_from: 'response' },
  }));
  const files = fileReports(`${transcript}\n${answer}`);
  if (files.length > 0)
    out.push({ artifact_id: nodeCrypto().randomUUID(), name: 'files', parts: [{ type: 'data', data: { files } }], metadata: { derived_from: 'response' } });
  return out;
}

/** Whether an artifact was derived from the answer (not the answer itself). */
export function isDerived(a: Pick<Artifact, 'metadata'>): boolean {
  return a.metadata?.derived_from !== undefined;
}
