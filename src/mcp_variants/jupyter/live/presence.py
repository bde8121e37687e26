"""The agent as a collaborator a person sees in JupyterLab: who it is, and what it says of itself in a room's
awareness (y-protocols' awareness, which JupyterLab and jupyter-collaboration read), with no I/O.

A room's awareness is a map from a client id to that client's state (JSON), each with a clock; a client
announces its state, renews it (others drop a state not renewed for 30 s) and leaves with a null state.
One connection of ours speaks for every MCP client working in the notebook, each under an awareness client
id of its own, so two clients show as two collaborators. The state is JupyterLab's shape:

- `user`: the identity JupyterLab shows (User.IIdentity: username, name, display_name, initials, color);
  `username` is the agent's own, so JupyterLab never takes it for the person looking;
- `cursors` (a notebook room): y-codemirror's remote selections, relative positions in a cell's source
  (Yjs RelativePosition JSON): the cell the agent edits or runs shows its colour and its name;
- `documents` (the global room, `JupyterLab:globalAwareness`): what the collaborators panel lists next to it.

Colours: each agent's is its own among the agents in a room, and differs from any a person's state says (people's
are theirs, never changed): an agent takes the first colour free in the room from its preferred one (Agent.colour),
and when two agents still meet in one colour (they joined at the same moment, from two servers), the one whose
awareness client id is higher takes another, so exactly one changes and both see the same outcome.

Nothing of this is part of a notebook: awareness is never stored, and goes when its sender does.
"""

from __future__ import annotations

import json
import random
import time
from dataclasses import dataclass, field
from typing import Any

from pycrdt import Assoc, Decoder, Encoder, StickyIndex, Text, create_awareness_message

from ..runtime import AGENT_PREFIX, COLOURS, Agent

RENEW_S = 10.0  # others drop a state not renewed within 30 s (y-protocols' outdatedTimeout)
IDLE_S = 120.0  # an agent that did nothing in a notebook for this long leaves it
SHOWN_AT_LEAST_S = 2.0  # a cell's mark stays at least this long: an edit takes milliseconds, too short to see
DRIVE = "RTC"  # how JupyterLab names the collaborative drive in `documents`


def selection(source: Text) -> list[dict[str, Any]]:
    """`cursors` selecting the whole of a cell's `source`, as y-codemirror sends a person's; none for an empty
    cell (a relative position needs a character to stick to). A position counts in UTF-16 code units, as Yjs's
    clocks do (`len()` of a pycrdt Text counts UTF-8 bytes)."""
    length = len(str(source).encode("utf-16-le")) // 2
    if length == 0:
        return []
    anchor, head = StickyIndex.new(source, 0, Assoc.AFTER), StickyIndex.new(source, length, Assoc.BEFORE)
    return [{"anchor": _relative(anchor), "head": _relative(head), "primary": True, "empty": False}]


def _relative(index: StickyIndex) -> dict[str, Any]:
    """Yjs's RelativePosition JSON (what y-codemirror reads), from pycrdt's: the item it sticks to and its side."""
    found = index.to_json()
    return {"type": None, "tname": None, "item": found["item"], "assoc": found.get("assoc", 0)}


def identity(agent: Agent) -> dict[str, Any]:
    """The `user` of an agent's awareness states, as JupyterLab's User.IIdentity."""
    return {"username": agent.username, "name": agent.name, "display_name": agent.name, "initials": agent.initials,
            "color": agent.colour, "avatar_url": None}


@dataclass
class _Entry:
    client_id: int
    clock: int
    state: dict[str, Any] | None
    colour: str
    preferred: str  # the colour its state asked for: another one asked for is looked for again
    used: float = field(default_factory=time.monotonic)


@dataclass(frozen=True)
class _Other:
    """Another client heard in the room: the colour its state says, and whether it is an agent of ours."""

    colour: str | None
    agent: bool


def _coloured(state: dict[str, Any], colour: str) -> dict[str, Any]:
    user = state.get("user")
    return {**state, "user": {**user, "color": colour}} if isinstance(user, dict) else state


