"""State that many workers share (docs/guides/scale-out.md): tasks, run outputs and image links kept on Redis.

Without `--state-url` none of this is imported: each worker keeps its state in its own memory (sdk/tasks.py
TaskStore, output_links.py OutputStore, images.py ImageStore), with the same interface.
"""

DEADLINE_S = 2.0  # one exchange with the store (--state-timeout): a store slower than this is treated as lost
