#!/usr/bin/env python3
"""Regenerate screenshots/*.svg of every screen on the demo (and PNG when cairosvg or rsvg-convert is available).

    python scripts/screenshots.py            # all scenes
    python scripts/screenshots.py budget     # only the named scenes

The scenes are the snapshot tests' (skilltui/tui/tour.py): the same keys, sizes and demo folder.
"""

from __future__ import annotations

import asyncio
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from skilltui.tui import tour  # noqa: E402


async def shoot(scene: tour.Scene, out: Path) -> Path:
    app = tour.make_app()
    async with app.run_test(size=scene.size) as pilot:
        await tour.play(pilot, scene.keys)
        svg = app.export_screenshot(title=f"skilltui — {scene.title}")
    path = out / f"{scene.name}.svg"
    path.write_text(svg, encoding="utf-8")
    return path


PNG_FONT = "DejaVu Sans Mono"  # the SVG asks for Fira Code from the web; a converter needs a local monospace font


def to_png(svg: Path) -> Path | None:
    png = svg.with_suffix(".png")
    text = svg.read_text(encoding="utf-8").replace("Fira Code", PNG_FONT)
    try:
        import cairosvg  # type: ignore[import-not-found]

        cairosvg.svg2png(bytestring=text.encode("utf-8"), write_to=str(png))
        return png
    except ImportError:
        pass
    except Exception as exc:  # a converter that fails must not stop the SVGs
        print(f"  cairosvg failed: {exc}", file=sys.stderr)
    if shutil.which("rsvg-convert"):
        result = subprocess.run(["rsvg-convert", "-o", str(png)], input=text.encode("utf-8"), capture_output=True)
        if result.returncode == 0:
            return png
        print(f"  rsvg-convert failed: {result.stderr.decode(errors='replace').strip()}", file=sys.stderr)
    return None


def main(argv: list[str]) -> int:
    wanted = set(argv)
    scenes = [s for s in tour.SCENES if not wanted or s.name in wanted]
    unknown = wanted - {s.name for s in tour.SCENES}
    if unknown:
        print(f"unknown scene(s): {', '.join(sorted(unknown))}; known: {', '.join(s.name for s in tour.SCENES)}",
              file=sys.stderr)
        return 2
    out = ROOT / "screenshots"
    out.mkdir(exist_ok=True)
    for scene in scenes:
        svg = asyncio.run(shoot(scene, out))
        png = to_png(svg)
        print(f"{svg.relative_to(ROOT)}" + (f"  {png.relative_to(ROOT)}" if png else ""))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
