"""Many workers, one state (issue 35, docs/guides/scale-out.md): `serve --http --state-url redis://…` workers on a real
`redis-server` (with a password), stateless 2026-12-01 requests sent to either as a balancer without affinity would.

- a task created through one worker is read and cancelled through the other; the cancel interrupts the run;
- a capped 200 KB print through one worker is read whole through the other (its owner), and by no one else; so is an
  image link (`--images link`);
- a worker killed (SIGKILL) mid-task: its task is `failed`, with the reason, within the lease's bound; one that
  shuts down (SIGTERM) fails its running tasks at once;
- Redis restarted mid-run: calls in between fail at once and say why; the run's result is recorded once it is back;
  with persistence (append-only file), a task made before the restart is read after it, and a run that ended while
  Redis was down is recorded once it is back;
- Redis frozen (SIGSTOP): every call that needs it answers within the deadline, saying so; no task record is left
  that no client received, every record has an expiry, and all works again once it resumes;
- `rediss://` with a CA of the test's; a Redis Cluster refused at start, in one line;
- Redis full: the write is refused and the call says so; nothing kept is dropped by Redis;
- a Redis that cannot be used stops the server at start, in one line (unreachable, a wrong or missing password worded
  as such, allkeys eviction, a Cluster);
- a jupyter-server with the extension (`MCPVariants.state_url`) shares its tasks with the workers;
- the store's own rules on Redis: owner only, the per-owner bound, namespaces apart;
- Sentinel (`redis+sentinel://`, a primary, a replica and a sentinel): the primary killed (SIGKILL) mid-run, the replica
  promoted, the run's end recorded there and a task made before still read, through both workers; a create no replica
  confirmed is refused and leaves no record; the start-up check says when no sentinel answers or the service is unknown,
  and which password sentinels with one of their own need (`?sentinel_password=`).
"""

from __future__ import annotations

import asyncio
import base64
import io
import secrets
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import redis
from PIL import Image

from mcp_variants.client.stdio import envelope
from mcp_variants.conformance.wire import HttpTarget
from mcp_variants.processes import free_port
from mcp_variants.protocol.errors import ProtocolError
from mcp_variants.state import DEADLINE_S
from mcp_variants.state.redis_client import RedisNamespace
from mcp_variants.state.redis_outputs import RedisOutputStore
from mcp_variants.state.redis_tasks import LEASE_MS, RedisTaskStore
from support.extension import ENDPOINT, extension_server
from support.output_stores import lru_within_budget, owned_and_forgotten
from support.redis_server import REDIS_SENTINEL, RedisServer, SentinelServer, require_redis, sentinel_url
from support.servers import HttpServer, serve_command
from support.waiting import marked_sleep, until

pytestmark = pytest.mark.timeout(300)

VERSION = "2026-12-01"
TASKS = "io.modelcontextprotocol/tasks"
SELECT = [{"audience": "assistant", "format": "content"}]
ENDED = ("completed", "failed", "cancelled")
LOST_BOUND_S = LEASE_MS / 1000 + 3  # the lease, a heartbeat, a reap
DEADLINE_BOUND_S = DEADLINE_S + 3  # the store's deadline (--state-timeout's default), and the HTTP round trip around it


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RedisServer]:
    require_redis()
    with RedisServer(tmp_path_factory.mktemp("redis")).start() as started:
        yield started


@pytest.fixture(scope="module")
def namespace() -> str:
    return f"test-{secrets.token_hex(4)}"


def worker(store: RedisServer, namespace: str, folder: Path, name: str) -> HttpServer:
    root = folder / name
    root.mkdir()
    return HttpServer(root, "--embedded", "--images", "link", "--state-url", store.url, "--state-namespace", namespace,
                      log=folder / f"{name}.log", fresh=True)


