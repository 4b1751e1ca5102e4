// Behaviour of the offline mock model server used by the e2e tests and screen recordings.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { firstLine, readAnthropicTurn, startMockModelServer } from './mock-model-server.mjs';

/** Parse an SSE body into [{event, data}] (data JSON-decoded). */
function parseSse(text: string): Array<{ event: string | null; data: any }> {
  return text
    .split(/\n\n+/)
    .filter((b) => b.trim() !== '')
    .map((block) => {
      const event = /^event: (.*)$/m.exec(block)?.[1] ?? null;
      const data = /^data: (.*)$/m.exec(block)?.[1];
      return { event, data: data ? JSON.parse(data) : null };
    });
}

let server: Awaited<ReturnType<typeof startMockModelServer>>;
beforeAll(async () => {
  server = await startMockModelServer();
});
afterAll(async () => {
  await server.close();
});

async function post(path: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(server.url + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  return { status: res.status, text: await res.text() };
}

describe('Anthropic Messages', () => {
  it('streams MOCK: <last user text> as the standard event sequence, ignoring system reminders', async () => {
    const { text } = await post('/v1/messages', {
      model: 'm',
      stream: true,
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: '<system-reminder>\ncontext\n</system-reminder>' },
            { type: 'text', text: 'hello there' },
          ],
        },
      ],
    });
    const events = parseSse(text);
    const names = [...new Set(events.map((e) => e.event))];
    expect(names).toEqual(['message_start', 'content_block_start', 'content_block_delta', 'content_block_stop', 'message_delta', 'message_stop']);
    const reply = events
      .filter((e) => e.event === 'content_block_delta')
      .map((e) => e.data.delta.text)
      .join('');
    expect(reply).toBe('MOCK: hello there');
  });

  it('calls the Bash tool for [[sh: ...]] and reports the first line of its result afterwards', async () => {
    const tools = [{ name: 'Bash', input_schema: {} }];
    const first = parseSse((await post('/v1/messages', { stream: true, tools, messages: [{ role: 'user', content: 'run [[sh: echo hi]]' }] })).text);
    const start = first.find((e) => e.event === 'content_block_start')!.data.content_block;
    expect(start).toMatchObject({ type: 'tool_use', name: 'Bash' });
    expect(JSON.parse(first.find((e) => e.event === 'content_block_delta')!.data.delta.partial_json)).toMatchObject({ command: 'echo hi' });
    expect(first.find((e) => e.event === 'message_delta')!.data.delta.stop_reason).toBe('tool_use');

    const second = await post('/v1/messages', {
      tools,
      messages: [
        { role: 'user', content: 'run [[sh: echo hi]]' },
        { role: 'assistant', content: [start] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: start.id, content: 'hi\nmore' }] },
      ],
    });
    expect(JSON.parse(second.text).content[0].text).toBe('MOCK: tool said hi');
  });

  it('calls an offered MCP tool for [[mcp: TOOL {json}]] under the name the CLI gives it; not offered, it answers text', async () => {
    const tools = [
      { name: 'Bash', input_schema: {} },
      { name: 'mcp__synapse__send_message', input_schema: {} },
    ];
    const content = 'ask [[mcp: send_message {"target": "bob", "message": "hi"}]]';
    const first = parseSse((await post('/v1/messages', { stream: true, tools, messages: [{ role: 'user', content }] })).text);
    expect(first.find((e) => e.event === 'content_block_start')!.data.content_block).toMatchObject({ type: 'tool_use', name: 'mcp__synapse__send_message' });
    expect(JSON.parse(first.find((e) => e.event === 'content_block_delta')!.data.delta.partial_json)).toEqual({ target: 'bob', message: 'hi' });
    const without = await post('/v1/messages', { tools: [{ name: 'Bash', input_schema: {} }], messages: [{ role: 'user', content }] });
    expect(JSON.parse(without.text).content[0]).toMatchObject({ type: 'text', text: `MOCK: ${content}` });
  });

  it('treats a rejected tool_result sent together with new text as a new turn', () => {
    const turn = readAnthropicTurn({
      messages: [
        { role: 'user', content: 'run [[sh: x]]' },
        {
          role: 'user',
          content: [
            { type: 'tool_result', content: 'The user doesn\u2019t want to proceed', is_error: true },
            { type: 'text', text: 'next question' },
          ],
        },
      ],
    });
    expect(turn).toEqual({ userText: 'next question', toolOutput: null });
  });

  it('answers JSON-schema side calls (session titles) with JSON that fits the schema', async () => {
    const { text } = await post('/v1/messages', {
      messages: [{ role: 'user', content: 'title this [[wait: 30]]' }],
      output_config: { format: { type: 'json_schema', schema: { type: 'object', properties: { title: { type: 'string' } } } } },
    });
    expect(JSON.parse(JSON.parse(text).content[0].text)).toEqual({ title: 'mock title' });
  });

  it('counts tokens', async () => {
    const { text } = await post('/v1/messages/count_tokens', { messages: [{ role: 'user', content: 'abcd' }] });
    expect(JSON.parse(text).input_tokens).toBeGreaterThan(0);
  });
});

