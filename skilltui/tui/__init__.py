"""The Textual interface. The only package of skilltui that imports Textual."""
