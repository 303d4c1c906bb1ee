"""Views of synthesized renderings: JSON documents (api.py) and HTML pages. Never decisions."""
