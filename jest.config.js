/**
 * Unit tests live beside the code (libs/*, services/*); cross-service tests under test/.
 * Both talk to real nats-server and FerretDB processes that each test file starts on free ports.
 */
const swc = ['@swc/jest', { jsc: { parser: { syntax: 'typescript', decorators: true }, target: 'es2023',
  transform: { legacyDecorator: true, decoratorMetadata: true }, keepClassNames: true } }];
const swcModule = ['@swc/jest', { jsc: { target: 'es2023' }, module: { type: 'commonjs' } }];
const common = {
  testEnvironment: 'node',
  // svix 2 ships only as an ES module: swc turns it (and only it) into CommonJS for Jest.
  transform: { '^.+\\.ts$': swc, '^.+/node_modules/svix/.+\\.m?js$': swcModule },
  transformIgnorePatterns: ['/node_modules/(?!svix/)'],
  moduleFileExtensions: ['ts', 'js', 'mjs', 'json'],
};
module.exports = {
  projects: [
    { ...common, displayName: 'unit', testMatch: ['<rootDir>/libs/*/src/**/*.test.ts', '<rootDir>/services/*/src/**/*.test.ts'] },
    { ...common, displayName: 'integration', testMatch: ['<rootDir>/test/**/*.test.ts'] },
  ],
  testTimeout: 60000,
  detectOpenHandles: false,
};
