"""Tasks on the wire, on the SDK's low-level `Server` (_task_store.py keeps them).

- 2025-11-25: the revision's experimental tasks: the `tasks` capability, `execution.taskSupport` on tools, a
  `task` param on tools/call, `tasks/get`, `tasks/result`, `tasks/list`, `tasks/cancel`.
- 2026-07-28 and 2026-12-01: the `io.modelcontextprotocol/tasks` extension (SEP-2663). The server decides: a
  tool that supports tasks answers a client that negotiated the extension with a flat CreateTaskResult
  (`resultType: "task"`, `ttlMs`, `pollIntervalMs`); `tasks/get` inlines the result or the error,
  `tasks/update` and `tasks/cancel` answer an empty ack, and `tasks/result` and `tasks/list` (removed by
  SEP-2663) are -32601. A client that did not negotiate it gets -32021 from tasks/*, and a `required` tool's
  tools/call gets -32021 too; an `optional` one runs as any call.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Any, Final, Literal

from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.shared.exceptions import MCPError
from mcp_types import RequestParams
from pydantic import BaseModel

from ..protocol.errors import INVALID_PARAMS, ProtocolError
from ..protocol.jsonrpc import METHOD_NOT_FOUND
from ..protocol.versions import HANDSHAKE_VERSIONS
from ._requests import client_key, negotiated_extensions
from ._task_store import Task, TaskStatus, TaskStore, iso
from ._tunnel import tunnel, unwrap_result

TASKS_EXTENSION: Final[str] = "io.modelcontextprotocol/tasks"
MISSING_CLIENT_CAPABILITY: Final[int] = -32021
RELATED_TASK: Final[str] = "io.modelcontextprotocol/related-task"
STATELESS_OWNER: Final[str] = "stateless"  # docs/reference/tasks.md: the server's one principal
TaskSupport = Literal["optional", "required"]
# 2025-11-25's capability: tools/call may be a task; tasks can be listed and cancelled.
LEGACY_CAPABILITY: Final[dict[str, Any]] = {"list": {}, "cancel": {}, "requests": {"tools": {"call": {}}}}


class TaskParams(RequestParams):
    taskId: str | None = None
    inputResponses: dict[str, Any] | None = None


def task_owner(ctx: ServerRequestContext[Any, Any]) -> str:
    """Whose task this request may start or read: its connection or HTTP session, else the stateless principal."""
    return client_key(ctx) or STATELESS_OWNER


def legacy_era(ctx: ServerRequestContext[Any, Any]) -> bool:
    return ctx.protocol_version in HANDSHAKE_VERSIONS


def wants_task(ctx: ServerRequestContext[Any, Any], support: TaskSupport | None) -> bool:
    """Whether this tools/call becomes a task: at 2025-11-25 when the client asked (`task`), and later when the
    client negotiated the extension (the server decides); -32021 for a `required` tool that can be neither."""
    if support is None:
        return False
    if legacy_era(ctx):
        asked = isinstance((ctx.params or {}).get("task"), Mapping)
        if support == "required" and not asked:
            raise MCPError(INVALID_PARAMS, "This tool runs only as a task: send tools/call with `task`")
        return asked and ctx.protocol_version == "2025-11-25"
    if TASKS_EXTENSION in negotiated_extensions(ctx, (TASKS_EXTENSION,)):
        return True
    if support == "required":
        raise missing_extension()
    return False


def missing_extension() -> MCPError:
    return MCPError(MISSING_CLIENT_CAPABILITY, f"This request needs the client capability {TASKS_EXTENSION}",
                    {"requiredCapabilities": {"extensions": {TASKS_EXTENSION: {}}}})


def requested_ttl(ctx: ServerRequestContext[Any, Any]) -> int | None:
    task = (ctx.params or {}).get("task")
    ttl = task.get("ttl") if isinstance(task, Mapping) else None
    return ttl if isinstance(ttl, int) and not isinstance(ttl, bool) else None


def created(ctx: ServerRequestContext[Any, Any], task: Task, store: TaskStore) -> dict[str, Any]:
    """The tools/call answer that started `task`. At 2025-11-25 the SDK would refuse a CreateTaskResult as an
    invalid CallToolResult: it goes through the tunnel (_tunnel.py), which every transport of ours opens."""
    if legacy_era(ctx):
        return tunnel("tools/call", {"task": _legacy_task(task, store)})
    return {"resultType": "task", **_task(task, store)}


def _task(task: Task, store: TaskStore) -> dict[str, Any]:
    entry: dict[str, Any] = {"taskId": task.task_id, "status": task.status.value, "createdAt": iso(task.created_at),
                             "lastUpdatedAt": iso(task.last_updated_at), "ttlMs": task.ttl_ms,
                             "pollIntervalMs": store.poll_interval_ms}
    if task.status_message:
        entry["statusMessage"] = task.status_message
    return entry


def _legacy_task(task: Task, store: TaskStore) -> dict[str, Any]:
    entry = _task(task, store)
    entry["ttl"], entry["pollInterval"] = entry.pop("ttlMs"), entry.pop("pollIntervalMs")
    return entry


def _detailed(task: Task, store: TaskStore) -> dict[str, Any]:
    """SEP-2663's DetailedTask: the task, with its result or its error once it ended."""
    entry = _task(task, store)
    if task.status is TaskStatus.COMPLETED and task.result is not None:
        entry["result"] = task.result
    elif task.status is TaskStatus.FAILED and task.error is not None:
        entry["error"] = task.error
    return entry


