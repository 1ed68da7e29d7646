# syntax=docker/dockerfile:1
#
# Berth's images: one build, one target per service.
#
#   docker build --target gateway       -t berth/gateway .
#   docker build --target billing-sync  -t berth/billing-sync .
#   docker build --target identity-sync -t berth/identity-sync .
#   docker build --target app-worker    -t berth/app-worker .
#   docker build --target scheduler     -t berth/scheduler .
#   docker build --target dispatcher    -t berth/dispatcher .
#   docker build --target console       -t berth/console .
#   docker compose build                 (docker-compose.yml names each service's target)
#
# How the services run: `node -r ./deploy/runtime/ts-hook.js services/<name>/src/main.ts`, the same command as
# `npm start` and the tests (docker-compose.yml is where both read it). The hook loads each TypeScript file compiled
# by swc (decorators and their metadata included) from a cache; the runtime stage fills that cache at build time
# (`deploy/runtime/build.js`), so a container never loads the compiler and the image ships the sources with the
# output compiled from them, which cannot drift. @swc/core stays in the image (a devDependency of the repository,
# its native binding an optional dependency, no install script needed) for the build step.
# Every other devDependency is left out of the image.
#
# The image runs as uid 1000 (the base image's `node` user), owns none of its files, and writes nothing outside
# /tmp: Kubernetes runs it with a read-only root file system and an emptyDir on /tmp.

# Pinned to the Node release the repository runs on (package.json devDependency `node`). In a release pipeline pin
# the digest as well: node:22.23.3-bookworm-slim@sha256:<digest from `docker buildx imagetools inspect`>.
ARG NODE_IMAGE=node:22.23.3-bookworm-slim

FROM ${NODE_IMAGE} AS base
WORKDIR /app
ENV NODE_ENV=production \
    NPM_CONFIG_UPDATE_NOTIFIER=false \
    NPM_CONFIG_FUND=false \
    NPM_CONFIG_AUDIT=false

# The package manifests alone (root, lockfile, every workspace), at their paths. The install below depends only on
# this stage's output, so it is taken from the build cache until a package.json or the lockfile changes.
FROM base AS manifests
COPY . /src
RUN mkdir -p /manifests \
 && cd /src \
 && cp package.json package-lock.json /manifests/ \
 && for manifest in libs/*/package.json services/*/package.json; do \
      [ -f "$manifest" ] || continue; \
      mkdir -p "/manifests/$(dirname "$manifest")"; \
      cp "$manifest" "/manifests/$manifest"; \
    done

# Production dependencies from the lockfile, plus the compiler: it is moved from
# devDependencies to dependencies in this stage's copy of package.json only (same versions, so `npm ci` still
# finds the lockfile in sync), then `npm ci --omit=dev` installs the rest of the production tree. No install
# scripts run: none of these packages needs one.
FROM base AS prod-deps
COPY --from=manifests /manifests/ ./
RUN --mount=type=cache,target=/root/.npm,sharing=locked \
    node -e ' \
      const fs = require("node:fs"); \
      const pkg = JSON.parse(fs.readFileSync("package.json", "utf8")); \
      for (const name of ["@swc/core"]) { \
        const version = pkg.dependencies?.[name] ?? pkg.devDependencies?.[name]; \
        if (!version) throw new Error(`package.json names no ${name}: the services need it at run time`); \
        pkg.dependencies = { ...pkg.dependencies, [name]: version }; \
        if (pkg.devDependencies) delete pkg.devDependencies[name]; \
      } \
      fs.writeFileSync("package.json", JSON.stringify(pkg, null, 2)); \
    ' \
 && npm ci --omit=dev --ignore-scripts --no-audit --no-fund

# Everything the services need at run time, shared by every service target (one layer set for all six images).
FROM base AS runtime
COPY --from=prod-deps /app/ ./
COPY package.json tsconfig.json tsconfig.base.json ./
COPY libs/ ./libs/
COPY services/ ./services/
COPY deploy/docker/healthcheck.js ./deploy/docker/healthcheck.js
COPY deploy/runtime/ ./deploy/runtime/
# Every source compiled once, here: the build fails, not the rollout, when the compiler is incomplete (no native swc
# binding, say), and the containers start from the cache without loading it.
RUN node deploy/runtime/build.js
# Non-HTTP services serve /healthz, /readyz and /metrics on HEALTH_PORT.
ENV HEALTH_PORT=9464
USER 1000:1000
STOPSIGNAL SIGTERM

FROM runtime AS billing-sync
EXPOSE 9464
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
  CMD ["node", "deploy/docker/healthcheck.js", "HEALTH_PORT", "9464"]
CMD ["node", "-r", "./deploy/runtime/ts-hook.js", "services/billing-sync/src/main.ts"]

FROM runtime AS identity-sync
EXPOSE 9464
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
  CMD ["node", "deploy/docker/healthcheck.js", "HEALTH_PORT", "9464"]
CMD ["node", "-r", "./deploy/runtime/ts-hook.js", "services/identity-sync/src/main.ts"]

FROM runtime AS app-worker
EXPOSE 9464
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
  CMD ["node", "deploy/docker/healthcheck.js", "HEALTH_PORT", "9464"]
CMD ["node", "-r", "./deploy/runtime/ts-hook.js", "services/app-worker/src/main.ts"]

FROM runtime AS scheduler
EXPOSE 9464
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
  CMD ["node", "deploy/docker/healthcheck.js", "HEALTH_PORT", "9464"]
CMD ["node", "-r", "./deploy/runtime/ts-hook.js", "services/scheduler/src/main.ts"]

FROM runtime AS dispatcher
ENV PORT=3100
EXPOSE 3100
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
  CMD ["node", "deploy/docker/healthcheck.js", "PORT", "3100"]
CMD ["node", "-r", "./deploy/runtime/ts-hook.js", "services/dispatcher/src/main.ts"]

# The console's front end (React, built by Vite into static files): built in a stage of its own with the whole
# dependency tree (Vite, React and the rest are devDependencies), so the runtime images carry none of it, only the
# built files the console serves.
FROM base AS console-web
COPY --from=manifests /manifests/ ./
RUN --mount=type=cache,target=/root/.npm,sharing=locked \
    npm ci --include=dev --ignore-scripts --no-audit --no-fund
COPY services/console/web/ ./services/console/web/
RUN node node_modules/vite/bin/vite.js build --config services/console/web/vite.config.mts --logLevel warn

# The console: the operators' pages and the endpoint portal over HTTP on 3200, with /healthz, /readyz, /metrics.
FROM runtime AS console
COPY --from=console-web /app/services/console/web/dist/ ./services/console/web/dist/
ENV PORT=3200
EXPOSE 3200
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
  CMD ["node", "deploy/docker/healthcheck.js", "PORT", "3200"]
CMD ["node", "-r", "./deploy/runtime/ts-hook.js", "services/console/src/main.ts"]

# Last, so a build without --target gives the gateway. It serves webhooks on PORT, /readyz and /metrics on HEALTH_PORT.
FROM runtime AS gateway
ENV PORT=3000
EXPOSE 3000 9463
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
  CMD ["node", "deploy/docker/healthcheck.js", "HEALTH_PORT", "9463"]
CMD ["node", "-r", "./deploy/runtime/ts-hook.js", "services/gateway/src/main.ts"]
