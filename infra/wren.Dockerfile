# One image for every Wren role: the command picks the role (capture | ingest | api | decide | recordings,
# or start for embedded mode). It wraps the two commands the tests run natively (test/deploy/build.test.ts):
# `npm run build` (the compiled JavaScript, and the web app and player bundled from web/ and
# services/recordings/player/) and `node dist/services/main.js` (no tsx, no bundling at run time).
# No container registry is reachable where Wren is built, so this file itself is not built there.

# Node 22, the newest of its line: package.json's engines (^22.22.0 || >=24, what every dependency allows) and the
# README say the same (test/deploy/compose.test.ts).
# Build: every dependency (esbuild, tsx), the sources, the bundles.
FROM node:22-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json ./
COPY scripts ./scripts
COPY schemas ./schemas
COPY services ./services
COPY web ./web
RUN npm run build

# The run-time dependencies only.
FROM node:22-bookworm-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund

FROM node:22-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production HOST=0.0.0.0 PORT=8000 WREN_DATA_DIR=/data
COPY --from=deps /app/node_modules ./node_modules
# dist/ holds services/main.js, the web app and player bundles (browser/), schemas/ and its package.json.
COPY --from=build /app/dist ./dist
# Embedded mode (start) keeps its data in /data: mount a volume there. Cluster roles do not use it.
RUN mkdir -p /data && chown node:node /data
USER node
EXPOSE 8000
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.PORT||8000)+'/_readyz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
ENTRYPOINT ["node", "dist/services/main.js"]
CMD ["start"]
