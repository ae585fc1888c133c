import { UNIVERSAL_TOOL_KINDS, UniversalTool } from "@meshflow/core";
import { toolMapOf } from "@meshflow/resolver";
import matter from "gray-matter";
import { describe, expect, it } from "vitest";
import { baseToolMap } from "../model/baseToolMap.js";
import { specialist, TOOLS } from "../test-support/exportFixture.js";
import { markdownFile } from "../write/markdownFile.js";
import { parseHarness } from "./AgentHarness.js";
import { type AgentRender, harnessTools } from "./HarnessWriter.js";
import { AGENT_HARNESSES } from "./harnessNames.js";
import { harnessWriter } from "./harnessWriters.js";

const everyUniversal = UNIVERSAL_TOOL_KINDS.map((k) => UniversalTool[k]);

function render(harness: (typeof AGENT_HARNESSES)[number], extra: Partial<AgentRender> = {}): AgentRender {
  const s = specialist("development-agent", { harnessTools: [UniversalTool.read, UniversalTool.bash] });
  const tools = harnessTools(harnessWriter(harness), baseToolMap(s, toolMapOf(TOOLS)));
  return { specialist: s, tools, extras: {}, ...extra };
}

describe("harness tool names", () => {
  it("names every universal tool as each harness's documentation does", () => {
    const names = Object.fromEntries(
      AGENT_HARNESSES.map((h) => [h, everyUniversal.map((t) => harnessWriter(h).universalName(t))]),
    );
    expect(names).toEqual({
      "claude-code": ["Read", "Write", "Edit", "Bash", "Grep", "Glob", "WebFetch", "WebSearch", "TodoWrite", "Agent"],
      opencode: ["read", "edit", "edit", "bash", "grep", "glob", "webfetch", "websearch", "todowrite", "task"],
      copilot: ["read", "edit", "edit", "execute", "search", "search", "web", "web", "todo", "agent"],
    });
  });

  it("names MCP tools per harness: mcp__server__tool, server_tool (sanitised), server/tool", () => {
    const names = (h: (typeof AGENT_HARNESSES)[number]) =>
      harnessTools(harnessWriter(h), toolMapOf(TOOLS)).map((t) => t.name);
    expect(names("claude-code")).toEqual([
      "mcp__filesystem__read_text_file",
      "mcp__filesystem__write_file",
      "mcp__kg_store__read_graph",
      "mcp__kg_store__create_entities",
    ]);
    expect(names("opencode")).toEqual([
      "filesystem_read_text_file",
      "filesystem_write_file",
      "kg_store_read_graph",
      "kg_store_create_entities",
    ]);
    expect(names("copilot")).toEqual([
      "filesystem/read_text_file",
      "filesystem/write_file",
      "kg.store/read_graph",
      "kg.store/create_entities",
    ]);
  });

  it("lists a harness name once when two universal tools share it, and writes custom tools verbatim", () => {
    const s = specialist("x", { harnessTools: [...everyUniversal, UniversalTool.custom("NotebookEdit")] });
    const copilot = harnessTools(harnessWriter("copilot"), baseToolMap(s, new Map()));
    expect(copilot.map((t) => t.name)).toEqual([
      "read",
      "edit",
      "execute",
      "search",
      "web",
      "todo",
      "agent",
      "NotebookEdit",
    ]);
    expect(copilot.find((t) => t.name === "search")?.keys).toEqual(["grep", "glob"]);
    expect(copilot.at(-1)?.kind).toBe("custom");
  });

  it("parseHarness refuses an unknown harness with a suggestion", () => {
    expect(() => parseHarness("claude")).toThrow(/unknown harness "claude" \(did you mean "claude-code"\?\)/);
  });
});

describe("claude-code writer", () => {
  const writer = harnessWriter("claude-code");

  it("writes name, description and a comma-separated tools list; the body is the instructions", () => {
    const { frontmatter, body } = writer.markdown(render("claude-code", { extras: { model: "sonnet" } }));
    expect(frontmatter).toEqual({
      name: "development-agent",
      description: "The development-agent: does its steps.",
      tools:
        "Read, Bash, mcp__filesystem__read_text_file, mcp__filesystem__write_file, mcp__kg_store__read_graph, mcp__kg_store__create_entities",
      model: "sonnet",
    });
    expect(body).toBe("# development-agent\n\nDo the step, report evidence.");
  });

  it("the JSON entry is what claude --agents takes: description, prompt, tools as an array", () => {
    expect(writer.entry(render("claude-code"))).toMatchObject({
      description: "The development-agent: does its steps.",
      prompt: "# development-agent\n\nDo the step, report evidence.",
      tools: expect.arrayContaining(["Read", "mcp__kg_store__read_graph"]),
    });
  });

  it("refuses an empty tool map: Claude Code would read a missing list as every tool", () => {
    expect(() => writer.markdown(render("claude-code", { tools: [] }))).toThrow(
      /"development-agent" has no tools for claude-code/,
    );
  });
});

describe("opencode writer", () => {
  const writer = harnessWriter("opencode");

  it("denies everything, then allows the map's tools; destructive MCP tools ask", () => {
    const { frontmatter } = writer.markdown(render("opencode"));
    expect(frontmatter).toEqual({
      description: "The development-agent: does its steps.",
      mode: "subagent",
      permission: {
        "*": "deny",
        read: "allow",
        bash: "allow",
        filesystem_read_text_file: "allow",
        filesystem_write_file: "ask",
        kg_store_read_graph: "allow",
        kg_store_create_entities: "allow",
      },
    });
    expect(Object.keys(frontmatter.permission as object)[0]).toBe("*");
  });

  it("the export config may choose the mode; an empty map denies everything", () => {
    const { frontmatter } = writer.markdown(
      render("opencode", { tools: [], extras: { mode: "all", temperature: 0.1 } }),
    );
    expect(frontmatter).toEqual({
      description: "The development-agent: does its steps.",
      mode: "all",
      temperature: 0.1,
      permission: { "*": "deny" },
    });
  });
});

describe("copilot writer", () => {
  const writer = harnessWriter("copilot");

  it("writes tools as a list of aliases and server/tool names; an empty map is tools: []", () => {
    expect(writer.markdown(render("copilot")).frontmatter.tools).toEqual([
      "read",
      "execute",
      "filesystem/read_text_file",
      "filesystem/write_file",
      "kg.store/read_graph",
      "kg.store/create_entities",
    ]);
    const empty = writer.markdown(render("copilot", { tools: [] }));
    expect(matter(markdownFile(empty.frontmatter, empty.body)).data.tools).toEqual([]);
  });

  it("refuses instructions longer than Copilot's 30,000-character prompt", () => {
    const long = specialist("docs-agent", { instructions: "x".repeat(30_001) });
    expect(() => writer.markdown({ specialist: long, tools: [], extras: {} })).toThrow(/at most 30000/);
  });
});

describe("markdownFile", () => {
  it("writes frontmatter a real parser reads back exactly, whatever the description holds", () => {
    const description = `- starts like a list: has "quotes", a # hash, colons: and 'apostrophes'`;
    for (const harness of AGENT_HARNESSES) {
      const r = render(harness);
      const { frontmatter, body } = harnessWriter(harness).markdown({
        ...r,
        specialist: { ...r.specialist, description },
      });
      const parsed = matter(markdownFile(frontmatter, body, " generated"));
      expect(parsed.data).toEqual(frontmatter);
      expect(parsed.content.trim()).toBe(body);
    }
  });
});
