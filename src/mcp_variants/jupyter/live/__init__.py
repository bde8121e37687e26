"""Live notebooks: a Jupyter server's real-time collaboration (jupyter-collaboration), the shared
documents JupyterLab itself edits, so a person sees the agent's edits and runs as they happen.

- `rooms`: the server's collaboration API (does it have one; a notebook's document session; its room's websocket);
- `sync`, `text`, `cells`: no I/O: what the server holds of a document (y-sync state vectors), a text
  change by the span that differs, the notebook schema read as nbformat and edits applied to it by cell id;
- `document`: one notebook's shared document, kept in sync (joined again after a drop), edits confirmed, and the
  agents working in it in its room's awareness;
- `presence`, `lobby`: the agent as a collaborator JupyterLab shows (no I/O), and the server's global awareness room;
- `contents`: `JupyterContents`, the Contents of a Jupyter server: shared documents, or files without collaboration;
- `sessions`: `SessionKernels`, the notebooks' JupyterLab session kernels.
"""
