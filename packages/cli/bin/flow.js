#!/usr/bin/env node
// The installed `flow` command. It exists before the first build so npm can link it at install
// time; the program itself is the compiled dist/bin.js.
try {
  await import("../dist/bin.js");
} catch (error) {
  if (error?.code === "ERR_MODULE_NOT_FOUND" && String(error.message).includes("dist/bin.js")) {
    process.stderr.write("flow: @meshflow/cli is not built yet: run `npm run build` in the repository root\n");
    process.exit(3);
  }
  throw error;
}
