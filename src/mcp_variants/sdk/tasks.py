"""Long tool calls as tasks (`io.modelcontextprotocol/tasks`; `task` at 2025-11-25): not SEP-3279, beside it.

`Tasks` is the `MCPServer` extension (list it before `Variants`); `TaskStore` the protocol of the store both it and
the low-level `serve_tools(..., tasks=MemoryTaskStore())` keep tasks in, `MemoryTaskStore` the one in this process's
memory (docs/reference/tasks.md). A store of your own (on a database shared by many workers, as
mcp_variants.state.redis_tasks is) implements `TaskStore` with `Task` records and the helpers below.
"""

from ._task_extension import Tasks
from ._task_store import (
    DEFAULT_TTL_MS,
    MAX_TASKS_PER_OWNER,
    MAX_TTL_MS,
    POLL_INTERVAL_MS,
    MemoryTaskStore,
    Task,
    TaskStatus,
    TaskStore,
    new_task_id,
    no_such_task,
    run_outcome,
    task_ttl,
)

__all__ = [
    "DEFAULT_TTL_MS",
    "MAX_TASKS_PER_OWNER",
    "MAX_TTL_MS",
    "POLL_INTERVAL_MS",
    "MemoryTaskStore",
    "Task",
    "TaskStatus",
    "TaskStore",
    "Tasks",
    "new_task_id",
    "no_such_task",
    "run_outcome",
    "task_ttl",
]