@pytest.fixture(scope="module")
def workers(store: RedisServer, namespace: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[list[HttpServer]]:
    folder = tmp_path_factory.mktemp("workers")
    started: list[HttpServer] = []
    try:
        for name in ("a", "b"):
            started.append(worker(store, namespace, folder, name))
        yield started
    finally:
        for server in started:
            server.close()


def rpc(server: HttpServer, method: str, params: dict[str, Any], name: str | None = None, *, tasks: bool = True) -> dict[str, Any]:
    """A stateless request (that negotiated the tasks extension unless not `tasks`); the JSON-RPC response."""
    headers = {"MCP-Protocol-Version": VERSION, "Mcp-Method": method, **({"Mcp-Name": name} if name else {})}
    exchange = server.post({"jsonrpc": "2.0", "id": server.next_id(), "method": method,
                            "params": {**params, "_meta": envelope(VERSION, {TASKS: {}} if tasks else None)}}, headers)
    assert exchange.response is not None, exchange.problem
    return exchange.response


def started(server: HttpServer, code: str) -> str:
    created = rpc(server, "tools/call", {"name": "execute_code", "arguments": {"code": code}, "requestedOutputs": SELECT},
                  "execute_code")["result"]
    assert created["resultType"] == "task" and created["status"] == "working", created
    return str(created["taskId"])


def task(server: HttpServer, task_id: str) -> dict[str, Any]:
    answer = rpc(server, "tasks/get", {"taskId": task_id})
    assert "result" in answer, answer
    return dict(answer["result"])


def settle(server: HttpServer, task_id: str, timeout: float = 60.0) -> dict[str, Any]:
    def ended() -> dict[str, Any] | None:
        found = task(server, task_id)
        return found if found["status"] in ENDED else None

    return until(ended, f"task {task_id} ended", timeout)


def text(found: dict[str, Any]) -> str:
    return "".join(block.get("text", "") for output in found["result"]["outputs"] for block in output.get("content", []))


def test_a_task_made_through_one_worker_is_read_and_cancelled_through_the_other(workers: list[HttpServer], tmp_path: Path) -> None:
    a, b = workers
    done = settle(b, started(a, "print(6 * 7)"))
    assert done["status"] == "completed" and "42" in text(done), done

    # The sleep outlasts every deadline here: only an interrupt lets the next run on A's kernel complete.
    finished = tmp_path / "finished"
    sleeping = started(a, marked_sleep(tmp_path / "begun", 600, then=f"open({str(finished)!r}, 'w').close()"))
    until((tmp_path / "begun").exists, "the run has begun")
    assert task(b, sleeping)["status"] == "working"
    assert rpc(b, "tasks/cancel", {"taskId": sleeping})["result"]["resultType"] == "complete"
    assert task(a, sleeping)["status"] == "cancelled"
    after = settle(a, started(a, "print('free')"))
    assert after["status"] == "completed" and "free" in text(after), after
    assert not finished.exists(), "the cancelled run went on past its sleep"


def test_another_namespace_is_another_deployment(store: RedisServer, workers: list[HttpServer], tmp_path: Path) -> None:
    made = started(workers[0], "1")
    other = worker(store, "another-deployment", tmp_path, "other")
    try:
        refused = rpc(other, "tasks/get", {"taskId": made})
        assert refused["error"]["message"] == f"No such task: {made}", refused
    finally:
        other.close()


def test_a_killed_workers_task_fails_within_the_bound(store: RedisServer, namespace: str, workers: list[HttpServer],
                                                      tmp_path: Path) -> None:
    doomed = worker(store, namespace, tmp_path, "doomed")
    try:
        running = started(doomed, marked_sleep(tmp_path / "begun", 120))
        until((tmp_path / "begun").exists, "the run has begun")
        assert task(workers[0], running)["status"] == "working"
        doomed.process.send_signal(signal.SIGKILL)  # type: ignore[union-attr]
        killed = time.monotonic()
        found = settle(workers[1], running, timeout=LOST_BOUND_S + 5)
        took = time.monotonic() - killed
    finally:
        doomed.close()
    assert found["status"] == "failed" and "stopped" in found["statusMessage"], found
    assert found["error"]["message"].startswith("The worker running this task stopped"), found
    assert took < LOST_BOUND_S, took


def test_a_worker_that_shuts_down_fails_its_running_tasks_at_once(store: RedisServer, namespace: str,
                                                                   workers: list[HttpServer], tmp_path: Path) -> None:
    leaving = worker(store, namespace, tmp_path, "leaving")
    try:
        running = started(leaving, marked_sleep(tmp_path / "begun", 120))
        until((tmp_path / "begun").exists, "the run has begun")
    finally:
        leaving.close()  # SIGTERM: a graceful stop
    found = task(workers[0], running)
    assert found["status"] == "failed" and found["error"]["message"].startswith("The worker running this task shut down"), found


def test_redis_restarted_mid_run_fails_calls_in_between_at_once_and_keeps_the_run(store: RedisServer,
                                                                                    workers: list[HttpServer]) -> None:
    a, b = workers
    running = started(a, "import time; time.sleep(4); print('outlived')")
    store.stop()
    try:
        began = time.monotonic()
        refused = rpc(b, "tasks/get", {"taskId": running})
        assert time.monotonic() - began < 5.0
        assert refused["error"]["code"] == -32603 and "unreachable" in refused["error"]["message"], refused
        assert store.password not in refused["error"]["message"]
    finally:
        store.start()
    found = settle(b, running)
    assert found["status"] == "completed" and "outlived" in text(found), found


WHOLE = "x" * 200_000 + "\n"


def test_a_capped_output_made_through_one_worker_is_read_whole_through_the_other(workers: list[HttpServer]) -> None:
    a, b = workers
    call = {"name": "execute_code", "arguments": {"code": f"print('x' * {len(WHOLE) - 1})"},
            "requestedOutputs": [{"audience": "assistant", "format": "structured"}]}
    structured = rpc(a, "tools/call", call, "execute_code", tasks=False)["result"]["outputs"][0]["structuredContent"]
    (full,) = structured["fullOutputs"]
    assert structured["truncated"] is True and full["bytes"] == len(WHOLE), structured
    read = rpc(b, "resources/read", {"uri": full["uri"]}, full["uri"])
    assert read["result"]["contents"][0]["text"] == WHOLE
    # A session of its own (another owner) through either worker: not kept for it, as for a URI that never was.
    session = b.target.open_session("2025-11-25", None)[0]
    refused = b.post({"jsonrpc": "2.0", "id": b.next_id(), "method": "resources/read", "params": {"uri": full["uri"]}},
                     {"Mcp-Session-Id": session or "", "MCP-Protocol-Version": "2025-11-25"}).response
    assert refused is not None and "not kept for this client" in refused["error"]["message"], refused


def test_an_image_link_made_through_one_worker_is_read_through_the_other(workers: list[HttpServer]) -> None:
    a, b = workers
    picture = io.BytesIO()
    Image.new("RGB", (7, 5), (secrets.randbelow(256), 90, 160)).save(picture, "PNG")
    png = base64.b64encode(picture.getvalue()).decode()
    code = f"from IPython.display import display; display({{'image/png': '{png}'}}, raw=True)"
    result = rpc(a, "tools/call", {"name": "execute_code", "arguments": {"code": code}, "requestedOutputs": SELECT}, "execute_code",
                 tasks=False)["result"]
    (link,) = [block for block in result["outputs"][0]["content"] if block["type"] == "resource_link"]
    read = rpc(b, "resources/read", {"uri": link["uri"]}, link["uri"])
    assert read["result"]["contents"][0]["blob"] == png, read
    session = b.target.open_session("2025-11-25", None)[0]
    refused = b.post({"jsonrpc": "2.0", "id": b.next_id(), "method": "resources/read", "params": {"uri": link["uri"]}},
                     {"Mcp-Session-Id": session or "", "MCP-Protocol-Version": "2025-11-25"}).response
    assert refused is not None and "not kept for this client" in refused["error"]["message"], refused


def test_a_sessions_stream_is_not_resumed_through_another_worker_it_is_refused(workers: list[HttpServer]) -> None:
    """A 2025-11-25 session, and its streams' events, live in the worker that made it: another worker refuses a
    reconnect with `Last-Event-ID` as a session it does not know (404), and the client initializes again there."""
    a, b = workers
    session = a.target.open_session("2025-11-25", None)[0]
    assert session
    headers = {"Mcp-Session-Id": session, "MCP-Protocol-Version": "2025-11-25", "Last-Event-ID": "1",
               "Accept": "text/event-stream"}
    refused = httpx.get(b.url, headers=headers, timeout=10)
    assert refused.status_code == 404, (refused.status_code, refused.text)
    assert "Session not found" in refused.text, refused.text


def test_a_full_store_refuses_the_write_and_says_so(store: RedisServer, workers: list[HttpServer]) -> None:
    with redis.Redis.from_url(store.url) as admin:
        admin.config_set("maxmemory", "1")  # below what it holds: every write is refused (noeviction)
        try:
            refused = rpc(workers[0], "tools/call", {"name": "execute_code", "arguments": {"code": "1"}}, "execute_code")
        finally:
            admin.config_set("maxmemory", "0")
    assert refused["error"]["code"] == -32603 and "is full and refused the write" in refused["error"]["message"], refused
    assert settle(workers[1], started(workers[0], "print('room again')"))["status"] == "completed"


def test_a_jupyter_server_with_the_extension_shares_its_tasks_with_the_workers(store: RedisServer, namespace: str,
                                                                               workers: list[HttpServer], tmp_path: Path) -> None:
    """The extension's `MCPVariants.state_url`: a task made in a jupyter-server is read and cancelled through a worker."""
    with extension_server(tmp_path, f"--MCPVariants.state_url={store.url}", f"--MCPVariants.state_namespace={namespace}").start(90) as lab:
        endpoint = HttpTarget(lab.url + ENDPOINT, headers=lab.auth_headers)
        # The sleep outlasts every deadline here: only an interrupt lets the next run on the kernel complete.
        call = {"name": "execute_code", "arguments": {"code": marked_sleep(tmp_path / "begun", 600)}, "requestedOutputs": SELECT}
        created = endpoint.exchange(VERSION, {TASKS: {}}, "tools/call", call).result
        assert created["resultType"] == "task", created
        until((tmp_path / "begun").exists, "the run has begun")
        assert task(workers[0], created["taskId"])["status"] == "working"
        assert "result" in rpc(workers[0], "tasks/cancel", {"taskId": created["taskId"]})
        ran = endpoint.exchange(VERSION, {TASKS: {}}, "tools/call", {**call, "arguments": {"code": "print('after')"}}).result
        assert settle(workers[1], ran["taskId"])["status"] == "completed"
        assert task(workers[1], created["taskId"])["status"] == "cancelled"


def serve_fails(*args: str, root: Path) -> str:
    """`serve --http` with `args`: it must exit at start; what it said."""
    command = serve_command(root, "--http", "--port", str(free_port()), "--embedded", *args, fresh=True)
    ended = subprocess.run(command, capture_output=True, text=True, timeout=60)
    assert ended.returncode != 0, ended
    return ended.stderr


def test_a_store_that_cannot_be_used_stops_the_server_at_start(store: RedisServer, tmp_path: Path) -> None:
    nowhere = serve_fails("--state-url", f"redis://127.0.0.1:{free_port()}", root=tmp_path)
    assert "cannot start: the shared state store redis://127.0.0.1:" in nowhere and "unreachable" in nowhere, nowhere
    wrong = serve_fails("--state-url", f"redis://:notit@127.0.0.1:{store.port}", root=tmp_path)
    assert "cannot start" in wrong and "refused the password in --state-url" in wrong and "notit" not in wrong, wrong
    missing = serve_fails("--state-url", f"redis://127.0.0.1:{store.port}", root=tmp_path)
    assert "cannot start" in missing and "needs a password" in missing and "HELLO" not in missing, missing
    with redis.Redis.from_url(store.url) as admin:
        admin.config_set("maxmemory-policy", "allkeys-lru")
        try:
            evicting = serve_fails("--state-url", store.url, root=tmp_path)
        finally:
            admin.config_set("maxmemory-policy", "noeviction")
    assert "maxmemory-policy allkeys-lru" in evicting and store.password not in evicting, evicting


def test_the_store_on_redis_keeps_owners_apart_and_bounds_each(store: RedisServer) -> None:
    async def answer(delay: float = 0.0) -> dict[str, Any]:
        await asyncio.sleep(delay)
        return {"content": []}

    async def scenario() -> None:
        shared = RedisNamespace(store.url, f"unit-{secrets.token_hex(4)}")
        first, second = RedisTaskStore(shared, max_per_owner=2), RedisTaskStore(shared, max_per_owner=2)
        try:
            made = await first.start("alice", answer)
            assert (await second.settled("alice", made.task_id)).result == {"content": []}
            with pytest.raises(ProtocolError, match="No such task"):
                await second.get("bob", made.task_id)
            assert [t.task_id for t in await second.list("alice")] == [made.task_id]
            assert await second.list("bob") == []
            await first.start("alice", lambda: answer(30))
            await second.start("alice", lambda: answer(30))  # drops the one that ended
            with pytest.raises(ProtocolError, match="Too many"):
                await first.start("alice", lambda: answer(30))
        finally:
            await first.aclose()
            await second.aclose()

    asyncio.run(scenario())


def test_the_output_store_on_redis_keeps_its_budget_and_owners(store: RedisServer) -> None:
    """The in-memory store's own tests (unit/test_output_links.py), on Redis: eviction is ours, by the same rules."""

    async def scenario() -> None:
        shared = RedisNamespace(store.url, f"unit-{secrets.token_hex(4)}")
        for check, budget in ((lru_within_budget, 250), (owned_and_forgotten, 64 * 1024 * 1024)):
            outputs = RedisOutputStore(shared, max_bytes=budget)
            try:
                await check(outputs)
            finally:
                await outputs.aclose()

    asyncio.run(scenario())


def task_records(store: RedisServer, namespace: str) -> dict[str, int]:
    """Every task record in `namespace`: its id, and its expiry in ms (-1: none)."""
    with redis.Redis.from_url(store.url, decode_responses=True) as admin:
        return {key.rsplit(":", 1)[1]: admin.pttl(key) for key in admin.scan_iter(f"{namespace}:task:*")}


def test_a_frozen_store_answers_every_call_within_the_deadline_and_leaves_no_record_no_client_received(
        store: RedisServer, namespace: str, workers: list[HttpServer]) -> None:
    for server in workers:  # each has made a task before (its port accepts before its start-up check of the store; its
        settle(server, started(server, "print(0)"))  # create script is then loaded, as a frozen Redis finds it when resumed)
    before = set(task_records(store, namespace))
    asked: list[tuple[float, dict[str, Any]]] = []
    store.freeze()
    try:
        thaw_at = time.monotonic() + 3 * DEADLINE_S + 2  # long enough for creates to be sent and given up on
        while time.monotonic() < thaw_at:
            for server in workers:
                for method, params, name in (("tools/call", {"name": "execute_code", "arguments": {"code": "print(1)"},
                                                             "requestedOutputs": SELECT}, "execute_code"),
                                             ("tasks/get", {"taskId": "none-such"}, None)):
                    began = time.monotonic()
                    answer = rpc(server, method, params, name)
                    asked.append((time.monotonic() - began, answer))
        listed = rpc(workers[0], "tools/call", {"name": "list_files", "arguments": {}, "requestedOutputs": SELECT}, "list_files",
                     tasks=False)
    finally:
        store.thaw()
    assert "result" in listed and not listed["result"].get("isError"), listed  # what needs no store keeps working
    for took, answer in asked:
        assert "error" in answer, answer  # no task id was given while frozen
        assert answer["error"]["code"] == -32603 and f"did not answer within {DEADLINE_S:g} s" in answer["error"]["message"], answer
        assert store.password not in answer["error"]["message"]
        assert took < DEADLINE_BOUND_S, (took, answer)
    # A create that was given up on may still run once Redis resumes: its worker drops the record it never started.
    until(lambda: set(task_records(store, namespace)) <= before, "no task record that no client received", 30)
    running = started(workers[1], "print('thawed')")
    assert settle(workers[0], running)["status"] == "completed"
    records = task_records(store, namespace)
    assert records and all(expiry > 0 for expiry in records.values()), records


def test_with_persistence_a_task_outlives_a_restart_and_a_run_that_ended_meanwhile_is_recorded(store: RedisServer,
                                                                                               workers: list[HttpServer],
                                                                                               tmp_path: Path) -> None:
    a, b = workers
    made = started(a, "print('made before')")
    assert settle(b, made)["status"] == "completed"
    ended = f"pathlib.Path({str(tmp_path / 'ended')!r}).touch(); print('ended meanwhile')"
    running = started(a, marked_sleep(tmp_path / "begun", 0.5, ended))
    until((tmp_path / "begun").exists, "the run has begun")
    store.stop()
    try:
        until((tmp_path / "ended").exists, "the run has ended while Redis is down")
        until(lambda: "its end is recorded once it answers" in a.output(), "the worker has kept the run's end")
    finally:
        store.start()
    found = settle(b, running)
    assert found["status"] == "completed" and "ended meanwhile" in text(found), found
    before = task(b, made)
    assert before["status"] == "completed" and "made before" in text(before), before


def test_a_store_over_tls_with_a_ca_of_its_own_serves(tmp_path: Path) -> None:
    with RedisServer(tmp_path / "tls", tls=True).start() as secure:
        assert secure.url.startswith("rediss://")
        served = HttpServer(tmp_path, "--embedded", "--state-url", secure.url, log=tmp_path / "tls-worker.log", fresh=True)
        try:
            running = started(served, "print('over tls')")
            found = settle(served, running)
        finally:
            served.close()
    assert found["status"] == "completed" and "over tls" in text(found), found


def test_a_redis_cluster_is_refused_at_start(tmp_path: Path) -> None:
    folder = tmp_path / "cluster"
    flags = ["--cluster-enabled", "yes", "--cluster-config-file", str(folder / "nodes.conf"),
             "--cluster-port", str(free_port())]  # else its bus is on the port + 10000, which may be taken
    with RedisServer(folder, extra=flags).start() as cluster:
        said = serve_fails("--state-url", cluster.url, root=tmp_path)
    assert "cannot start" in said and "is a Redis Cluster, which is not supported" in said and cluster.password not in said, said


SERVICE = "shared"


@pytest.fixture(scope="module")
def sentinel_deployment(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[RedisServer, RedisServer, SentinelServer]]:
    """A primary, its replica in sync, and one sentinel that knows both (quorum 1: it fails over alone)."""
    require_redis(REDIS_SENTINEL)
    folder = tmp_path_factory.mktemp("sentinel")
    with (RedisServer(folder / "primary").start() as primary, RedisServer(folder / "replica", replica_of=primary).start() as replica,
          SentinelServer(folder / "sentinel", primary, SERVICE).start() as sentinel):
        with redis.Redis(port=replica.port, password=replica.password, decode_responses=True) as node:
            until(lambda: node.info("replication").get("master_link_status") == "up", "the replica is in sync")
        with redis.Redis(port=sentinel.port, decode_responses=True) as watcher:
            until(lambda: watcher.sentinel_slaves(SERVICE), "the sentinel knows the replica")
        yield primary, replica, sentinel


def primary_port(sentinel: SentinelServer) -> int | None:
    """The port of the primary the sentinel gives clients (up, failover done), or None."""
    with redis.Redis(port=sentinel.port, decode_responses=True) as watcher:
        state = watcher.sentinel_master(SERVICE)
    return None if state["is_sdown"] or state["is_odown"] or not state["is_master"] else int(state["port"])


def test_through_sentinel_a_failover_mid_run_loses_no_task(sentinel_deployment: tuple[RedisServer, RedisServer, SentinelServer],
                                                            tmp_path: Path) -> None:
    """Two workers on a `redis+sentinel://` URL that also names a sentinel that is not there. A create that no replica
    confirms (the replica frozen) is refused and leaves no record; then the primary is killed mid-run: the sentinel
    promotes the replica, the run's end is recorded there, and a task made before is still read."""
    primary, replica, sentinel = sentinel_deployment
    url = sentinel_url(primary.password, [free_port(), sentinel.port], SERVICE)
    namespace = f"failover-{secrets.token_hex(4)}"
    a, b = (HttpServer(tmp_path, "--embedded", "--state-url", url, "--state-namespace", namespace, log=tmp_path / f"{name}.log",
                       fresh=True) for name in "ab")
    try:
        before = started(a, "print('made before')")
        assert settle(b, before)["status"] == "completed"

        replica.freeze()
        try:
            refused = rpc(a, "tools/call", {"name": "execute_code", "arguments": {"code": "print('unconfirmed')"},
                                            "requestedOutputs": SELECT}, "execute_code")
        finally:
            replica.thaw()
        assert refused["error"]["code"] == -32603 and "did not copy the new task to a replica" in refused["error"]["message"], refused
        assert set(task_records(primary, namespace)) == {before}

        running = started(a, marked_sleep(tmp_path / "begun", 3, "print('through the failover')"))
        assert running in task_records(replica, namespace)  # given to the client only once on the replica
        until((tmp_path / "begun").exists, "the run has begun")
        primary.process.send_signal(signal.SIGKILL)  # type: ignore[union-attr]
        until(lambda: primary_port(sentinel) == replica.port, "the sentinel promoted the replica", 120)
        for server in (a, b):
            found = settle(server, running, timeout=120)
            assert found["status"] == "completed" and "through the failover" in text(found), found
            kept = task(server, before)
            assert kept["status"] == "completed" and "made before" in text(kept), kept
    finally:
        a.close()
        b.close()


def test_through_sentinel_the_start_up_check_says_when_no_sentinel_answers_or_the_service_is_unknown(
        sentinel_deployment: tuple[RedisServer, RedisServer, SentinelServer], tmp_path: Path) -> None:
    primary, _, sentinel = sentinel_deployment
    nowhere = serve_fails("--state-url", sentinel_url(primary.password, [free_port()], SERVICE), root=tmp_path)
    assert "cannot start" in nowhere and "no sentinel answers" in nowhere and primary.password not in nowhere, nowhere
    unknown = serve_fails("--state-url", sentinel_url(primary.password, [sentinel.port], "elsewhere"), root=tmp_path)
    assert "cannot start" in unknown and "has no service named 'elsewhere'" in unknown and primary.password not in unknown, unknown
    malformed = serve_fails("--state-url", f"redis+sentinel://:{primary.password}@127.0.0.1:{sentinel.port}", root=tmp_path)
    assert "cannot start" in malformed and "needs the service's name" in malformed and primary.password not in malformed, malformed


def test_sentinels_with_a_password_of_their_own_take_it_as_sentinel_password(store: RedisServer, tmp_path: Path) -> None:
    """A sentinel with `requirepass` (watching the module's Redis under a service of its own): asked without its password
    the start-up check says which password to give; with `?sentinel_password=` the store is usable."""
    require_redis(REDIS_SENTINEL)
    theirs = secrets.token_hex(8)
    with SentinelServer(tmp_path / "guarded", store, "guarded", password=theirs).start() as guarded:
        url = sentinel_url(store.password, [guarded.port], "guarded")
        refused = RedisNamespace(url).check()
        assert refused is not None and "?sentinel_password=" in refused and store.password not in refused, refused
        assert RedisNamespace(f"{url}?sentinel_password={theirs}").check() is None
