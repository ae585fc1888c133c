import { useState } from "preact/hooks";
import type { PrdListing } from "../../../src/projectPrds.js";
import type { LaunchedRun } from "../../../src/RunLauncher.js";
import { ApiError, api, useApi } from "../api.js";
import { PrdSearchNotes, StoryIdsNote } from "./PrdSearchNotes.js";

/** Harnesses `flow run --harness` knows (empty: the story's, the PRD's, or a model). */
const HARNESSES = ["", "claude-code", "opencode", "codex"] as const;

/**
 * Starts `flow run` on a PRD of the project: the PRD (only files of the console's project folder
 * are offered, and what the search's bounds left out is said), its stories (all by default),
 * `--parallel`, and a model or a harness. The new run opens at once.
 */
export function StartRun() {
  const { data, error } = useApi<PrdListing>("/api/prds");
  const [prd, setPrd] = useState("");
  const [stories, setStories] = useState<string[]>([]);
  const [parallel, setParallel] = useState(1);
  const [model, setModel] = useState("");
  const [harness, setHarness] = useState("");
  const [note, setNote] = useState<string | undefined>();
  if (error?.code === "usage") return null;
  const chosen = data?.prds.find((p) => p.path === prd) ?? data?.prds[0];
  const submit = async (e: Event) => {
    e.preventDefault();
    if (!chosen) return;
    try {
      const r = await api<{ launched: LaunchedRun }>("/api/runs", {
        method: "POST",
        body: {
          prd: chosen.path,
          ...(stories.length ? { stories } : {}),
          ...(parallel > 1 ? { parallel } : {}),
          ...(model.trim() ? { model: model.trim() } : {}),
          ...(harness ? { harness } : {}),
        },
      });
      setNote(`flow run ${chosen.path} started as run ${r.launched.runId} (pid ${r.launched.pid})`);
      location.hash = `#/runs/${encodeURIComponent(r.launched.runId)}`;
    } catch (err) {
      setNote(err instanceof ApiError ? `${err.message} (${err.code})` : String(err));
    }
  };
  return (
    <details class="start-run">
      <summary>Start a run</summary>
      {!data ? (
        <p class="muted">{error ? error.message : "Looking for PRDs…"}</p>
      ) : !data.prds.length ? (
        <>
          <p class="muted">
            No PRD (a JSON file with <code>userStories</code>) in {data.root}.
          </p>
          <PrdSearchNotes listing={data} />
        </>
      ) : (
        <form aria-label="Start a run" onSubmit={submit}>
          <label>
            PRD{" "}
            <select
              aria-label="PRD"
              value={chosen?.path ?? ""}
              onChange={(e) => {
                setPrd((e.currentTarget as HTMLSelectElement).value);
                setStories([]);
              }}
            >
              {data.prds.map((p) => (
                <option key={p.path} value={p.path}>
                  {p.path} ({p.storyCount} {p.storyCount === 1 ? "story" : "stories"}
                  {p.project ? `, ${p.project}` : ""})
                </option>
              ))}
            </select>
          </label>
          <label>
            Stories (none chosen: all){" "}
            <select
              aria-label="Stories"
              multiple
              size={Math.min(6, Math.max(2, chosen?.stories.length ?? 2))}
              onChange={(e) =>
                setStories([...(e.currentTarget as HTMLSelectElement).selectedOptions].map((o) => o.value))
              }
            >
              {chosen?.stories.map((id) => (
                <option key={id} value={id} selected={stories.includes(id)}>
                  {id}
                </option>
              ))}
            </select>
          </label>
          <label>
            Parallel{" "}
            <input
              aria-label="Parallel"
              type="number"
              min={1}
              max={64}
              value={parallel}
              onInput={(e) => setParallel(Number((e.currentTarget as HTMLInputElement).value) || 1)}
            />
          </label>
          <label>
            Model{" "}
            <input
              aria-label="Model"
              type="text"
              placeholder="provider:model-id (default: the PRD's)"
              value={model}
              onInput={(e) => setModel((e.currentTarget as HTMLInputElement).value)}
            />
          </label>
          <label>
            Harness{" "}
            <select
              aria-label="Harness"
              value={harness}
              onChange={(e) => setHarness((e.currentTarget as HTMLSelectElement).value)}
            >
              {HARNESSES.map((h) => (
                <option key={h} value={h}>
                  {h || "none (the story's or the PRD's)"}
                </option>
              ))}
            </select>
          </label>
          <button type="submit">Start run</button>
          {chosen ? <StoryIdsNote prd={chosen} maxIds={data.bounds.maxIds} /> : null}
          <PrdSearchNotes listing={data} />
          <p class="muted">
            Runs <code>flow run</code> in {data.root} with the console's MCP config, specialists and skills; it stops
            with Stop this run and continues with Resume, on the run's page.
          </p>
        </form>
      )}
      <p role="status" aria-live="polite">
        {note ?? ""}
      </p>
    </details>
  );
}
