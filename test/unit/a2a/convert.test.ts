import { describe, expect, it } from 'vitest';
import { Role, TaskState as SdkState, Task as TaskCodec, type Message as SdkMessage } from '@a2a-js/sdk';
import { camelKey, camelKeys, fromSdkPart, fromSdkState, sendOptions, toSdkPart, toSdkState, toSdkTask } from '../../../src/a2a/sdk/convert.js';
import { mergeOrdered } from '../../../src/a2a/sdk/task-store.js';
import type { Part, Task, TaskState } from '../../../src/agent-api/task.js';

function task(over: Partial<Task> = {}): Task {
  return {
    id: 't1',
    context_id: 'c1',
    status: { state: 'completed', timestamp: '2026-01-01T00:00:01.000Z' },
    message: { role: 'user', parts: [{ type: 'text', text: 'hi' }] },
    artifacts: [{ artifact_id: 'a1', name: 'response', parts: [{ type: 'text', text: 'ECHO: hi' }] }],
    metadata: { kind: 'message', response_mode: 'wait', sender: { sender_id: 'synapse-claude-8100' }, a2a_message_id: 'm-1', a2a_metadata: { trace: 'x' } },
    priority: 4,
    receipt: { state: 'answered', queued_at: '2026-01-01T00:00:00.000Z' },
    created_at: '2026-01-01T00:00:00.000Z',
    updated_at: '2026-01-01T00:00:01.000Z',
    ...over,
  };
}

describe('states', () => {
  it('map both ways for the six shared states', () => {
    const ours: TaskState[] = ['submitted', 'working', 'input-required', 'completed', 'failed', 'canceled'];
    for (const s of ours) expect(fromSdkState(toSdkState(s))).toBe(s);
    expect(ours.map(toSdkState)).toEqual([
      SdkState.TASK_STATE_SUBMITTED,
      SdkState.TASK_STATE_WORKING,
      SdkState.TASK_STATE_INPUT_REQUIRED,
      SdkState.TASK_STATE_COMPLETED,
      SdkState.TASK_STATE_FAILED,
      SdkState.TASK_STATE_CANCELED,
    ]);
  });

  it('fold the SDK-only states into the nearest Synapse state', () => {
    expect(fromSdkState(SdkState.TASK_STATE_REJECTED)).toBe('failed');
    expect(fromSdkState(SdkState.TASK_STATE_AUTH_REQUIRED)).toBe('input-required');
    expect(fromSdkState(SdkState.TASK_STATE_UNSPECIFIED)).toBeNull();
  });
});

describe('parts', () => {
  const cases: Part[] = [
    { type: 'text', text: 'hello' },
    { type: 'file', file: { name: 'a.bin', mimeType: 'application/octet-stream', bytes: Buffer.from([0, 1, 2, 255]).toString('base64') } },
    { type: 'file', file: { name: 'b.png', mimeType: 'image/png', uri: 'https://example.com/b.png' } },
    { type: 'data', data: { nested: { n: 1 }, list: [1, 2] } },
  ];
  it.each(cases)('round-trips %j', (part) => {
    expect(fromSdkPart(toSdkPart(part))).toEqual(part);
  });

  it('keeps a non-object data value under `value` and drops empty parts', () => {
    expect(fromSdkPart({ content: { $case: 'data', value: [1, 2] }, mediaType: '', filename: '', metadata: undefined })).toEqual({
      type: 'data',
      data: { value: [1, 2] },
    });
    expect(fromSdkPart({ content: undefined, mediaType: '', filename: '', metadata: undefined })).toBeNull();
  });
});

