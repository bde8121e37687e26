"""A review-comment server whose write tool answers differently every time: `post_comment` creates a comment, numbered
1000, 1001, … in the order they are posted, and says its number.

should-legacy-content-from-assistant-content calls a tool at 2026-12-01 and again at 2026-07-28 and compares the legacy
content with the assistant/content output. Named with `--call 'post_comment={"body": "LGTM"}'`, the two calls post two
comments, and the comparison fails whatever the legacy projection does: the check must still fail it (the rule was not
seen kept), and say that the tool's result changed between two identical calls at the same version, and what to pass
instead. It once said only "found [...#1013...]; other [...#1012...]", which read as if the legacy content were wrong.
`list_comments` is read-only: the same answer until something is posted.

    python tests/conformance/servers/comments.py            # stdio
"""

from itertools import count

from mcp.server.mcpserver import MCPServer
from pydantic import BaseModel

from mcp_variants.sdk import Results, Variants, cli, variant


class Comment(BaseModel):
    id: int
    body: str


class Comments(BaseModel):
    comments: list[Comment]


POSTED: list[Comment] = []
NEXT_ID = count(1000)
variants = Variants()


@variants.tool("assistant/content", variant("programmatic/structured", Comments), annotations={"readOnlyHint": True})
def list_comments() -> Results:
    """Every comment posted, oldest first."""
    return Results({"assistant/content": "\n".join(f"#{c.id}: {c.body}" for c in POSTED) or "No comments.",
                    "programmatic/structured": Comments(comments=list(POSTED))})


@variants.tool("assistant/content", variant("programmatic/structured", Comment))
def post_comment(body: str) -> Results:
    """Post a review comment; each call posts a new one."""
    comment = Comment(id=next(NEXT_ID), body=body)
    POSTED.append(comment)
    return Results({"assistant/content": f"Posted comment #{comment.id}.", "programmatic/structured": comment})


mcp = MCPServer("comments", version="1.0.0", extensions=[variants], middleware=[variants.middleware])

if __name__ == "__main__":
    cli(mcp)
