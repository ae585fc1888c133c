import { Fragment } from "preact";
import { useState } from "preact/hooks";
import type { CoverageView, ToolRow, ToolsView } from "../../../src/ToolsSource.js";
import { ApiError, api, plural, useApi } from "../api.js";
import { Loading, Section } from "../components.js";

function annotationText(a: Record<string, unknown> | undefined): string {
  if (!a) return "–";
  const hints = Object.entries(a)
    .filter(([k, v]) => k.endsWith("Hint") && v === true)
    .map(([k]) => k.replace(/Hint$/, ""));
  return hints.join(", ") || "–";
}

function Editor({ tool, view, done }: { tool: ToolRow; view: ToolsView; done: (message: string) => void }) {
  const [picked, setPicked] = useState<Set<string>>(new Set(tool.capabilities));
  const [key, setKey] = useState(tool.override?.key ?? tool.qualifiedName);
  const [busy, setBusy] = useState(false);
  const save = async (capabilities: string[] | null) => {
    setBusy(true);
    try {
      await api(`/api/tools/${encodeURIComponent(key)}/capabilities`, { method: "PUT", body: { capabilities } });
      done(
        capabilities
          ? `${key}: ${capabilities.join(", ") || "(none)"} written to ${view.overridesFile}`
          : `${key}: override removed from ${view.overridesFile}`,
      );
    } catch (e) {
      done(e instanceof ApiError ? `${e.message} (${e.code})` : String(e));
    } finally {
      setBusy(false);
    }
  };
  return (
    <form
      class="editor"
      aria-label={`Capabilities of ${tool.qualifiedName}`}
      onSubmit={(e) => {
        e.preventDefault();
        void save([...picked]);
      }}
    >
      <fieldset>
        <legend>Capabilities of {tool.qualifiedName}</legend>
        {view.capabilities.map((c) => (
          <label key={c.id} title={c.description}>
            <input
              type="checkbox"
              name="capability"
              value={c.id}
              checked={picked.has(c.id)}
              onChange={(e) => {
                const next = new Set(picked);
                if ((e.target as HTMLInputElement).checked) next.add(c.id);
                else next.delete(c.id);
                setPicked(next);
              }}
            />{" "}
            {c.id}
          </label>
        ))}
      </fieldset>
      <label>
        Override key{" "}
        <select value={key} onChange={(e) => setKey((e.target as HTMLSelectElement).value)}>
          <option value={tool.qualifiedName}>{tool.qualifiedName} (this server)</option>
          <option value={tool.tool}>{tool.tool} (every server)</option>
        </select>
      </label>{" "}
      <button type="submit" disabled={busy}>
        Save override
      </button>{" "}
      {tool.override ? (
        <button type="button" disabled={busy} onClick={() => save(null)}>
          Remove override
        </button>
      ) : null}
    </form>
  );
}

/** Every discovered tool with its capabilities and their source; override editing; coverage per specialist. */
export function ToolsPage() {
  const tools = useApi<ToolsView>("/api/tools");
  const coverage = useApi<CoverageView>("/api/coverage");
  const [editing, setEditing] = useState<string | undefined>();
  const [note, setNote] = useState<string | undefined>();
  const [filter, setFilter] = useState("");
  if (!tools.data) return <Loading error={tools.error} what="tools" />;
  const view = tools.data;
  const shown = view.tools.filter(
    (t) => !filter || t.qualifiedName.includes(filter) || t.capabilities.some((c) => c.includes(filter)),
  );
  return (
    <>
      <h1>Tools</h1>
      <p class="muted">
        {plural(view.tools.length, "tool")}; overrides in <code>{view.overridesFile}</code>.
      </p>
      {view.failures.map((f) => (
        <p class="error" key={f.server} role="alert">
          {f.server}: {f.message}
        </p>
      ))}
      <p role="status" aria-live="polite">
        {note ?? ""}
      </p>
      <label for="tool-filter">Filter</label>{" "}
      <input
        id="tool-filter"
        type="search"
        value={filter}
        onInput={(e) => setFilter((e.target as HTMLInputElement).value)}
      />
      <table class="tools">
        <caption class="sr-only">Discovered tools</caption>
        <thead>
          <tr>
            <th scope="col">Tool</th>
            <th scope="col">Server</th>
            <th scope="col">Annotations</th>
            <th scope="col">Capabilities</th>
            <th scope="col">Source</th>
            <th scope="col">
              <span class="sr-only">Edit</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {shown.map((t) => (
            <Fragment key={t.qualifiedName}>
              <tr data-tool={t.qualifiedName}>
                <th scope="row" title={t.description}>
                  {t.tool}
                </th>
                <td>{t.server}</td>
                <td>{annotationText(t.annotations)}</td>
                <td>{t.capabilities.join(", ") || "–"}</td>
                <td title={t.reasons.join("; ")}>{t.source}</td>
                <td>
                  <button
                    type="button"
                    aria-expanded={editing === t.qualifiedName}
                    aria-label={`Edit capabilities of ${t.qualifiedName}`}
                    onClick={() => setEditing(editing === t.qualifiedName ? undefined : t.qualifiedName)}
                  >
                    Edit
                  </button>
                </td>
              </tr>
              {editing === t.qualifiedName ? (
                <tr>
                  <td colSpan={6}>
                    <Editor
                      tool={t}
                      view={view}
                      done={(message) => {
                        setNote(message);
                        setEditing(undefined);
                        tools.reload();
                        coverage.reload();
                      }}
                    />
                  </td>
                </tr>
              ) : null}
            </Fragment>
          ))}
        </tbody>
      </table>
      <Section title="Coverage">
        {coverage.data ? (
          <>
            <p>{coverage.data.report.percent.toFixed(1)} % of the discovered tools are reachable by some specialist.</p>
            <table>
              <thead>
                <tr>
                  <th scope="col">Specialist</th>
                  <th scope="col">Servers</th>
                  <th scope="col">Skills</th>
                  <th scope="col">On servers</th>
                  <th scope="col">Available</th>
                  <th scope="col">Mapped</th>
                  <th scope="col">Gap</th>
                </tr>
              </thead>
              <tbody>
                {coverage.data.report.specialists.map((s) => (
                  <tr key={s.name}>
                    <th scope="row">{s.name}</th>
                    <td>{s.servers.join(", ") || "–"}</td>
                    <td>{s.skills.join(", ") || "(all tools)"}</td>
                    <td>{s.universe}</td>
                    <td>{s.available}</td>
                    <td>{s.mapped}</td>
                    <td>{s.gap}</td>
                  </tr>
                ))}
              </tbody>
            </table>
            <h3>Unreachable tools ({coverage.data.report.unreachable.length})</h3>
            {coverage.data.report.unreachable.length ? (
              <table>
                <thead>
                  <tr>
                    <th scope="col">Tool</th>
                    <th scope="col">Why</th>
                  </tr>
                </thead>
                <tbody>
                  {coverage.data.report.unreachable.map((u) => (
                    <tr key={u.qualifiedName}>
                      <th scope="row">{u.qualifiedName}</th>
                      <td>{u.reason}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            ) : (
              <p class="muted">Every tool is reachable.</p>
            )}
          </>
        ) : (
          <Loading error={coverage.error} what="coverage" />
        )}
      </Section>
    </>
  );
}
