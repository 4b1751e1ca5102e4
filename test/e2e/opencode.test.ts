// OpenCode 1.18.33 (npm `opencode-ai`) under `synapse opencode`, against the offline mock model
// server (OpenAI Chat Completions). Its home (test/support/cli-home.mjs) sets `permission.bash =
// "ask"` so shell commands ask first, and keeps OpenCode off the network (see prepareOpencodeHome).
import { realCliSuite } from './suite.js';

realCliSuite('opencode', 'OpenCode', 'OpenCode');
