// Gemini CLI 0.61.0 under `synapse gemini`, against the offline mock model server (Gemini API).
import { realCliSuite } from './suite.js';

realCliSuite('gemini', 'Gemini CLI', 'Gemini');
