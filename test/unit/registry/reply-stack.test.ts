import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ReplyStack, type ReplyEntry } from '../../../src/registry/reply-stack.js';

let dir: string;

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'synapse-reply-'));
});

afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

const reply = (task_id: string, sender_id: string | null = null): ReplyEntry => ({
  sender_id,
  sender_name: null,
  sender_endpoint: null,
  task_id,
  sender_task_id: null,
  received_at: '2025-01-01T00:00:00Z',
});

describe('ReplyStack', () => {
  it('is empty when its file does not exist', () => {
    const stack = new ReplyStack(path.join(dir, 'missing'), 'synapse-echo-8190');
    expect(stack.list()).toEqual([]);
    expect(stack.pop()).toBeNull();
  });

  it('pops newest first, or the one asked for', () => {
    const stack = new ReplyStack(dir, 'synapse-echo-8190');
    stack.push(reply('t1', 'a'));
    stack.push(reply('t2', 'b'));
    stack.push(reply('t3', 'a'));
    expect(stack.pop({ senderId: 'b' })?.task_id).toBe('t2');
    expect(stack.pop()?.task_id).toBe('t3');
    expect(stack.list().map((e) => e.task_id)).toEqual(['t1']);
  });

  it('names a corrupt file instead of reading it as empty, and leaves it in place', () => {
    const stack = new ReplyStack(dir, 'synapse-echo-8190');
    fs.writeFileSync(stack.file, '[{"task_id": ');
    expect(() => stack.list()).toThrowError(`the reply stack ${stack.file} is not JSON`);
    expect(() => stack.push(reply('t1'))).toThrowError(stack.file);
    fs.writeFileSync(stack.file, '{"task_id": "t1"}');
    expect(() => stack.pop()).toThrowError(`the reply stack ${stack.file} is not a JSON list`);
    expect(fs.readFileSync(stack.file, 'utf8')).toBe('{"task_id": "t1"}');
  });
});
