"""The agents' awareness states (jupyter/live/presence.py), read back by pycrdt's own Awareness, which takes
updates as y-protocols (JupyterLab's) does."""

from __future__ import annotations

import time
from dataclasses import replace

from pycrdt import Array, Awareness, Doc, Map, StickyIndex, Text, read_message

from mcp_variants.jupyter.live.presence import GlobalPresence, Presence, identity, selection
from mcp_variants.jupyter.runtime import COLOURS, Agent, agent_name


def heard(awareness: Awareness, message: bytes | None) -> None:
    assert message is not None and message[0] == 1, "an awareness message"
    awareness.apply_awareness_update(read_message(message[1:]), "room")


def names(awareness: Awareness) -> list[str]:
    return sorted(s["user"]["display_name"] for c, s in awareness.states.items() if c != awareness.client_id and s)


def test_two_agents_are_two_collaborators_until_each_leaves() -> None:
    room = Awareness(Doc())
    presence = Presence()
    claude, cursor = Agent("http:one", "Claude Desktop via mcp-variants"), Agent("http:two", "Cursor via mcp-variants")
    heard(room, presence.set(claude.key, {"user": identity(claude)}))
    heard(room, presence.set(cursor.key, {"user": identity(cursor)}))
    assert names(room) == ["Claude Desktop via mcp-variants", "Cursor via mcp-variants"], "a new client's first state is taken"
    assert identity(claude)["username"] != identity(cursor)["username"], "JupyterLab lists one per username"
    assert presence.set(claude.key, {"user": identity(claude)}) is None, "the same state again: nothing to send"
    heard(room, presence.renewal())
    assert len(names(room)) == 2
    heard(room, presence.leave(claude.key))
    assert names(room) == ["Cursor via mcp-variants"]
    assert presence.leave(claude.key) is None
    heard(room, presence.leave_all())
    assert names(room) == []


def test_a_newcomer_hears_every_agent_at_once() -> None:
    presence = Presence()
    agent = Agent("stdio", "Claude Desktop via mcp-variants")
    ours = presence.set(agent.key, {"user": identity(agent)})
    assert ours is not None and presence.heard(read_message(ours[1:])) is None, "its own state, sent back by the room"
    person = Awareness(Doc())
    person.set_local_state({"user": {"name": "Ada"}})
    update = person.encode_awareness_update([person.client_id])
    newcomer = Awareness(Doc())
    heard(newcomer, presence.heard(update))
    assert names(newcomer) == ["Claude Desktop via mcp-variants"]
    assert presence.heard(update) is None, "told once; the renewals do the rest"


def test_an_agent_idle_for_long_is_found() -> None:
    presence = Presence()
    presence.set("a", {"user": {}})
    assert presence.idle(time.monotonic()) == []
    assert presence.idle(time.monotonic() + 3600) == ["a"]


def test_the_selection_covers_the_whole_cell_source() -> None:
    doc: Doc = Doc()
    cells = doc.get("cells", type=Array)
    cells.append(Map({"source": Text("print('abc')")}))
    cells.append(Map({"source": Text("print('héllo 🎉')\nx = 1")}))  # 22 characters, 23 UTF-16 code units, 26 bytes
    cells.append(Map({"source": Text("")}))
    for source, units in ((cells[0]["source"], 12), (cells[1]["source"], 23)):
        [cursor] = selection(source)
        assert cursor["primary"] and not cursor["empty"] and cursor["anchor"]["type"] is None
        anchor, head = StickyIndex.from_json(cursor["anchor"], source), StickyIndex.from_json(cursor["head"], source)
        assert (anchor.assoc, head.assoc) == (0, -1), "from before the first character to after the last"
        # One insert is one run of clocks, one per UTF-16 code unit (Yjs's): the last character's is units - 1 on.
        assert cursor["head"]["item"]["clock"] - cursor["anchor"]["item"]["clock"] == units - 1
    assert selection(cells[2]["source"]) == [], "an empty cell has nothing to stick to"


