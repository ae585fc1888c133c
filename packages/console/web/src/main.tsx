import { render } from "preact";
import { useEffect, useState } from "preact/hooks";
import { useLiveStatus } from "./api.js";
import { HealthPage } from "./pages/HealthPage.js";
import { QueuePage } from "./pages/QueuePage.js";
import { RunPage } from "./pages/RunPage.js";
import { RunsPage } from "./pages/RunsPage.js";
import { ToolsPage } from "./pages/ToolsPage.js";
import "./style.css";

const PAGES = [
  { id: "runs", label: "Runs" },
  { id: "queue", label: "Queue" },
  { id: "tools", label: "Tools" },
  { id: "health", label: "Health" },
] as const;

function useHash(): string {
  const [hash, setHash] = useState(location.hash);
  useEffect(() => {
    const on = () => setHash(location.hash);
    addEventListener("hashchange", on);
    return () => removeEventListener("hashchange", on);
  }, []);
  return hash;
}

function App() {
  const hash = useHash();
  const live = useLiveStatus();
  const [path = "", query = ""] = hash.replace(/^#\/?/, "").split("?");
  const [page = "runs", ...rest] = path.split("/");
  const runId = page === "runs" && rest.length ? decodeURIComponent(rest.join("/")) : undefined;
  const params = new URLSearchParams(query);
  const view = params.get("view") ?? "tree";
  const story = params.get("story") ?? undefined;
  useEffect(() => {
    const label = PAGES.find((p) => p.id === page)?.label ?? "Runs";
    document.title = `${runId ?? label} · meshflow console`;
  }, [page, runId]);
  return (
    <>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header>
        <span class="brand">meshflow console</span>
        <nav aria-label="Pages">
          <ul>
            {PAGES.map((p) => (
              <li key={p.id}>
                <a href={`#/${p.id}`} aria-current={p.id === page ? "page" : undefined}>
                  {p.label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <span class={live ? "live up" : "live"} role="status">
          {live ? "live" : "offline"}
        </span>
      </header>
      <main id="main" tabIndex={-1}>
        {page === "queue" ? (
          <QueuePage />
        ) : page === "tools" ? (
          <ToolsPage />
        ) : page === "health" ? (
          <HealthPage />
        ) : runId ? (
          <RunPage runId={runId} view={view} story={story} />
        ) : (
          <RunsPage />
        )}
      </main>
    </>
  );
}

const root = document.getElementById("app");
if (root) render(<App />, root);
