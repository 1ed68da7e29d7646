/**
 * Unit tests live beside the code (libs/*, services/*); cross-service tests under test/.
 * Both talk to real nats-server and FerretDB processes that each test file starts on free ports.
 */
const swc = ['@swc/jest', { jsc: { parser: { syntax: 'typescript', decorators: true }, target: 'es2023',
  transform: { legacyDecorator: true, decoratorMetadata: true }, keepClassNames: true } }];
const common = {
  testEnvironment: 'node',
  transform: { '^.+\\.ts$': swc },
  moduleFileExtensions: ['ts', 'js', 'json'],
};
module.exports = {
  projects: [
    { ...common, displayName: 'unit', testMatch: ['<rootDir>/libs/*/src/**/*.test.ts', '<rootDir>/services/*/src/**/*.test.ts'] },
    { ...common, displayName: 'integration', testMatch: ['<rootDir>/test/**/*.test.ts'] },
  ],
  testTimeout: 60000,
  detectOpenHandles: false,
};