class Presence:
    """The agents present in one room and their states; each change is the awareness message to send (bytes)."""

    def __init__(self) -> None:
        self._entries: dict[str, _Entry] = {}
        self._others: dict[int, _Other] = {}  # the clients heard in the room, while their state is not null

    def heard(self, update: bytes) -> bytes | None:
        """Someone's awareness update (the payload of an awareness message): every state here again when it comes from
        a client not heard before (a person who just opened the notebook), so that they see the agents at once rather
        than at the next renewal (rooms pass awareness on, but keep none for newcomers), or when an agent here had to
        take another colour."""
        decoder = Decoder(update)
        new = False
        ours = {entry.client_id for entry in self._entries.values()}  # the room sends a client its own back
        for _ in range(decoder.read_var_uint()):
            client = decoder.read_var_uint()
            decoder.read_var_uint()
            said = decoder.read_var_string()
            if client in ours:
                continue
            if said == "null":
                self._others.pop(client, None)
                continue
            new = new or client not in self._others
            self._others[client] = _other(said)
        recoloured = self._recolour()
        return self.renewal() if new or recoloured else None

    def _recolour(self) -> bool:
        """Each agent here whose colour a person has, or an agent with a lower client id: another, free colour."""
        changed = False
        for key, entry in self._entries.items():
            if entry.state is not None and any(other.colour == entry.colour and (not other.agent or client < entry.client_id)
                                               for client, other in self._others.items()):
                entry.colour = self._free(entry.colour, key)
                entry.state = _coloured(entry.state, entry.colour)
                changed = True
        return changed

    def _free(self, preferred: str, key: str) -> str:
        """The first colour from `preferred` on (in COLOURS' order) that no other agent here and nobody heard has;
        `preferred` when all are taken."""
        taken = {e.colour for k, e in self._entries.items() if k != key and e.state is not None}
        taken |= {other.colour for other in self._others.values() if other.colour}
        start = COLOURS.index(preferred) if preferred in COLOURS else 0
        return next((c for c in COLOURS[start:] + COLOURS[:start] if c not in taken), preferred)

    def colour(self, key: str) -> str | None:
        """The colour `key`'s agent shows in this room (None: not here)."""
        entry = self._entries.get(key)
        return entry.colour if entry is not None else None

    def __contains__(self, key: str) -> bool:
        entry = self._entries.get(key)
        return entry is not None and entry.state is not None

    def state(self, key: str) -> dict[str, Any] | None:
        entry = self._entries.get(key)
        return entry.state if entry is not None else None

    def set(self, key: str, state: dict[str, Any]) -> bytes | None:
        """`key`'s agent is here with `state` (it joins, or its state changes; None: no change to send). Its
        `user.color` is the one it prefers: it shows the first free one from there (the module's docstring)."""
        entry = self._entries.get(key)
        preferred = str((state.get("user") or {}).get("color", COLOURS[0]))
        if entry is None:  # clock 1: a client others never heard of is taken only with a clock above 0 (y-protocols)
            colour = self._free(preferred, key)
            self._entries[key] = entry = _Entry(random.getrandbits(32), 1, _coloured(state, colour), colour, preferred)
            return self._message([entry])
        if preferred != entry.preferred:  # it is listed in another colour now (Agent.listed_in)
            entry.colour, entry.preferred = self._free(preferred, key), preferred
        state = _coloured(state, entry.colour)
        if entry.state == state:  # still here: nothing to tell
            entry.used = time.monotonic()
            return None
        entry.clock, entry.state, entry.used = entry.clock + 1, state, time.monotonic()
        return self._message([entry])

    def leave(self, key: str) -> bytes | None:
        """`key`'s agent leaves (a null state); None if it was not here."""
        entry = self._entries.pop(key, None)
        if entry is None or entry.state is None:
            return None
        entry.clock, entry.state = entry.clock + 1, None
        return self._message([entry])

    def leave_all(self) -> bytes | None:
        entries = [e for e in self._entries.values() if e.state is not None]
        self._entries.clear()
        for entry in entries:
            entry.clock, entry.state = entry.clock + 1, None
        return self._message(entries) if entries else None

    def idle(self, now: float, idle_s: float = IDLE_S) -> list[str]:
        """The agents that did nothing here for `idle_s`."""
        return [key for key, entry in self._entries.items() if now - entry.used > idle_s]

    def renewal(self) -> bytes | None:
        """Every state again with a newer clock: how a client stays in others' awareness (and rejoins a new connection)."""
        entries = [e for e in self._entries.values() if e.state is not None]
        for entry in entries:
            entry.clock += 1
        return self._message(entries) if entries else None

    @staticmethod
    def _message(entries: list[_Entry]) -> bytes:
        encoder = Encoder()
        encoder.write_var_uint(len(entries))
        for entry in entries:
            encoder.write_var_uint(entry.client_id)
            encoder.write_var_uint(entry.clock)
            encoder.write_var_string(json.dumps(entry.state, separators=(",", ":")))
        return create_awareness_message(encoder.to_bytes())


class GlobalPresence:
    """The agents in a server's global awareness room (`JupyterLab:globalAwareness`), each with the notebooks it works
    in, which the collaborators panel lists; each change is the awareness message to send (live/lobby.py over a
    websocket, inprocess/global_room.py in process)."""

    def __init__(self) -> None:
        self.presence = Presence()
        self._documents: dict[str, list[str]] = {}  # agent key → the notebooks it works in, as JupyterLab names them

    def present(self, agent: Agent, path: str) -> bytes | None:
        """`agent` works in the notebook at `path`."""
        documents = self._documents.setdefault(agent.key, [])
        if document_name(path) not in documents:
            documents.append(document_name(path))
        return self.presence.set(agent.key, {"user": identity(agent), "documents": list(documents), "current": None})

    def left(self, key: str) -> bytes | None:
        self._documents.pop(key, None)
        return self.presence.leave(key)

    def kept(self, now: float) -> list[bytes]:
        """Every RENEW_S: the agents idle since long leave, the others' states renewed."""
        said = [self.left(key) for key in self.presence.idle(now)]
        return [message for message in (*said, self.presence.renewal()) if message is not None]


def _other(said: str) -> _Other:
    """What a heard state says of its client (a state that is no JSON object says no colour)."""
    try:
        state = json.loads(said)
    except ValueError:
        return _Other(None, False)
    user = state.get("user") if isinstance(state, dict) else None
    if not isinstance(user, dict):
        return _Other(None, False)
    colour = user.get("color")
    return _Other(colour if isinstance(colour, str) else None, str(user.get("username", "")).startswith(AGENT_PREFIX))


def document_name(path: str) -> str:
    """A notebook as JupyterLab names it in its global awareness (`documents`)."""
    return f"{DRIVE}:{path}"
