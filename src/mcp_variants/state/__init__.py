"""State that many workers share (docs/guides/scale-out.md): tasks and run outputs kept on Redis.

Without `--state-url` none of this is imported: each worker keeps its state in its own memory (sdk/tasks.py
TaskStore, output_links.py OutputStore), with the same interface.
"""
