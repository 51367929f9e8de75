"""Reading a user's file: the checks every loader makes before parsing, in the same words.

Scenarios and saves both refuse a missing file, a directory, an oversized file
and binary data with one sentence naming the file, before any parsing starts.
"""

from __future__ import annotations

from pathlib import Path

from .errors import FireplanError

__all__ = ["read_user_text"]


def read_user_text(path: Path, *, what: str, max_bytes: int, error: type[FireplanError] = FireplanError) -> str:
    """The UTF-8 text of ``path``, a ``what`` (e.g. "scenario file") of at most ``max_bytes``."""
    try:
        size = path.stat().st_size
    except FileNotFoundError:
        raise error(f"{path}: no such file.") from None
    except OSError as problem:
        raise error(f"{path}: cannot be read ({problem.strerror}).") from None
    if not path.is_file():
        raise error(f"{path}: expected a {what}, got a directory or device.")
    if size > max_bytes:
        raise error(f"{path}: expected a {what} of at most {max_bytes // 1_000_000} MB, got {size / 1e6:.1f} MB.")
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise error(f"{path}: expected a {what} (UTF-8 JSON text), got binary data.") from None
    except OSError as problem:
        raise error(f"{path}: cannot be read ({problem.strerror}).") from None
