import { Role, TaskState as SdkState } from '@a2a-js/sdk';
import type { Artifact as SdkArtifact, Message as SdkMessage, Part as SdkPart, Task as SdkTask, TaskStatus as SdkStatus } from '@a2a-js/sdk';
import type { Artifact, Message, Part, ResponseMode, SenderInfo, Task, TaskMetadata, TaskState } from '../../agent-api/task.js';

/**
 * One task model, two views: Synapse's `Task` (snake_case, string states, `type`d parts) and
 * the SDK's protobuf-shaped `Task`. Everything here is pure so both directions can be tested
 * without a running agent.
 */

const TO_SDK: Record<TaskState, SdkState> = {
  submitted: SdkState.TASK_STATE_SUBMITTED,
  working: SdkState.TASK_STATE_WORKING,
  'input-required': SdkState.TASK_STATE_INPUT_REQUIRED,
  completed: SdkState.TASK_STATE_COMPLETED,
  failed: SdkState.TASK_STATE_FAILED,
  canceled: SdkState.TASK_STATE_CANCELED,
};

export function toSdkState(state: TaskState): SdkState {
  return TO_SDK[state];
}

/**
 * The six shared states map one to one. The SDK's extra states have no Synapse twin, so they
 * fold into the nearest one (rejected is a failure, auth-required waits for input); null means
 * "no state" (unspecified), which list filters read as "any".
 */
export function fromSdkState(state: SdkState): TaskState | null {
  switch (state) {
    case SdkState.TASK_STATE_SUBMITTED:
      return 'submitted';
    case SdkState.TASK_STATE_WORKING:
      return 'working';
    case SdkState.TASK_STATE_INPUT_REQUIRED:
    case SdkState.TASK_STATE_AUTH_REQUIRED:
      return 'input-required';
    case SdkState.TASK_STATE_COMPLETED:
      return 'completed';
    case SdkState.TASK_STATE_FAILED:
    case SdkState.TASK_STATE_REJECTED:
      return 'failed';
    case SdkState.TASK_STATE_CANCELED:
      return 'canceled';
    default:
      return null;
  }
}

/** States after which an SDK request stops waiting: terminal, or the agent needs an answer. */
export function endsWait(state: TaskState): boolean {
  return state === 'completed' || state === 'failed' || state === 'canceled' || state === 'input-required';
}

export function toSdkPart(part: Part): SdkPart {
  const base = { metadata: undefined, filename: '', mediaType: '' };
  switch (part.type) {
    case 'text':
      return { ...base, mediaType: 'text/plain', content: { $case: 'text', value: part.text } };
    case 'data':
      return { ...base, mediaType: 'application/json', content: { $case: 'data', value: part.data } };
    case 'file': {
      const named = { ...base, filename: part.file.name ?? '', mediaType: part.file.mimeType ?? '' };
      if (part.file.bytes !== undefined) return { ...named, content: { $case: 'raw', value: Buffer.from(part.file.bytes, 'base64') } };
      return { ...named, content: { $case: 'url', value: part.file.uri ?? '' } };
    }
  }
}

/** An SDK part as a Synapse part; null for a part without content (nothing to deliver). */
export function fromSdkPart(part: SdkPart): Part | null {
  const c = part.content;
  if (!c) return null;
  const file = { ...(part.filename ? { name: part.filename } : {}), ...(part.mediaType ? { mimeType: part.mediaType } : {}) };
  switch (c.$case) {
    case 'text':
      return { type: 'text', text: c.value };
    case 'raw':
      return { type: 'file', file: { ...file, bytes: Buffer.from(c.value).toString('base64') } };
    case 'url':
      return { type: 'file', file: { ...file, uri: c.value } };
    case 'data': {
      const v: unknown = c.value;
      // Synapse data parts are objects; other JSON values are kept under `value`.
      const data = v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : { value: v };
      return { type: 'data', data };
    }
  }
}

