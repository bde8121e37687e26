"""Client-side pieces: a raw JSON-RPC stdio connection (more in issue 4: the reference client)."""
