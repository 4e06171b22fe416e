// Budgets on everything the backend sends (issue 18): one guard where backend frames enter, before
// anything parses, walks or validates them. A Socket.IO frame is text: its JSON part is measured in
// one linear pass (length, nesting, number of values) without recursion; a frame over budget never
// reaches JSON.parse, zod, the handlers or an ack reader. Instead the handlers get a `RejectedFrame`
// in place of the payload (so an event with an ack is answered with an error at once) and an ack
// waiter gets one in place of the reply (so a heartbeat counts as failed).
import type { Socket } from "socket.io-client";

export interface FrameBudget {
  /** Characters of one frame's JSON text. */
  maxChars: number;
  /** Nesting of arrays and objects. Every later recursive walk (zod, JSON.stringify) stays shallow. */
  maxDepth: number;
  /** Values in one frame (array elements and object members, containers included). */
  maxValues: number;
}

export const DEFAULT_FRAME_BUDGET: FrameBudget = {
  maxChars: 16 * 1024 * 1024,
  maxDepth: 64,
  maxValues: 200_000,
};

/**
 * The WebSocket's own message limit (bytes) for a budget: large enough that a frame just over the budget
 * still arrives whole, so the guard can answer its ack with a refusal at once (issue 30: a 30 MB field
 * got no answer because the socket dropped it unread and the backend waited out its call timeout); a
 * frame of `maxChars` characters is at most 3 bytes each in UTF-8. Beyond this limit the socket closes
 * and the runner reconnects: memory stays bounded whatever the backend sends.
 */
export function transportLimitBytes(budget: FrameBudget): number {
  return 3 * budget.maxChars + 64 * 1024;
}

/** Stands in for a payload or ack reply that broke the budget; never produced by JSON. */
export class RejectedFrame {
  constructor(readonly reason: string) {
    Object.freeze(this);
  }
}

export function isRejectedFrame(value: unknown): value is RejectedFrame {
  return value instanceof RejectedFrame;
}

/** Why `json` breaks the budget, or null. One pass, constant memory, no parsing. */
export function jsonTextProblem(json: string, budget: FrameBudget = DEFAULT_FRAME_BUDGET): string | null {
  if (json.length > budget.maxChars) return `larger than ${budget.maxChars} characters`;
  let depth = 0;
  let values = 1;
  let inString = false;
  for (let i = 0; i < json.length; i++) {
    const c = json.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: the next character is escaped
      else if (c === 0x22) inString = false;
      continue;
    }
    if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      // [ {
      if (++depth > budget.maxDepth) return `nested deeper than ${budget.maxDepth} levels`;
      values++;
    } else if (c === 0x5d || c === 0x7d) depth--;
    else if (c === 0x2c && ++values > budget.maxValues) return `more than ${budget.maxValues} values`;
  }
  return null;
}

// Socket.IO packet types (socket.io-parser protocol 5).
const CONNECT = 0;
const EVENT = 2;
const ACK = 3;
const CONNECT_ERROR = 4;
const BINARY_EVENT = 5;
const BINARY_ACK = 6;

interface FrameHeader {
  type: number;
  nsp: string;
  id?: number;
  /** Where the JSON part starts. */
  json: number;
}

/** The header of a text frame, read the way socket.io-parser reads it; null when it is not one. */
export function frameHeader(frame: string): FrameHeader | null {
  const type = frame.charCodeAt(0) - 0x30;
  if (!(type >= CONNECT && type <= BINARY_ACK)) return null;
  let i = 1;
  if (type === BINARY_EVENT || type === BINARY_ACK) {
    const dash = frame.indexOf("-", i);
    if (dash < 0 || dash - i > 4) return null;
    i = dash + 1;
  }
  let nsp = "/";
  if (frame.charAt(i) === "/") {
    const comma = frame.indexOf(",", i);
    const end = comma < 0 ? frame.length : comma;
    nsp = frame.slice(i, end);
    i = comma < 0 ? frame.length : comma + 1;
  }
  const header: FrameHeader = { type, nsp, json: i };
  let digits = i;
  while (
    digits < frame.length &&
    digits - i < 16 &&
    frame.charCodeAt(digits) >= 0x30 &&
    frame.charCodeAt(digits) <= 0x39
  )
    digits++;
  if (digits > i) {
    header.id = Number(frame.slice(i, digits));
    header.json = digits;
  }
  return header;
}

/** The event name at the start of an event frame's JSON (`["name", …`), when it is short and plain. */
function leadingEventName(json: string): string | null {
  const match = /^\[\s*"((?:[^"\\]|\\.){1,200})"/.exec(json.slice(0, 512));
  if (!match) return null;
  try {
    return JSON.parse(`"${match[1]}"`) as string;
  } catch {
    return null;
  }
}

/** Events Socket.IO keeps for itself: a frame naming one is malformed. */
const RESERVED_EVENTS = new Set([
  "connect",
  "connect_error",
  "disconnect",
  "disconnecting",
  "newListener",
  "removeListener",
]);

/** The packet a handler or ack waiter sees in place of a frame over budget. */
function rejectedPacket(frame: string, header: FrameHeader, reason: string): Record<string, unknown> {
  const rejected = new RejectedFrame(`the backend sent a message ${reason}`);
  const base = { nsp: header.nsp, ...(header.id !== undefined && { id: header.id }) };
  switch (header.type) {
    case EVENT:
    case BINARY_EVENT: {
      const name = leadingEventName(frame.slice(header.json)) ?? "(unnamed event)";
      if (RESERVED_EVENTS.has(name)) throw new Error(`reserved event name in a backend frame: ${name}`);
      return { ...base, type: EVENT, data: [name, rejected] };
    }
    case ACK:
    case BINARY_ACK:
      return { ...base, type: ACK, data: [rejected] };
    case CONNECT_ERROR:
      return { ...base, type: CONNECT_ERROR, data: { message: `Backend refusal ${reason}` } };
    default:
      // A handshake frame over budget: Socket.IO closes the connection ("parse error").
      throw new Error(`backend frame ${reason}`);
  }
}

interface FrameDecoder {
  add(frame: unknown): void;
  emitReserved(event: "decoded", packet: unknown): void;
}

/**
 * Puts the budget in front of a client's packet decoder. Must run before `connect()`. Throws when the
 * client has no decoder to guard (a client that cannot be guarded is never connected).
 */
export function guardBackendFrames(socket: Socket, budget: FrameBudget = DEFAULT_FRAME_BUDGET): void {
  const manager = (socket as unknown as { io?: { decoder?: FrameDecoder } }).io;
  const decoder = manager?.decoder;
  if (!decoder || typeof decoder.add !== "function" || typeof decoder.emitReserved !== "function") {
    throw new Error("The Socket.IO client has no packet decoder to guard");
  }
  const decode = decoder.add.bind(decoder);
  decoder.add = (frame: unknown) => {
    // Binary attachments are bounded by the transport's maxPayload; their JSON part came first.
    if (typeof frame !== "string") return decode(frame);
    const header = frameHeader(frame);
    const problem = header ? jsonTextProblem(frame.slice(header.json), budget) : null;
    if (!header || !problem) return decode(frame);
    decoder.emitReserved("decoded", rejectedPacket(frame, header, problem));
  };
}

/** A backend-supplied text made short enough for a status line, a log or an ack. */
export function shortText(text: string, max = 500): string {
  if (text.length <= max) return text;
  const head = text.slice(0, max);
  return `${/[\uD800-\uDBFF]$/.test(head) ? head.slice(0, -1) : head}… (${text.length} characters)`;
}
