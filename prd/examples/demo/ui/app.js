import { formatTask } from "../src/format.js";
import { createTask, openTasks } from "../src/todo.js";

const tasks = [createTask("write the demo", 1), createTask("run it", 2)];
const list = document.getElementById("tasks");
for (const task of openTasks(tasks)) {
  const item = document.createElement("li");
  item.textContent = formatTask(task);
  list.append(item);
}
