import { describe, expect, it } from 'vitest';
import { isResuming, mergeArgs } from '../../../src/profiles/args.js';
import { codexProfile } from '../../../src/profiles/codex.js';
import { echoProfile } from '../../../src/profiles/echo.js';
import { geminiProfile } from '../../../src/profiles/gemini.js';

const codex = (user: string[]) => mergeArgs(codexProfile, codexProfile.args, user);

describe('mergeArgs: a flag the profile passes and the user passes again goes to the CLI once', () => {
  it('codex: the user repeating --no-daemon does not double it (Codex exits 2 on a repeated flag)', () => {
    expect(codex(['--no-daemon'])).toEqual({
      args: ['-c', 'sandbox_workspace_write.network_access=true', '--no-daemon'],
      dropped: ['--no-daemon'],
    });
  });

  it('codex: without the flag in the user args, the profile args stay as they are, in front', () => {
    expect(codex(['--model', 'gpt-5'])).toEqual({
      args: ['--no-daemon', '-c', 'sandbox_workspace_write.network_access=true', '--model', 'gpt-5'],
      dropped: [],
    });
  });

  it('the --flag=value and --flag value forms of the user name the same flag; the value the user wrote wins', () => {
    const profile = { repeatableFlags: [], flagAliases: [] };
    const own = ['--model', 'a', '--theme=dark', '--quiet'];
    expect(mergeArgs(profile, own, ['--model=b'])).toEqual({ args: ['--theme=dark', '--quiet', '--model=b'], dropped: ['--model', 'a'] });
    expect(mergeArgs(profile, own, ['--theme', 'light'])).toEqual({ args: ['--model', 'a', '--quiet', '--theme', 'light'], dropped: ['--theme=dark'] });
    expect(mergeArgs(profile, own, ['--quiet=true']).args).toEqual(['--model', 'a', '--theme=dark', '--quiet=true']);
  });

  it('codex: flags it takes many times (-c key=value) are kept beside the user ones', () => {
    expect(codex(['-c', 'model="o3"']).args).toEqual(['--no-daemon', '-c', 'sandbox_workspace_write.network_access=true', '-c', 'model="o3"']);
    expect(codex(['--config', 'model="o3"']).dropped).toEqual([]);
  });

  it("codex: the auto-approve flag and the user's --yolo (its other name) are passed once", () => {
    const own = codexProfile.autoApproveArgs ?? [];
    expect(mergeArgs(codexProfile, own, ['--yolo'])).toEqual({ args: ['--yolo'], dropped: ['--dangerously-bypass-approvals-and-sandbox'] });
    expect(mergeArgs(codexProfile, own, ['--dangerously-bypass-approvals-and-sandbox']).args).toEqual(['--dangerously-bypass-approvals-and-sandbox']);
  });

  it('tokens after a bare -- are positionals, not flags; a negative number is no flag either', () => {
    expect(codex(['--', '--no-daemon']).dropped).toEqual([]);
    expect(mergeArgs({}, ['--n', '-1'], ['-1']).args).toEqual(['--n', '-1', '-1']);
  });

  it("echo: node's flags before the script are not the script's; the user's args go to the script untouched", () => {
    const { args, dropped } = mergeArgs(echoProfile, echoProfile.args, ['--max-old-space-size=64']);
    expect(dropped).toEqual([]);
    expect(args).toEqual([...echoProfile.args, '--max-old-space-size=64']);
  });

  it('gemini passes no args of its own: the user args are the command line', () => {
    expect(mergeArgs(geminiProfile, geminiProfile.args, ['--yolo', '--resume', 'latest'])).toEqual({ args: ['--yolo', '--resume', 'latest'], dropped: [] });
  });
});

describe('isResuming (resume flags)', () => {
  it('matches a flag exactly, and --flag=value for flags starting with -, as the original', () => {
    expect(isResuming(['--resume', '-r'], ['--model', 'x', '-r'])).toBe(true);
    expect(isResuming(['--resume', '-r'], ['--resume=abc'])).toBe(true);
    expect(isResuming(['--resume'], ['--resumed'])).toBe(false);
    // A positional (codex's `resume`) matches only as itself.
    expect(isResuming(['resume'], ['resume', '--last'])).toBe(true);
    expect(isResuming(['resume'], ['resume=x'])).toBe(false);
    expect(isResuming([], ['--resume'])).toBe(false);
  });

  it('gives Gemini -r as well as --resume, as the original', () => {
    expect(isResuming(geminiProfile.resumeFlags, ['-r', '3'])).toBe(true);
  });
});