export function fromSdkParts(parts: readonly SdkPart[]): Part[] {
  return parts.map(fromSdkPart).filter((p): p is Part => p !== null);
}

export function toSdkArtifact(a: Artifact): SdkArtifact {
  return { artifactId: a.artifact_id, name: a.name, description: '', parts: a.parts.map(toSdkPart), metadata: a.metadata, extensions: [] };
}

function sdkMessage(input: { messageId: string; role: Role; parts: SdkPart[]; taskId: string; contextId: string }): SdkMessage {
  return { ...input, metadata: undefined, extensions: [], referenceTaskIds: [] };
}

/**
 * Message ids are deterministic, so the SDK's history merge (which dedupes by messageId) sees
 * the same message every time it loads the task instead of stacking copies.
 */
function userMessageId(task: Task): string {
  return typeof task.metadata.a2a_message_id === 'string' ? task.metadata.a2a_message_id : `${task.id}:message`;
}

function statusMessageId(task: Task): string {
  return `${task.id}:status:${task.status.timestamp}`;
}

function toSdkUserMessage(task: Task): SdkMessage {
  return sdkMessage({
    messageId: userMessageId(task),
    role: task.message.role === 'agent' ? Role.ROLE_AGENT : Role.ROLE_USER,
    parts: task.message.parts.map(toSdkPart),
    taskId: task.id,
    contextId: task.context_id,
  });
}

export function toSdkStatus(task: Task): SdkStatus {
  const text = task.status.message;
  return {
    state: toSdkState(task.status.state),
    timestamp: task.status.timestamp,
    message: text
      ? sdkMessage({
          messageId: statusMessageId(task),
          role: Role.ROLE_AGENT,
          parts: [toSdkPart({ type: 'text', text })],
          taskId: task.id,
          contextId: task.context_id,
        })
      : undefined,
  };
}

/** Bookkeeping keys of ours that are not Synapse data worth showing. */
const PRIVATE_KEYS = new Set(['a2a_message_id', 'a2a_metadata']);

/** The one metadata key under which Synapse's own data travels on the A2A surfaces. */
const SYNAPSE_METADATA_KEY = 'synapse';

const SNAKE_KEY = /^[a-z][a-z0-9]*(?:_[a-z0-9]+)+$/;

/** `pty_written_at` → `ptyWrittenAt`; a key that is not a snake_case identifier (a path, a URL, camelCase already) is kept. */
export function camelKey(key: string): string {
  return SNAKE_KEY.test(key) ? key.replace(/_([a-z0-9])/g, (_m, c: string) => c.toUpperCase()) : key;
}

/** A JSON value with every snake_case key, at any depth, in camelCase. */
export function camelKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(camelKeys);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [camelKey(k), camelKeys(v)]));
}

/**
 * Synapse's data as an A2A object's metadata: under one key (`synapse`), in camelCase like
 * everything else on the A2A surfaces (A2A §5.5). Synapse's routes keep their snake_case.
 */
export function synapseMetadata(data: Record<string, unknown>): Record<string, unknown> {
  return { [SYNAPSE_METADATA_KEY]: camelKeys(data) };
}

/**
 * SDK task metadata: the client's own metadata at the top level (as it sent it), Synapse's
 * data (sender, priority, response mode, receipt …) under `synapse`.
 */
function toSdkMetadata(task: Task): Record<string, unknown> {
  const synapse: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(task.metadata)) if (!PRIVATE_KEYS.has(k) && v !== undefined) synapse[k] = v;
  synapse.priority = task.priority;
  synapse.receipt = task.receipt;
  synapse.created_at = task.created_at;
  synapse.updated_at = task.updated_at;
  const client = task.metadata.a2a_metadata;
  return { ...(client && typeof client === 'object' ? (client as Record<string, unknown>) : {}), ...synapseMetadata(synapse) };
}

