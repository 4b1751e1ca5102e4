// Fresh, throw-away HOME directories for the real agent CLIs, pointed at the mock model server.
//
//   const server = await startMockModelServer();
//   const h = await prepareClaudeHome({ baseUrl: server.url });
//   spawn(claudeBin(), [], { cwd: h.cwd, env: h.env }) ... ; await h.cleanup();
//
// Each function returns {env, cwd, home, cleanup, bin, args}. `env` is a complete environment
// (not merged with process.env beyond PATH and a few basics), so nothing leaks in from the real
// home: no real API keys, no real ~/.claude, ~/.codex, ~/.gemini, ~/.config/opencode or ~/.copilot.
// Auto-updaters are off.

import { mkdtemp, mkdir, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = dirname(fileURLToPath(import.meta.url));
/** Where the pinned CLIs are installed (`cd test/e2e/clis && npm install`). */
export const CLIS_DIR = resolve(HERE, '../e2e/clis');

/** Pinned versions; keep in step with test/e2e/clis/package.json. */
export const CLI_VERSIONS = { claude: '2.1.197', codex: '0.171.0', gemini: '0.61.0', opencode: '1.18.33', copilot: '1.0.102' };

export function cliBin(name) {
  return join(CLIS_DIR, 'node_modules', '.bin', name);
}

/** API keys the mock accepts (it accepts anything). Claude's is ≤ 20 chars: it approves keys by their last 20. */
export const MOCK_KEYS = { anthropic: 'sk-ant-mock-key-0001', openai: 'sk-mock-openai-0001', gemini: 'mock-gemini-key-0001' };

async function makeDirs(prefix) {
  const root = await realpath(await mkdtemp(join(tmpdir(), `synapse-${prefix}-`)));
  const home = join(root, 'home');
  const cwd = join(root, 'project');
  // A private TMPDIR: whatever the CLI leaves there goes with cleanup(), and Codex does not
  // refuse its helper binaries ("Refusing to create helper binaries under temporary dir").
  const tmp = join(root, 'tmp');
  for (const dir of [home, cwd, tmp]) await mkdir(dir, { recursive: true });
  return {
    root,
    home,
    cwd,
    tmp,
    cleanup: () => rm(root, { recursive: true, force: true, maxRetries: 3 }),
  };
}

/** The environment every CLI run gets: a clean HOME/XDG tree, a real PATH, a 256-colour terminal. */
function baseEnv(d, extra) {
  const home = d.home;
  const env = {
    PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin',
    HOME: home,
    USER: process.env.USER ?? 'root',
    LOGNAME: process.env.LOGNAME ?? process.env.USER ?? 'root',
    SHELL: '/bin/bash',
    LANG: 'C.UTF-8',
    LC_ALL: 'C.UTF-8',
    TERM: 'xterm-256color',
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_CACHE_HOME: join(home, '.cache'),
    XDG_DATA_HOME: join(home, '.local', 'share'),
    XDG_STATE_HOME: join(home, '.local', 'state'),
    TMPDIR: d.tmp,
    NO_UPDATE_NOTIFIER: '1',
    CI: '',
    ...extra,
  };
  for (const [k, v] of Object.entries(env)) if (v === '') delete env[k];
  return env;
}

async function writeJson(path, value) {
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, `${JSON.stringify(value, null, 2)}\n`);
}

/**
 * Claude Code. `auth: 'token'` uses ANTHROPIC_AUTH_TOKEN (no key-approval dialog at all);
 * `auth: 'key'` uses ANTHROPIC_API_KEY, pre-approved in .claude.json.
 * `skipPermissions` adds --dangerously-skip-permissions (as root this needs IS_SANDBOX=1).
 */
