"""The templates' jinja code (render/precompiled.py). Generated: do not edit."""
