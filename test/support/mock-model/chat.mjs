// OpenAI Chat Completions API (what OpenCode speaks through its `@ai-sdk/openai-compatible`
// provider): POST /v1/chat/completions, streamed as SSE `chat.completion.chunk`s ending in
// `data: [DONE]`, or one JSON `chat.completion` when `stream` is false.

import { openSse, sendJson, streamText } from './http.mjs';
import { MOCK_USAGE, id, planTurn, stripInjected } from './script.mjs';
import { shellArguments } from './openai.mjs';

/** Function tools that run a shell command, by name, in order of preference (OpenCode: `bash`). */
const SHELL_TOOL_NAMES = ['bash', 'shell', 'shell_command', 'exec_command'];
/** OpenCode names its session by asking the same model, with this system prompt and no tools. */
const TITLE_PROMPT = /^You are a title generator\b/;

function textOf(content) {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .filter((p) => p?.type === 'text' && typeof p.text === 'string')
    .map((p) => p.text)
    .join('\n');
}

/**
 * The human's last text and, when the newest messages after it are tool results, the last
 * of those results. Injected wrappers (`<system-reminder>…`) are not the human's text.
 */
export function readChatTurn(body) {
  const messages = Array.isArray(body?.messages) ? body.messages : [];
  let userIndex = -1;
  let userText = '';
  for (let i = messages.length - 1; i >= 0; i--) {
    if (messages[i]?.role !== 'user') continue;
    const text = stripInjected(textOf(messages[i].content));
    if (text !== '') {
      userIndex = i;
      userText = text;
      break;
    }
  }
  let toolOutput = null;
  for (let i = messages.length - 1; i > userIndex; i--) {
    if (messages[i]?.role === 'tool') {
      toolOutput = textOf(messages[i].content);
      break;
    }
  }
  return { userText, toolOutput };
}

/** The shell tool the CLI declared ({name, parameters}), or null. */
function findShellTool(body) {
  const tools = (Array.isArray(body?.tools) ? body.tools : []).filter((t) => t?.type === 'function' && t.function);
  for (const name of SHELL_TOOL_NAMES) {
    const tool = tools.find((t) => t.function.name === name);
    if (tool) return { name, parameters: tool.function.parameters };
  }
  return null;
}

function isTitleCall(body) {
  const messages = Array.isArray(body?.messages) ? body.messages : [];
  return messages.some((m) => m?.role === 'system' && TITLE_PROMPT.test(textOf(m.content)));
}

/** Chat Completions usage: `prompt_tokens` counts the cached part too. */
function usage() {
  const input = MOCK_USAGE.input + MOCK_USAGE.cacheRead;
  return {
    prompt_tokens: input,
    prompt_tokens_details: { cached_tokens: MOCK_USAGE.cacheRead },
    completion_tokens: MOCK_USAGE.output,
    total_tokens: input + MOCK_USAGE.output,
  };
}

export async function handleChatCompletions(ctx) {
  const { method, pathname, body, res, signal } = ctx;
  if (method !== 'POST' || pathname !== '/v1/chat/completions') return false;

  const tool = findShellTool(body);
  const title = isTitleCall(body);
  const plan = title ? { kind: 'text', text: 'mock title', waitMs: 0, slow: false } : planTurn({ ...readChatTurn(body), toolAvailable: tool !== null });
  // A title is a side call, not a model turn of the conversation.
  ctx.note(title ? 'other' : plan.kind);
  const base = { id: id('chatcmpl'), created: Math.floor(Date.now() / 1000), model: body?.model ?? 'mock-model' };
  const call =
    plan.kind === 'tool'
      ? { id: id('call'), type: 'function', function: { name: tool.name, arguments: shellArguments(tool, plan.command, plan.escalate) } }
      : null;

  const finish = call ? 'tool_calls' : 'stop';

  if (body?.stream !== true) {
    if (!call && plan.waitMs > 0) await streamText({ ...plan, slow: false, text: '' }, signal, () => {});
    const message = call ? { role: 'assistant', content: null, tool_calls: [call] } : { role: 'assistant', content: plan.text };
    sendJson(res, 200, { ...base, object: 'chat.completion', choices: [{ index: 0, message, finish_reason: finish }], usage: usage() });
    return true;
  }

  const sse = openSse(res);
  const chunk = (delta, finishReason = null) =>
    sse.event(null, { ...base, object: 'chat.completion.chunk', choices: [{ index: 0, delta, finish_reason: finishReason }] });
  chunk({ role: 'assistant', content: '' });
  if (call) {
    chunk({ tool_calls: [{ index: 0, ...call }] });
  } else {
    const done = await streamText(plan, signal, (delta) => chunk({ content: delta }));
    if (!done) return true;
  }
  chunk({}, finish);
  if (body?.stream_options?.include_usage) sse.event(null, { ...base, object: 'chat.completion.chunk', choices: [], usage: usage() });
  if (!res.writableEnded && !res.destroyed) res.write('data: [DONE]\n\n');
  sse.end();
  return true;
}
