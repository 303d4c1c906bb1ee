"""recipes-site: vLLM serving recipes (YAML) -> validated catalog -> sizing -> commands -> site + JSON API."""

__version__ = "0.1.0"
