"""The remote runtime: the kernels and files of a Jupyter server, reached by URL and token.

`server_client` speaks its REST API; `kernels` runs code on its kernels, whose messages come
over each kernel's websocket (`websocket`); `contents` keeps files and notebooks there;
`gateway` runs kernels on an Enterprise Gateway. `..server_backend` assembles a Jupyter
server's Backend from these and `..live` (shared documents, session kernels).
Importing it does not import jupyter_client: the websocket client is imported on first use.
"""
