// Types for original-synapse.mjs.

export interface OriginalRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  headers: Record<string, string | string[] | undefined>;
  /** Parsed JSON body, or null when empty or not JSON (see `raw`). */
  body: any;
  raw: string;
}

export interface OriginalOptions {
  /** Environment of the stand-in: its registry is SYNAPSE_REGISTRY_DIR, else $HOME/.a2a/registry. */
  env?: NodeJS.ProcessEnv;
  agentType: string;
  port: number;
  /** The agent's working directory (the process runs there too); default the test's cwd. */
  workingDir?: string;
  name?: string;
  role?: string;
  skillSet?: string;
  /** Registry status when it registers (default READY). */
  status?: string;
  /** SYNAPSE_UDS_DIR of the original (default /tmp/synapse-a2a); only written into the entry. */
  udsDir?: string;
  submitSequence?: string;
  /** How long it takes to exit on SIGTERM (default 0; the real one took 33 s with its dummy CLI). */
  sigtermDelayMs?: number;
}

export interface OriginalSynapse {
  agentId: string;
  port: number;
  pid: number;
  /** Its registry file. */
  file: string;
  /** 'http://localhost:PORT', as the original writes it. */
  endpoint: string;
  child: import('node:child_process').ChildProcess;
  requests: OriginalRequest[];
  waitForRequest(pred: (r: OriginalRequest) => boolean, timeoutMs?: number): Promise<OriginalRequest>;
  /** Completes a task with an answer: artifact {type:'text', data: answer}, or data {content} with form 'content'. False when no such task. */
  complete(taskId: string, answer: string, form?: 'text' | 'content'): Promise<boolean>;
  /** Its registry status, as AgentRegistry.update_status writes it. */
  setStatus(status: string): Promise<boolean>;
  /** SIGTERM: it removes its registry file and exits (after `sigtermDelayMs`). */
  stop(): Promise<void>;
  /** SIGKILL: its registry file stays behind. */
  kill(): Promise<void>;
}

export function startOriginalSynapse(options: OriginalOptions): Promise<OriginalSynapse>;

/** The registry entry as AgentRegistry.register writes it. */
export function originalEntry(options: {
  agentType: string;
  port: number;
  pid: number;
  workingDir: string;
  name?: string;
  role?: string;
  skillSet?: string;
  status?: string;
  udsDir?: string;
  now?: number;
}): Record<string, unknown>;

/** Python's json.dumps(…) with its default separators and ensure_ascii (the SSE data lines). */
export function pythonDumps(value: unknown): string;

/** Python's json.dump(…, indent=2) with ensure_ascii. */
export function pythonJson(value: unknown): string;

/** The original's registry directory for an environment. */
export function registryDirOf(env: NodeJS.ProcessEnv): string;
