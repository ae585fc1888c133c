import { fileURLToPath } from "node:url";
import { defineConfig } from "vite";

// The console's front end, built into the package's dist/web so an installed package serves it
// offline (no CDN). Preact's automatic JSX runtime; one hashed script and one stylesheet.
export default defineConfig({
  root: fileURLToPath(new URL(".", import.meta.url)),
  base: "/",
  oxc: { jsx: { runtime: "automatic", importSource: "preact" } },
  build: {
    outDir: fileURLToPath(new URL("../dist/web", import.meta.url)),
    emptyOutDir: true,
    target: "es2022",
    reportCompressedSize: false,
  },
});