def test_the_name_people_see() -> None:
    assert agent_name("{client} via mcp-variants", "Claude Desktop") == "Claude Desktop via mcp-variants"
    assert agent_name("{client} via mcp-variants", None) == "An MCP client via mcp-variants"
    assert agent_name("Our notebook agent", "cursor") == "Our notebook agent"
    assert len(agent_name("{client}", "x" * 500)) == 100
    assert Agent("stdio", "Claude Desktop via mcp-variants").initials == "CD"
    assert Agent("stdio", "???").initials == "AI"
    assert Agent("stdio", "a").colour.startswith("#")


def test_two_agents_of_two_servers_never_share_a_colour_and_people_keep_theirs() -> None:
    """Twenty pairings of two agents joining one room at once from two servers, each preferring the same colour: once
    each has heard the other, exactly one has moved, and a person's colour is never an agent's."""
    for pairing in range(20):
        left, right = Presence(), Presence()
        one, two = Agent(f"stdio-{pairing}", "Claude Code via mcp-variants"), Agent(f"http:{pairing}", "Cursor via mcp-variants")
        same = COLOURS[pairing % len(COLOURS)]
        sent_left = left.set(one.key, {"user": {**identity(one), "color": same}})
        sent_right = right.set(two.key, {"user": {**identity(two), "color": same}})
        assert left.colour(one.key) == right.colour(two.key) == same, "neither has heard the other yet"
        answers = [left.heard(read_message(sent_right[1:])), right.heard(read_message(sent_left[1:]))]  # type: ignore[index]
        room = Awareness(Doc())
        for message in (sent_left, sent_right, *answers):
            if message is not None:
                heard(room, message)
        assert [left.colour(one.key), right.colour(two.key)].count(same) == 1, "exactly one agent took another colour"
        assert len({s["user"]["color"] for c, s in room.states.items() if c != room.client_id and s}) == 2, "as the room sees them"

    agents = Presence()
    person = Awareness(Doc())
    person.set_local_state({"user": {"username": "ada", "name": "Ada", "color": COLOURS[0]}})
    agents.heard(person.encode_awareness_update([person.client_id]))
    agent = Agent("stdio", "Claude Desktop via mcp-variants")
    agents.set(agent.key, {"user": {**identity(agent), "color": COLOURS[0]}})
    assert agents.colour(agent.key) == COLOURS[1], "the first free colour after the one it prefers"
    late = Presence()
    late.set(agent.key, {"user": {**identity(agent), "color": COLOURS[0]}})
    assert late.heard(person.encode_awareness_update([person.client_id])) is not None and late.colour(agent.key) == COLOURS[1], \
        "a person who comes later with the agent's colour keeps it; the agent moves"


def test_an_agent_shows_on_its_cells_in_the_colour_the_panel_lists_it_in() -> None:
    """The collaborators panel (the global room) lists another agent, working in another notebook, in the colour this
    agent prefers: the panel lists this one in the next free colour, and the notebook's room, where the other is not,
    shows it in that colour too (Agent.listed_in), so a person never matches its cell to the other agent's name."""
    panel = GlobalPresence()
    agent = Agent("http:one", "Claude Desktop via mcp-variants")
    other = Awareness(Doc())
    other.set_local_state({"user": {**identity(Agent("stdio", "An MCP client via mcp-variants")), "color": agent.colour}})
    panel.presence.heard(other.encode_awareness_update([other.client_id]))
    panel.present(agent, "a.ipynb")
    listed_in = panel.presence.colour(agent.key)
    assert listed_in is not None and listed_in != agent.colour, "the panel gave it another colour"
    room = Presence()
    room.set(agent.key, {"user": identity(replace(agent, listed_in=listed_in))})
    assert room.colour(agent.key) == listed_in, "its cells in the colour it is listed in"
    moved = COLOURS[(COLOURS.index(listed_in) + 1) % len(COLOURS)]
    room.set(agent.key, {"user": identity(replace(agent, listed_in=moved))})
    assert room.colour(agent.key) == moved, "listed in another colour since: its cells follow"
