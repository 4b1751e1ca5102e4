/**
 * Paths of the A2A bindings on the agent's HTTP port. A module of its own: the request guard and
 * the route table read them at start-up, and must not load the A2A SDK to do so (it loads on the
 * first A2A request).
 */
export const A2A_PATHS = {
  jsonrpc: '/a2a/jsonrpc',
  rest: '/a2a/rest/v1',
  jsonrpcV03: '/a2a/v0.3/jsonrpc',
  card: '/.well-known/agent-card.json',
} as const;
