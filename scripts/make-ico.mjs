// Builds every Windows .ico from the PNG artwork (`node scripts/make-ico.mjs`); the outputs are committed
// (assets/icon.ico, assets/tray/tray-<state>.ico). Each holds 16, 20, 24, 32, 48, 64 and 256 px: the
// tray's icon at 100/125/150/200/300/400 % scaling, Explorer's and the installer's larger ones. Sources:
// assets/icon.png (1024 px) for the app and build/icons/tray-<state>-256.png (drawn by make-icons.mjs)
// for the tray. Plain Node: no ImageMagick at build time.
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { decodePng, encodeIco, resizeRgba } from "./ico.mjs";

export const ICO_SIZES = [16, 20, 24, 32, 48, 64, 256];
export const TRAY_STATES = ["connected", "offline", "attention", "elevated", "elevated-attention"];

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

/** Every committed .ico and the PNG it is made from (paths from the repository root). */
export const ICO_SOURCES = [
  { source: "assets/icon.png", target: "assets/icon.ico" },
  ...TRAY_STATES.map((state) => ({
    source: `build/icons/tray-${state}-256.png`,
    target: `assets/tray/tray-${state}.ico`,
  })),
];

/** The .ico bytes for a square PNG of at least 256 px. */
export function icoFromPng(png, name = "the PNG") {
  const image = decodePng(png);
  if (image.width !== image.height) throw new Error(`${name} is not square`);
  if (image.width < Math.max(...ICO_SIZES)) throw new Error(`${name} is smaller than 256 px`);
  return encodeIco(ICO_SIZES.map((size) => resizeRgba(image, size)));
}

function writeIco(source, target) {
  const ico = icoFromPng(readFileSync(path.join(root, source)), source);
  writeFileSync(path.join(root, target), ico);
  console.log(`${target}: ${ICO_SIZES.join("/")} px from ${source} (${ico.length} bytes)`);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  for (const { source, target } of ICO_SOURCES) writeIco(source, target);
}
