import fs from 'node:fs';
import path from 'node:path';
import { SynapseError } from '../../errors.js';
import { trustExtraCaCerts } from '../../extra-ca-certs.js';
import type { CommandIo } from '../io.js';

/**
 * Turns what a person types after `synapse canvas <type>` into that type's card body: text types
 * take the text as it is, structured ones take JSON (a table also CSV), an image a file or URL, a
 * link a URL whose page title and description are read when the page answers.
 */

export const SHORTCUT_TYPES = ['mermaid', 'markdown', 'table', 'chart', 'code', 'html', 'diff', 'image', 'link', 'briefing', 'plan'] as const;
export type ShortcutType = (typeof SHORTCUT_TYPES)[number];

export interface BodyFlags {
  file?: string;
  lang?: string;
  fetch?: boolean;
}

const LANGS: Record<string, string> = {
  '.ts': 'typescript',
  '.tsx': 'typescript',
  '.js': 'javascript',
  '.mjs': 'javascript',
  '.py': 'python',
  '.rs': 'rust',
  '.go': 'go',
  '.java': 'java',
  '.rb': 'ruby',
  '.sh': 'bash',
  '.json': 'json',
  '.yaml': 'yaml',
  '.yml': 'yaml',
  '.md': 'markdown',
  '.css': 'css',
  '.html': 'xml',
  '.sql': 'sql',
  '.c': 'c',
  '.cpp': 'cpp',
  '.h': 'c',
};

const IMAGE_TYPES: Record<string, string> = {
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.svg': 'image/svg+xml',
};

/** The text given: the argument, `-` for stdin, or `--file`. */
export async function bodyText(arg: string | undefined, file: string | undefined, io: CommandIo): Promise<string> {
  if ((arg === undefined) === (file === undefined)) throw new SynapseError('usage', 'give the body once: as an argument (- reads stdin) or with --file F');
  if (file !== undefined) {
    try {
      return fs.readFileSync(path.resolve(io.cwd, file), 'utf8');
    } catch (err) {
      throw new SynapseError('invalid_input', `cannot read --file ${file}: ${(err as Error).message}`);
    }
  }
  return arg === '-' ? io.readStdin() : arg!;
}

export function parseJson(text: string, what: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    throw new SynapseError('invalid_input', `${what} is not valid JSON: ${(err as Error).message}`);
  }
}

/** A simple CSV (no quoted commas): the first line is the header. */
function csvTable(text: string): { headers: string[]; rows: string[][] } {
  const lines = text.split(/\r?\n/).filter((l) => l.trim() !== '');
  const split = (l: string) => l.split(',').map((c) => c.trim());
  return { headers: split(lines[0] ?? ''), rows: lines.slice(1).map(split) };
}

function imageBody(source: string, io: CommandIo): { src: string; alt: string } {
  if (/^https?:\/\//.test(source) || source.startsWith('data:image/')) return { src: source, alt: '' };
  const file = path.resolve(io.cwd, source);
  const type = IMAGE_TYPES[path.extname(file).toLowerCase()];
  if (!type) throw new SynapseError('invalid_input', `${source}: an image card takes a .png, .jpg, .gif, .webp or .svg file, or an http(s) URL`);
  let bytes: Buffer;
  try {
    bytes = fs.readFileSync(file);
  } catch (err) {
    throw new SynapseError('invalid_input', `cannot read ${source}: ${(err as Error).message}`);
  }
  return { src: `data:${type};base64,${bytes.toString('base64')}`, alt: path.basename(file) };
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'", apos: "'" };
const decode = (s: string) => s.replace(/&(amp|lt|gt|quot|#39|apos);/g, (_m, e: string) => ENTITIES[e] ?? '').trim();

/** The page's `<title>` and meta description, when it answers within 3 s; an unreachable page gives none. */
async function pageInfo(url: string): Promise<{ title?: string; description?: string }> {
  try {
    // A redirect may lead to https from any URL.
    trustExtraCaCerts();
    const res = await fetch(url, { signal: AbortSignal.timeout(3000), redirect: 'follow', headers: { accept: 'text/html' } });
    if (!res.ok || !(res.headers.get('content-type') ?? '').includes('html')) return {};
    const html = (await res.text()).slice(0, 500_000);
    const title = /<title[^>]*>([^<]{1,500})<\/title>/i.exec(html)?.[1];
    const description =
      /<meta[^>]+name=["']description["'][^>]+content=["']([^"']{1,2000})["']/i.exec(html)?.[1] ??
      /<meta[^>]+property=["']og:description["'][^>]+content=["']([^"']{1,2000})["']/i.exec(html)?.[1];
    return { ...(title ? { title: decode(title) } : {}), ...(description ? { description: decode(description) } : {}) };
  } catch {
    return {}; // not reachable: the card shows the URL alone
  }
}

export async function shortcutBody(type: ShortcutType, arg: string | undefined, flags: BodyFlags, io: CommandIo): Promise<{ body: unknown; title?: string }> {
  switch (type) {
    case 'mermaid':
    case 'markdown':
    case 'html':
      return { body: await bodyText(arg, flags.file, io) };
    case 'diff': {
      const text = await bodyText(arg, flags.file, io);
      return { body: text.trimStart().startsWith('{') ? parseJson(text, 'the diff') : text };
    }
    case 'code': {
      const code = await bodyText(arg, flags.file, io);
      const language = flags.lang ?? (flags.file ? LANGS[path.extname(flags.file).toLowerCase()] : undefined);
      return { body: { code, ...(language ? { language } : {}), ...(flags.file ? { filename: path.basename(flags.file) } : {}) } };
    }
    case 'table': {
      const text = await bodyText(arg, flags.file, io);
      return { body: flags.file?.toLowerCase().endsWith('.csv') ? csvTable(text) : parseJson(text, 'the table') };
    }
    case 'chart':
    case 'briefing':
    case 'plan':
      return { body: parseJson(await bodyText(arg, flags.file, io), `the ${type}`) };
    case 'image':
      return { body: imageBody(arg ?? flags.file ?? '', io) };
    case 'link': {
      const url = (arg ?? '').trim();
      if (!/^https?:\/\//.test(url)) throw new SynapseError('usage', 'a link card takes an http(s) URL, e.g. synapse canvas link https://example.com/spec');
      const info = flags.fetch === false ? {} : await pageInfo(url);
      return { body: { url, ...info }, ...(info.title ? { title: info.title } : {}) };
    }
  }
}
