# syntax=docker/dockerfile:1
# Threshold: the sign-in page and its edge server.
#   docker build -t threshold .
#   docker run -p 8080:8080 -v threshold-data:/data threshold
# The runtime is Node 24 LTS, the Node that CI's whole suite runs on (.ci/run
# reads the major from the line below; a test keeps package.json's `node`
# devDependency on the same major). NODE_VERSION overrides it.
ARG NODE_VERSION=24

# Build: all packages, then the client bundle and the server into dist/.
FROM node:${NODE_VERSION}-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json build.mjs ./
COPY build build
COPY client client
COPY common common
COPY server server
COPY proto proto
COPY conformance conformance
# The conformance check's copy of the accounts contract goes into dist/docs/ (build/server.mjs).
COPY docs/accounts-api.openapi.yaml docs/accounts-api.openapi.yaml
# The build also fills dist/compile-cache/, but for root: the runtime stage
# fills its own, as the user the container runs as.
RUN node build.mjs && rm -rf dist/compile-cache

# Production dependencies only (what .ci/production-install-check runs too).
FROM node:${NODE_VERSION}-bookworm-slim AS production-dependencies
WORKDIR /app
# better-sqlite3 ships its native module prebuilt (Node-API), so no compiler is needed.
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force

# Runtime: no sources, no development packages, not root.
FROM node:${NODE_VERSION}-bookworm-slim
ENV NODE_ENV=production PORT=8080 HOST=0.0.0.0 DATA_DIR=/data
WORKDIR /app
COPY --from=production-dependencies /app/node_modules node_modules
COPY --from=build /app/dist dist
COPY package.json ./
RUN mkdir -p /data dist/compile-cache && chown node:node /data dist/compile-cache
USER node
# Node's compile cache is kept per Node version, V8 flags and user, so it is
# filled here, as `node`, with the NODE_OPTIONS the container will run with
# (pass them with --build-arg NODE_OPTIONS=… and -e NODE_OPTIONS=…). A container
# run as another user compiles the edge from source: about 45 ms slower.
ARG NODE_OPTIONS
RUN node dist/server/main.js --write-compile-cache
VOLUME /data
EXPOSE 8080
STOPSIGNAL SIGTERM
HEALTHCHECK --interval=10s --timeout=3s --start-period=10s --retries=3 \
  CMD ["node", "-e", "fetch(`http://127.0.0.1:${process.env.PORT}/healthz`).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
CMD ["node", "dist/server/main.js"]
