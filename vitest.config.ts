import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

const root = fileURLToPath(new URL(".", import.meta.url));

export default defineConfig({
  resolve: {
    alias: [
      // Tests import packages by their public names; resolve them to sources so no build is needed
      // for unit tests. End-to-end tests spawn the built `flow` binary instead.
      { find: /^@meshflow\/([\w-]+)\/([\w-]+)$/, replacement: `${root}packages/$1/src/$2.ts` },
      { find: /^@meshflow\/([\w-]+)$/, replacement: `${root}packages/$1/src/index.ts` },
    ],
  },
  test: {
    include: ["packages/*/src/**/*.test.ts", "tests/**/*.test.ts", "agents/**/*.test.ts"],
    globalSetup: ["tests/setup/globalSetup.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: "forks",
    // Most end-to-end files wait on child processes (MCP servers, redis-server, flow workers) rather
    // than compute, so a third worker on a 2-core machine shortens the suite without starving them.
    maxWorkers: 3,
  },
});
