// PNG decoding, area-average resizing and ICO encoding in plain Node (zlib only), for scripts/make-ico.mjs
// and the tests that read the committed icons back. ICO entries below 256 px are 32-bit BMPs (what every
// Windows API, NSIS and rcedit accept); the 256 px entry is a PNG (Windows Vista and later).
import zlib from "node:zlib";

const PNG_SIGNATURE = Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]);

function crc32(buf) {
  let crc = 0xffffffff;
  for (let n = 0; n < buf.length; n++) {
    let c = (crc ^ buf[n]) & 0xff;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    crc = (crc >>> 8) ^ c;
  }
  return (crc ^ 0xffffffff) >>> 0;
}

function chunk(type, data) {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const typed = Buffer.concat([Buffer.from(type, "latin1"), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(typed));
  return Buffer.concat([len, typed, crc]);
}

const CHANNELS = { 0: 1, 2: 3, 4: 2, 6: 4 };

/** Decodes an 8-bit, non-interlaced greyscale/RGB(A) PNG into { width, height, rgba }. */
export function decodePng(buf) {
  if (!buf.subarray(0, 8).equals(PNG_SIGNATURE)) throw new Error("not a PNG file");
  let offset = 8;
  let header = null;
  const idat = [];
  while (offset < buf.length) {
    const length = buf.readUInt32BE(offset);
    const type = buf.toString("latin1", offset + 4, offset + 8);
    const data = buf.subarray(offset + 8, offset + 8 + length);
    if (type === "IHDR") {
      header = {
        width: data.readUInt32BE(0),
        height: data.readUInt32BE(4),
        depth: data[8],
        colorType: data[9],
        interlace: data[12],
      };
    } else if (type === "IDAT") idat.push(data);
    else if (type === "IEND") break;
    offset += 12 + length;
  }
  if (!header) throw new Error("PNG without IHDR");
  const channels = CHANNELS[header.colorType];
  if (header.depth !== 8 || !channels || header.interlace !== 0) {
    throw new Error(
      `unsupported PNG (depth ${header.depth}, colour type ${header.colorType}, interlace ${header.interlace})`,
    );
  }
  const { width, height } = header;
  const raw = zlib.inflateSync(Buffer.concat(idat));
  const stride = width * channels;
  const pixels = Buffer.alloc(stride * height);
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)];
    const line = raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1));
    for (let x = 0; x < stride; x++) {
      const a = x >= channels ? pixels[y * stride + x - channels] : 0;
      const b = y > 0 ? pixels[(y - 1) * stride + x] : 0;
      const c = x >= channels && y > 0 ? pixels[(y - 1) * stride + x - channels] : 0;
      let value = line[x];
      if (filter === 1) value += a;
      else if (filter === 2) value += b;
      else if (filter === 3) value += (a + b) >> 1;
      else if (filter === 4) {
        const p = a + b - c;
        const pa = Math.abs(p - a);
        const pb = Math.abs(p - b);
        const pc = Math.abs(p - c);
        value += pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
      } else if (filter !== 0) throw new Error(`bad PNG filter ${filter}`);
      pixels[y * stride + x] = value & 0xff;
    }
  }
  const rgba = Buffer.alloc(width * height * 4);
  for (let i = 0; i < width * height; i++) {
    const s = i * channels;
    const [r, g, b, a] =
      channels === 4
        ? [pixels[s], pixels[s + 1], pixels[s + 2], pixels[s + 3]]
        : channels === 3
          ? [pixels[s], pixels[s + 1], pixels[s + 2], 255]
          : channels === 2
            ? [pixels[s], pixels[s], pixels[s], pixels[s + 1]]
            : [pixels[s], pixels[s], pixels[s], 255];
    rgba.set([r, g, b, a], i * 4);
  }
  return { width, height, rgba };
}

/** Encodes RGBA pixels as a PNG (filter None, deflate). */
export function encodePng(width, height, rgba) {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8;
  ihdr[9] = 6;
  const raw = Buffer.alloc(height * (width * 4 + 1));
  for (let y = 0; y < height; y++)
    rgba.copy(raw, y * (width * 4 + 1) + 1, y * width * 4, (y + 1) * width * 4);
  return Buffer.concat([
    PNG_SIGNATURE,
    chunk("IHDR", ihdr),
    chunk("IDAT", zlib.deflateSync(raw, { level: 9 })),
    chunk("IEND", Buffer.alloc(0)),
  ]);
}

/**
 * Resizes a square image to `size` × `size` by area averaging in premultiplied alpha (each target pixel
 * is the coverage-weighted mean of the source pixels under it): no fringes around transparent edges.
 */
