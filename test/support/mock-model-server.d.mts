// Types for mock-model-server.mjs (plain JS so scripts can import it without a build).

export interface MockRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  /** Parsed JSON body (or the raw text when it is not JSON, or null when empty). */
  body: any;
  /** Request headers with secrets (authorization, x-api-key, x-goog-api-key, …) replaced by '[redacted]'. */
  headers: Record<string, string | string[] | undefined>;
  at: number;
  /** Set when the response is fully sent or the client went away; null while it is in flight. */
  endedAt: number | null;
  /** What the mock answered: a text turn, a tool call, JSON for a side call, or anything else. */
  answer: 'text' | 'tool' | 'json' | 'other' | null;
}

export interface MockModelServer {
  url: string;
  port: number;
  requests: MockRequest[];
  /** Requests no handler knew (answered 404, or 200 {} for HEAD /). */
  unknown: MockRequest[];
  inFlight(): MockRequest[];
  waitForRequest(pred: (r: MockRequest) => boolean, timeoutMs?: number): Promise<MockRequest>;
  close(): Promise<void>;
}

export function startMockModelServer(options?: { port?: number; host?: string; log?: (line: string) => void }): Promise<MockModelServer>;

export function parseDirectives(text: string): Array<{ name: 'sh' | 'escalate' | 'wait' | 'lines' | 'mcp'; arg: string }>;
export function planTurn(input: {
  userText: string;
  toolOutput?: string | null;
  toolAvailable: boolean;
  mcpToolName?: (tool: string) => string | null;
}):
  | { kind: 'text'; text: string; waitMs: number; slow: boolean }
  | { kind: 'tool'; command: string; escalate: boolean }
  | { kind: 'tool'; mcp: { name: string; input: Record<string, unknown> } };
export function firstLine(raw: string): string;
export function readAnthropicTurn(body: unknown): { userText: string; toolOutput: string | null };
export function readResponsesTurn(body: unknown): { userText: string; toolOutput: string | null };
export function readChatTurn(body: unknown): { userText: string; toolOutput: string | null };
export function readGeminiTurn(body: unknown): { userText: string; toolOutput: string | null };
/** The token usage every model answer reports (in each protocol's own fields; OpenAI and Gemini count `cacheRead` inside their prompt total). */
export const MOCK_USAGE: Readonly<{ input: number; output: number; cacheRead: number; cacheWrite: number }>;
