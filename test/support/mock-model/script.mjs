// The scripted "model" behind the mock server, independent of any wire protocol.
//
// The last user text decides the turn:
//   plain text            -> answer `MOCK: <text>`
//   [[sh: CMD]]           -> call the CLI's own shell tool with CMD
//   [[escalate: CMD]]     -> the same, asking for a sandbox bypass where the CLI's tool allows it
//   [[wait: N]]           -> wait N seconds, then stream the answer slowly (one delta per 200 ms)
//   [[lines: N]]          -> append N numbered lines to the answer (long output, scrollback)
//   [[mcp: TOOL {json}]]  -> call the MCP tool TOOL (under the CLI's name for it, e.g. Claude Code's
//                            mcp__synapse__TOOL) with the JSON arguments, where the request offers
//                            it (Anthropic, Gemini, Responses; Codex: after its tool_search)
// After a tool result comes back the answer is `MOCK: tool said <first line of the tool output>`.

const MARKER = 'MOCK:';
export const SLOW_DELTA_MS = 200;

const DIRECTIVE = /\[\[\s*(sh|escalate|wait|lines|mcp)\s*:\s*([\s\S]*?)\s*\]\]/gi;

/** Every directive in `text`, in order, as {name, arg}. */
export function parseDirectives(text) {
  const out = [];
  for (const m of String(text ?? '').matchAll(DIRECTIVE)) {
    out.push({ name: m[1].toLowerCase(), arg: m[2] });
  }
  return out;
}

/**
 * Decide what the model does this turn.
 * @param {{userText: string, toolOutput?: string|null, toolAvailable: boolean, mcpToolName?: (tool: string) => string|null}} input
 *   toolOutput is set when the newest input is a tool result (the follow-up request).
 *   mcpToolName maps an MCP tool to the name the request offers it under (null: not offered).
 * @returns {{kind:'text', text:string, waitMs:number, slow:boolean}
 *         | {kind:'tool', command:string, escalate:boolean}
 *         | {kind:'tool', mcp: {name: string, input: object}}}
 */
export function planTurn({ userText, toolOutput = null, toolAvailable, mcpToolName }) {
  if (toolOutput !== null && toolOutput !== undefined) {
    return { kind: 'text', text: `${MARKER} tool said ${firstLine(toolOutput)}`, waitMs: 0, slow: false };
  }
  const directives = parseDirectives(userText);
  const mcp = directives.find((d) => d.name === 'mcp');
  if (mcp && mcpToolName) {
    const m = /^(\S+)\s*([\s\S]*)$/.exec(mcp.arg);
    const name = m ? mcpToolName(m[1]) : null;
    if (name) return { kind: 'tool', mcp: { name, input: m[2].trim() ? JSON.parse(m[2]) : {} } };
  }
  const tool = directives.find((d) => d.name === 'sh' || d.name === 'escalate');
  if (tool && toolAvailable) {
    return { kind: 'tool', command: tool.arg, escalate: tool.name === 'escalate' };
  }
  const wait = directives.find((d) => d.name === 'wait');
  const waitSeconds = wait ? Number.parseFloat(wait.arg) : 0;
  const lines = directives.find((d) => d.name === 'lines');
  const lineCount = lines ? Math.min(Math.max(Number.parseInt(lines.arg, 10) || 0, 0), 5000) : 0;
  let text = `${MARKER} ${oneLine(userText)}`;
  for (let i = 1; i <= lineCount; i++) text += `\nMOCK line ${i} of ${lineCount}`;
  return {
    kind: 'text',
    text,
    waitMs: Number.isFinite(waitSeconds) && waitSeconds > 0 ? Math.round(waitSeconds * 1000) : 0,
    slow: Boolean(wait),
  };
}

/**
 * Maps an MCP tool to the name under which a request offers it, from the offered `names`:
 * Claude Code and Codex call it `mcp__<server>__<tool>`, Gemini CLI `mcp_<server>_<tool>`.
 */
export function mcpToolNamer(names) {
  return (tool) => names.find((n) => typeof n === 'string' && (n === tool || (n.startsWith('mcp_') && n.endsWith(`_${tool}`)))) ?? null;
}

