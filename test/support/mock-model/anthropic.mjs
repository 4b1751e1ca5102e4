// Anthropic Messages API: POST /v1/messages (SSE or JSON) and /v1/messages/count_tokens.

import { openSse, sendJson, streamText } from './http.mjs';
import { MOCK_USAGE, exampleFor, id, mcpToolNamer, planTurn, roughTokens, stripInjected } from './script.mjs';

/** The names of shell tools we drive, in order of preference. */
const SHELL_TOOLS = ['Bash', 'bash'];

function blocksOf(message) {
  if (!message) return [];
  if (typeof message.content === 'string') return [{ type: 'text', text: message.content }];
  return Array.isArray(message.content) ? message.content : [];
}

function toolResultText(block) {
  const c = block.content;
  if (typeof c === 'string') return c;
  if (Array.isArray(c))
    return c
      .filter((b) => b?.type === 'text')
      .map((b) => b.text)
      .join('\n');
  return '';
}

/**
 * What the user said and whether this request carries a tool result.
 * The user's text is the last text block of the last user message that has real text
 * (not a tool_result, not a <system-reminder> wrapper). When the newest user message has real
 * text it is a new turn, even if it also carries a tool_result (Claude Code sends the rejection
 * of a denied tool together with the next prompt).
 */
export function readAnthropicTurn(body) {
  const messages = Array.isArray(body?.messages) ? body.messages : [];
  const users = messages.filter((m) => m?.role === 'user');
  const realTexts = (m) =>
    blocksOf(m)
      .filter((b) => b?.type === 'text')
      .map((b) => stripInjected(b.text))
      .filter((t) => t !== '');
  let userText = '';
  for (let i = users.length - 1; i >= 0 && userText === ''; i--) userText = realTexts(users[i]).at(-1) ?? '';
  const last = users.at(-1);
  const results = blocksOf(last).filter((b) => b?.type === 'tool_result');
  const toolOutput = results.length > 0 && realTexts(last).length === 0 ? toolResultText(results.at(-1)) : null;
  return { userText, toolOutput };
}

function shellToolName(body) {
  const names = new Set((Array.isArray(body?.tools) ? body.tools : []).map((t) => t?.name));
  return SHELL_TOOLS.find((n) => names.has(n)) ?? null;
}

/** Anthropic's usage fields: `input_tokens` is the uncached part of the prompt. */
function usage(output = MOCK_USAGE.output) {
  return {
    input_tokens: MOCK_USAGE.input,
    output_tokens: output,
    cache_creation_input_tokens: MOCK_USAGE.cacheWrite,
    cache_read_input_tokens: MOCK_USAGE.cacheRead,
  };
}

export async function handleAnthropic(ctx) {
  const { method, pathname, body, res, signal } = ctx;
  if (method !== 'POST') return false;
  if (pathname === '/v1/messages/count_tokens') {
    ctx.note('other');
    sendJson(res, 200, { input_tokens: roughTokens(body?.messages) + roughTokens(body?.system) });
    return true;
  }
  if (pathname !== '/v1/messages') return false;

  const tool = shellToolName(body);
  const format = body?.output_config?.format;
  // Side calls that demand JSON (Claude Code's session title) get JSON that fits the schema.
  const plan =
    format?.type === 'json_schema'
      ? { kind: 'text', text: JSON.stringify(exampleFor(format.schema)), waitMs: 0, slow: false }
      : planTurn({
          ...readAnthropicTurn(body),
          toolAvailable: tool !== null,
          mcpToolName: mcpToolNamer((Array.isArray(body?.tools) ? body.tools : []).map((t) => t?.name)),
        });
  const model = body?.model ?? 'mock-model';
  const messageId = id('msg');
  ctx.note(format?.type === 'json_schema' ? 'json' : plan.kind);

  const block =
    plan.kind === 'tool'
      ? plan.mcp
        ? { type: 'tool_use', id: id('toolu'), name: plan.mcp.name, input: plan.mcp.input }
        : { type: 'tool_use', id: id('toolu'), name: tool, input: { command: plan.command, description: `Run ${plan.command}` } }
      : { type: 'text', text: plan.text };
  const stopReason = plan.kind === 'tool' ? 'tool_use' : 'end_turn';

  if (!body?.stream) {
    if (plan.kind === 'text' && plan.waitMs > 0) await streamText({ ...plan, slow: false, text: '' }, signal, () => {});
    sendJson(res, 200, {
      id: messageId,
      type: 'message',
      role: 'assistant',
      model,
      content: [block],
      stop_reason: stopReason,
      stop_sequence: null,
      usage: usage(),
    });
    return true;
  }

  const sse = openSse(res);
  sse.event('message_start', {
    type: 'message_start',
    message: {
      id: messageId,
      type: 'message',
      role: 'assistant',
      model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: usage(1),
    },
  });
  if (plan.kind === 'tool') {
    sse.event('content_block_start', {
      type: 'content_block_start',
      index: 0,
      content_block: { type: 'tool_use', id: block.id, name: block.name, input: {} },
    });
    sse.event('content_block_delta', {
      type: 'content_block_delta',
      index: 0,
      delta: { type: 'input_json_delta', partial_json: JSON.stringify(block.input) },
    });
  } else {
    sse.event('content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } });
    const done = await streamText(
      plan,
      signal,
      (text) => sse.event('content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } }),
      () => sse.event('ping', { type: 'ping' }),
    );
    if (!done) return true;
  }
  sse.event('content_block_stop', { type: 'content_block_stop', index: 0 });
  sse.event('message_delta', {
    type: 'message_delta',
    delta: { stop_reason: stopReason, stop_sequence: null },
    usage: { output_tokens: MOCK_USAGE.output },
  });
  sse.event('message_stop', { type: 'message_stop' });
  sse.end();
  return true;
}
