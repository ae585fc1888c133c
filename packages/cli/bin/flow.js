#!/usr/bin/env node
// The installed `flow` command. It exists before the first build so npm can link it at install
// time; the program itself is the compiled and bundled dist/bundle/bin.js.
import { setFlagsFromString } from "node:v8";

// flow spends its time waiting on tools and models, not computing: by default V8 is told to keep
// the heap small (a run of thousands of stories then needs about half the memory, at no measured
// cost in time). FLOW_MEMORY=fast keeps V8's own default, which grows the heap more eagerly.
// `flow run` and `flow resume` turn it on themselves once they have loaded (src/runV8Flags.ts).
const memory = process.env.FLOW_MEMORY ?? "lean";
const later = process.argv[2] === "run" || process.argv[2] === "resume";
if (memory === "lean" && !later) setFlagsFromString("--optimize-for-size");
else if (memory !== "lean" && memory !== "fast") {
  process.stderr.write(`flow: FLOW_MEMORY must be "lean" or "fast", not "${memory}"\n`);
  process.exit(2);
}
try {
  await import("../dist/bundle/bin.js");
} catch (error) {
  if (error?.code === "ERR_MODULE_NOT_FOUND" && String(error.message).includes("dist/bundle/bin.js")) {
    process.stderr.write("flow: @meshflow/cli is not built yet: run `npm run build` in the repository root\n");
    process.exit(3);
  }
  throw error;
}
