// typescript-eslint with its type-checked rules: above all no-floating-promises,
// no-misused-promises and switch-exhaustiveness-check. Formatting is prettier's job (.prettierrc).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'test/e2e/clis/**', 'coverage/**', '**/*.mjs', '**/*.js', '**/*.cjs', '**/*.d.mts'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { project: './tsconfig.check.json', tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': ['error', { considerDefaultExhaustiveForUnions: true }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      // An empty catch must say why it swallows (a comment inside counts).
      'no-empty': ['error', { allowEmptyCatch: false }],
      eqeqeq: ['error', 'always'],
      // A terminal wrapper's regexes match control bytes on purpose (sanitising peer text, ANSI).
      'no-control-regex': 'off',
      // Fastify handlers and the A2A SDK's store/executor interfaces are async by contract, with or
      // without an await inside.
      '@typescript-eslint/require-await': 'off',
    },
  },
  {
    // A function longer than a screen is asking to be split; one that must stay long says why
    // with an eslint-disable comment naming this rule.
    files: ['src/**/*.ts'],
    rules: { 'max-lines-per-function': ['error', { max: 80, skipBlankLines: true, skipComments: true }] },
  },
  {
    // CommonJS packages load with requireCjs (src/require-cjs.ts says why); types still import.
    files: ['src/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: ['commander', 'fastify', 'pino', '@xterm/headless', 'better-sqlite3', 'node-pty'].map((name) => ({
            name,
            allowTypeImports: true,
            message: `load ${name} with requireCjs (src/require-cjs.ts): an ESM import parses it twice`,
          })),
        },
      ],
    },
  },
  {
    // Tests poke at untyped JSON from real HTTP responses; `any` there is the point.
    files: ['test/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-non-null-assertion': 'off',
      '@typescript-eslint/no-explicit-any': 'off',
    },
  },
);