Handler = Callable[[ServerRequestContext[Any, Any], TaskParams], Awaitable[dict[str, Any]]]


async def task_result(call: Callable[[], Awaitable[Any]]) -> dict[str, Any]:
    """A task's run: the call's wire result as a dict (a model dumped, the tunnel opened: tasks/get is no
    method the SDK re-validates); an MCPError raised is the failed task's error."""
    try:
        result = await call()
    except MCPError as exc:
        data = exc.error.data
        raise ProtocolError(exc.error.code, exc.error.message, data if isinstance(data, dict) else {}) from None
    if isinstance(result, BaseModel):
        result = result.model_dump(by_alias=True, mode="json", exclude_none=True)
    return unwrap_result(dict(result))


def serve_tasks(server: Server[Any], store: TaskStore) -> None:
    """tasks/get, tasks/update, tasks/cancel, tasks/result and tasks/list on `server`, for every era."""
    for method, handler in task_methods(store):
        server.add_request_handler(method, TaskParams, handler)


def task_methods(store: TaskStore) -> list[tuple[str, Handler]]:
    """The tasks/* methods and their handlers (the low-level Server's, or an MCPServer extension's bindings)."""

    def gated(handler: Handler, modern: bool, legacy: bool) -> Handler:
        async def handle(ctx: ServerRequestContext[Any, Any], params: TaskParams) -> dict[str, Any]:
            if not legacy_era(ctx):
                if not modern:
                    raise MCPError(METHOD_NOT_FOUND, "Method not found: SEP-2663 removed it (tasks/get inlines the result)")
                if TASKS_EXTENSION not in negotiated_extensions(ctx, (TASKS_EXTENSION,)):
                    raise missing_extension()
            elif not legacy or ctx.protocol_version != "2025-11-25":
                raise MCPError(METHOD_NOT_FOUND, "Method not found at this protocol version")
            try:
                return await handler(ctx, params)
            except ProtocolError as exc:
                raise MCPError(exc.code, exc.message, exc.data) from None

        return handle

    async def get(ctx: ServerRequestContext[Any, Any], params: TaskParams) -> dict[str, Any]:
        task = await store.get(task_owner(ctx), params.taskId)
        return _legacy_task(task, store) if legacy_era(ctx) else _detailed(task, store)

    async def update(ctx: ServerRequestContext[Any, Any], params: TaskParams) -> dict[str, Any]:
        await store.get(task_owner(ctx), params.taskId)  # no tool of ours asks for input mid-run: responses are ignored
        return {}

    async def cancel(ctx: ServerRequestContext[Any, Any], params: TaskParams) -> dict[str, Any]:
        task = await store.cancel(task_owner(ctx), params.taskId)
        return _legacy_task(task, store) if legacy_era(ctx) else {}

    async def result(ctx: ServerRequestContext[Any, Any], params: TaskParams) -> dict[str, Any]:
        task = await store.settled(task_owner(ctx), params.taskId)
        if task.status is TaskStatus.FAILED and task.error is not None:
            raise ProtocolError(task.error["code"], task.error["message"], task.error.get("data") or {})
        if task.result is None:
            raise ProtocolError(INVALID_PARAMS, f"Task {task.task_id} was {task.status.value}: it has no result")
        return {**task.result, "_meta": {**task.result.get("_meta", {}), RELATED_TASK: {"taskId": task.task_id}}}

    async def listed(ctx: ServerRequestContext[Any, Any], params: TaskParams) -> dict[str, Any]:
        return {"tasks": [_legacy_task(t, store) for t in await store.list(task_owner(ctx))]}

    # (method, handler, served with the extension at 2026-07-28 and later, served at 2025-11-25)
    served = (("tasks/get", get, True, True), ("tasks/update", update, True, False), ("tasks/cancel", cancel, True, True),
              ("tasks/result", result, False, True), ("tasks/list", listed, False, True))
    return [(method, gated(handler, modern, legacy)) for method, handler, modern, legacy in served]
