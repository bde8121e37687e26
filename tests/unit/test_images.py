"""Images in content results (images.py): the store's byte budget, links, scaling for the model."""

from __future__ import annotations

import base64
import io
from functools import partial

import anyio
import pytest
from mcp.shared.exceptions import MCPError
from PIL import Image

from mcp_variants.images import URI_PREFIX, ImageMode, ImagePolicy, ImageStore, scaled
from mcp_variants.jupyter.registry import ClientState
from mcp_variants.protocol.projection import legacy_content
from mcp_variants.protocol.versions import Era
from mcp_variants.server.image_resources import ImageResources
from mcp_variants.server.resources import link_owner


def png(width: int, height: int, color: str = "red") -> str:
    buffer = io.BytesIO()
    Image.new("RGB", (width, height), color).save(buffer, format="PNG")
    return base64.b64encode(buffer.getvalue()).decode()


def size_of(data: str) -> tuple[int, int]:
    with Image.open(io.BytesIO(base64.b64decode(data))) as image:
        return image.size


def test_the_store_keeps_the_most_recently_used_images_within_its_budget():
    store = ImageStore(max_bytes=250)
    first, second = store.put("image/png", b"a" * 100), store.put("image/png", b"b" * 100)
    assert store.put("image/png", b"a" * 100) == first  # the same bytes, the same link; now the most recent
    third = store.put("image/png", b"c" * 100)
    assert anyio.run(store.get, first)[1] == b"a" * 100 and anyio.run(store.get, third)[1] == b"c" * 100
    with pytest.raises(LookupError):
        anyio.run(store.get, second)
    assert store.size <= 250 and len(store) == 2
    assert first.startswith(URI_PREFIX) and first.endswith(".png")


def test_a_resource_read_returns_the_blob_and_an_evicted_link_says_what_to_do():
    store = ImageStore(max_bytes=150)
    resources, client = ImageResources(store), ClientState()
    uri = store.put("image/png", b"x" * 100, link_owner(client))
    with pytest.raises(MCPError, match="not kept for this client"):  # another client's
        anyio.run(partial(resources.read, ClientState(key="http:other"), uri, stateless=False))
    result = anyio.run(partial(resources.read, client, uri, stateless=False))
    assert result == {"contents": [{"uri": uri, "mimeType": "image/png", "blob": base64.b64encode(b"x" * 100).decode()}]}
    assert anyio.run(partial(resources.read, client, uri, stateless=True))["cacheScope"] == "private"
    store.put("image/png", b"y" * 100)
    with pytest.raises(MCPError, match="Run the cell again"):
        anyio.run(partial(resources.read, client, uri, stateless=False))
    assert resources.owns(uri) and not resources.owns("ui://mcp-variants/table.html")
    assert anyio.run(resources.entries, client) == []


def test_inline_images_for_the_model_are_scaled_to_the_cap_and_the_persons_are_not():
    policy = ImagePolicy(ImageMode.INLINE, max_pixels=100)
    big = png(400, 200)
    model = policy.block("image/png", big, for_model=True)
    assert model["type"] == "image" and size_of(model["data"]) == (100, 50)
    assert policy.block("image/png", big, for_model=False)["data"] == big
    small = png(50, 20)
    assert scaled("image/png", small, 100) == ("image/png", small)
    assert scaled("image/png", "bm90IGFuIGltYWdl", 100) == ("image/png", "bm90IGFuIGltYWdl")  # unreadable: as it was


def test_link_mode_gives_resource_links_and_keeps_the_bytes_for_reading():
    policy = ImagePolicy(ImageMode.LINK)
    data = png(30, 30)
    block = policy.block("image/png", data, for_model=True)
    assert block["type"] == "resource_link" and block["mimeType"] == "image/png" and block["size"] == len(base64.b64decode(data))
    assert policy.link("image/png", data) == block["uri"]
    assert anyio.run(policy.store.get, block["uri"]) == ("image/png", base64.b64decode(data))
    assert ImagePolicy(ImageMode.INLINE).link("image/png", data) is None


def test_eras_before_resource_links_get_a_text_block_naming_the_link():
    link = {"type": "resource_link", "uri": f"{URI_PREFIX}ab.png", "name": "ab.png", "mimeType": "image/png"}
    text = {"type": "text", "text": "hi"}
    assert legacy_content([text, link], Era.LEGACY_OBJECT) == [text, link]
    old = legacy_content([text, link], Era.CONTENT_ONLY)
    assert old[0] == text and old[1]["type"] == "text" and link["uri"] in old[1]["text"]
