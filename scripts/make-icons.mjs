// Draws the app and tray icons (a gatehouse arch) as PNG files in assets/, and 256 px tray masters in
// build/icons/ from which scripts/make-ico.mjs builds the Windows .ico files. Run both by hand
// (`node scripts/make-icons.mjs && node scripts/make-ico.mjs`) when the artwork changes; the outputs
// are committed.
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import zlib from "node:zlib";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

function crc32(buf) {
  let c,
    crc = 0xffffffff;
  for (let n = 0; n < buf.length; n++) {
    c = (crc ^ buf[n]) & 0xff;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    crc = (crc >>> 8) ^ c;
  }
  return (crc ^ 0xffffffff) >>> 0;
}
function chunk(type, data) {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const td = Buffer.concat([Buffer.from(type), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(td));
  return Buffer.concat([len, td, crc]);
}
function png(size, rgba) {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(size, 0);
  ihdr.writeUInt32BE(size, 4);
  ihdr[8] = 8;
  ihdr[9] = 6;
  ihdr[10] = 0;
  ihdr[11] = 0;
  ihdr[12] = 0;
  const raw = Buffer.alloc(size * (size * 4 + 1));
  for (let y = 0; y < size; y++) {
    raw[y * (size * 4 + 1)] = 0;
    rgba.copy(raw, y * (size * 4 + 1) + 1, y * size * 4, (y + 1) * size * 4);
  }
  return Buffer.concat([
    Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]),
    chunk("IHDR", ihdr),
    chunk("IDAT", zlib.deflateSync(raw)),
    chunk("IEND", Buffer.alloc(0)),
  ]);
}
// Shape in unit coordinates (0..1): an arch (rectangle with a round top) with a door cut out,
// and an optional badge dot at the top right.
// `wide`: the door takes most of the arch — the gate wide open, for elevated mode (everything passes).
function inArch(x, y, wide = false) {
  const left = 0.16,
    right = 0.84,
    bottom = 0.92,
    cx = 0.5,
    r = (right - left) / 2,
    top = 0.12 + r;
  const outer =
    (x >= left && x <= right && y >= top && y <= bottom) ||
    (y < top && (x - cx) ** 2 + (y - top) ** 2 <= r * r);
  const dl = wide ? 0.28 : 0.38,
    dr = wide ? 0.72 : 0.62,
    dtop = wide ? 0.42 : 0.5,
    dcx = 0.5,
    dr2 = (dr - dl) / 2;
  const door =
    (x >= dl && x <= dr && y >= dtop && y <= bottom + 0.01) ||
    (y < dtop && (x - dcx) ** 2 + (y - dtop) ** 2 <= dr2 * dr2);
  return outer && !door;
}
function inBadge(x, y) {
  return (x - 0.8) ** 2 + (y - 0.2) ** 2 <= 0.18 ** 2;
}

function draw(size, { color, badge = null, background = null, wide = false }) {
  const buf = Buffer.alloc(size * size * 4);
  const ss = 4;
  for (let py = 0; py < size; py++)
    for (let px = 0; px < size; px++) {
      let archCov = 0,
        badgeCov = 0,
        bgCov = 0;
      for (let sy = 0; sy < ss; sy++)
        for (let sx = 0; sx < ss; sx++) {
          const x = (px + (sx + 0.5) / ss) / size,
            y = (py + (sy + 0.5) / ss) / size;
          if (badge && inBadge(x, y)) badgeCov++;
          else if (inArch(x, y, wide)) archCov++;
          if (background && (x - 0.5) ** 2 + (y - 0.5) ** 2 <= 0.5 ** 2) bgCov++;
        }
      const n = ss * ss,
        o = (py * size + px) * 4;
      const layers = [];
      if (background) layers.push([background, bgCov / n]);
      layers.push([color, archCov / n]);
      if (badge) layers.push([badge, badgeCov / n]);
      let r = 0,
        g = 0,
        b = 0,
        a = 0;
      for (const [[cr, cg, cb], ca] of layers) {
        const na = ca + a * (1 - ca);
        if (na > 0) {
          r = (cr * ca + r * a * (1 - ca)) / na;
          g = (cg * ca + g * a * (1 - ca)) / na;
          b = (cb * ca + b * a * (1 - ca)) / na;
        }
        a = na;
      }
      buf[o] = Math.round(r);
      buf[o + 1] = Math.round(g);
      buf[o + 2] = Math.round(b);
      buf[o + 3] = Math.round(a * 255);
    }
  return png(size, buf);
}

const out = (p, data, folder = "assets") => {
  const f = path.join(root, folder, p);
  mkdirSync(path.dirname(f), { recursive: true });
  writeFileSync(f, data);
};
const black = [0, 0, 0],
  green = [46, 160, 67],
  grey = [128, 128, 128],
  orange = [230, 126, 34],
  white = [255, 255, 255],
  blue = [37, 99, 235],
  red = [220, 38, 38];
// macOS menubar: template images (black + alpha); the OS tints them. Attention adds a dot.
// Elevated mode opens the door wide (a shape, since a template cannot use colour).
for (const [name, badge, wide] of [
  ["trayTemplate", null, false],
  ["trayAttentionTemplate", black, false],
  ["trayElevatedTemplate", null, true],
  ["trayElevatedAttentionTemplate", black, true],
]) {
  out(`tray/${name}.png`, draw(16, { color: black, badge, wide }));
  out(`tray/${name}@2x.png`, draw(32, { color: black, badge, wide }));
}
// Windows / Linux: coloured state icons; elevated mode is red with the door wide open.
for (const [state, color, badge, wide] of [
  ["connected", green, null, false],
  ["offline", grey, null, false],
  ["attention", green, orange, false],
  ["elevated", red, null, true],
  ["elevated-attention", red, orange, true],
]) {
  out(`tray/tray-${state}.png`, draw(16, { color, badge, wide }));
  out(`tray/tray-${state}@2x.png`, draw(32, { color, badge, wide }));
  out(`icons/tray-${state}-256.png`, draw(256, { color, badge, wide }), "build");
}
// App icon: white arch on a blue disc.
out("icon.png", draw(1024, { color: white, background: blue }));
console.log("icons written to assets/ and build/icons/; now run node scripts/make-ico.mjs");
