"""``make docs-screenshots``: the rendered pages as a reader's browser shows them, for checking that wide diagrams
and tables stay legible.

Headless Chromium (``apt-get install chromium``) loads each page of the built HTML (``make docs`` first) at a
laptop's width and writes a full-height PNG per page into ``docs/_build/screenshots/``. Look at them: a state diagram
shrunk until its labels are unreadable, or a table cut off at the column's edge, is a defect of the page.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Final

DOCS: Final = Path(__file__).resolve().parent
PAGES: Final = ("index", "queue", "cache", "cycle", "conformance", "kubernetes", "contract/cache", "contract/queue",
                "compatibility")
"""The pages with the widest content: state diagrams, the divergence table, the contract tables, the matrix."""
BROWSERS: Final = ("chromium", "chromium-browser", "google-chrome")


def browser() -> str:
    """The Chromium binary; fails with ``SystemExit`` (one line) when none is installed."""
    for name in BROWSERS:
        found = shutil.which(name)
        if found is not None:
            return found
    raise SystemExit(f"docs-screenshots: no Chromium found (tried {', '.join(BROWSERS)}): apt-get install chromium")


def screenshot(chromium: str, page: Path, out: Path, width: int, height: int) -> None:
    """One page as a PNG of ``width`` x ``height`` CSS pixels; fails with ``SystemExit`` naming the page."""
    done = subprocess.run([chromium, "--headless=new", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                           f"--window-size={width},{height}", f"--screenshot={out}", page.as_uri()],
                          capture_output=True, text=True, timeout=120)
    if done.returncode != 0 or not out.is_file():
        raise SystemExit(f"docs-screenshots: {page}: chromium failed ({done.returncode}): {done.stderr[-500:]}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--html", type=Path, default=DOCS / "_build" / "html", help="built HTML (default: %(default)s)")
    parser.add_argument("--out", type=Path, default=DOCS / "_build" / "screenshots", help="PNG directory")
    parser.add_argument("--width", type=int, default=1280, help="window width in CSS pixels (default %(default)s)")
    parser.add_argument("--height", type=int, default=4000, help="window height (default %(default)s)")
    parser.add_argument("pages", nargs="*", default=list(PAGES), help="pages, without .html (default: the widest)")
    args = parser.parse_args(argv)
    chromium = browser()
    args.out.mkdir(parents=True, exist_ok=True)
    for name in args.pages:
        page = args.html / f"{name}.html"
        if not page.is_file():
            raise SystemExit(f"docs-screenshots: {page} does not exist: run `make docs` first")
        out = args.out / f"{name.replace('/', '-')}.png"
        screenshot(chromium, page, out, args.width, args.height)
        print(out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
