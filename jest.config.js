/**
 * Unit tests live beside the code (libs/*, services/*); cross-service tests under test/.
 * Both talk to real nats-server and FerretDB processes that each test file starts on free ports.
 */
const swc = [
  '@swc/jest',
  {
    jsc: {
      parser: { syntax: 'typescript', decorators: true },
      target: 'es2023',
      transform: { legacyDecorator: true, decoratorMetadata: true },
      keepClassNames: true,
    },
  },
];
const swcModule = ['@swc/jest', { jsc: { target: 'es2023' }, module: { type: 'commonjs' } }];
const common = {
  testEnvironment: 'node',
  // svix 2, @octokit/webhooks-methods (GitHub's test vectors) and @linear/sdk (Linear's webhook verifier) ship only
  // as ES modules: swc turns them (and only them) into CommonJS for Jest.
  transform: {
    '^.+\\.ts$': swc,
    '^.+/node_modules/(svix|@octokit/webhooks-methods|@linear/sdk)/.+\\.m?js$': swcModule,
  },
  transformIgnorePatterns: ['/node_modules/(?!svix/|@octokit/webhooks-methods/|@linear/sdk/)'],
  moduleFileExtensions: ['ts', 'js', 'mjs', 'json'],
  // Its package exports name an `import` entry only, which Jest's CommonJS resolver does not pick.
  moduleNameMapper: {
    '^@octokit/webhooks-methods$': '<rootDir>/node_modules/@octokit/webhooks-methods/dist-node/index.js',
    '^@linear/sdk/webhooks$': '<rootDir>/node_modules/@linear/sdk/dist/webhooks/index.mjs',
  },
};
module.exports = {
  projects: [
    {
      ...common,
      displayName: 'unit',
      testMatch: ['<rootDir>/libs/*/src/**/*.test.ts', '<rootDir>/services/*/src/**/*.test.ts'],
    },
    { ...common, displayName: 'integration', testMatch: ['<rootDir>/test/**/*.test.ts'] },
  ],
  testTimeout: 60000,
  detectOpenHandles: false,
};