export function resizeRgba(image, size) {
  const { width, height, rgba } = image;
  const out = Buffer.alloc(size * size * 4);
  const sx = width / size;
  const sy = height / size;
  for (let ty = 0; ty < size; ty++) {
    const y0 = ty * sy;
    const y1 = y0 + sy;
    for (let tx = 0; tx < size; tx++) {
      const x0 = tx * sx;
      const x1 = x0 + sx;
      let r = 0;
      let g = 0;
      let b = 0;
      let a = 0;
      let area = 0;
      for (let y = Math.floor(y0); y < Math.ceil(y1); y++) {
        const wy = Math.min(y + 1, y1) - Math.max(y, y0);
        for (let x = Math.floor(x0); x < Math.ceil(x1); x++) {
          const w = (Math.min(x + 1, x1) - Math.max(x, x0)) * wy;
          const i = (y * width + x) * 4;
          const alpha = rgba[i + 3] / 255;
          r += rgba[i] * alpha * w;
          g += rgba[i + 1] * alpha * w;
          b += rgba[i + 2] * alpha * w;
          a += alpha * w;
          area += w;
        }
      }
      const o = (ty * size + tx) * 4;
      out[o] = a > 0 ? Math.round(r / a) : 0;
      out[o + 1] = a > 0 ? Math.round(g / a) : 0;
      out[o + 2] = a > 0 ? Math.round(b / a) : 0;
      out[o + 3] = Math.round((a / area) * 255);
    }
  }
  return { width: size, height: size, rgba: out };
}

/** A 32-bit BMP icon image: BITMAPINFOHEADER, bottom-up BGRA rows, an all-clear AND mask. */
function dibEntry(image) {
  const { width, height, rgba } = image;
  const header = Buffer.alloc(40);
  header.writeUInt32LE(40, 0);
  header.writeInt32LE(width, 4);
  header.writeInt32LE(height * 2, 8); // XOR image + AND mask
  header.writeUInt16LE(1, 12);
  header.writeUInt16LE(32, 14);
  header.writeUInt32LE(0, 16); // BI_RGB
  const pixels = Buffer.alloc(width * height * 4);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const s = (y * width + x) * 4;
      const d = ((height - 1 - y) * width + x) * 4;
      pixels[d] = rgba[s + 2];
      pixels[d + 1] = rgba[s + 1];
      pixels[d + 2] = rgba[s];
      pixels[d + 3] = rgba[s + 3];
    }
  }
  const maskStride = Math.ceil(width / 32) * 4;
  const mask = Buffer.alloc(maskStride * height);
  header.writeUInt32LE(pixels.length + mask.length, 20);
  return Buffer.concat([header, pixels, mask]);
}

/** An ICO file holding each image (square, 1–256 px). */
export function encodeIco(images) {
  const sorted = [...images].sort((p, q) => p.width - q.width);
  const datas = sorted.map((image) =>
    image.width >= 256 ? encodePng(image.width, image.height, image.rgba) : dibEntry(image),
  );
  const header = Buffer.alloc(6);
  header.writeUInt16LE(0, 0);
  header.writeUInt16LE(1, 2);
  header.writeUInt16LE(sorted.length, 4);
  const directory = Buffer.alloc(16 * sorted.length);
  let offset = header.length + directory.length;
  sorted.forEach((image, i) => {
    const o = i * 16;
    directory[o] = image.width >= 256 ? 0 : image.width;
    directory[o + 1] = image.height >= 256 ? 0 : image.height;
    directory.writeUInt16LE(1, o + 4);
    directory.writeUInt16LE(32, o + 6);
    directory.writeUInt32LE(datas[i].length, o + 8);
    directory.writeUInt32LE(offset, o + 12);
    offset += datas[i].length;
  });
  return Buffer.concat([header, directory, ...datas]);
}

/** The entries of an ICO file: size, bits per pixel and whether the image is PNG or BMP. */
export function readIcoEntries(buf) {
  if (buf.readUInt16LE(0) !== 0 || buf.readUInt16LE(2) !== 1) throw new Error("not an ICO file");
  const count = buf.readUInt16LE(4);
  const entries = [];
  for (let i = 0; i < count; i++) {
    const o = 6 + i * 16;
    const size = buf[o] || 256;
    const length = buf.readUInt32LE(o + 8);
    const offset = buf.readUInt32LE(o + 12);
    const data = buf.subarray(offset, offset + length);
    const format = data.subarray(0, 8).equals(PNG_SIGNATURE) ? "png" : "bmp";
    const pixelSize = format === "png" ? data.readUInt32BE(16) : data.readInt32LE(4);
    entries.push({ size, pixelSize, bitsPerPixel: buf.readUInt16LE(o + 6), format, length: data.length });
  }
  return entries;
}

/** The images of an ICO file as { size, rgba } (BMP rows turned top-down, PNGs decoded). */
export function readIcoImages(buf) {
  const count = buf.readUInt16LE(4);
  const images = [];
  for (let i = 0; i < count; i++) {
    const o = 6 + i * 16;
    const data = buf.subarray(buf.readUInt32LE(o + 12), buf.readUInt32LE(o + 12) + buf.readUInt32LE(o + 8));
    if (data.subarray(0, 8).equals(PNG_SIGNATURE)) {
      const image = decodePng(data);
      images.push({ size: image.width, rgba: image.rgba });
      continue;
    }
    const width = data.readInt32LE(4);
    const height = data.readInt32LE(8) / 2;
    const rgba = Buffer.alloc(width * height * 4);
    for (let y = 0; y < height; y++) {
      for (let x = 0; x < width; x++) {
        const s = 40 + ((height - 1 - y) * width + x) * 4;
        rgba.set([data[s + 2], data[s + 1], data[s], data[s + 3]], (y * width + x) * 4);
      }
    }
    images.push({ size: width, rgba });
  }
  return images;
}
