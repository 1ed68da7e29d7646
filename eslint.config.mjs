// ESLint 9 flat config: typescript-eslint's recommended rules, the promise rules that matter in code made of
// async NATS and MongoDB calls (type-aware), and the repository's conventions. Formatting is Prettier's job
// (.prettierrc.json), so no stylistic rule is here. `npm run lint` runs it per workspace through turbo.
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

// A test waits on an event (a message, a log line, a health change, an exit) or moves a clock, never a fixed time
// (libs/local-infra/README.md). These shapes are a fixed sleep: a promise resolved by a bare timer, and the timers
// of `node:timers/promises`. A fault whose duration is what a test is about, measured by a process no clock reaches
// (a real server's outage, a slow client, a stand-in's latency), is held by name with `holdFault` or
// `paceSlowClient` of `@berth/local-infra/testing`, which this rule lets through.
const fixedSleepMessage =
  "A fixed sleep: await an event (waitForEvent, a message, a log line, an exit) or move a clock (ManualClock); poll with waitFor. A fault's own duration: holdFault / paceSlowClient.";
const fixedSleeps = [
  {
    selector:
      "NewExpression[callee.name='Promise'] > :function > CallExpression.body[callee.name='setTimeout'][arguments.0.type='Identifier']",
    message: fixedSleepMessage,
  },
  {
    selector:
      "NewExpression[callee.name='Promise'] > :function > BlockStatement > ExpressionStatement > CallExpression[callee.name='setTimeout'][arguments.0.type='Identifier']",
    message: fixedSleepMessage,
  },
  {
    selector:
      "NewExpression[callee.name='Promise'] CallExpression[callee.name='setTimeout'] > ArrowFunctionExpression.arguments:first-child > CallExpression.body[callee.type='Identifier'][arguments.length=0]",
    message: fixedSleepMessage,
  },
  { selector: 'ImportDeclaration[source.value=/^(node:)?timers\\u002Fpromises$/]', message: fixedSleepMessage },
  {
    selector: "CallExpression[callee.name='require'][arguments.0.value=/^(node:)?timers\\u002Fpromises$/]",
    message: fixedSleepMessage,
  },
  // The system clock's timer is real time too.
  { selector: "CallExpression[callee.name='clockDelay'][arguments.0.name='systemClock']", message: fixedSleepMessage },
];
export default tseslint.config(
  { ignores: ['**/node_modules/**', '**/dist/**', '**/coverage/**', '**/.turbo/**', '**/.data/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts', '**/*.tsx'],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      // A promise nobody awaits loses its error; `void` says it is meant.
      '@typescript-eslint/no-floating-promises': ['error', { ignoreVoid: true }],
      '@typescript-eslint/no-misused-promises': [
        'error',
        { checksVoidReturn: { arguments: false, attributes: false } },
      ],
      '@typescript-eslint/await-thenable': 'error',
      '@typescript-eslint/consistent-type-imports': [
        'error',
        { fixStyle: 'inline-type-imports', disallowTypeAnnotations: false },
      ],
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' },
      ],
      '@typescript-eslint/no-import-type-side-effects': 'error',
      eqeqeq: ['error', 'always', { null: 'ignore' }],
      'no-console': 'error',
      'no-throw-literal': 'error',
      'prefer-promise-reject-errors': 'off',
      // Passing on a caught error or an abort reason (typed unknown or any) is fine; a literal is not.
      '@typescript-eslint/prefer-promise-reject-errors': [
        'error',
        { allowThrowingAny: true, allowThrowingUnknown: true },
      ],
      // `let x; … () => x …; x = await …`: a closure reads it before it is assigned, so it cannot be const.
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
      'object-shorthand': 'error',
      // Stripping and refusing control characters in logs, paths and terminal output is deliberate.
      'no-control-regex': 'off',
    },
  },
  {
    // Command-line programs and scripts print on purpose.
    files: ['services/cli/**', 'deploy/**', 'test/bench/**', '**/main.ts'],
    rules: { 'no-console': 'off' },
  },
  {
    // Plain CommonJS scripts (the ts-hook, the CLI's bin, the container health check).
    files: ['**/*.js', '**/*.cjs'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: { sourceType: 'commonjs', globals: globals.node },
    rules: { ...tseslint.configs.disableTypeChecked.rules, '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    files: ['**/*.mjs'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: { sourceType: 'module', globals: globals.node },
  },
  {
    // The parsed YAML of the compose file and the manifests is walked as untyped JSON.
    files: ['test/deploy/**'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    // Benchmarks and the soak run pace traffic on purpose; they are not tests.
    files: ['**/*.test.ts', 'test/**/*.ts'],
    // The benchmarks, the soak and the cluster tests' provider stand-in pace their traffic on purpose.
    ignores: ['test/bench/**', 'test/soak/**', 'test/cluster/stripe-burst.ts'],
    rules: { 'no-restricted-syntax': ['error', ...fixedSleeps] },
  },
);
