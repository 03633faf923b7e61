from skilltui.cli import run

run()
