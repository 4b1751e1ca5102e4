import type { AgentCard, AgentInterface, AgentSkill } from '@a2a-js/sdk';
import { buildAgentCard, SECURITY_0_3, type CardInput } from '../card.js';
import { camelKeys } from './convert.js';
import { A2A_PATHS } from '../paths.js';

/** The card extension that carries Synapse's own data about the agent. */
export const SYNAPSE_EXTENSION_URI = 'urn:synapse-a2a:extension:agent:v1';

export interface CardEndpoints {
  /** `http://127.0.0.1:<port>`. */
  base: string;
  /** `127.0.0.1:<port + 1000>` once the gRPC server listens, else null. */
  grpc: string | null;
}

/** `SECURITY_0_3` in the A2A 1.0 card's shape. */
const SECURITY_1_0: Pick<AgentCard, 'securitySchemes' | 'securityRequirements'> = {
  securitySchemes: {
    apiKey: {
      scheme: {
        $case: 'apiKeySecurityScheme',
        value: { description: SECURITY_0_3.securitySchemes.apiKey.description, location: 'header', name: 'X-API-Key' },
      },
    },
    bearer: {
      scheme: { $case: 'httpAuthSecurityScheme', value: { description: SECURITY_0_3.securitySchemes.bearer.description, scheme: 'Bearer', bearerFormat: '' } },
    },
  },
  securityRequirements: [{ schemes: { apiKey: { list: [] } } }, { schemes: { bearer: { list: [] } } }],
};

function iface(url: string, protocolBinding: string, protocolVersion: string): AgentInterface {
  return { url, protocolBinding, protocolVersion, tenant: '' };
}

/**
 * The agent's A2A v1.0 card: every binding it serves (in order of preference), streaming and
 * push notifications, its skill, and the Synapse extension (identity, status, team context) —
 * the same facts as Synapse's own `/.well-known/agent.json`, in the SDK's card types.
 */
export function buildA2aCard(input: CardInput, endpoints: CardEndpoints): AgentCard {
  const own = buildAgentCard(input);
  const interfaces = [iface(`${endpoints.base}${A2A_PATHS.jsonrpc}`, 'JSONRPC', '1.0'), iface(`${endpoints.base}${A2A_PATHS.rest}`, 'HTTP+JSON', '1.0')];
  if (endpoints.grpc) interfaces.push(iface(endpoints.grpc, 'GRPC', '1.0'));
  interfaces.push(iface(`${endpoints.base}${A2A_PATHS.jsonrpcV03}`, 'JSONRPC', '0.3'));
  const skills: AgentSkill[] = own.skills.map((s) => ({ ...s, inputModes: [], outputModes: [], securityRequirements: [] }));
  return {
    name: own.name,
    description: own.description,
    version: own.version,
    provider: own.provider,
    supportedInterfaces: interfaces,
    capabilities: {
      streaming: true,
      pushNotifications: true,
      extendedAgentCard: false,
      extensions: [
        {
          uri: SYNAPSE_EXTENSION_URI,
          description:
            'Synapse agent: a PTY-wrapped CLI in a Synapse team. params.agent is its identity and status, params.context tells a peer how to talk to it.',
          required: false,
          // Synapse's own card (/.well-known/agent.json) keeps the original's snake_case; here, A2A's camelCase.
          params: camelKeys({ agent: own.extensions.synapse, context: own.extensions['x-synapse-context'] }) as Record<string, unknown>,
        },
      ],
    },
    ...(input.secured ? SECURITY_1_0 : { securitySchemes: {}, securityRequirements: [] }),
    defaultInputModes: own.defaultInputModes,
    defaultOutputModes: own.defaultOutputModes,
    skills,
    signatures: [],
  };
}

/**
 * The same card in v0.3 shape, for a client that asks with `A2A-Version: 0.3`: one `url` plus
 * `preferredTransport`, pointing at the v0.3 JSON-RPC endpoint (the only v0.3 binding served).
 */
export function legacyCardJson(card: AgentCard): Record<string, unknown> {
  const v03 = card.supportedInterfaces.find((i) => i.protocolVersion === '0.3');
  const url = v03?.url ?? '';
  return {
    protocolVersion: '0.3.0',
    name: card.name,
    description: card.description,
    url,
    preferredTransport: 'JSONRPC',
    additionalInterfaces: [{ url, transport: 'JSONRPC' }],
    version: card.version,
    ...(card.provider ? { provider: { organization: card.provider.organization, url: card.provider.url } } : {}),
    capabilities: {
      streaming: card.capabilities?.streaming ?? false,
      pushNotifications: card.capabilities?.pushNotifications ?? false,
      stateTransitionHistory: false,
      extensions: (card.capabilities?.extensions ?? []).map((e) => ({
        uri: e.uri,
        description: e.description,
        required: e.required,
        ...(e.params ? { params: e.params } : {}),
      })),
    },
    ...(Object.keys(card.securitySchemes).length > 0 ? SECURITY_0_3 : {}),
    defaultInputModes: card.defaultInputModes,
    defaultOutputModes: card.defaultOutputModes,
    skills: card.skills.map((s) => ({ id: s.id, name: s.name, description: s.description, tags: s.tags, examples: s.examples })),
  };
}
