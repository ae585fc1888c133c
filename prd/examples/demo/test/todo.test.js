import assert from "node:assert/strict";
import test from "node:test";
import { formatTask } from "../src/format.js";
import { completeTask, createTask, openTasks } from "../src/todo.js";

test("a new task is open, with a tidy title", () => {
  assert.deepEqual(createTask("  buy   milk ", 1), { id: 1, title: "Buy milk", done: false });
});

test("completing a task leaves the original unchanged", () => {
  const task = createTask("call bob", 2);
  assert.equal(completeTask(task).done, true);
  assert.equal(task.done, false);
});

test("open tasks and their text lines", () => {
  const tasks = [createTask("a", 1), completeTask(createTask("b", 2))];
  assert.deepEqual(openTasks(tasks).map(formatTask), ["[ ] A"]);
});
