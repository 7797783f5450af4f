#!/usr/bin/env python3
"""Generate src/generated/image-manifest.json from public/img.

For every source image ``public/img/<key>.<ext>`` the build expects resized
variants named ``<key>.<width>.webp``. The manifest maps each key to the
largest variant not wider than TARGET_WIDTH, with its dimensions, so that
ProductGrid.tsx can render images without layout shift.

Run automatically by ``npm run build``.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
IMG_DIR = ROOT / "public" / "img"
OUT = ROOT / "src" / "generated" / "image-manifest.json"
TARGET_WIDTH = 640
VARIANT = re.compile(r"^(?P<key>[a-z0-9-]+)\.(?P<width>\d+)\.webp$")


def collect_variants(img_dir: Path) -> dict[str, list[int]]:
    variants: dict[str, list[int]] = {}
    for path in sorted(img_dir.glob("*.webp")):
        m = VARIANT.match(path.name)
        if not m:
            continue
        variants.setdefault(m["key"], []).append(int(m["width"]))
    return variants


def pick_width(widths: list[int]) -> int:
    fitting = [w for w in widths if w <= TARGET_WIDTH]
    return max(fitting) if fitting else min(widths)


def build_manifest(img_dir: Path) -> dict[str, dict[str, object]]:
    manifest: dict[str, dict[str, object]] = {}
    for key, widths in collect_variants(img_dir).items():
        width = pick_width(widths)
        # Product photos are square; non-square images are rejected upstream.
        manifest[key] = {"src": f"/img/{key}.{width}.webp", "width": width, "height": width}
    return manifest


def main() -> int:
    if not IMG_DIR.is_dir():
        print(f"no image directory at {IMG_DIR}; writing empty manifest", file=sys.stderr)
        manifest: dict[str, dict[str, object]] = {}
    else:
        manifest = build_manifest(IMG_DIR)
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    print(f"wrote {len(manifest)} entries to {OUT.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
