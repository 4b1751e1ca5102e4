import { effectiveEnv } from '../config/settings.js';
import { projectTrustCheck } from '../registry/project-trust.js';

/**
 * What a command needs from the process that runs it. Every command is a function of its
 * arguments, its options and a `CommandIo`; commander only parses and calls it. `processIo()`
 * is the real process; a test passes its own (a temp HOME in `env`, a temp project as `cwd`,
 * `out`/`err` into strings) and runs the command in-process.
 */
export interface CommandIo {
  /** The environment (`SYNAPSE_*`, `HOME`); nothing in a command reads `process.env`. */
  readonly env: NodeJS.ProcessEnv;
  /**
   * The environment before the settings files' `env` blocks were merged into `env` (the process's),
   * so that `env` can be made again once the user trusts the project's (cli/project-trust.ts).
   * Absent: `env` is all there is.
   */
  readonly baseEnv?: NodeJS.ProcessEnv;
  /** The working directory relative paths and the project are resolved against. */
  readonly cwd: string;
  /** Writes to standard output as is (no newline added). */
  out(text: string): void;
  /** Writes to standard error as is (no newline added). */
  err(text: string): void;
  /** All of standard input, as UTF-8 text. */
  readStdin(): Promise<string>;
  /** Whether that stream is a terminal (a spinner, a question, a real screen need one). */
  isTerminal(stream: 'stdin' | 'stdout' | 'stderr'): boolean;
  /** Asks a yes/no question on the terminal (stderr); true for y or yes. */
  confirm(question: string): Promise<boolean>;
  /** The process that ran `synapse` (usually a shell): owns what a command holds for its caller. */
  readonly parentPid: number;
}

/**
 * The running process as a `CommandIo`. Streams are touched only when a command uses them.
 * `env` is the effective environment: the settings files' `env` blocks under the process's (a bad
 * settings file stops the command with an error naming it; the project's files' only when the user
 * trusts them, `synapse trust`); `rawEnv` skips the files, for the commands that repair them
 * (`config`, `init`, `reset`).
 */
export function processIo(opts: { rawEnv?: boolean } = {}): CommandIo {
  return {
    env: opts.rawEnv ? process.env : effectiveEnv(process.cwd(), process.env, projectTrustCheck(process.env)),
    baseEnv: process.env,
    cwd: process.cwd(),
    out: (text) => void process.stdout.write(text),
    err: (text) => void process.stderr.write(text),
    readStdin: async () => {
      const chunks: Buffer[] = [];
      for await (const chunk of process.stdin) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
      return Buffer.concat(chunks).toString('utf8');
    },
    isTerminal: (stream) => Boolean(process[stream].isTTY),
    confirm: async (question) => {
      const readline = await import('node:readline/promises');
      const rl = readline.createInterface({ input: process.stdin, output: process.stderr });
      try {
        return /^y(es)?$/i.test((await rl.question(`${question} [y/N] `)).trim());
      } finally {
        rl.close();
      }
    },
    parentPid: process.ppid,
  };
}

/** One line of text on stdout. */
export function println(io: CommandIo, text: string): void {
  io.out(`${text}\n`);
}

/** A value as indented JSON on stdout (the `--json` output of most commands). */
export function printJson(io: CommandIo, value: unknown): void {
  io.out(`${JSON.stringify(value, null, 2)}\n`);
}
