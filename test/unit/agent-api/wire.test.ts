import { describe, expect, it } from 'vitest';
import type { Task, TaskState } from '../../../src/agent-api/task.js';
import { doneEvent, internalState, outputEvent, statusEvent, toWireTask, webhookPayload, wireReplyTarget } from '../../../src/agent-api/wire.js';
import { parseDoneEvent, parsePeerTask, peerTaskText } from '../../../src/a2a/wire-client.js';

const AT = '2026-01-02T03:04:05.000Z';

function task(state: TaskState, extra: Partial<Task> = {}): Task {
  return {
    id: 't-1',
    context_id: 'ctx-1',
    status: { state, timestamp: AT },
    message: { role: 'user', parts: [{ type: 'text', text: 'build it' }] },
    artifacts: [],
    metadata: { kind: 'message', response_mode: 'wait' },
    priority: 3,
    receipt: { state: 'queued', queued_at: AT },
    created_at: AT,
    updated_at: AT,
    ...extra,
  };
}

describe('toWireTask: the original Synapse Task', () => {
  it('has the original fields in order, the state as a string, then ours', () => {
    expect(toWireTask(task('completed', { artifacts: [{ artifact_id: 'a1', name: 'response', parts: [{ type: 'text', text: 'done' }] }] }))).toEqual({
      id: 't-1',
      status: 'completed',
      message: { role: 'user', parts: [{ type: 'text', text: 'build it' }] },
      artifacts: [{ type: 'text', data: 'done' }],
      error: null,
      created_at: AT,
      updated_at: AT,
      context_id: 'ctx-1',
      metadata: { kind: 'message', response_mode: 'wait' },
      priority: 3,
      receipt: { state: 'queued', queued_at: AT },
      status_message: null,
      status_timestamp: AT,
    });
  });

  it('spells input-required the original way, and reads both spellings back', () => {
    expect(toWireTask(task('input-required')).status).toBe('input_required');
    expect(internalState('input_required')).toBe('input-required');
    expect(internalState('input-required')).toBe('input-required');
    for (const s of ['submitted', 'working', 'completed', 'failed', 'canceled'] as const) {
      expect(toWireTask(task(s)).status).toBe(s);
      expect(internalState(s)).toBe(s);
    }
  });

  it('makes one {type, data} artifact per part: text as a string, a file and data as objects', () => {
    const file = { name: 'a.png', mimeType: 'image/png', bytes: 'AAAA' };
    const wire = toWireTask(
      task('completed', {
        artifacts: [
          {
            artifact_id: 'a1',
            name: 'response',
            parts: [
              { type: 'text', text: 'one' },
              { type: 'file', file },
              { type: 'data', data: { k: 1 } },
            ],
          },
        ],
      }),
    );
    expect(wire.artifacts).toEqual([
      { type: 'text', data: 'one' },
      { type: 'file', data: file },
      { type: 'data', data: { k: 1 } },
    ]);
  });

  it('gives a failed task its error; one stored before errors had codes gets TASK_FAILED; others none', () => {
    const error = { code: 'MISSING_REPLY', message: 'no reply', data: null };
    expect(toWireTask(task('failed', { error, status: { state: 'failed', timestamp: AT, message: 'no reply' } }))).toMatchObject({
      error,
      status_message: 'no reply',
    });
    expect(toWireTask(task('failed', { status: { state: 'failed', timestamp: AT, message: 'the CLI exited' } })).error).toEqual({
      code: 'TASK_FAILED',
      message: 'the CLI exited',
      data: null,
    });
    expect(toWireTask(task('canceled', { status: { state: 'canceled', timestamp: AT, message: 'canceled' } }))).toMatchObject({
      error: null,
      status_message: 'canceled',
    });
  });
});

