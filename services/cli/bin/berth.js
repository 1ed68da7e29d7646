#!/usr/bin/env node
// `berth …`: runs src/*.ts through the repository's ts-hook (compiled with swc once, then from its cache), so the
// CLI needs no build step and runs from any folder.
require('../../../deploy/runtime/ts-hook.js');
require('../src/main.ts');