describe('OpenAI Responses', () => {
  const execTool = {
    type: 'function',
    name: 'exec_command',
    parameters: { type: 'object', properties: { cmd: { type: 'string' }, sandbox_permissions: { type: 'string' }, justification: { type: 'string' } } },
  };

  it('[[mcp: TOOL]] with the tool deferred: first a tool_search_call, then the call in the namespace the search returned', async () => {
    const user = { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'go [[mcp: send_message {"target": "bob"}]]' }] };
    const tools = [execTool, { type: 'tool_search' }];
    const done = (text: string) => parseSse(text).find((e) => e.event === 'response.output_item.done')!.data.item;
    const search = done((await post('/v1/responses', { stream: true, tools, input: [user] })).text);
    expect(search).toMatchObject({ type: 'tool_search_call', execution: 'client', arguments: { query: 'send message' } });
    const found = {
      type: 'tool_search_output',
      call_id: search.call_id,
      execution: 'client',
      tools: [{ type: 'namespace', name: 'mcp__synapse', tools: [{ type: 'function', name: 'send_message', parameters: {} }] }],
    };
    const call = done((await post('/v1/responses', { stream: true, tools, input: [user, search, found] })).text);
    expect(call).toMatchObject({ type: 'function_call', name: 'send_message', namespace: 'mcp__synapse' });
    expect(JSON.parse(call.arguments)).toEqual({ target: 'bob' });
  });

  it('streams a text answer with the response.* event sequence', async () => {
    const events = parseSse(
      (await post('/v1/responses', { stream: true, input: [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'yo' }] }] })).text,
    );
    expect(events.map((e) => e.event)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.delta',
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.completed',
    ]);
    expect(events.at(-1)!.data.response.output[0].content[0].text).toBe('MOCK: yo');
  });

  it('requests an escalated exec_command for [[escalate: ...]], shaped by the declared schema', async () => {
    const events = parseSse(
      (
        await post('/v1/responses', {
          stream: true,
          tools: [execTool],
          input: [
            { type: 'message', role: 'user', content: [{ type: 'input_text', text: '<environment_context>x</environment_context>' }] },
            { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'go [[escalate: touch f]]' }] },
          ],
        })
      ).text,
    );
    const item = events.find((e) => e.event === 'response.output_item.done')!.data.item;
    expect(item).toMatchObject({ type: 'function_call', name: 'exec_command' });
    expect(JSON.parse(item.arguments)).toMatchObject({ cmd: 'touch f', sandbox_permissions: 'require_escalated' });
  });

  it('answers a function_call_output with the first line of the command output', async () => {
    const events = parseSse(
      (
        await post('/v1/responses', {
          stream: true,
          tools: [execTool],
          input: [
            { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'go [[sh: echo hi]]' }] },
            { type: 'function_call', name: 'exec_command', call_id: 'c1', arguments: '{}' },
            { type: 'function_call_output', call_id: 'c1', output: 'Chunk ID: 1\nProcess exited with code 0\nOutput:\nhi\n' },
          ],
        })
      ).text,
    );
    expect(events.at(-1)!.data.response.output[0].content[0].text).toBe('MOCK: tool said hi');
  });
});

