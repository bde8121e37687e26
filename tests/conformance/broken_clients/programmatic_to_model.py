"""A programmatic output routed to the model: the host hands every programmatic output to the
model context as well as to the program."""

from _launch import launch


def patch() -> None:
    from mcp_variants.client.router import HostRouter

    original = HostRouter._deliver

    def deliver(self, report, sink_name, delivery):  # type: ignore[no-untyped-def]
        original(self, report, sink_name, delivery)
        if delivery.selector is not None and delivery.selector.audience == "programmatic":
            original(self, report, "model", delivery)

    HostRouter._deliver = deliver


launch(patch)
