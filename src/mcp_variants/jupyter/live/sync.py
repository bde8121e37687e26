"""What a Jupyter room's server holds of a shared document, from the y-sync messages (no I/O).

The Yjs sync protocol never confirms an update, but it answers every SYNC_STEP1 (a state
vector) with a SYNC_STEP2, and a Jupyter room handles the messages of one connection in
order. So a SYNC_STEP1 sent after some updates is a barrier: when its answer arrives, the
server has applied them, and holds the whole state this side had when it asked. That is how
an edit is confirmed, after a reconnect too, and nothing is ever applied twice (an update the
document already has changes nothing).

A room the server rebuilt (it restarted, or dropped the room while nobody was connected, and
loaded the file again) has another history: merging this side's copy into it would duplicate
every cell. The state vector it opens a connection with shows it: some clock lower than one
it was known to hold.
"""

from __future__ import annotations

from pycrdt import Decoder

StateVector = dict[int, int]  # client id → the clock after its last change


def decode_state_vector(data: bytes) -> StateVector:
    """A Yjs state vector (varuint count, then varuint client and clock pairs)."""
    decoder = Decoder(data)
    count = decoder.read_var_uint()
    return {decoder.read_var_uint(): decoder.read_var_uint() for _ in range(count)}


class ServerView:
    """The clocks the server is known to hold, per client."""

    def __init__(self) -> None:
        self.clocks: StateVector = {}

    def saw(self, clocks: StateVector) -> None:
        for client, clock in clocks.items():
            if clock > self.clocks.get(client, 0):
                self.clocks[client] = clock

    def rebuilt(self, state: StateVector) -> bool:
        """Whether a state vector the server opens a connection with belongs to another history
        (a room rebuilt from the file): it lacks changes the server was known to hold."""
        return any(state.get(client, 0) < clock for client, clock in self.clocks.items())


class Barriers:
    """The SYNC_STEP1 messages one connection sent and the answers it got, in order: the first
    is the join itself; each later one confirms everything sent before it."""

    def __init__(self) -> None:
        self.asked: list[bytes] = []  # the state vector each one carried
        self.answered = 0

    def ask(self, state: bytes) -> int:
        """Record one more sent; its number."""
        self.asked.append(state)
        return len(self.asked)

    def answer(self) -> bytes | None:
        """An answer arrived: the state vector of the barrier it answers (None if none was pending)."""
        if self.answered >= len(self.asked):
            return None
        self.answered += 1
        return self.asked[self.answered - 1]

    @property
    def joined(self) -> bool:
        return self.answered >= 1
