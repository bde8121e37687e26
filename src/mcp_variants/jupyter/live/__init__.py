"""Live notebooks: a Jupyter server's real-time collaboration (jupyter-collaboration), the shared
documents JupyterLab itself edits, so a person sees the agent's edits and runs as they happen.

- `rooms`: the server's collaboration API (does it have one; a notebook's document session; its room's websocket);
- `sync`, `text_spans`: no I/O: what the server holds of a document (y-sync state vectors), a text change by the span that differs;
- `as_nbformat`, `frozen`, `kept_cells`, `cell_ids`, `apply`, `running`: no I/O: the notebook schema read as nbformat, its
  cells frozen for readers to share, kept from one read to the next, found by id, an edit's difference applied by cell id,
  a run's outputs written as they come;
- `edits`: what the contents do with a shared document however it is reached (`NotebookEdits`);
- `connection`, `document`, `confirmation`, `room_presence`: a room joined over a websocket (joined again after a drop);
  one notebook's shared document on it; its edits confirmed by barriers; the agents working in it in the room's awareness;
- `presence`, `lobby`: the agent as a collaborator JupyterLab shows (no I/O), and the server's global awareness room;
- `contents`: `JupyterContents`, the Contents of a Jupyter server: shared documents, or files without collaboration;
- `sessions`: `SessionKernels`, the notebooks' JupyterLab session kernels.
"""
