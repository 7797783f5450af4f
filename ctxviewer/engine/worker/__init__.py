"""What an upstream worker's model session starts with: Claude Code's project memory and the task's prompt.

See docs/worker-window.md.
"""