describe('SSE events and webhook payloads', () => {
  it('status, output and done events carry the original type and fields', () => {
    expect(statusEvent(task('input-required'))).toMatchObject({ type: 'status', status: 'input_required', task_id: 't-1' });
    expect(outputEvent('t-1', ['a', 'b'])).toEqual({ type: 'output', data: 'a\nb\n', task_id: 't-1', lines: ['a', 'b'] });
    const error = { code: 'REPLY_FAILED', message: 'nope', data: null };
    const done = doneEvent(task('failed', { error }));
    expect(done).toMatchObject({ type: 'done', status: 'failed', artifacts: [], error, task: { id: 't-1', status: 'failed' } });
    expect(doneEvent(task('completed'))).not.toHaveProperty('error');
  });

  it('a webhook body is {event, event_id, timestamp, data: {task_id, …}}', () => {
    const body = webhookPayload('task.completed', 'ev-1', AT, task('completed'), 'synapse-echo-8199');
    expect(Object.keys(body)).toEqual(['event', 'event_id', 'timestamp', 'data', 'agent_id']);
    expect(body).toMatchObject({ event: 'task.completed', event_id: 'ev-1', timestamp: AT, data: { task_id: 't-1', status: 'completed' } });
  });

  it("a reply-stack target is the original's ReplyTarget with a preview of 80 characters", () => {
    const entry = { sender_id: 's', sender_name: 'alice', sender_endpoint: 'http://x', task_id: 't-1', sender_task_id: null, received_at: AT };
    expect(wireReplyTarget(entry, 'x'.repeat(100))).toEqual({
      sender_endpoint: 'http://x',
      sender_uds_path: null,
      sender_task_id: null,
      receiver_task_id: 't-1',
      message_preview: 'x'.repeat(80),
      received_at: AT,
      sender_id: 's',
      sender_name: 'alice',
    });
  });
});

describe('the client side reads tasks of either implementation', () => {
  it('reads an original Python task: status string, artifacts with data or data.content, no extras', () => {
    const original = {
      id: 'p-1',
      status: 'completed',
      message: null,
      artifacts: [
        { type: 'text', data: { content: 'explicit reply' } },
        { type: 'code', data: { content: 'x = 1', metadata: { language: 'python' } } },
        { type: 'text', data: 'raw output' },
      ],
      error: null,
      created_at: AT,
      updated_at: AT,
      context_id: null,
      metadata: {},
    };
    const peer = parsePeerTask(original)!;
    expect(peer).toMatchObject({ id: 'p-1', status: 'completed', error: null, receipt: null, status_message: null });
    expect(peerTaskText(peer)).toBe('explicit reply\nx = 1\nraw output');
    expect(parsePeerTask(toWireTask(task('working')))).toMatchObject({ id: 't-1', status: 'working', receipt: { state: 'queued' } });
  });

  it('refuses what is not a task, and reads a failed task with a partial error', () => {
    expect(parsePeerTask(null)).toBeNull();
    expect(parsePeerTask({ task: { id: 'x', status: 'completed' } })).toBeNull();
    expect(parsePeerTask({ id: 'x', status: { state: 'completed' } })).toBeNull();
    expect(parsePeerTask({ id: 'x', status: 'failed', error: { code: 'MISSING_REPLY' } })!.error).toEqual({ code: 'MISSING_REPLY', message: 'Task failed' });
  });

  it("finds the end in the original's SSE done event (no task in it) and in ours", () => {
    const original = { type: 'done', status: 'failed', artifacts: [], error: { code: 'REPLY_FAILED', message: 'no' } };
    expect(parseDoneEvent(original, 'p-1')).toMatchObject({ id: 'p-1', status: 'failed', error: { code: 'REPLY_FAILED', message: 'no' } });
    expect(parseDoneEvent(doneEvent(task('completed')), 'ignored')).toMatchObject({ id: 't-1', status: 'completed', receipt: { state: 'queued' } });
    expect(parseDoneEvent({ type: 'status', status: 'working' }, 'p-1')).toBeNull();
    expect(parseDoneEvent('not json', 'p-1')).toBeNull();
  });
});
