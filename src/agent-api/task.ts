/** Synapse's task model: one A2A task per incoming message. */
export type TaskState = 'submitted' | 'working' | 'input-required' | 'completed' | 'failed' | 'canceled';

export const TERMINAL_STATES: ReadonlySet<TaskState> = new Set(['completed', 'failed', 'canceled']);

export type Part =
  | { type: 'text'; text: string }
  | { type: 'file'; file: { name?: string; mimeType?: string; bytes?: string; uri?: string } }
  | { type: 'data'; data: Record<string, unknown> };

export interface Message {
  role: 'user' | 'agent';
  parts: Part[];
}

export interface Artifact {
  artifact_id: string;
  name: string;
  parts: Part[];
  /** E.g. a code block's `{language, derived_from: "response"}` (output-parse.ts). */
  metadata?: Record<string, unknown>;
}

export type ReceiptState = 'queued' | 'delivered' | 'delivery_unconfirmed' | 'answered' | 'failed' | 'canceled';

/** What happened to the message, step by step, with a time for each step. */
export interface Receipt {
  state: ReceiptState;
  queued_at: string;
  delivered_at?: string;
  answered_at?: string;
  failed_at?: string;
  canceled_at?: string;
}

export interface SenderInfo {
  sender_id?: string;
  sender_name?: string;
  sender_type?: string;
  sender_endpoint?: string;
}

export type ResponseMode = 'wait' | 'notify' | 'silent';

export interface TaskMetadata {
  sender?: SenderInfo;
  response_mode?: ResponseMode;
  in_reply_to?: string;
  /**
   * 'bootstrap': the agent's own start-up instruction; 'answer': an answer kept on record;
   * 'outgoing': a task made with `POST /tasks/create` to await an answer, never typed into the CLI.
   */
  kind?: 'message' | 'bootstrap' | 'answer' | 'outgoing';
  [key: string]: unknown;
}

/**
 * Why a task failed, in the original Synapse's shape (`{code, message, data}`): `REPLY_FAILED`
 * (`synapse reply --fail`), `MISSING_REPLY` (a --wait/--notify turn ended with neither a reply
 * nor any output), `CLI_EXITED`, `AGENT_STOPPED`, `DELIVERY_UNCONFIRMED`, `INTERRUPTED`.
 */
export interface TaskError {
  code: string;
  message: string;
  data: Record<string, unknown> | null;
}

export function taskError(code: string, message: string, data: Record<string, unknown> | null = null): TaskError {
  return { code, message, data };
}

export interface Task {
  id: string;
  context_id: string;
  status: { state: TaskState; timestamp: string; message?: string };
  /** Set when the task failed; absent on tasks stored before it existed. */
  error?: TaskError | null;
  message: Message;
  artifacts: Artifact[];
  metadata: TaskMetadata;
  priority: number;
  receipt: Receipt;
  created_at: string;
  updated_at: string;
}

const ALLOWED: Record<TaskState, TaskState[]> = {
  submitted: ['working', 'canceled', 'failed'],
  working: ['completed', 'failed', 'canceled', 'input-required'],
  'input-required': ['working', 'completed', 'failed', 'canceled'],
  completed: [],
  failed: [],
  canceled: [],
};

export function canTransition(from: TaskState, to: TaskState): boolean {
  return ALLOWED[from].includes(to);
}

/** All text parts of a message, joined by blank lines; files and data are summarised. */
export function messageText(message: Message): string {
  return message.parts
    .map((p) => {
      if (p.type === 'text') return p.text;
      if (p.type === 'file') return `[file: ${p.file.name ?? p.file.uri ?? 'attachment'}${p.file.mimeType ? ` (${p.file.mimeType})` : ''}]`;
      return `[data: ${JSON.stringify(p.data)}]`;
    })
    .join('\n\n');
}

export function replyExpected(meta: TaskMetadata): boolean {
  return meta.response_mode === 'wait' || meta.response_mode === 'notify';
}
