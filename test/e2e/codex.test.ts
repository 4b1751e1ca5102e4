// Codex CLI 0.171.0 under `synapse codex`, against the offline mock model server (OpenAI Responses).
import { realCliSuite } from './suite.js';

realCliSuite('codex', 'Codex CLI', 'Codex');
