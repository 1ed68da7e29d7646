#!/usr/bin/env node
// `berth …`: compiles src/*.ts on the fly with swc (decorators and all, from the repository's tsconfig), so the
// CLI needs no build step and runs from any folder.
const { join } = require('node:path');
const { readDefaultTsConfig } = require('@swc-node/register/read-default-tsconfig');
const { register } = require('@swc-node/register/register');

register(readDefaultTsConfig(join(__dirname, '..', '..', '..', 'tsconfig.base.json')));
require('../src/main.ts');
