// OpenAI Responses API (what Codex CLI speaks): POST /v1/responses, streamed as SSE.

import { openSse, sendJson, streamText } from './http.mjs';
import { MOCK_USAGE, exampleFor, id, mcpToolNamer, parseDirectives, planTurn } from './script.mjs';

/** Function tools that run a shell command, by name, in order of preference. */
const SHELL_TOOL_NAMES = ['shell_command', 'shell', 'exec_command', 'local_shell'];
const OUTPUT_TYPES = new Set(['function_call_output', 'custom_tool_call_output', 'local_shell_call_output']);
/** Context Codex injects as user messages; not what the human typed. */
const INJECTED = /^\s*(<environment_context>|<user_instructions>|<permissions instructions>|<INSTRUCTIONS>|# AGENTS\.md instructions)/;

function textOf(item) {
  if (typeof item?.content === 'string') return item.content;
  if (!Array.isArray(item?.content)) return '';
  return item.content
    .filter((p) => p?.type === 'input_text' || p?.type === 'text')
    .map((p) => p.text)
    .join('\n');
}

/** The human's last text and, when the newest input after it is a tool output, that output. */
export function readResponsesTurn(body) {
  const input = Array.isArray(body?.input) ? body.input : typeof body?.input === 'string' ? [{ type: 'message', role: 'user', content: body.input }] : [];
  let userIndex = -1;
  let userText = '';
  for (let i = input.length - 1; i >= 0; i--) {
    const item = input[i];
    if ((item?.type === 'message' || item?.type === undefined) && item?.role === 'user') {
      const text = textOf(item).trim();
      if (text !== '' && !INJECTED.test(text)) {
        userIndex = i;
        userText = text;
        break;
      }
    }
  }
  let toolOutput = null;
  for (let i = input.length - 1; i > userIndex; i--) {
    const item = input[i];
    if (OUTPUT_TYPES.has(item?.type)) {
      const out = item.output;
      toolOutput = typeof out === 'string' ? out : Array.isArray(out) ? out.map((p) => p?.text ?? '').join('\n') : JSON.stringify(out ?? '');
      break;
    }
  }
  return { userText, toolOutput };
}

/** The shell tool Codex declared, or null. */
function findShellTool(body) {
  const tools = Array.isArray(body?.tools) ? body.tools : [];
  for (const name of SHELL_TOOL_NAMES) {
    const tool = tools.find((t) => t?.type === 'function' && t?.name === name);
    if (tool) return tool;
  }
  return null;
}

/** Arguments for `tool` that run `command`, shaped by the tool's own JSON schema. */
export function shellArguments(tool, command, escalate) {
  const props = tool?.parameters?.properties ?? {};
  const args = {};
  if (props.command?.type === 'array') args.command = ['bash', '-lc', command];
  else if ('command' in props) args.command = command;
  else if ('cmd' in props) args.cmd = command;
  else args.command = command;
  if (escalate) {
    if ('sandbox_permissions' in props) args.sandbox_permissions = 'require_escalated';
    if ('with_escalated_permissions' in props) args.with_escalated_permissions = true;
    if ('justification' in props) args.justification = 'Mock model asks to run this outside the sandbox.';
  }
  return JSON.stringify(args);
}

/**
 * The MCP tools a request offers, as `mcp__<server>__<tool>` → how to call it: Codex offers them
 * as plain function tools, or (deferred) inside a `namespace` that its `tool_search` returned.
 */
function offeredMcpTools(body) {
  const calls = new Map();
  const add = (tools, namespace) => {
    for (const t of Array.isArray(tools) ? tools : []) {
      if (t?.type === 'namespace') add(t.tools, t.name);
      else if (t?.type === 'function' && typeof t.name === 'string') calls.set(namespace ? `${namespace}__${t.name}` : t.name, { name: t.name, namespace });
    }
  };
  add(body?.tools, null);
  for (const item of Array.isArray(body?.input) ? body.input : []) if (item?.type === 'tool_search_output') add(item.tools, null);
  return calls;
}

/**
 * A turn that wants MCP tool `tool` when Codex has deferred it: look it up with Codex's
 * `tool_search` first (a client-executed search; its output brings the tool's namespace).
 */
function toolSearchFor(body, userText, offered) {
  const mcp = parseDirectives(userText).find((d) => d.name === 'mcp');
  const searchable = (Array.isArray(body?.tools) ? body.tools : []).some((t) => t?.type === 'tool_search');
  if (!mcp || !searchable) return null;
  const tool = mcp.arg.split(/\s/)[0];
  if (mcpToolNamer([...offered.keys()])(tool)) return null;
  const input = Array.isArray(body?.input) ? body.input : [];
  if (input.some((i) => i?.type === 'tool_search_output')) return null;
  return { query: tool.replace(/_/g, ' '), limit: 8 };
}

/** The Responses API's usage: `input_tokens` counts the cached part too. */
function usage() {
  const input = MOCK_USAGE.input + MOCK_USAGE.cacheRead;
  return {
    input_tokens: input,
    input_tokens_details: { cached_tokens: MOCK_USAGE.cacheRead },
    output_tokens: MOCK_USAGE.output,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: input + MOCK_USAGE.output,
  };
}

export async function handleResponses(ctx) {
  const { method, pathname, body, res, signal } = ctx;
  if (method !== 'POST' || pathname !== '/v1/responses') return false;

  const tool = findShellTool(body);
  const format = body?.text?.format;
  // Side calls that demand JSON (Codex's thread title) get JSON that fits the schema.
  const turn = readResponsesTurn(body);
  const offered = offeredMcpTools(body);
  const search = format?.type === 'json_schema' || turn.toolOutput !== null ? null : toolSearchFor(body, turn.userText, offered);
  const plan =
    format?.type === 'json_schema'
      ? { kind: 'text', text: JSON.stringify(exampleFor(format.schema)), waitMs: 0, slow: false }
      : search
        ? { kind: 'tool', search }
        : planTurn({ ...turn, toolAvailable: tool !== null, mcpToolName: mcpToolNamer([...offered.keys()]) });
  const responseId = id('resp');
  ctx.note(format?.type === 'json_schema' ? 'json' : plan.kind);
  const model = body?.model ?? 'mock-model';
  const base = { id: responseId, object: 'response', created_at: Math.floor(Date.now() / 1000), model, output: [] };

  let item;
  if (plan.search) {
    item = { type: 'tool_search_call', id: id('ts'), call_id: id('call'), execution: 'client', arguments: plan.search, status: 'completed' };
  } else if (plan.mcp) {
    const call = offered.get(plan.mcp.name);
    const arguments_ = JSON.stringify(plan.mcp.input);
    item = {
      type: 'function_call',
      id: id('fc'),
      call_id: id('call'),
      name: call.name,
      ...(call.namespace ? { namespace: call.namespace } : {}),
      arguments: arguments_,
      status: 'completed',
    };
  } else if (plan.kind === 'tool') {
    item = {
      type: 'function_call',
      id: id('fc'),
      call_id: id('call'),
      name: tool.name,
      arguments: shellArguments(tool, plan.command, plan.escalate),
      status: 'completed',
    };
  } else {
    item = {
      type: 'message',
      id: id('msg'),
      role: 'assistant',
      status: 'completed',
      content: [{ type: 'output_text', text: plan.text, annotations: [] }],
    };
  }

  if (body?.stream === false) {
    if (plan.kind === 'text' && plan.waitMs > 0) await streamText({ ...plan, slow: false, text: '' }, signal, () => {});
    sendJson(res, 200, { ...base, status: 'completed', output: [item], usage: usage() });
    return true;
  }

  const sse = openSse(res);
  let seq = 0;
  const ev = (type, data) => sse.event(type, { type, sequence_number: seq++, ...data });
  ev('response.created', { response: { ...base, status: 'in_progress' } });
  ev('response.in_progress', { response: { ...base, status: 'in_progress' } });

  if (plan.search) {
    ev('response.output_item.added', { output_index: 0, item });
  } else if (plan.kind === 'tool') {
    ev('response.output_item.added', { output_index: 0, item: { ...item, arguments: '', status: 'in_progress' } });
    ev('response.function_call_arguments.delta', { item_id: item.id, output_index: 0, delta: item.arguments });
    ev('response.function_call_arguments.done', { item_id: item.id, output_index: 0, arguments: item.arguments });
  } else {
    const where = { item_id: item.id, output_index: 0, content_index: 0 };
    ev('response.output_item.added', { output_index: 0, item: { ...item, status: 'in_progress', content: [] } });
    ev('response.content_part.added', { ...where, part: { type: 'output_text', text: '', annotations: [] } });
    const done = await streamText(plan, signal, (delta) => ev('response.output_text.delta', { ...where, delta, logprobs: [] }));
    if (!done) return true;
    ev('response.output_text.done', { ...where, text: plan.text, logprobs: [] });
    ev('response.content_part.done', { ...where, part: { type: 'output_text', text: plan.text, annotations: [] } });
  }
  ev('response.output_item.done', { output_index: 0, item });
  ev('response.completed', { response: { ...base, status: 'completed', output: [item], usage: usage() } });
  sse.end();
  return true;
}
