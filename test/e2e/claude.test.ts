// Claude Code 2.1.197 under `synapse claude`, against the offline mock model server (Anthropic Messages).
import { realCliSuite } from './suite.js';

realCliSuite('claude', 'Claude Code', 'Claude');
