import fs from 'node:fs';
import path from 'node:path';

/**
 * The pre-write hooks `synapse hooks install` writes into a CLI's project settings, and the test
 * `synapse status` uses to say whether an agent's file locks are enforced or only advisory.
 * Plain file reads: no store, no heavy imports.
 */

/** What the installed hook runs; `synapse hooks pre-write` reads the CLI's hook JSON on stdin. */
export const PRE_WRITE_SUBCOMMAND = 'hooks pre-write';
/** Claude Code's tools that write files. */
export const CLAUDE_WRITE_TOOLS = 'Edit|Write|MultiEdit';

/** Profiles whose CLI can run a command before a write and block it; the settings file it reads. */
export const PRE_WRITE_HOOK_PROFILES: Record<string, { settingsFile: (projectDir: string) => string }> = {
  claude: { settingsFile: (dir) => path.join(dir, '.claude', 'settings.json') },
};

interface ClaudeHookEntry {
  matcher?: unknown;
  hooks?: unknown;
}

/** True when a Claude Code settings object runs `synapse hooks pre-write` before Edit/Write. */
export function hasClaudePreWriteHook(settings: unknown): boolean {
  const pre = (settings as { hooks?: { PreToolUse?: unknown } } | null)?.hooks?.PreToolUse;
  if (!Array.isArray(pre)) return false;
  return pre.some((e: ClaudeHookEntry) => {
    const matcher = typeof e?.matcher === 'string' ? e.matcher : '';
    const tools = matcher.split('|');
    const coversWrites = matcher === '' || matcher === '*' || (tools.includes('Edit') && tools.includes('Write'));
    return (
      coversWrites &&
      Array.isArray(e.hooks) &&
      e.hooks.some(
        (h: { type?: unknown; command?: unknown }) => h?.type === 'command' && typeof h.command === 'string' && h.command.includes(PRE_WRITE_SUBCOMMAND),
      )
    );
  });
}

/** Whether an agent of `profile` working in `projectDir` has its locks enforced by a hook. */
export function lockEnforcement(profile: string, projectDir: string): { enforced: boolean; detail: string } {
  const spec = PRE_WRITE_HOOK_PROFILES[profile];
  if (!spec) return { enforced: false, detail: `advisory (no pre-write hook for ${profile})` };
  const file = spec.settingsFile(projectDir);
  let settings: unknown;
  try {
    settings = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch {
    return { enforced: false, detail: `advisory (run: synapse hooks install ${profile})` };
  }
  return hasClaudePreWriteHook(settings)
    ? { enforced: true, detail: `enforced (hook in ${file})` }
    : { enforced: false, detail: `advisory (run: synapse hooks install ${profile})` };
}
