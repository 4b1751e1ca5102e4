// Gemini API (what Gemini CLI speaks):
//   POST /v1beta/models/{model}:streamGenerateContent?alt=sse | :generateContent | :countTokens

import { openSse, sendJson, streamText } from './http.mjs';
import { MOCK_USAGE, exampleFor, mcpToolNamer, planTurn, roughTokens } from './script.mjs';

const SHELL_TOOLS = ['run_shell_command'];
const ROUTE = /^\/v1(?:beta|alpha)?\/models\/([^/:]+):(streamGenerateContent|generateContent|countTokens)$/;

function partsOf(content) {
  return Array.isArray(content?.parts) ? content.parts : [];
}

function functionResponseText(part) {
  const r = part.functionResponse?.response;
  if (typeof r === 'string') return r;
  if (typeof r?.output === 'string') return r.output;
  if (typeof r?.error === 'string') return r.error;
  return JSON.stringify(r ?? '');
}

/** The human's last text, and the tool output when the newest user content is only a function response. */
export function readGeminiTurn(body) {
  const contents = Array.isArray(body?.contents) ? body.contents : [];
  const users = contents.filter((c) => (c?.role ?? 'user') === 'user');
  const realTexts = (c) =>
    partsOf(c)
      .filter((p) => typeof p?.text === 'string' && p.text.trim() !== '' && !p.thought)
      .map((p) => p.text.trim());
  let userText = '';
  for (let i = users.length - 1; i >= 0 && userText === ''; i--) userText = realTexts(users[i]).at(-1) ?? '';
  const last = users.at(-1);
  const responses = partsOf(last).filter((p) => p?.functionResponse);
  const toolOutput = responses.length > 0 && realTexts(last).length === 0 ? functionResponseText(responses.at(-1)) : null;
  return { userText, toolOutput };
}

function declaredShellTool(body) {
  for (const group of Array.isArray(body?.tools) ? body.tools : []) {
    for (const decl of Array.isArray(group?.functionDeclarations) ? group.functionDeclarations : []) {
      if (SHELL_TOOLS.includes(decl?.name)) return decl.name;
    }
  }
  return null;
}

/** Gemini's usage metadata: `promptTokenCount` counts the cached part too. */
function usage() {
  const prompt = MOCK_USAGE.input + MOCK_USAGE.cacheRead;
  return {
    promptTokenCount: prompt,
    cachedContentTokenCount: MOCK_USAGE.cacheRead,
    candidatesTokenCount: MOCK_USAGE.output,
    totalTokenCount: prompt + MOCK_USAGE.output,
  };
}

function chunk(model, parts, finishReason, usageMetadata) {
  const candidate = { content: { role: 'model', parts }, index: 0 };
  if (finishReason) candidate.finishReason = finishReason;
  return { candidates: [candidate], ...(usageMetadata ? { usageMetadata } : {}), modelVersion: model };
}

export async function handleGemini(ctx) {
  const { method, pathname, body, res, signal } = ctx;
  const m = ROUTE.exec(pathname);
  if (method !== 'POST' || !m) return false;
  const [, model, action] = m;

  if (action === 'countTokens') {
    ctx.note('other');
    sendJson(res, 200, { totalTokens: roughTokens(body?.contents ?? body?.generateContentRequest?.contents) });
    return true;
  }

  const config = body?.generationConfig ?? {};
  const schema = config.responseJsonSchema ?? config.responseSchema;
  if (config.responseMimeType === 'application/json') {
    // A side call (routing, next-speaker check, loop check...): answer with JSON that fits the schema.
    ctx.note('json');
    const text = JSON.stringify(schema ? exampleFor(schema) : {});
    const reply = chunk(model, [{ text }], 'STOP', usage());
    if (action === 'generateContent') sendJson(res, 200, reply);
    else {
      const sse = openSse(res);
      sse.event(null, reply);
      sse.end();
    }
    return true;
  }

  const tool = declaredShellTool(body);
  const declared = (Array.isArray(body?.tools) ? body.tools : []).flatMap((g) => (Array.isArray(g?.functionDeclarations) ? g.functionDeclarations : []));
  const plan = planTurn({ ...readGeminiTurn(body), toolAvailable: tool !== null, mcpToolName: mcpToolNamer(declared.map((d) => d?.name)) });
  ctx.note(plan.kind);

  if (plan.kind === 'tool') {
    const call = plan.mcp ? { name: plan.mcp.name, args: plan.mcp.input } : { name: tool, args: { command: plan.command, description: `Run ${plan.command}` } };
    const parts = [{ functionCall: call }];
    const reply = chunk(model, parts, 'STOP', usage());
    if (action === 'generateContent') sendJson(res, 200, reply);
    else {
      const sse = openSse(res);
      sse.event(null, reply);
      sse.end();
    }
    return true;
  }

  if (action === 'generateContent') {
    if (plan.waitMs > 0) await streamText({ ...plan, slow: false, text: '' }, signal, () => {});
    sendJson(res, 200, chunk(model, [{ text: plan.text }], 'STOP', usage()));
    return true;
  }

  const sse = openSse(res);
  const done = await streamText(plan, signal, (text) => sse.event(null, chunk(model, [{ text }], null, null)));
  if (!done) return true;
  sse.event(null, chunk(model, [{ text: '' }], 'STOP', usage()));
  sse.end();
  return true;
}