export async function prepareClaudeHome({ baseUrl, auth = 'key', skipPermissions = false, extraEnv = {} }) {
  const d = await makeDirs('claude');
  const key = MOCK_KEYS.anthropic;
  await writeJson(join(d.home, '.claude.json'), {
    hasCompletedOnboarding: true,
    // Claude Code compares the last 20 characters of the key.
    customApiKeyResponses: { approved: [key.slice(-20)], rejected: [] },
    ...(skipPermissions ? { skipDangerousModePermissionPrompt: true } : {}),
    projects: { [d.cwd]: { hasTrustDialogAccepted: true, allowedTools: [] } },
  });
  await writeJson(join(d.home, '.claude', 'settings.json'), {
    env: { DISABLE_AUTOUPDATER: '1' },
    ...(skipPermissions ? { skipDangerousModePermissionPrompt: true } : {}),
  });
  const env = baseEnv(d, {
    ANTHROPIC_BASE_URL: baseUrl,
    ...(auth === 'token' ? { ANTHROPIC_AUTH_TOKEN: key } : { ANTHROPIC_API_KEY: key }),
    DISABLE_AUTOUPDATER: '1',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_TELEMETRY: '1',
    DISABLE_ERROR_REPORTING: '1',
    ...(skipPermissions ? { IS_SANDBOX: '1' } : {}),
    ...extraEnv,
  });
  const args = skipPermissions ? ['--dangerously-skip-permissions'] : [];
  return { ...d, env, bin: cliBin('claude'), args };
}

/** Codex CLI, with CODEX_HOME/config.toml naming the mock as a Responses-API provider. */
export async function prepareCodexHome({ baseUrl, model = 'gpt-5.5', migrationTarget = 'gpt-6-sol', extraEnv = {}, extraConfig = '' }) {
  const d = await makeDirs('codex');
  const codexHome = join(d.home, '.codex');
  await mkdir(codexHome, { recursive: true });
  const toml = [
    `model = ${JSON.stringify(model)}`,
    'model_provider = "mock"',
    'check_for_update_on_startup = false',
    '',
    '[model_providers.mock]',
    'name = "mock"',
    `base_url = ${JSON.stringify(`${baseUrl}/v1`)}`,
    'wire_api = "responses"',
    'env_key = "OPENAI_API_KEY"',
    '',
    `[projects.${JSON.stringify(d.cwd)}]`,
    'trust_level = "trusted"',
    '',
    '[notice.model_migrations]',
    // Marks the built-in "Meet <new model>" upgrade prompt for `model` as already seen.
    `${JSON.stringify(model)} = ${JSON.stringify(migrationTarget)}`,
    '',
    extraConfig,
  ].join('\n');
  await writeFile(join(codexHome, 'config.toml'), toml);
  const env = baseEnv(d, {
    CODEX_HOME: codexHome,
    OPENAI_API_KEY: MOCK_KEYS.openai,
    ...extraEnv,
  });
  return { ...d, env, bin: cliBin('codex'), args: ['--no-daemon'] };
}

/** Gemini CLI, with an API key, the mock as base URL, the folder trusted and auto-update off. */
export async function prepareGeminiHome({ baseUrl, extraEnv = {}, settings = {} }) {
  const d = await makeDirs('gemini');
  const dir = join(d.home, '.gemini');
  await writeJson(join(dir, 'settings.json'), {
    security: { auth: { selectedType: 'gemini-api-key' } },
    general: { enableAutoUpdate: false, enableAutoUpdateNotification: false },
    ...settings,
  });
  await writeJson(join(dir, 'trustedFolders.json'), { [d.cwd]: 'TRUST_FOLDER' });
  const env = baseEnv(d, {
    GEMINI_API_KEY: MOCK_KEYS.gemini,
    GOOGLE_GEMINI_BASE_URL: baseUrl,
    COLORTERM: 'truecolor',
    ...extraEnv,
  });
  return { ...d, env, bin: cliBin('gemini'), args: [] };
}