describe('Gemini', () => {
  it('streams text chunks over SSE ending with finishReason STOP', async () => {
    const events = parseSse((await post('/v1beta/models/g:streamGenerateContent?alt=sse', { contents: [{ role: 'user', parts: [{ text: 'hey' }] }] })).text);
    expect(events.map((e) => e.data.candidates[0].content.parts[0].text).join('')).toBe('MOCK: hey');
    expect(events.at(-1)!.data.candidates[0].finishReason).toBe('STOP');
  });

  it('calls run_shell_command for [[sh: ...]]', async () => {
    const { text } = await post('/v1beta/models/g:generateContent', {
      tools: [{ functionDeclarations: [{ name: 'run_shell_command' }] }],
      contents: [{ role: 'user', parts: [{ text: '[[sh: ls]]' }] }],
    });
    expect(JSON.parse(text).candidates[0].content.parts[0].functionCall).toMatchObject({ name: 'run_shell_command', args: { command: 'ls' } });
  });

  it('answers JSON-mode side calls with JSON for the schema, preferring next_speaker "user"', async () => {
    const { text } = await post('/v1beta/models/g:generateContent', {
      contents: [{ role: 'user', parts: [{ text: 'x' }] }],
      generationConfig: {
        responseMimeType: 'application/json',
        responseJsonSchema: { type: 'OBJECT', properties: { next_speaker: { type: 'STRING', enum: ['model', 'user'] }, score: { type: 'INTEGER' } } },
      },
    });
    expect(JSON.parse(JSON.parse(text).candidates[0].content.parts[0].text)).toEqual({ next_speaker: 'user', score: 0 });
  });

  it('counts tokens', async () => {
    const { text } = await post('/v1beta/models/g:countTokens', { contents: [{ role: 'user', parts: [{ text: 'abcd' }] }] });
    expect(JSON.parse(text).totalTokens).toBeGreaterThan(0);
  });
});

describe('scripting and logging', () => {
  it('[[wait: N]] holds the answer about N seconds and marks the request in flight meanwhile', async () => {
    const started = Date.now();
    const pending = post('/v1/messages', { stream: true, messages: [{ role: 'user', content: 'slow [[wait: 0.5]]' }] });
    const entry = await server.waitForRequest((r) => JSON.stringify(r.body).includes('slow [[wait: 0.5]]'), 2000);
    expect(server.inFlight()).toContain(entry);
    await pending;
    expect(Date.now() - started).toBeGreaterThanOrEqual(500);
    expect(entry.endedAt).not.toBeNull();
  });

  it('logs every request with its parsed body and without secrets', async () => {
    await post('/v1/messages', { messages: [{ role: 'user', content: 'secret check' }] }, { 'x-api-key': 'sk-real-secret', authorization: 'Bearer t' });
    const entry = server.requests.find((r) => r.body?.messages?.[0]?.content === 'secret check')!;
    expect(entry.path).toBe('/v1/messages');
    expect(entry.headers['x-api-key']).toBe('[redacted]');
    expect(entry.headers.authorization).toBe('[redacted]');
    expect(JSON.stringify(server.requests)).not.toContain('sk-real-secret');
  });

  it('answers unknown paths with 404 and records them', async () => {
    const { status } = await post('/v1/nothing-here', {});
    expect(status).toBe(404);
    expect(server.unknown.some((r) => r.path === '/v1/nothing-here')).toBe(true);
  });

  it('takes the first line of the CLIs\u2019 tool-result envelopes', () => {
    expect(firstLine('{"output":"a\\nb","metadata":{}}')).toBe('a');
    expect(firstLine('<untrusted_context>\nOutput: hi\nProcess Group PGID: 1\n</untrusted_context>')).toBe('hi');
    expect(firstLine('\n\nplain\n')).toBe('plain');
  });
});
