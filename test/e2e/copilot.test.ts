// GitHub Copilot CLI 1.0.102 (npm `@github/copilot`) under `synapse copilot`, with no GitHub
// login: its BYOK offline mode points it at the mock model server (OpenAI Chat Completions), see
// prepareCopilotHome in test/support/cli-home.mjs.
import { realCliSuite } from './suite.js';

realCliSuite('copilot', 'Copilot CLI', 'Copilot');
