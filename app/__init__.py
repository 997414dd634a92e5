"""PlayCoder Workbench: test GUI programs by playing them."""

__version__ = "0.1.0"
