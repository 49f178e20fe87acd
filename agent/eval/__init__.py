"""The Friday/Monday evaluation: how well each memory mode remembers a developer."""
