"""Tasks for the SDK's `MCPServer`, as an extension (SEP-2133): the same store and wire as the low-level
`serve_tools(..., tasks=...)` (_task_store.py, _task_wire.py).

    tasks = Tasks()
    tasks.supports("slow_compute")                     # or "required": only ever a task
    mcp = MCPServer("demo", extensions=[tasks, variants], middleware=[variants.middleware])

List it first: its interceptor then wraps the whole call (Variants' selection, the tool, the projection), which
runs in the background, and the task's result is that call's wire result.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.extension import Extension, MethodBinding
from mcp_types import CallToolRequestParams

from ._task_store import MemoryTaskStore, TaskStore
from ._task_wire import TASKS_EXTENSION, TaskParams, TaskSupport, created, requested_ttl, task_methods, task_owner, task_result, wants_task


class Tasks(Extension):
    """`io.modelcontextprotocol/tasks` on an MCPServer: tools/call of a supporting tool as a task, and tasks/*."""

    identifier = TASKS_EXTENSION

    def __init__(self, store: TaskStore | None = None) -> None:
        self.store = store if store is not None else MemoryTaskStore()
        self._support: dict[str, TaskSupport] = {}

    def supports(self, name: str, how: TaskSupport = "optional") -> None:
        """The tool `name` may run as a task ("optional"), or only as one ("required": -32021 for a client
        without the extension)."""
        self._support[name] = how

    def methods(self) -> Sequence[MethodBinding]:
        return [MethodBinding(method, TaskParams, handler) for method, handler in task_methods(self.store)]

    async def intercept_tool_call(self, params: CallToolRequestParams, ctx: ServerRequestContext[Any, Any],
                                  call_next: CallNext) -> HandlerResult:
        if not wants_task(ctx, self._support.get(params.name)):
            return await call_next(ctx)
        task = await self.store.start(task_owner(ctx), lambda: task_result(lambda: call_next(ctx)), requested_ttl(ctx))
        return created(ctx, task, self.store)
