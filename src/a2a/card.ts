import type { RegistryEntry } from '../registry/entry.js';

export interface CardInput {
  self: RegistryEntry;
  displayName: string;
  description: string;
  peers: RegistryEntry[];
  /** Auth is on (`SYNAPSE_AUTH_ENABLED`): the card says how to present a key. */
  secured?: boolean;
}

/**
 * How a client presents an API key, in the A2A 0.3 card's shape (OpenAPI security schemes):
 * `X-API-Key: <key>`, or `Authorization: Bearer <key>`; either one is enough.
 */
export const SECURITY_0_3 = {
  securitySchemes: {
    apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key', description: 'A key of SYNAPSE_API_KEYS (or the admin key).' },
    bearer: { type: 'http', scheme: 'bearer', description: 'The same key as a bearer token.' },
  },
  security: [{ apiKey: [] as string[] }, { bearer: [] as string[] }],
};

/** Synapse's own agent card (`/.well-known/agent.json`). */
export function buildAgentCard({ self, displayName, description, peers, secured }: CardInput) {
  const label = self.name ?? self.agent_id;
  return {
    name: label,
    description: self.role ? `${description} Role: ${self.role}` : description,
    url: self.endpoint,
    version: self.synapse_version,
    provider: { organization: 'Synapse', url: 'https://www.npmjs.com/package/synapse-a2a' },
    capabilities: { streaming: false, pushNotifications: false, stateTransitionHistory: false },
    defaultInputModes: ['text/plain', 'application/json'],
    defaultOutputModes: ['text/plain'],
    ...(secured ? SECURITY_0_3 : {}),
    skills: [
      {
        id: 'chat',
        name: `Talk to ${displayName}`,
        description: `Send a message into the ${displayName} session; the reply is the task artifact.`,
        tags: ['chat', self.agent_type],
        examples: ['review src/app.ts and list the risks'],
      },
    ],
    extensions: {
      synapse: {
        agent_id: self.agent_id,
        agent_type: self.agent_type,
        name: self.name,
        role: self.role,
        port: self.port,
        working_dir: self.working_dir,
        status: self.status,
        pty_wrapped: true,
        priority_interrupt: true,
        // The original's: the agent is addressed as @id, @type or @name (`synapse shell`, and agents' own routing).
        at_agent_syntax: true,
        addressable_as: [`@${self.agent_id}`, `@${self.agent_type}`, ...(self.name ? [`@${self.name}`] : [])],
      },
      'x-synapse-context': {
        identity: `You are ${label} (${self.agent_id}), a ${displayName} agent in a Synapse team${self.role ? `, role: ${self.role}` : ''}. Messages from peers arrive as "A2A: [From: NAME (ID)] ..." lines.`,
        routing_rules: [
          'Messages marked [REPLY EXPECTED] want an answer: run `synapse reply "your answer"`.',
          'To ask another agent: `synapse send <name|id|type> "message"` (add --wait to block for the answer).',
          'List the team with `synapse list`; never send a message to yourself.',
        ],
        available_agents: peers
          .filter((p) => p.agent_id !== self.agent_id)
          .map((p) => ({
            agent_id: p.agent_id,
            name: p.name,
            type: p.agent_type,
            role: p.role,
            status: p.status,
            endpoint: p.endpoint,
            working_dir: p.working_dir,
          })),
      },
    },
  };
}