/**
 * Our task as the SDK sees it. `extraHistory` holds messages only the SDK knows (follow-up
 * turns, earlier status messages) and is merged after the first message, without duplicates.
 */
export function toSdkTask(task: Task, extraHistory: readonly SdkMessage[] = []): SdkTask {
  const status = toSdkStatus(task);
  const history: SdkMessage[] = [toSdkUserMessage(task)];
  const seen = new Set(history.map((m) => m.messageId));
  for (const m of extraHistory) {
    if (seen.has(m.messageId)) continue;
    seen.add(m.messageId);
    history.push(m);
  }
  if (status.message && !seen.has(status.message.messageId)) history.push(status.message);
  return { id: task.id, contextId: task.context_id, status, artifacts: task.artifacts.map(toSdkArtifact), history, metadata: toSdkMetadata(task) };
}

/**
 * The part of an SDK message's metadata Synapse acts on: `metadata.synapse.{priority,
 * responseMode, sender, inReplyTo}` (snake_case spellings are read too).
 */
export interface SynapseSendOptions {
  priority: number;
  metadata: TaskMetadata;
}

const RESPONSE_MODES: readonly ResponseMode[] = ['wait', 'notify', 'silent'];
const SENDER_KEYS = ['sender_id', 'sender_name', 'sender_type', 'sender_endpoint'] as const;

function record(v: unknown): Record<string, unknown> | null {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
}

/** A field of an A2A client's Synapse options, as A2A spells it (camelCase) or as Synapse does. */
function field(o: Record<string, unknown>, snake: string): unknown {
  return o[camelKey(snake)] ?? o[snake];
}

/**
 * Reads Synapse options from an A2A request: the message's metadata wins over the request's.
 * An A2A caller asks for an answer, so the response mode defaults to `wait` (the reply becomes
 * the task artifact); the rest of the client's metadata is kept and shown back unchanged.
 */
export function sendOptions(messageMeta: unknown, requestMeta: unknown, messageId: string): SynapseSendOptions {
  const merged = { ...(record(requestMeta) ?? {}), ...(record(messageMeta) ?? {}) };
  const syn = record(merged[SYNAPSE_METADATA_KEY]) ?? {};
  delete merged[SYNAPSE_METADATA_KEY];
  const rawPriority = syn.priority;
  const priority = typeof rawPriority === 'number' && Number.isInteger(rawPriority) && rawPriority >= 1 && rawPriority <= 5 ? rawPriority : 3;
  const rawMode = field(syn, 'response_mode');
  const mode = RESPONSE_MODES.includes(rawMode as ResponseMode) ? (rawMode as ResponseMode) : 'wait';
  const metadata: TaskMetadata = { kind: 'message', response_mode: mode, a2a_message_id: messageId };
  const s = record(syn.sender);
  if (s) {
    const sender: SenderInfo = {};
    for (const k of SENDER_KEYS) {
      const v = field(s, k);
      if (typeof v === 'string' && v) sender[k] = v;
    }
    if (Object.keys(sender).length > 0) metadata.sender = sender;
  }
  const inReplyTo = field(syn, 'in_reply_to');
  if (typeof inReplyTo === 'string' && inReplyTo) metadata.in_reply_to = inReplyTo;
  if (Object.keys(merged).length > 0) metadata.a2a_metadata = merged;
  return { priority, metadata };
}

export function fromSdkMessage(m: SdkMessage): Message {
  return { role: m.role === Role.ROLE_AGENT ? 'agent' : 'user', parts: fromSdkParts(m.parts) };
}

/** Text of an SDK message, for answering an input-required task. */
export function sdkMessageText(m: SdkMessage): string {
  return fromSdkParts(m.parts)
    .map((p) => (p.type === 'text' ? p.text : p.type === 'data' ? JSON.stringify(p.data) : `[file: ${p.file.name ?? p.file.uri ?? 'attachment'}]`))
    .join('\n\n');
}
