// The layer order of ARCHITECTURE.md, enforced: a folder under src/ imports only from folders
// below it. Bottom to top. A new folder must be placed here, or the `not-in-a-layer` rule fails.
const LAYERS = [
  ['kernel', '^src/[^/]+\\.ts$'], // errors.ts, version.ts, clock.ts, logger.ts
  ['config', '^src/config/'],
  ['profiles', '^src/profiles/'],
  ['registry', '^src/registry/'],
  ['skills', '^src/skills/'], // skill scopes, sets, deploy (read by the CLI and, for the core skill, the runtime)
  ['agent-api', '^src/agent-api/'], // the Task model and the agent's port (AgentApi, task events)
  ['store', '^src/store/'],
  ['a2a', '^src/a2a/'],
  ['team', '^src/team/'], // spawn, team start, panes, saved agents, worktrees, workflows (the CLI runs them; agents through `synapse __team`)
  ['server', '^src/server/'],
  ['runtime', '^src/runtime/'],
  ['monitor', '^src/monitor/'], // the live `synapse list` (Ink): reads the registry, the store and agents' /events
  ['entry points', '^src/(cli|demo)/'],
];

const upward = LAYERS.slice(0, -1).map(([name, from], i) => ({
  name: `no-upward-from-${name}`,
  comment: `${name} may import only from layers below it (${
    LAYERS.slice(0, i)
      .map(([n]) => n)
      .join(', ') || 'none'
  })`,
  severity: 'error',
  from: { path: from },
  to: {
    path: LAYERS.slice(i + 1)
      .map(([, p]) => `(${p})`)
      .join('|'),
  },
}));

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    ...upward,
    {
      name: 'no-circular',
      comment: 'No import cycles, inside a folder or across folders.',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'not-in-a-layer',
      comment: 'Every module under src/ belongs to a layer of .dependency-cruiser.cjs.',
      severity: 'error',
      from: { path: '^src/', pathNot: LAYERS.map(([, p]) => `(${p})`).join('|') },
      to: {},
    },
    {
      name: 'no-orphans',
      comment: 'A module nothing imports is dead (or a missing entry point).',
      severity: 'error',
      from: { orphan: true, path: '^src/', pathNot: '^src/cli/main\\.ts$|\\.d\\.ts$' },
      to: {},
    },
    {
      name: 'src-not-to-test',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: '^(test|bench|scripts)/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'], extensions: ['.ts', '.js'] },
  },
};
