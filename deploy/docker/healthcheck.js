#!/usr/bin/env node
/**
 * The images' HEALTHCHECK: GET http://127.0.0.1:<port><path>; exit 0 on a 2xx answer, 1 otherwise (no answer within
 * 2.5 s included). Plain JavaScript with no dependencies, so it runs without the TypeScript toolchain.
 *
 *   node deploy/docker/healthcheck.js <variable holding the port> <default port> [path, default /readyz]
 *
 * /readyz by default: docker compose starts a service's dependents once it is healthy, which must mean "connected
 * and serving", not merely "the process is up" (/healthz, which Kubernetes' liveness probe uses).
 */
'use strict';

const [portVariable = 'HEALTH_PORT', defaultPort = '9464', path = '/readyz'] = process.argv.slice(2);
const port = process.env[portVariable] || defaultPort;

fetch(`http://127.0.0.1:${port}${path}`, { signal: AbortSignal.timeout(2500) })
  .then((response) => {
    if (!response.ok) console.error(`healthcheck: ${path} on port ${port} answered ${response.status}`);
    process.exit(response.ok ? 0 : 1);
  })
  .catch((error) => {
    console.error(`healthcheck: ${path} on port ${port}: ${error.cause?.code ?? error.name ?? error}`);
    process.exit(1);
  });