describe('task view', () => {
  it('carries id, context, state, artifacts, history and Synapse metadata', () => {
    const view = toSdkTask(task());
    expect(view).toMatchObject({ id: 't1', contextId: 'c1', status: { state: SdkState.TASK_STATE_COMPLETED, timestamp: '2026-01-01T00:00:01.000Z' } });
    expect(view.artifacts[0]).toMatchObject({ artifactId: 'a1', name: 'response' });
    expect(view.history).toHaveLength(1);
    expect(view.history[0]).toMatchObject({ messageId: 'm-1', role: Role.ROLE_USER, taskId: 't1', contextId: 'c1' });
    expect(view.metadata).toEqual({
      trace: 'x',
      synapse: {
        kind: 'message',
        responseMode: 'wait',
        sender: { senderId: 'synapse-claude-8100' },
        priority: 4,
        receipt: { state: 'answered', queuedAt: '2026-01-01T00:00:00.000Z' },
        createdAt: '2026-01-01T00:00:00.000Z',
        updatedAt: '2026-01-01T00:00:01.000Z',
      },
    });
  });

  it('shows Synapse data in camelCase at every depth, and the client metadata as the client sent it', () => {
    const view = toSdkTask(
      task({
        metadata: {
          kind: 'message',
          in_reply_to: 't0',
          pty_written_at: '2026-01-01T00:00:00.500Z',
          delivery_evidence: 'echo',
          reply_source: 'reply',
          permission: { prompt: 'Run ls?', choices: [{ key: '1', label: 'Yes' }] },
          notes: { 'src/a_b.ts': 1, nested_list: [{ line_no: 3 }] },
          a2a_message_id: 'm-1',
          a2a_metadata: { client_key: 'kept as sent' },
        },
      }),
    );
    expect(view.metadata).toEqual({
      client_key: 'kept as sent',
      synapse: {
        kind: 'message',
        inReplyTo: 't0',
        ptyWrittenAt: '2026-01-01T00:00:00.500Z',
        deliveryEvidence: 'echo',
        replySource: 'reply',
        permission: { prompt: 'Run ls?', choices: [{ key: '1', label: 'Yes' }] },
        notes: { 'src/a_b.ts': 1, nestedList: [{ lineNo: 3 }] },
        priority: 4,
        receipt: { state: 'answered', queuedAt: '2026-01-01T00:00:00.000Z' },
        createdAt: '2026-01-01T00:00:00.000Z',
        updatedAt: '2026-01-01T00:00:01.000Z',
      },
    });
  });

  it('adds the status message as an agent turn, and encodes to the SDK wire JSON', () => {
    const view = toSdkTask(task({ status: { state: 'input-required', timestamp: '2026-01-01T00:00:02.000Z', message: 'which file?' } }));
    expect(view.history.map((m) => m.role)).toEqual([Role.ROLE_USER, Role.ROLE_AGENT]);
    expect(view.status?.message?.messageId).toBe(view.history[1]!.messageId);
    const json = TaskCodec.toJSON(view) as any;
    expect(json.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    expect(json.history[1].parts[0].text).toBe('which file?');
  });

  it('gives a task from /tasks/send a stable message id', () => {
    const plain = task({ metadata: { kind: 'message' } });
    expect(toSdkTask(plain).history[0]!.messageId).toBe(toSdkTask(plain).history[0]!.messageId);
  });
});

describe('camelCase keys', () => {
  it('turns snake_case identifiers into camelCase and leaves every other key alone', () => {
    expect(
      ['pty_written_at', 'a2a_message_id', 'retry_after_s', 'sender', 'queuedAt', 'src/a_b.ts', 'X_Header', '_private', 'trailing_'].map(camelKey),
    ).toEqual(['ptyWrittenAt', 'a2aMessageId', 'retryAfterS', 'sender', 'queuedAt', 'src/a_b.ts', 'X_Header', '_private', 'trailing_']);
    expect(camelKeys([{ output_lines: ['a_b'] }, 'x_y', null])).toEqual([{ outputLines: ['a_b'] }, 'x_y', null]);
  });
});

describe('send options from A2A metadata', () => {
  it('defaults to priority 3 and response mode wait, keeping the client metadata', () => {
    expect(sendOptions({ trace: 'abc' }, undefined, 'm1')).toEqual({
      priority: 3,
      metadata: { kind: 'message', response_mode: 'wait', a2a_message_id: 'm1', a2a_metadata: { trace: 'abc' } },
    });
  });

  it('reads metadata.synapse; the message wins over the request; junk is ignored', () => {
    const o = sendOptions(
      { synapse: { priority: 5, response_mode: 'silent', sender: { sender_id: 'synapse-codex-8120', sender_name: 7 } } },
      { synapse: { priority: 2 }, other: 1 },
      'm2',
    );
    expect(o.priority).toBe(5);
    expect(o.metadata).toMatchObject({ response_mode: 'silent', sender: { sender_id: 'synapse-codex-8120' }, a2a_metadata: { other: 1 } });
    expect(sendOptions({ synapse: { priority: 9, response_mode: 'loud' } }, undefined, 'm3')).toMatchObject({
      priority: 3,
      metadata: { response_mode: 'wait' },
    });
  });

  it('reads the camelCase spelling an A2A client uses (responseMode, inReplyTo, sender.senderId …), which wins', () => {
    const o = sendOptions(
      {
        synapse: {
          priority: 4,
          responseMode: 'notify',
          response_mode: 'silent',
          inReplyTo: 'task-0',
          sender: { senderId: 'synapse-gemini-8110', senderName: 'gem', senderType: 'gemini', senderEndpoint: 'http://127.0.0.1:8110' },
        },
      },
      undefined,
      'm4',
    );
    expect(o).toEqual({
      priority: 4,
      metadata: {
        kind: 'message',
        response_mode: 'notify',
        in_reply_to: 'task-0',
        a2a_message_id: 'm4',
        sender: { sender_id: 'synapse-gemini-8110', sender_name: 'gem', sender_type: 'gemini', sender_endpoint: 'http://127.0.0.1:8110' },
      },
    });
  });
});

describe('history merge', () => {
  const m = (id: string) => ({ messageId: id }) as SdkMessage;
  it('adds what is new after the message it follows, never dropping or reordering', () => {
    expect(mergeOrdered([m('u'), m('q')], [m('u'), m('q'), m('a')]).map((x) => x.messageId)).toEqual(['u', 'q', 'a']);
    // A save from an older view (without q) keeps q where it was.
    expect(mergeOrdered([m('u'), m('q'), m('a')], [m('u'), m('a'), m('b')]).map((x) => x.messageId)).toEqual(['u', 'q', 'a', 'b']);
    expect(mergeOrdered([], [m('x'), m('y')]).map((x) => x.messageId)).toEqual(['x', 'y']);
  });
});
