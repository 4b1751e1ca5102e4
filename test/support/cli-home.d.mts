// Types for cli-home.mjs.

export interface CliHome {
  /** Complete environment for the CLI (clean HOME, XDG dirs, TMPDIR, mock URL and key). */
  env: Record<string, string>;
  /** A fresh project directory, already trusted by the CLI. */
  cwd: string;
  home: string;
  root: string;
  tmp: string;
  /** Absolute path of the pinned CLI binary in test/e2e/clis/node_modules/.bin. */
  bin: string;
  /** Arguments the CLI needs for these tests (e.g. ['--no-daemon'] for Codex). */
  args: string[];
  /** Remove the whole temporary tree. */
  cleanup(): Promise<void>;
}

export const CLIS_DIR: string;
export const CLI_VERSIONS: { claude: string; codex: string; gemini: string; opencode: string; copilot: string };
export const MOCK_KEYS: { anthropic: string; openai: string; gemini: string };
export function cliBin(name: 'claude' | 'codex' | 'gemini' | 'opencode' | 'copilot'): string;

export function prepareClaudeHome(o: {
  baseUrl: string;
  auth?: 'key' | 'token';
  skipPermissions?: boolean;
  extraEnv?: Record<string, string>;
}): Promise<CliHome>;
export function prepareCodexHome(o: {
  baseUrl: string;
  model?: string;
  migrationTarget?: string;
  extraEnv?: Record<string, string>;
  extraConfig?: string;
}): Promise<CliHome>;
export function prepareGeminiHome(o: { baseUrl: string; extraEnv?: Record<string, string>; settings?: Record<string, unknown> }): Promise<CliHome>;
export function prepareOpencodeHome(o: { baseUrl: string; extraEnv?: Record<string, string>; config?: Record<string, unknown> }): Promise<CliHome>;
export function prepareCopilotHome(o: { baseUrl: string; extraEnv?: Record<string, string>; config?: Record<string, unknown> }): Promise<CliHome>;
export const prepareHome: {
  claude: typeof prepareClaudeHome;
  codex: typeof prepareCodexHome;
  gemini: typeof prepareGeminiHome;
  opencode: typeof prepareOpencodeHome;
  copilot: typeof prepareCopilotHome;
};