/**
 * OpenCode, with `~/.config/opencode/opencode.json` naming the mock as an OpenAI-compatible
 * provider (Chat Completions, `/v1/chat/completions`). Observed on 1.18.33:
 * - The `@ai-sdk/openai-compatible` provider is built into the binary: nothing is installed for it.
 * - For every config directory (here ~/.config/opencode) OpenCode runs a background
 *   `npm install @opencode-ai/plugin` (for local plugins and tools) unless that directory already
 *   has a `node_modules/` and a package-lock.json listing every dependency of its package.json.
 *   We have no plugins, so an empty node_modules plus that pair of files keeps it from reaching
 *   registry.npmjs.org at all.
 * - The models.dev catalogue fetch (models.opencode.ai) is turned off by OPENCODE_DISABLE_MODELS_FETCH.
 * - Shell commands run without asking by default; `permission.bash = "ask"` gives the dialog the
 *   e2e scenarios answer (and `--auto` approves it).
 */
export async function prepareOpencodeHome({ baseUrl, extraEnv = {}, config = {} }) {
  const d = await makeDirs('opencode');
  const dir = join(d.home, '.config', 'opencode');
  await writeJson(join(dir, 'opencode.json'), {
    $schema: 'https://opencode.ai/config.json',
    autoupdate: false,
    share: 'disabled',
    model: 'mock/mock-model',
    small_model: 'mock/mock-model',
    provider: {
      mock: {
        npm: '@ai-sdk/openai-compatible',
        name: 'Mock',
        options: { baseURL: `${baseUrl}/v1`, apiKey: MOCK_KEYS.openai },
        models: { 'mock-model': { name: 'Mock Model' } },
      },
    },
    permission: { bash: 'ask' },
    ...config,
  });
  const plugin = { '@opencode-ai/plugin': CLI_VERSIONS.opencode };
  await mkdir(join(dir, 'node_modules'), { recursive: true });
  await writeJson(join(dir, 'package.json'), { dependencies: plugin });
  await writeJson(join(dir, 'package-lock.json'), { lockfileVersion: 3, requires: true, packages: { '': { dependencies: plugin } } });
  const env = baseEnv(d, {
    OPENCODE_DISABLE_AUTOUPDATE: '1',
    OPENCODE_DISABLE_MODELS_FETCH: '1',
    OPENCODE_DISABLE_SHARE: '1',
    OPENCODE_DISABLE_LSP_DOWNLOAD: '1',
    // Skills and prompts from ~/.claude would be read if present; the temp HOME has none anyway.
    OPENCODE_DISABLE_CLAUDE_CODE: '1',
    ...extraEnv,
  });
  return { ...d, env, bin: cliBin('opencode'), args: [] };
}

/**
 * GitHub Copilot CLI without a GitHub login, in its BYOK offline mode (`copilot help providers`,
 * `copilot help environment` of 1.0.102): the provider is the mock, spoken to over Chat
 * Completions. Folder trust is honoured from `trustedFolders` in ~/.copilot/config.json (not from
 * settings.json). With a `gpt-*` model it suggests the Responses wire API; a `claude-*` name
 * keeps Chat Completions quiet.
 */
export async function prepareCopilotHome({ baseUrl, extraEnv = {}, config = {} }) {
  const d = await makeDirs('copilot');
  await writeJson(join(d.home, '.copilot', 'config.json'), { trustedFolders: [d.cwd], banner: 'never', ...config });
  const env = baseEnv(d, {
    COPILOT_OFFLINE: 'true',
    COPILOT_PROVIDER_BASE_URL: `${baseUrl}/v1`,
    COPILOT_PROVIDER_API_KEY: MOCK_KEYS.openai,
    COPILOT_MODEL: 'claude-sonnet-4.6',
    COPILOT_AUTO_UPDATE: 'false',
    ...extraEnv,
  });
  return { ...d, env, bin: cliBin('copilot'), args: [] };
}

export const prepareHome = {
  claude: prepareClaudeHome,
  codex: prepareCodexHome,
  gemini: prepareGeminiHome,
  opencode: prepareOpencodeHome,
  copilot: prepareCopilotHome,
};
