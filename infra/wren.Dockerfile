# One image for every Wren role; the command picks the role (wren capture | ingest | api | decide | recordings | all).
FROM node:20-bookworm-slim
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund
COPY services ./services
COPY schemas ./schemas
COPY bin ./bin
COPY tsconfig.json ./
ENV NODE_ENV=production HOST=0.0.0.0 PORT=8000
EXPOSE 8000
HEALTHCHECK --interval=10s --timeout=3s CMD node -e "fetch('http://127.0.0.1:8000/_readyz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
ENTRYPOINT ["node", "--import", "tsx", "services/main.ts"]
CMD ["all"]