/** Collapse runs of whitespace so the echoed text is one line. */
function oneLine(text) {
  return String(text ?? '')
    .replace(/\s+/g, ' ')
    .trim();
}

/** The first non-empty line of a tool's output, after unwrapping the CLIs' result envelopes. */
export function firstLine(raw) {
  let text = String(raw ?? '');
  // Codex (older shells) sends a JSON envelope {"output": "...", "metadata": {...}}.
  try {
    const parsed = JSON.parse(text);
    if (parsed && typeof parsed === 'object') {
      const inner = parsed.output ?? parsed.stdout ?? parsed.result ?? parsed.content;
      if (typeof inner === 'string') text = inner;
    }
  } catch {
    // not JSON: plain text
  }
  // Codex and Gemini put a header ("Exit code: 0", "Command: ...") before an "Output:" section.
  const section = /^\s*Output:[ \t]*(.*)$/m.exec(text);
  if (section) {
    const rest = text.slice(section.index + section[0].length).split('\n');
    const same = section[1].trim();
    if (same) return same;
    const next = rest.find((l) => l.trim() !== '');
    if (next !== undefined) return next.trim();
  }
  const line = text.split('\n').find((l) => l.trim() !== '');
  return line === undefined ? '(no output)' : line.trim();
}

/** Remove `<system-reminder>…</system-reminder>` and similar injected wrappers from a text block. */
export function stripInjected(text) {
  return (
    String(text ?? '')
      .replace(/<system-reminder>[\s\S]*?<\/system-reminder>/g, '')
      // Copilot CLI opens every user message with the time.
      .replace(/^\s*<current_datetime>[^<]*<\/current_datetime>/, '')
      .trim()
  );
}

/** Split `text` into small deltas (a few words each) for streaming. */
export function chunkText(text, wordsPerChunk = 2) {
  const parts = String(text).match(/\S+\s*|\s+/g) ?? [''];
  const out = [];
  for (let i = 0; i < parts.length; i += wordsPerChunk) out.push(parts.slice(i, i + wordsPerChunk).join(''));
  return out.length > 0 ? out : [''];
}

/** Sleep that ends early (resolving false) once `signal` aborts. */
export function sleep(ms, signal) {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve(false);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve(true);
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      resolve(false);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

let counter = 0;
/** A unique id with a protocol-style prefix, e.g. id('msg') -> msg_mock_000001_ab12. */
export function id(prefix) {
  counter += 1;
  return `${prefix}_mock${String(counter).padStart(6, '0')}${Math.random().toString(36).slice(2, 8)}`;
}

/**
 * The token usage every model answer reports, in each protocol's own fields: distinctive numbers
 * the e2e suite finds again in `synapse history stats` (issue 20 §3). `input` is the prompt
 * without its cached part (Anthropic's `input_tokens`); the OpenAI and Gemini protocols count
 * the cached part inside their prompt total, so they report `input + cacheRead` there.
 */
export const MOCK_USAGE = Object.freeze({ input: 1234, output: 567, cacheRead: 89, cacheWrite: 21 });

/** A rough token count, enough for the CLIs' context meters. */
export function roughTokens(value) {
  const s = typeof value === 'string' ? value : JSON.stringify(value ?? '');
  return Math.max(1, Math.ceil(s.length / 4));
}

/** A value that satisfies a (simple) JSON schema; used for the CLI's own JSON-mode side calls. */
export function exampleFor(schema, key = '') {
  if (!schema || typeof schema !== 'object') return 'mock';
  if (Array.isArray(schema.enum) && schema.enum.length > 0) {
    // Prefer handing the turn back to the user (next-speaker checks).
    return schema.enum.includes('user') ? 'user' : schema.enum[0];
  }
  const type = String(Array.isArray(schema.type) ? schema.type[0] : (schema.type ?? '')).toLowerCase();
  if (type === 'object' || schema.properties) {
    const out = {};
    for (const [k, v] of Object.entries(schema.properties ?? {})) out[k] = exampleFor(v, k);
    return out;
  }
  if (type === 'array') return [];
  if (type === 'boolean') return false;
  if (type === 'number' || type === 'integer') return 0;
  return key ? `mock ${key}` : 'mock';
}
