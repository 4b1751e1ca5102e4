import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SynapseError } from '../errors.js';
import { readDirNames, readJsonFile } from '../json-file.js';
import { envSetting } from '../config/env-setting.js';
import { naturalCompare } from '../text-order.js';

type Env = Record<string, string | undefined>;

/** A remote A2A agent this user talks to, as kept in `~/.a2a/external/<alias>.json`. */
export interface ExternalAgent {
  alias: string;
  /** What the user gave to `external add` (base URL or card URL). */
  url: string;
  /** Where the card was read. */
  card_url: string;
  /** The card's protocol: 1.0 (`supportedInterfaces`) or 0.3 (`url` + `preferredTransport`). */
  protocol_version: '1.0' | '0.3';
  name: string;
  description: string;
  /** Sent with every request (auth tokens live here: the file is 0600). */
  headers: Record<string, string>;
  /** The card exactly as the agent served it. */
  card: Record<string, unknown>;
  added_at: string;
  updated_at: string;
}

/** `~/.a2a/external`, or `SYNAPSE_EXTERNAL_DIR`. */
export function externalDir(env: Env): string {
  const dir = envSetting(env, 'SYNAPSE_EXTERNAL_DIR') ?? envSetting(env, 'SYNAPSE_EXTERNAL_REGISTRY_DIR');
  if (dir) return dir;
  const home = env.HOME && env.HOME.length > 0 ? env.HOME : os.homedir();
  return path.join(home, '.a2a', 'external');
}

const ALIAS = /^[a-z0-9][a-z0-9._-]{0,62}$/;

export function validateAlias(alias: string): string {
  const a = alias.trim().toLowerCase();
  if (!ALIAS.test(a))
    throw new SynapseError('invalid_input', `alias "${alias}" is not valid: use 1-63 letters, digits, ".", "_" or "-", starting with a letter or digit`);
  return a;
}

/** A default alias from the card's name: "Recipe Agent!" → "recipe-agent". */
export function aliasFromName(name: string): string {
  const slug = name
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, '-')
    .replace(/^[-._]+|[-._]+$/g, '')
    .slice(0, 63);
  return slug || 'agent';
}

function isExternalAgent(v: unknown): v is ExternalAgent {
  if (typeof v !== 'object' || v === null) return false;
  const e = v as Record<string, unknown>;
  return (
    typeof e.alias === 'string' &&
    typeof e.url === 'string' &&
    typeof e.card_url === 'string' &&
    (e.protocol_version === '1.0' || e.protocol_version === '0.3') &&
    typeof e.name === 'string' &&
    typeof e.headers === 'object' &&
    e.headers !== null &&
    typeof e.card === 'object' &&
    e.card !== null
  );
}

/** One JSON file per external agent, written atomically (temp file + rename) with mode 0600. */
export class ExternalStore {
  constructor(readonly dir: string) {}

  private file(alias: string): string {
    return path.join(this.dir, `${validateAlias(alias)}.json`);
  }

  /** The agent in `file`; null when there is no such file; a corrupt file throws, naming it. */
  private read(file: string): ExternalAgent | null {
    const parsed = readJsonFile(file, 'external agent file');
    if (parsed === null) return null;
    if (!isExternalAgent(parsed))
      throw new SynapseError('corrupt_file', `external agent file ${file} is not an external agent record; fix it or remove it`, { file });
    return parsed;
  }

  /** Every readable agent, and the files that could not be read (with why). */
  scan(): { agents: ExternalAgent[]; problems: Array<{ file: string; error: string }> } {
    const agents: ExternalAgent[] = [];
    const problems: Array<{ file: string; error: string }> = [];
    for (const name of readDirNames(this.dir).filter((n) => n.endsWith('.json'))) {
      const file = path.join(this.dir, name);
      try {
        const agent = this.read(file);
        if (agent) agents.push(agent);
      } catch (err) {
        problems.push({ file, error: (err as Error).message });
      }
    }
    return { agents: agents.sort((a, b) => naturalCompare(a.alias, b.alias)), problems };
  }

  list(): ExternalAgent[] {
    return this.scan().agents;
  }

  find(alias: string): ExternalAgent | null {
    return this.read(this.file(alias));
  }

  get(alias: string): ExternalAgent {
    const agent = this.find(alias);
    if (agent) return agent;
    const known = this.list().map((a) => a.alias);
    throw new SynapseError(
      'target_not_found',
      `no external agent "${alias}"${known.length ? `; known: ${known.join(', ')}` : '; add one with `synapse external add <url>`'}`,
      { candidates: known },
    );
  }

  save(agent: ExternalAgent): ExternalAgent {
    fs.mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    const file = this.file(agent.alias);
    const tmp = `${file}.${process.pid}.${Date.now()}.tmp`;
    fs.writeFileSync(tmp, `${JSON.stringify(agent, null, 2)}\n`, { mode: 0o600 });
    fs.renameSync(tmp, file);
    return agent;
  }

  remove(alias: string): ExternalAgent {
    const agent = this.get(alias);
    fs.rmSync(this.file(alias), { force: true });
    return agent;
  }
}
