import { exitFor } from '../../src/cli/exit.js';
import type { CommandIo } from '../../src/cli/io.js';

/**
 * Runs CLI command functions in-process: the same function commander calls, with a `CommandIo`
 * that collects stdout and stderr, and the same error-to-exit-code mapping as `main`. The
 * result has the shape of a spawned run, so a test reads the same either way.
 */

export interface IoOptions {
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** What standard input holds (read by `-` / `--stdin`). */
  stdin?: string;
  /** Whether stdin, stdout and stderr are terminals (default: none is). */
  terminal?: boolean;
  /** The answers `confirm` gives, in order; a question with none left fails the test. */
  answers?: boolean[];
  /** The caller's parent process (default: this process's parent). */
  parentPid?: number;
}

export interface TestIo extends CommandIo {
  stdout: string;
  stderr: string;
  /** The questions `confirm` was asked. */
  questions: string[];
}

export function testIo(o: IoOptions): TestIo {
  const answers = [...(o.answers ?? [])];
  const io: TestIo = {
    env: o.env,
    cwd: o.cwd,
    stdout: '',
    stderr: '',
    questions: [],
    out: (text) => void (io.stdout += text),
    err: (text) => void (io.stderr += text),
    readStdin: async () => o.stdin ?? '',
    isTerminal: () => o.terminal === true,
    confirm: async (question) => {
      io.questions.push(question);
      const answer = answers.shift();
      if (answer === undefined) throw new Error(`unexpected question: ${question}`);
      return answer;
    },
    parentPid: o.parentPid ?? process.ppid,
  };
  return io;
}

export interface CommandResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs one command function; a thrown error becomes its stderr line and exit code, as in `main`. */
export async function runCommand(command: (io: CommandIo) => unknown, options: IoOptions | TestIo): Promise<CommandResult> {
  const io = 'stdout' in options ? options : testIo(options);
  let code = 0;
  try {
    await command(io);
  } catch (err) {
    const exit = exitFor(err);
    if (exit.message) io.err(exit.message);
    code = exit.code;
  }
  return { code, stdout: io.stdout, stderr: io.stderr };
}

/** Runs a command that must succeed and parses its JSON output. */
export async function runJson<T = any>(command: (io: CommandIo) => unknown, options: IoOptions): Promise<T> {
  const r = await runCommand(command, options);
  if (r.code !== 0) throw new Error(`command exited ${r.code}: ${r.stderr}`);
  return JSON.parse(r.stdout) as T;
}
