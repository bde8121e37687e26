"""Long tool calls as tasks (`io.modelcontextprotocol/tasks`; `task` at 2025-11-25): not SEP-3279, beside it.

`Tasks` is the `MCPServer` extension (list it before `Variants`); `TaskStore` the store both it and the
low-level `serve_tools(..., tasks=TaskStore())` keep tasks in (docs/reference/tasks.md).
"""

from ._task_extension import Tasks
from ._task_store import Task, TaskStatus, TaskStore

__all__ = ["Task", "TaskStatus", "TaskStore", "Tasks"]
