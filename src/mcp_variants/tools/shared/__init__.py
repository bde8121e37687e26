"""What the tools share: what a tool is (spec), the notebook, cell and run helpers, and the
projectors of the result shapes several tools have (executions, tables, messages)."""
