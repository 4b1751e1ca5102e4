import fs from 'node:fs';
import path from 'node:path';
import type { Command, Option } from 'commander';
import { afterAll, describe, expect, it } from 'vitest';
import { buildProgram, withDefaultRun } from '../../../src/cli/program.js';
import { profileNames } from '../../../src/profiles/index.js';
import { ROOT, runCli, tempHome } from '../../support/synapse.js';

/**
 * The skills describe the commands as they really are: every `synapse …` line in a code block of
 * skills/ (and the plugin's README) names a command that exists and flags that command has, and
 * each command it names answers `--help` with exit 0 from the built CLI.
 */

interface Quoted {
  file: string;
  line: string;
  argv: string[];
}

/** Code blocks of a markdown file that hold shell (bash, sh, shell or no language). */
function shellBlocks(text: string): string[] {
  const blocks: string[] = [];
  const re = /^```(\w*)\n([\s\S]*?)^```/gm;
  for (let m = re.exec(text); m; m = re.exec(text)) if (['', 'bash', 'sh', 'shell'].includes(m[1] ?? '')) blocks.push(m[2] ?? '');
  return blocks;
}

/** Shell words of one command (quotes removed, `$VAR` kept as a word); stops at a comment. */
function words(segment: string): string[] {
  const out: string[] = [];
  let word: string | null = null;
  let quote: string | null = null;
  for (const ch of segment) {
    if (quote) {
      if (ch === quote) quote = null;
      else word += ch;
    } else if (ch === '"' || ch === "'") {
      quote = ch;
      word ??= '';
    } else if (/\s/.test(ch)) {
      if (word !== null) out.push(word);
      word = null;
    } else if (ch === '#' && word === null) break;
    else word = (word ?? '') + ch;
  }
  if (word !== null) out.push(word);
  return out;
}

/** Splits a line at `&&`, `||`, `|` and `;` outside quotes. */
function segments(line: string): string[] {
  const out: string[] = [];
  let cur = '';
  let quote: string | null = null;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i]!;
    if (quote) {
      if (ch === quote) quote = null;
    } else if (ch === '"' || ch === "'") quote = ch;
    else if (ch === '|' || ch === ';' || (ch === '&' && line[i + 1] === '&')) {
      out.push(cur);
      cur = '';
      if (line[i + 1] === ch) i++;
      continue;
    }
    cur += ch;
  }
  out.push(cur);
  return out;
}

function quotedCommands(files: string[]): Quoted[] {
  const out: Quoted[] = [];
  for (const file of files)
    for (const block of shellBlocks(fs.readFileSync(file, 'utf8')))
      for (const line of block.replace(/\\\n\s*/g, ' ').split('\n'))
        for (const seg of segments(line)) {
          const argv = words(seg.trim());
          if (argv[0] === 'synapse') out.push({ file: path.relative(ROOT, file), line: seg.trim(), argv: argv.slice(1) });
        }
  return out;
}

function markdownUnder(dir: string): string[] {
  return (fs.readdirSync(dir, { recursive: true }) as string[]).filter((f) => f.endsWith('.md')).map((f) => path.join(dir, f));
}

function findOption(cmd: Command, flag: string): Option | undefined {
  return cmd.options.find((o) => o.long === flag || o.short === flag);
}

/** Walks the program like commander: the subcommands named, then each flag against the command's options. Returns problems. */
function check(program: Command, argv: string[]): { path: string[]; problems: string[] } {
  const full = withDefaultRun(program, ['node', 'synapse', ...argv]).slice(2);
  let cmd = program;
  const names: string[] = [];
  let i = 0;
  for (; i < full.length; i++) {
    const sub = cmd.commands.find((c) => c.name() === full[i] || c.aliases().includes(full[i]!));
    if (!sub) break;
    cmd = sub;
    names.push(sub.name());
  }
  const problems: string[] = [];
  if (names.length === 0 && !full[0]?.startsWith('-')) return { path: names, problems: [`unknown command "${full[0] ?? ''}"`] };
  const next = full[i];
  if (cmd.commands.length > 0 && next !== undefined && !next.startsWith('-') && cmd.registeredArguments.length === 0)
    problems.push(`"${names.join(' ')}" has no subcommand "${next}"`);
  for (; i < full.length; i++) {
    const token = full[i]!;
    if (token === '--') break;
    if (!token.startsWith('-') || token === '-' || /^-\d/.test(token)) continue;
    const flag = token.split('=')[0]!;
    if (flag === '--help' || flag === '-h') continue;
    const opt = findOption(cmd, flag);
    if (!opt) {
      problems.push(`"${names.join(' ') || 'synapse'}" has no option ${flag}`);
      continue;
    }
    if ((opt.required || opt.optional) && !token.includes('=')) i++;
  }
  return { path: names, problems };
}

// The skills, the plugin's README, and every guide and the README: all teach commands to someone.
const files = [
  ...markdownUnder(path.join(ROOT, 'skills')),
  path.join(ROOT, 'plugins', 'synapse-a2a', 'README.md'),
  ...markdownUnder(path.join(ROOT, 'guides')),
  path.join(ROOT, 'README.md'),
];
const quoted = quotedCommands(files);
const home = tempHome();
afterAll(() => home.cleanup());

describe('synapse command lines quoted in the skills, guides and README', () => {
  it('finds the command lines (the skills do quote commands)', () => {
    expect(quoted.length).toBeGreaterThan(50);
    expect(quoted.some((q) => q.argv[0] === 'reply')).toBe(true);
  });

  it('every quoted command and flag exists', () => {
    const program = buildProgram(profileNames());
    const bad = quoted.flatMap((q) => check(program, q.argv).problems.map((p) => `${q.file}: ${q.line}\n    ${p}`));
    expect(bad).toEqual([]);
  });

  it('the checker itself refuses an unknown command, subcommand and flag', () => {
    const program = buildProgram(profileNames());
    expect(check(program, ['sned', 'bob', 'hi']).problems).toEqual([]); // a bare word runs as a profile: `run sned`
    expect(check(program, ['send', 'bob', 'hi', '--wiat']).problems).toEqual(['"send" has no option --wiat']);
    expect(check(program, ['tasks', 'grab', '1a2b']).problems).toEqual(['"tasks" has no subcommand "grab"']);
    expect(check(program, ['skills', 'set', 'show', 'x', '--json']).problems).toEqual([]);
    expect(check(program, ['--help']).problems).toEqual([]);
    expect(check(program, ['--verbose']).problems).toEqual(['"synapse" has no option --verbose']);
    expect(check(program, ['file-safety', 'lock', 'a', 'b', '--ttl', '10m', '--intent', 'x']).problems).toEqual([]);
  });

  it('each command they name answers --help with exit 0 from the built CLI', async () => {
    const program = buildProgram(profileNames());
    const paths = [...new Set(quoted.map((q) => check(program, q.argv).path.join(' ')).filter((p) => p && p !== 'run'))];
    expect(paths.length).toBeGreaterThan(20);
    const failed: string[] = [];
    for (const p of paths) {
      const r = await runCli([...p.split(' '), '--help'], { env: home.env, cwd: home.home });
      if (r.code !== 0 || !r.stdout.includes('Usage: synapse')) failed.push(`${p}: exit ${r.code} ${r.stderr.slice(0, 200)}`);
    }
    expect(failed).toEqual([]);
  }, 120_000);
});
