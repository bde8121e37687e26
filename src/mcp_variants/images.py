"""Images in content results, the way clients can take them (`--images`, docs/choices.md "Images").

* inline (the default): image blocks; the model's are scaled down to `--image-max-pixels` on their
  longer side (Pillow), the person's are sent as they are.
* link: resource_link blocks to `mcp-variants://images/<sha256>.<ext>`, which resources/read answers
  with the image as a blob. The bytes are kept in an ImageStore: the most recently used images
  within a byte budget. A link lives until its image is the least recently used one when the
  budget is full, or the server stops; an image shown again (read_cell, a re-run) gets its link back.
  A link is read only by the client it was given to (server/resources.py `link_owner`).

Structured variants are not changed by the mode: assistant/structured references an image by type
and size (and its link, in link mode); programmatic/structured and the views keep the bytes.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import io
from collections import OrderedDict
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Any

URI_PREFIX = "mcp-variants://images/"
STORE_BYTES = 64 * 1024 * 1024
DEFAULT_MAX_PIXELS = 1024
EXTENSIONS = {"image/png": "png", "image/jpeg": "jpg", "image/gif": "gif", "image/webp": "webp"}


class ImageMode(StrEnum):
    INLINE = "inline"
    LINK = "link"


class ImageNotKept(LookupError):
    """A link of ours whose image the store no longer keeps."""


@dataclass
class _Kept:
    mime: str
    data: bytes
    owners: set[str]  # who may read it: link_owner() of each client it was shown to


class ImageStore:
    """The images links point at: an LRU of at most `max_bytes` of image bytes, keyed by content (sha256).

    `put` is synchronous (the projections that make links are); `get` is a coroutine, so that a store shared by many
    workers (mcp_variants.state.redis_images) reads what another worker kept."""

    def __init__(self, max_bytes: int = STORE_BYTES) -> None:
        self.max_bytes = max_bytes
        self._images: OrderedDict[str, _Kept] = OrderedDict()
        self.size = 0

    def put(self, mime: str, data: bytes, owner: str = "") -> str:
        """The link of `data` (the same image gets the same link), kept as the most recently used, and readable
        by `owner` (with whoever it was already readable by)."""
        uri = f"{URI_PREFIX}{hashlib.sha256(data).hexdigest()}.{EXTENSIONS.get(mime, 'bin')}"
        if uri in self._images:
            self._images.move_to_end(uri)
            self._images[uri].owners.add(owner)
            return uri
        self._images[uri] = _Kept(mime, data, {owner})
        self.size += len(data)
        while self.size > self.max_bytes and len(self._images) > 1:
            _, dropped = self._images.popitem(last=False)
            self.size -= len(dropped.data)
        return uri

    async def get(self, uri: str, owner: str = "") -> tuple[str, bytes]:
        """The mime type and bytes of a link; ImageNotKept when they are gone, never were, or are not `owner`'s
        (the same answer: a link found elsewhere tells nothing of another client's outputs)."""
        image = self._images.get(uri)
        if image is None or owner not in image.owners:
            raise ImageNotKept(uri)
        self._images.move_to_end(uri)
        return image.mime, image.data

    async def aclose(self) -> None:
        """At exit (a shared store's connections)."""

    def __len__(self) -> int:
        return len(self._images)


@dataclass(frozen=True)
class ImagePolicy:
    """How the content variants carry images: the server's `--images` and `--image-max-pixels`."""

    mode: ImageMode = ImageMode.INLINE
    max_pixels: int = DEFAULT_MAX_PIXELS  # the longer side of the model's inline images; 0: not scaled
    store: ImageStore = field(default_factory=ImageStore)
    owner: str = ""  # whose links this policy makes, for a request: link_owner() of its client (`for_owner`)

    def for_owner(self, owner: str) -> ImagePolicy:
        return self if self.mode is ImageMode.INLINE else replace(self, owner=owner)

    def block(self, mime: str, data: str, *, for_model: bool) -> dict[str, Any]:
        """The content block of a base64 image: an image block, or a resource_link in link mode."""
        if self.mode is ImageMode.LINK:
            raw = decoded(data)
            uri = self.store.put(mime, raw, self.owner)
            return {"type": "resource_link", "uri": uri, "name": uri.rsplit("/", 1)[-1], "mimeType": mime, "size": len(raw),
                    "description": "an image output; resources/read returns it"}
        if for_model and self.max_pixels:
            mime, data = scaled(mime, data, self.max_pixels)
        return {"type": "image", "mimeType": mime, "data": data}

    def link(self, mime: str, data: str) -> str | None:
        """The image's link in link mode (kept in the store), for the structured references; None inline."""
        return self.store.put(mime, decoded(data), self.owner) if self.mode is ImageMode.LINK else None


INLINE_IMAGES = ImagePolicy()  # the default: inline blocks (its store stays empty)


def decoded(data: str) -> bytes:
    try:
        return base64.b64decode(data, validate=False)
    except (binascii.Error, ValueError):
        return data.encode()


def scaled(mime: str, data: str, max_pixels: int) -> tuple[str, str]:
    """The image at most `max_pixels` on its longer side (its own format, a PNG for GIF and WebP);
    as it was when it is smaller already or cannot be read."""
    from PIL import Image, UnidentifiedImageError

    try:
        with Image.open(io.BytesIO(decoded(data))) as opened:
            if max(opened.size) <= max_pixels:
                return mime, data
            out_mime, out_format = ("image/jpeg", "JPEG") if mime == "image/jpeg" else ("image/png", "PNG")
            image = opened.convert("RGB") if out_format == "JPEG" and opened.mode not in ("RGB", "L") else opened.copy()
            image.thumbnail((max_pixels, max_pixels), Image.Resampling.LANCZOS)
            buffer = io.BytesIO()
            image.save(buffer, format=out_format)
    except (UnidentifiedImageError, OSError, ValueError, Image.DecompressionBombError):
        return mime, data
    return out_mime, base64.b64encode(buffer.getvalue()).decode()
